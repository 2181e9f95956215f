#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_CSV_READ_HPP)
#define FASTREAD_CSV_READ_HPP

/// @file
/// csv::read: delimited text whose layout the caller does not know, as a csv::table of
/// named columns whose types are inferred from every value (not from a sample), the dialect
/// found by csv::sniff; UTF-8 (a BOM skipped), UTF-16 with a BOM, or Latin-1 when asked.
///
/// ```
/// fastread::csv::table t = fastread::csv::read("trips.csv");
/// for (const auto& c : t.columns()) std::printf("%s: %s\n", c.name().c_str(),
/// to_string(c.type()).c_str()); std::span<const double> fare = t["fare_amount"].values<double>();
/// ```

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sniff.hpp"

namespace fastread::detail {
struct csv_table_builder;
}

namespace fastread::csv {

/// The text encoding of the input.
enum class encoding : unsigned char {
    automatic, ///< UTF-8 (a BOM skipped), or UTF-16 LE or BE where its BOM says so
    latin1,    ///< ISO 8859-1: each byte one code point, transcoded to UTF-8
};

/// A column whose type the caller fixes, by its header name.
struct column_type {
    std::string name;
    csv::type type = csv::type::text;
};

/// How csv::read reads.
struct read_options {
    /// Whether the delimiter, quote and header are found by csv::sniff (the default); else
    /// `csv`'s are used as they are.
    bool sniff = true;
    /// The rest of the reading: the missing-value spellings, `ragged`, `trim`, `strict`, the
    /// limits, `io`, `threads` (and, without `sniff`, the dialect). By default a row shorter
    /// than the header gets missing values (ragged_rows::fill, as pandas reads it); a longer
    /// one is an error.
    csv::options csv = [] {
        csv::options o;
        o.ragged = csv::ragged_rows::fill;
        return o;
    }();
    /// Columns whose type is fixed, not inferred: a value that does not convert is an error
    /// naming its row and column; integers and doubles then read leading zeros (`007` is 7).
    std::vector<column_type> types = {};
    /// The columns read (header names or 0-based indices), in this order; empty: all. The
    /// others are not converted.
    std::vector<column_key> select = {};
    /// The input's encoding.
    csv::encoding encoding = csv::encoding::automatic;
    /// Whether the (transcoded) input is checked to be valid UTF-8 first: the first invalid
    /// byte is an errc::invalid_data_byte error with its offset, line and column (the byte's,
    /// 1-based in its line). Costs one more pass over the input.
    bool validate_utf8 = false;
};

/// One column of a csv::table: its name, its type, and one value per row (a placeholder
/// where missing(i): 0, NaN, the epoch, or empty text).
class column {
  public:
    /// The header's name (no BOM in it), or `column_N` (1-based) without a header.
    const std::string& name() const noexcept { return name_; }
    /// The type: the narrowest that keeps every value of the column exactly (text where
    /// every value is missing), or the one fixed by read_options::types.
    csv::type type() const noexcept { return type_; }
    /// The rows.
    std::size_t size() const noexcept { return size_; }
    /// Whether row `i` (< size()) is missing (one of options::missing).
    bool missing(std::size_t i) const noexcept { return !missing_.empty() && missing_[i] != 0; }
    /// The missing rows' count.
    std::size_t missing_count() const noexcept { return missed_; }

