#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_CSV_HPP)
#define FASTREAD_CSV_HPP

/// @file
/// `fastread::csv`: delimited text (CSV, TSV, any one-byte delimiter) as rows of field
/// views or as typed columns chosen by header name or index, from a file, a pipe or any
/// byte source.
///
/// ```
/// auto [fare, tip, vendor] = fastread::csv::columns<double, std::optional<double>, std::string>(
///     "trips.csv", {"fare_amount", "tip_amount", "vendor_id"});
/// for (const auto& row : fastread::csv::rows("reviews.csv")) { std::string_view t = row["text"]; }
/// ```
///
/// The rules (RFC 4180, read as Python's `csv` module reads it by default, its reader being
/// the reference of every quoting case; the same for every entry point, whole, in chunks or
/// in slices on threads):
/// - A record (row) ends at LF, CR LF or a lone CR outside quotes, or at the end of the
///   input. Blank lines are skipped (as pandas does; Python's `csv` gives them as rows of no
///   field), and so are lines that start with `comment`.
/// - Fields are separated by `delimiter`. A field that starts with `quote` is quoted: it runs
///   to the next quote that is not doubled; `""` inside it is one `"`; delimiters and line
///   ends inside it belong to it. With `escape` set, the byte after it is taken as text, in
///   quoted and unquoted fields.
/// - A quote inside an unquoted field (`ab"c`) is text; text after a closing quote
///   (`"ab"c`) is appended to the field (`abc`), as Python reads them; with `strict` both are
///   errors. A quoted field still open at the end of the input is an error naming the line
///   where it opened.
/// - A UTF-8 byte order mark (EF BB BF) at the start of the input is skipped, so it is not
///   part of the first header name (pandas#4793).
/// - With `header` (the default), the first record holds the column names. Every record has
///   as many fields as the header (or, without one, as the first record): `ragged` says what
///   else happens.
///
/// Errors are `parse_error`s (the `try_` forms' `error`) with the byte offset, the physical
/// line (1-based) and the column (1-based), and a message that names the row (1-based after
/// the header) and the column's name: `trips.csv: byte 1843: line 57, row 56, column 2
/// ("fare_amount"): "1.2.3" is not a number of type double`.

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "csv/text_column.hpp"
#include "io.hpp"
#include "result.hpp"
#include "source/byte_source.hpp"

namespace fastread::csv {

/// What happens to a record with another number of fields than the header's.
enum class ragged_rows {
    error, ///< a parse_error naming the row (the default)
    fill,  ///< a short record gets missing (empty) fields; a long one is still an error
    skip,  ///< the record is skipped and counted (rows::skipped())
    keep,  ///< no check: each row as it is (csv::columns: a field a short row lacks is missing)
};

/// How delimited text is read.
struct options {
    /// The byte between fields: ',' (CSV), '\t' (TSV), ';', '|'... Not a line end or a quote.
    char delimiter = ',';
    /// The byte that quotes a field (RFC 4180: '"'); 0: no quoting.
    char quote = '"';
    /// 0 (the default): a quote inside a quoted field is written twice, as RFC 4180 says.
    /// '\\' (or any byte): that byte makes the next one text, quoted field or not (doubled
    /// quotes still read as one).
    char escape = 0;
    /// Whether the first record holds the column names.
    bool header = true;
    /// Physical lines skipped at the start, whatever they hold (before the header).
    std::size_t skip_lines = 0;
    /// A byte that, at the start of a line, makes it a comment line (skipped); 0: none.
    char comment = 0;
    /// The field values that mean "no value" in a typed column (compared with the field's
    /// text after unquoting): by default the empty field and pandas' most common spellings.
    std::vector<std::string> missing = {"", "NA", "N/A", "NaN", "null", "NULL"};
    /// Whether spaces (and tabs, unless the delimiter is a tab) around fields are dropped.
    bool trim = false;
    /// A record with another field count than the header's: error, fill or skip.
    ragged_rows ragged = ragged_rows::error;
    /// Whether a quote inside an unquoted field, and text after a closing quote, are errors
    /// (Python's `strict`) instead of text.
    bool strict = false;
    /// The longest field, in bytes (`errc::over_limit` beyond it): what bounds memory on
    /// hostile input (a quote never closed).
    std::size_t max_field_bytes = std::size_t{64} << 20;
    /// The most fields in one record (`errc::over_limit` beyond it).
    std::size_t max_fields = std::size_t{1} << 20;
    /// Paths only: read (the default: `process_setting` reads unless `FASTREAD_IO=map`) or
    /// map the file (fastread/io.hpp). A mapped file is read on one thread.
    io_mode io = io_mode::process_setting;
    /// Paths only (csv::columns): the most threads the call uses, the calling thread
    /// included; 0: the process setting (fastread/threads.hpp). The result, and any error,
    /// is the same for every setting.
    unsigned threads = 0;
};

/// A column asked for: its header name or its 0-based index.
class column_key {
  public:
    ///@{
    /// The column named `name` in the header.
    column_key(std::string_view name) : name_(name), by_name_(true) {}
    column_key(const char* name) : name_(name), by_name_(true) {}
    column_key(const std::string& name) : name_(name), by_name_(true) {}
    ///@}
    /// The column at 0-based `index` (negative: std::invalid_argument when read).
    template <class I>
    requires std::is_integral_v<I> column_key(I index)
        : index_(index < 0 ? SIZE_MAX : static_cast<std::size_t>(index)) {}

