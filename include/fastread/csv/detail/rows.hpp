// The public header first: it includes this one at its end, after what this one uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_ROWS_HPP
#define FASTREAD_CSV_DETAIL_ROWS_HPP

/// @file
/// csv::rows and csv::row (declared in fastread::csv, included by csv.hpp): the records of
/// delimited text one at a time, each a view of its fields, in constant memory.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../detail/call_setup.hpp"
#include "../../detail/input_file.hpp"
#include "../../error.hpp"
#include "../../source/detail/file_stream.hpp"
#include "setup.hpp"

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
    std::size_t size() const noexcept { return fields_->size(); }
    /// Field `i` (0-based); a precondition: i < size().
    std::string_view operator[](std::size_t i) const noexcept { return (*fields_)[i]; }
    /// Field `i`. @throws std::out_of_range when i >= size().
    std::string_view at(std::size_t i) const {
        if (i >= size()) {
            throw std::out_of_range("csv::row::at: field " + std::to_string(i) + " of a row of " +
                                    std::to_string(size()));
        }
        return (*fields_)[i];
    }
    /// The field of the column named `name` in the header (O(columns): for a hot loop, find
    /// its index once with rows::column()).
    /// @throws std::out_of_range when the header has no such name (or there is no header).
    std::string_view operator[](std::string_view name) const {
        for (std::size_t i = 0; i < names_->size(); ++i) {
            if ((*names_)[i] == name) {
                return i < size() ? (*fields_)[i] : std::string_view();
            }
        }
        throw std::out_of_range("csv::row: no column named \"" + std::string(name) + "\"");
    }
    /// The fields, in order.
    auto begin() const noexcept { return fields_->begin(); }
    auto end() const noexcept { return fields_->end(); }
    /// The physical line (1-based) the record starts on.
    std::uint64_t line() const noexcept { return line_; }
    /// The byte offset of its first byte in the input.
    std::uint64_t offset() const noexcept { return offset_; }
    /// Its number: 1 for the first record after the header.
    std::uint64_t number() const noexcept { return number_; }

  private:
    friend struct detail::csv_rows_state;
    const std::vector<std::string_view>* fields_ = nullptr;
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

namespace fastread::detail {

/// A rows range's state, on the heap so that the range moves.
struct csv_rows_state {
    std::unique_ptr<csv_input> input;
    std::unique_ptr<input_file> file;    // a path's file
    std::unique_ptr<file_stream> stream; // its stream
    std::unique_ptr<csv_reader> reader;
    csv::options options;
    csv_head head;
    std::string file_name;
    std::vector<std::string_view> padded; // a short record filled (ragged_rows::fill)
    csv::row current;
    std::uint64_t number = 0;
    std::uint64_t skipped = 0;
    fastread::error failure;
    bool reporting = false;
    bool started = false;
    bool done = false;

    // The setup after the input is there: the header read; its error, or none.
    fastread::error start(csv_dialect d) {
        reader = std::make_unique<csv_reader>(d, *input);
        result<csv_head> h = csv_read_head(*reader, options, file_name);
        if (!h) {
            return h.error();
        }
        head = std::move(*h);
        current.names_ = &head.names;
        return {};
    }

    // The next row into `current`; false at the end or on an error (kept in `failure`).
    bool next() {
        for (;;) {
            const csv_step step = reader->next();
            if (const fastread::error* e = reader->read_error()) {
                failure = *e;
                return false;
            }
            if (step == csv_step::end) {
                return false;
            }
            if (step == csv_step::failed) {
                failure = csv_reader_error(*reader, number + 1, file_name, head.names);
                return false;
            }
            const std::vector<std::string_view>& f = reader->fields();
            if (head.fields == 0) {
                head.fields = f.size();
            }
            const std::vector<std::string_view>* fields = &f;
            if (f.size() != head.fields && options.ragged != csv::ragged_rows::keep) {
                if (options.ragged == csv::ragged_rows::skip) {
                    ++skipped;
                    continue;
                }
                if (options.ragged == csv::ragged_rows::error || f.size() > head.fields) {
                    failure = csv_count_error(*reader, number + 1, f.size(), head.fields,
                                              options.header, file_name, head.names);
                    return false;
                }
                padded.assign(f.begin(), f.end());
                padded.resize(head.fields);
                fields = &padded;
            }
            ++number;
            current.fields_ = fields;
            current.line_ = reader->line();
            current.offset_ = reader->offset();
            current.number_ = number;
            return true;
        }
    }
};

} // namespace fastread::detail

