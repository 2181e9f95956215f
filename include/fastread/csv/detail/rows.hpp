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
            const csv_fields& f = reader->fields();
            if (head.fields == 0) {
                head.fields = f.size();
            }
            const std::string_view* fields = f.begin();
            std::size_t count = f.size();
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
                fields = padded.data();
                count = padded.size();
            }
            ++number;
            current.fields_ = fields;
            current.size_ = count;
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
    if (const result<options> settled = detail::settle_call(o); !settled) {
        return settled.error();
    }
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