    /// Whether the column is chosen by its name (else by its index).
    bool by_name() const noexcept { return by_name_; }
    /// The name (empty when chosen by index).
    const std::string& name() const noexcept { return name_; }
    /// The index (0 when chosen by name; SIZE_MAX for a negative one).
    std::size_t index() const noexcept { return index_; }

  private:
    std::string name_;
    std::size_t index_ = 0;
    bool by_name_ = false;
};

} // namespace fastread::csv

namespace fastread::detail {
struct csv_rows_state;
}

namespace fastread::csv {

class rows;

/// csv::rows(source) that reports errors as values: the header's error here, later errors
/// in rows::error() (the iteration ends there).
template <byte_source Source>
result<rows> try_rows(Source& source, const options& o = {});
/// csv::rows(path) that reports errors as values (see try_rows(source)).
result<rows> try_rows(const std::filesystem::path& path, const options& o = {});

/// One record: views of its fields (unquoted, doubled quotes made one), valid until the
/// range moves to the next record.
class row {
  public:
    /// The number of fields (with ragged_rows::fill, at least the header's).
    std::size_t size() const noexcept { return size_; }
    /// Field `i` (0-based); a precondition: i < size().
    std::string_view operator[](std::size_t i) const noexcept { return fields_[i]; }
    /// Field `i`. @throws std::out_of_range when i >= size().
    std::string_view at(std::size_t i) const {
        if (i >= size()) {
            detail::throw_error(fastread::error(make_error_code(errc::out_of_range),
                                                "csv::row::at: field " + std::to_string(i) +
                                                    " of a row of " + std::to_string(size())));
        }
        return fields_[i];
    }
    /// The field of the column named `name` in the header (O(columns): for a hot loop, find
    /// its index once with rows::column()).
    /// @throws std::out_of_range when the header has no such name (or there is no header).
    std::string_view operator[](std::string_view name) const {
        for (std::size_t i = 0; i < names_->size(); ++i) {
            if ((*names_)[i] == name) {
                return i < size() ? fields_[i] : std::string_view();
            }
        }
        detail::throw_error(
            fastread::error(make_error_code(errc::out_of_range),
                            "csv::row: no column named \"" + std::string(name) + "\""));
    }
    /// The fields, in order.
    const std::string_view* begin() const noexcept { return fields_; }
    const std::string_view* end() const noexcept { return fields_ + size_; }
    /// The physical line (1-based) the record starts on.
    std::uint64_t line() const noexcept { return line_; }
    /// The byte offset of its first byte in the input.
    std::uint64_t offset() const noexcept { return offset_; }
    /// Its number: 1 for the first record after the header.
    std::uint64_t number() const noexcept { return number_; }

  private:
    friend struct detail::csv_rows_state;
    const std::string_view* fields_ = nullptr;
    std::size_t size_ = 0;
    const std::vector<std::string>* names_ = nullptr;
    std::uint64_t line_ = 0;
    std::uint64_t offset_ = 0;
    std::uint64_t number_ = 0;
};

/// The records of delimited text, as a single-pass range of csv::row, read on the calling
/// thread through a bounded buffer (256 KiB, grown only for a longer record, up to the
/// field limits): a pipe of any length in constant memory.
///
/// ```
/// for (const auto& row : fastread::csv::rows("reviews.csv")) { std::string_view t = row["text"]; }
/// fastread::stdio_source in(stdin);
/// for (const auto& row : fastread::csv::rows(in, {.delimiter = '\t'})) { ... }
/// ```
///
/// The header (with options::header) is read by the constructor: header() is there before
/// the first row. Errors are thrown by the constructor, begin() or an increment (parse_error
/// with offset, line and column; std::system_error for the file; what a source throws),
/// after every row before them was handed out. A range made by try_rows throws none: an
/// error ends the iteration and is kept in error().
class rows {
  public:
    /// An input iterator over the rows.
    class iterator {
      public:
        ///@{
        /// The std::input_iterator members.
        using iterator_concept = std::input_iterator_tag;
        using value_type = row;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        const row& operator*() const noexcept;
        const row* operator->() const noexcept { return &**this; }
        iterator& operator++() {
            if (!range_->advance()) {
                range_ = nullptr;
            }
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
            return it.range_ == nullptr;
        }
        ///@}
      private:
        friend class rows;
        explicit iterator(rows* r) noexcept : range_(r) {}
        rows* range_ = nullptr;
    };