namespace fastread::csv {

inline rows::rows(std::unique_ptr<detail::csv_rows_state> s) noexcept : state_(std::move(s)) {}
inline rows::~rows() = default;

inline const row& rows::iterator::operator*() const noexcept {
    return range_->state_->current;
}

inline bool rows::advance() {
    detail::csv_rows_state& s = *state_;
    if (s.done) {
        return false;
    }
    if (!s.next()) {
        s.done = true;
        if (s.failure.code() && !s.reporting) {
            detail::value_or_throw(result<void>(s.failure));
        }
        return false;
    }
    return true;
}

inline rows::iterator rows::begin() {
    if (state_->started) {
        return iterator(state_->done ? nullptr : this);
    }
    state_->started = true;
    return iterator(advance() ? this : nullptr);
}

inline const std::vector<std::string>& rows::header() const noexcept {
    return state_->head.names;
}

inline std::optional<std::size_t> rows::column(std::string_view name) const noexcept {
    const std::vector<std::string>& n = state_->head.names;
    for (std::size_t i = 0; i < n.size(); ++i) {
        if (n[i] == name) {
            return i;
        }
    }
    return std::nullopt;
}

inline std::uint64_t rows::skipped() const noexcept {
    return state_->skipped;
}
inline const fastread::error& rows::error() const noexcept {
    return state_->failure;
}

template <byte_source Source>
result<rows> try_rows(Source& source, const options& o) {
    result<detail::csv_dialect> d = detail::csv_dialect_of(o);
    if (!d) {
        return d.error();
    }
    auto s = std::make_unique<detail::csv_rows_state>();
    s->options = o;
    s->reporting = true;
    s->file_name = detail::source_name(source);
    s->input = std::make_unique<detail::csv_source_input<Source>>(source);
    if (fastread::error e = s->start(*d); e.code()) {
        return e;
    }
    return rows(std::move(s));
}

inline result<rows> try_rows(const std::filesystem::path& path, const options& o) {
    const result<options> settled = detail::settle_call(o);
    if (!settled) {
        return settled.error();
    }
    result<detail::csv_dialect> d = detail::csv_dialect_of(o);
    if (!d) {
        return d.error();
    }
    result<detail::input_file> opened = detail::input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    auto s = std::make_unique<detail::csv_rows_state>();
    s->options = o;
    s->reporting = true;
    s->file_name = path.string();
    s->file = std::make_unique<detail::input_file>(std::move(*opened));
    result<detail::file_stream> stream = detail::stream_file(*s->file);
    if (!stream) {
        return stream.error();
    }
    s->stream = std::make_unique<detail::file_stream>(std::move(*stream));
    s->input = std::make_unique<detail::csv_source_input<detail::file_stream>>(*s->stream);
    if (fastread::error e = s->start(*d); e.code()) {
        return e;
    }
    return rows(std::move(s));
}

template <byte_source Source>
requires(!std::is_same_v<std::remove_cvref_t<Source>, rows>) rows::rows(Source& source,
                                                                        const options& o)
    : rows(detail::value_or_throw(try_rows(source, o))) {
    state_->reporting = false;
}

inline rows::rows(const std::filesystem::path& path, const options& o)
    : rows(detail::value_or_throw(try_rows(path, o))) {
    state_->reporting = false;
}

} // namespace fastread::csv

#endif // FASTREAD_CSV_DETAIL_ROWS_HPP