    /// The values as `T`: bool, std::int64_t, double, std::chrono::sys_days,
    /// std::chrono::sys_time<std::chrono::nanoseconds> or std::string_view for the types
    /// boolean, int64, float64, date, timestamp and text (views valid while the table
    /// lives). O(1), but for text the first call, which makes the views (16 bytes a row;
    /// text() has the bytes without them); thread-safe.
    /// @throws std::invalid_argument naming the column and its type when `T` is another's.
    template <class T>
    std::span<const T> values() const {
        if constexpr (std::is_same_v<T, bool>) {
            check(csv::type::boolean, "bool");
            return {bools_.get(), size_};
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
            check(csv::type::int64, "std::int64_t");
            return ints_;
        } else if constexpr (std::is_same_v<T, double>) {
            check(csv::type::float64, "double");
            return doubles_;
        } else if constexpr (std::is_same_v<T, std::chrono::sys_days>) {
            check(csv::type::date, "std::chrono::sys_days");
            return days_;
        } else if constexpr (std::is_same_v<T, std::chrono::sys_time<std::chrono::nanoseconds>>) {
            check(csv::type::timestamp, "std::chrono::sys_time<std::chrono::nanoseconds>");
            return stamps_;
        } else {
            static_assert(std::is_same_v<T, std::string_view>,
                          "csv::column::values<T>: T is bool, std::int64_t, double, "
                          "std::chrono::sys_days, std::chrono::sys_time<std::chrono::nanoseconds> "
                          "or std::string_view");
            check(csv::type::text, "std::string_view");
            return views();
        }
    }

    /// The text of a text column's values, flat (csv::text_column).
    /// @throws std::invalid_argument when the column is not text.
    const text_column& text() const {
        check(csv::type::text, "csv::text_column");
        return text_;
    }

    ///@{
    /// Moves the column (its views stay valid); not copyable. Not to be moved while
    /// another thread reads it.
    column() = default;
    column(column&& o) noexcept { *this = std::move(o); }
    column& operator=(column&& o) noexcept {
        name_ = std::move(o.name_);
        type_ = o.type_;
        size_ = o.size_;
        missed_ = o.missed_;
        missing_ = std::move(o.missing_);
        bools_ = std::move(o.bools_);
        ints_ = std::move(o.ints_);
        doubles_ = std::move(o.doubles_);
        days_ = std::move(o.days_);
        stamps_ = std::move(o.stamps_);
        text_ = std::move(o.text_);
        views_ = std::move(o.views_);
        views_made_.store(o.views_made_.load(std::memory_order_relaxed), std::memory_order_relaxed);
        return *this;
    }
    column(const column&) = delete;
    column& operator=(const column&) = delete;
    ///@}

  private:
    friend struct detail::csv_table_builder;
    // The text column's views, made at the first call (0: not yet, 1: being made by a
    // thread, which the others wait for, 2: made).
    std::span<const std::string_view> views() const {
        if (views_made_.load(std::memory_order_acquire) != 2) [[unlikely]] {
            unsigned char expected = 0;
            if (views_made_.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
                views_.reserve(text_.size());
                for (const std::string_view v : text_) {
                    views_.push_back(v);
                }
                views_made_.store(2, std::memory_order_release);
            } else {
                while (views_made_.load(std::memory_order_acquire) != 2) {
                }
            }
        }
        return views_;
    }
    void check(csv::type t, const char* asked) const {
        if (t != type_) {
            detail::throw_error(fastread::error(make_error_code(errc::invalid_argument),
                                                "csv::column::values<" + std::string(asked) +
                                                    ">: column \"" + name_ + "\" is of type " +
                                                    to_string(type_)));
        }
    }