    /// The rows of the file at `path`, read with read(2) from one descriptor.
    /// @throws std::system_error naming the path; std::invalid_argument for contradictory
    ///         options; parse_error for a malformed header.
    explicit rows(const std::filesystem::path& path, const options& o = {});
    /// The rows of `source` (borrowed: it must outlive the range).
    /// @throws std::invalid_argument for contradictory options; parse_error for a malformed
    ///         header; what the source throws.
    template <byte_source Source>
    requires(!std::is_same_v<std::remove_cvref_t<Source>, rows>) explicit rows(
        Source& source, const options& o = {});
    ///@{
    /// Moves the range; not copyable.
    rows(rows&&) noexcept = default;
    rows& operator=(rows&&) noexcept = default;
    ~rows();
    ///@}

    /// Reads the first row; call once (single pass).
    iterator begin();
    /// The end of the rows.
    std::default_sentinel_t end() const noexcept { return {}; }
    /// The header's names (empty without one).
    const std::vector<std::string>& header() const noexcept;
    /// The index of the column named `name`, or nothing.
    std::optional<std::size_t> column(std::string_view name) const noexcept;
    /// With ragged_rows::skip: the records skipped so far for their field count.
    std::uint64_t skipped() const noexcept;
    /// Only in a range made by try_rows: the error that ended the iteration, or none.
    const fastread::error& error() const noexcept;

  private:
    template <byte_source Source>
    friend result<rows> try_rows(Source& source, const options& o);
    friend result<rows> try_rows(const std::filesystem::path& path, const options& o);
    explicit rows(std::unique_ptr<detail::csv_rows_state> s) noexcept;
    bool advance();

    std::unique_ptr<detail::csv_rows_state> state_;
};

} // namespace fastread::csv

// The implementation: the rows' state, the reading of columns (and their slices).
#include "csv/detail/columns.hpp" // IWYU pragma: export
#include "csv/detail/count.hpp"   // IWYU pragma: export
#include "csv/detail/rows.hpp"    // IWYU pragma: export