    std::string name_;
    csv::type type_ = csv::type::text;
    std::size_t size_ = 0;
    std::size_t missed_ = 0;
    std::vector<std::uint8_t> missing_; // empty: none missing
    std::unique_ptr<bool[]> bools_;
    std::vector<std::int64_t> ints_;
    std::vector<double> doubles_;
    std::vector<std::chrono::sys_days> days_;
    std::vector<std::chrono::sys_time<std::chrono::nanoseconds>> stamps_;
    text_column text_;
    mutable std::vector<std::string_view> views_;
    mutable std::atomic<unsigned char> views_made_{0};
};

/// What csv::read returns: named columns of the same number of rows, and the dialect they
/// were read with.
class table {
  public:
    /// The rows (after the header).
    std::size_t rows() const noexcept { return rows_; }
    /// The columns, in the file's order (or read_options::select's).
    std::span<const column> columns() const noexcept { return columns_; }
    /// Their names, in that order.
    const std::vector<std::string>& column_names() const noexcept { return names_; }
    /// Column `i`. @throws std::out_of_range when i >= columns().size().
    const column& operator[](std::size_t i) const {
        if (i >= columns_.size()) {
            detail::throw_error(fastread::error(make_error_code(errc::out_of_range),
                                                "csv::table: column " + std::to_string(i) + " of " +
                                                    std::to_string(columns_.size())));
        }
        return columns_[i];
    }
    /// The first column named `name`. O(columns).
    /// @throws std::out_of_range when no column has that name.
    const column& operator[](std::string_view name) const {
        for (std::size_t i = 0; i < names_.size(); ++i) {
            if (names_[i] == name) {
                return columns_[i];
            }
        }
        detail::throw_error(
            fastread::error(make_error_code(errc::out_of_range),
                            "csv::table: no column named \"" + std::string(name) + "\""));
    }
    /// The dialect the input was read with (sniffed, or the options'; its columns: the
    /// table's names and types, every value counted).
    const csv::dialect& dialect() const noexcept { return dialect_; }

  private:
    friend struct detail::csv_table_builder;
    std::size_t rows_ = 0;
    std::vector<column> columns_;
    std::vector<std::string> names_;
    csv::dialect dialect_;
};

} // namespace fastread::csv

#include "detail/table.hpp"      // IWYU pragma: export
#include "detail/table_read.hpp" // IWYU pragma: export

namespace fastread::csv {

/// The delimited text of the file at `path` (a pipe or FIFO too) as a table: the dialect
/// sniffed from the input's head (csv::sniff) unless `o.sniff` is false, then every field
/// of the columns read converted to the narrowest type that keeps every value of its column
/// exactly (csv::infer_type's rules over the whole column: integers with leading zeros and
/// integers beyond 2^53 beside decimals stay text; a value that does not fit widens its
/// column, int64 to double, date to timestamp, anything else to text, and only that column
/// is converted again), or to its type in `o.types`. A big regular UTF-8 file in the page
/// cache is read in slices on threads, exact on quotes as csv::columns(path) is; the table
/// is the same for every thread count. UTF-16 (with a BOM), Latin-1 and pipes are read into
/// memory first (transcoded to UTF-8). Time O(input bytes); memory: the columns (8 bytes a
/// value, a text value's bytes and a view), and for the memory cases the input's bytes.
/// @returns the table, or the error: what csv::columns reports (offset, line, row, column)
///          for malformed input, a fixed type's value that does not convert, a name in
///          `select` or `types` not in the header (errc::invalid_argument); invalid UTF-8
///          (errc::invalid_data_byte, with `validate_utf8`) or UTF-16; the file's error.
inline result<table> try_read(const std::filesystem::path& path, const read_options& o = {}) {
    return detail::csv_read_path(path, o);
}

/// try_read of the bytes of `source` (any byte_source; read whole into memory first).
template <byte_source Source>
result<table> try_read(Source& source, const read_options& o = {}) {
    if (const result<options> settled = detail::settle_call(o.csv); !settled) {
        return settled.error();
    }
    detail::csv_source_input<Source> in(source);
    return detail::csv_read_input(in, o, detail::source_name(source));
}

/// try_read(path) that throws: parse_error (offset, line, column), std::system_error
/// naming the path, std::invalid_argument for a bad option or name.
inline table read(const std::filesystem::path& path, const read_options& o = {}) {
    return detail::value_or_throw(try_read(path, o));
}

/// try_read(source) that throws, as read(path) does and as the source throws.
template <byte_source Source>
table read(Source& source, const read_options& o = {}) {
    return detail::value_or_throw(try_read(source, o));
}

} // namespace fastread::csv

#endif // FASTREAD_CSV_READ_HPP