namespace fastread::csv {

/// The columns `keys` (header names or 0-based indices, one per type) of the delimited text
/// of `source` (any byte_source), read on the calling thread: one vector per column, in row
/// order, the field converted to its type. `T`: a standard integer type, float, double
/// (bit-identical to strtod), bool (true/false, True/False, TRUE/FALSE), std::string,
/// std::chrono::sys_days (an ISO 8601 date, `2024-01-31`),
/// std::chrono::sys_time<std::chrono::nanoseconds> (an ISO 8601 timestamp in UTC: a date,
/// 'T' or a space, `hh:mm:ss`, a fraction of up to 9 digits, 'Z' or an offset `+hh:mm`
/// converted to UTC, none read as UTC; a date alone is its midnight; years 1678 to 2261), or
/// std::optional of one of those, empty where the field is one of `options::missing`; or
/// csv::text, whose column is a text_column (the fields' bytes in one buffer) where the
/// others are a std::vector (column_of<T>).
/// @returns the columns, or the error: a missing value in a column that is not optional
///          (errc::missing_value), a field that does not convert (invalid_number,
///          number_out_of_range, invalid_date), a row of another field count (wrong_column_count),
///          an unclosed quote (malformed_input), each with offset, line, row and column; a name not
///          in the header or an index beyond it (errc::invalid_argument); a source's read error.
template <class... T, byte_source Source>
result<std::tuple<column_of<T>...>> try_columns(Source& source,
                                                const std::array<column_key, sizeof...(T)>& keys,
                                                const options& o = {}) {
    static_assert(sizeof...(T) > 0, "csv::columns needs at least one column type");
    static_assert((detail::is_csv_column<T> && ...),
                  "csv::columns reads integers, float, double, bool, std::string, "
                  "std::chrono::sys_days, std::chrono::sys_time<std::chrono::nanoseconds>, "
                  "std::optional of those, and csv::text");
    (detail::check_number_conversion<typename detail::csv_optional<T>::type>(), ...);
    detail::csv_source_input<Source> in(source);
    return detail::csv_columns_input<T...>(in, o, keys, detail::source_name(source));
}

/// The columns of `source` (see try_columns(source)).
/// @throws parse_error (offset, line, column); std::invalid_argument for a bad key or
///         options; what the source throws.
template <class... T, byte_source Source>
std::tuple<column_of<T>...>
columns(Source& source, const std::array<column_key, sizeof...(T)>& keys, const options& o = {}) {
    return detail::value_or_throw(try_columns<T...>(source, keys, o));
}

/// The columns `keys` of the delimited text in the file at `path` (see try_columns(source)
/// for the types and the errors; std::system_error's errno naming the path too). A big
/// regular file in the page cache, read (not mapped), is cut into one slice per thread (at
/// most `options::threads`) at record starts known from the quote parity of the bytes
/// before them, so a line end inside a quoted field never starts a record; each slice is
/// checked to end where the next starts, and read on from there on one thread if it does
/// not (a quote inside an unquoted field, a comment line with a quote), so the result and
/// any error are the same for every thread count. Time O(file size); memory: the columns,
/// plus a 256 KiB buffer per thread.
template <class... T>
result<std::tuple<column_of<T>...>> try_columns(const std::filesystem::path& path,
                                                const std::array<column_key, sizeof...(T)>& keys,
                                                const options& o = {}) {
    static_assert(sizeof...(T) > 0, "csv::columns needs at least one column type");
    static_assert((detail::is_csv_column<T> && ...),
                  "csv::columns reads integers, float, double, bool, std::string, "
                  "std::chrono::sys_days, std::chrono::sys_time<std::chrono::nanoseconds>, "
                  "std::optional of those, and csv::text");
    (detail::check_number_conversion<typename detail::csv_optional<T>::type>(), ...);
    return detail::csv_columns_file<T...>(path, o, keys);
}

/// The columns of the file at `path` (see try_columns(path)).
/// @throws parse_error (offset, line, column); std::system_error naming the path;
///         std::invalid_argument for a bad key or options.
template <class... T>
std::tuple<column_of<T>...> columns(const std::filesystem::path& path,
                                    const std::array<column_key, sizeof...(T)>& keys,
                                    const options& o = {}) {
    return detail::value_or_throw(try_columns<T...>(path, keys, o));
}

/// The rows of the delimited text of `source` (any byte_source), read on the calling thread:
/// what iterating csv::rows(source, o) would count (the header not counted; blank lines and
/// comments skipped; ragged rows as `o.ragged` says), without making the rows' fields.
/// Time O(input bytes); memory: the reader's buffer.
/// @returns the count, or the error csv::rows would throw at its row (offset, line, row:
///          an unclosed quote, a row of another field count), or the source's read error.
template <byte_source Source>
result<std::uint64_t> try_count_rows(Source& source, const options& o = {}) {
    const result<options> settled = detail::settle_call(o);
    if (!settled) {
        return settled.error();
    }
    result<detail::csv_dialect> d = detail::csv_dialect_of(*settled);
    if (!d) {
        return d.error();
    }
    detail::csv_source_input<Source> in(source);
    detail::csv_count_job job(*settled, *d);
    return detail::csv_job_input(in, *settled, *d, job, detail::source_name(source));
}

/// try_count_rows(source) that throws: parse_error (offset, line, column); std::invalid_argument
/// for bad options; what the source throws.
template <byte_source Source>
std::uint64_t count_rows(Source& source, const options& o = {}) {
    return detail::value_or_throw(try_count_rows(source, o));
}

/// The rows of the delimited text in the file at `path` (see try_count_rows(source); a big
/// regular file in the page cache counted in slices on threads, cut at record starts known
/// from the quote parity, as csv::columns(path) reads it: the count and any error are the
/// same for every thread count). Time O(file size); memory: a 256 KiB buffer per thread.
/// @returns the count, or the error (try_count_rows(source)'s, or the file's, naming the path).
inline result<std::uint64_t> try_count_rows(const std::filesystem::path& path,
                                            const options& o = {}) {
    const result<options> settled = detail::settle_call(o);
    if (!settled) {
        return settled.error();
    }
    result<detail::csv_dialect> d = detail::csv_dialect_of(*settled);
    if (!d) {
        return d.error();
    }
    detail::csv_count_job job(*settled, *d);
    return detail::csv_job_file(path, *settled, *d, job);
}

/// try_count_rows(path) that throws: parse_error (offset, line, column); std::system_error
/// naming the path; std::invalid_argument for bad options.
inline std::uint64_t count_rows(const std::filesystem::path& path, const options& o = {}) {
    return detail::value_or_throw(try_count_rows(path, o));
}

} // namespace fastread::csv

#endif // FASTREAD_CSV_HPP
