// The public header first: it includes this one at its end, after what this one uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_SETUP_HPP
#define FASTREAD_CSV_DETAIL_SETUP_HPP

/// @file
/// What the entry points of csv.hpp share: options checked and turned into a dialect, the
/// missing-value spellings, the header and the field count, and the wording of errors.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../result.hpp"
#include "reader.hpp"

namespace fastread::detail {

/// The dialect of `o`, or the std::invalid_argument error of options that contradict each
/// other.
inline result<csv_dialect> csv_dialect_of(const csv::options& o) {
    auto bad = [](const std::string& what) {
        return invalid_argument_value("csv::options: " + what);
    };
    if (o.delimiter == '\n' || o.delimiter == '\r' || o.delimiter == 0) {
        return bad("the delimiter cannot be LF, CR or 0");
    }
    if (o.quote == '\n' || o.quote == '\r' || (o.quote != 0 && o.quote == o.delimiter)) {
        return bad("the quote cannot be LF, CR or the delimiter");
    }
    if (o.escape != 0 &&
        (o.escape == '\n' || o.escape == '\r' || o.escape == o.delimiter || o.escape == o.quote)) {
        return bad("the escape cannot be LF, CR, the delimiter or the quote");
    }
    if (o.comment != 0 && (o.comment == '\n' || o.comment == '\r' || o.comment == o.delimiter ||
                           o.comment == o.quote || o.comment == o.escape)) {
        return bad("the comment byte cannot be LF, CR, the delimiter, the quote or the escape");
    }
    if (o.max_field_bytes == 0 || o.max_fields == 0) {
        return bad("max_field_bytes and max_fields must be at least 1");
    }
    csv_dialect d;
    d.delimiter = o.delimiter;
    d.quote = o.quote;
    d.escape = o.escape;
    d.comment = o.comment;
    d.trim = o.trim;
    d.strict = o.strict;
    d.max_field_bytes = o.max_field_bytes;
    d.max_fields = o.max_fields;
    return d;
}

/// The missing-value spellings, looked up by first byte and length first: a field is
/// compared only with spellings of its first byte and length (a number starting with 1 or -
/// is not compared with pandas' `1.#QNAN` or `-NaN` unless it is as long).
class csv_missing {
  public:
    explicit csv_missing(const std::vector<std::string>& spellings) : spellings_(spellings) {
        for (const std::string& s : spellings_) {
            if (s.empty()) {
                empty_ = true;
            } else {
                lengths_[static_cast<unsigned char>(s[0])] |= length_bit(s.size());
            }
        }
    }
    [[gnu::always_inline]] bool has(std::string_view field) const noexcept {
        if (field.empty()) {
            return empty_;
        }
        if ((lengths_[static_cast<unsigned char>(field[0])] & length_bit(field.size())) == 0) {
            return false;
        }
        for (const std::string& s : spellings_) {
            if (s.size() == field.size() && same(s.data(), field.data(), s.size())) {
                return true;
            }
        }
        return false;
    }

  private:
    // Whether the n bytes at a and b are equal: a loop inlined (a spelling is short; memcmp's
    // call was most of a check that a field like `NOC` is not `N/A`).
    static bool same(const char* a, const char* b, std::size_t n) noexcept {
        for (std::size_t i = 0; i < n; ++i) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }
    // Bit n for length n below 31; bit 31 for any longer.
    static constexpr std::uint32_t length_bit(std::size_t n) noexcept {
        return std::uint32_t{1} << (n < 31 ? n : 31);
    }

    std::vector<std::string> spellings_;
    bool empty_ = false;
    std::uint32_t lengths_[256] = {}; // by first byte: the lengths of its spellings
};

/// Where a problem is: enough to word the error.
struct csv_place {
    std::uint64_t offset = 0;
    std::uint64_t line = 0; ///< physical, 1-based
    std::uint64_t row = 0;  ///< 1-based after the header; 0: the header
    std::size_t column = 0; ///< 0-based; SIZE_MAX: none
};

/// The error `<file>: byte <offset>: line <l>, row <r>, column <c> ("<name>"): <reason>`.
inline error csv_error(errc code, const csv_place& at, const std::string& reason,
                       const std::string& file, const std::vector<std::string>& names) {
    std::string where = "line " + std::to_string(at.line);
    where += at.row == 0 ? ", the header" : ", row " + std::to_string(at.row);
    std::optional<std::uint64_t> column;
    if (at.column != SIZE_MAX) {
        column = at.column + 1;
        where += ", column " + std::to_string(at.column + 1);
        if (at.column < names.size()) {
            where += " (\"" + names[at.column] + "\")";
        }
    }
    error e = parse_error_value(at.offset, where + ": " + reason, file, code);
    return error(e.code(), e.message(), e.path(), e.offset(), at.line, column);
}

/// The error of a failure the reader reported, at row `row` (1-based after the header).
inline error csv_reader_error(const csv_reader& r, std::uint64_t row, const std::string& file,
                              const std::vector<std::string>& names) {
    const csv_failure& f = r.failure();
    return csv_error(f.code, {r.failure_offset(), r.failure_line(), row, f.field}, f.reason, file,
                     names);
}

/// A field shown in a message: quoted, cut after 40 bytes.
inline std::string csv_shown(std::string_view field) {
    std::string s = "\"";
    s.append(field.substr(0, 40));
    if (field.size() > 40) {
        s += "...";
    }
    s += '"';
    return s;
}

/// The error of a record of `got` fields where `want` were expected.
inline error csv_count_error(const csv_reader& r, std::uint64_t row, std::size_t got,
                             std::size_t want, bool header, const std::string& file,
                             const std::vector<std::string>& names) {
    return csv_error(errc::wrong_column_count, {r.offset(), r.line(), row, SIZE_MAX},
                     "a row of " + std::to_string(got) + " fields, the " +
                         (header ? "header has " : "first row has ") + std::to_string(want),
                     file, names);
}

/// The header of the input (names, or none), read after `skip_lines`, and the field count
/// every row must have (0: not known until the first row).
struct csv_head {
    std::vector<std::string> names;
    std::size_t fields = 0;
};

/// Reads the skipped lines and the header of `r` as `o` says; the error of a malformed
/// header or a read error.
inline result<csv_head> csv_read_head(csv_reader& r, const csv::options& o,
                                      const std::string& file) {
    csv_head head;
    r.skip_lines(o.skip_lines);
    if (const fastread::error* e = r.read_error()) {
        return *e;
    }
    if (!o.header) {
        return head;
    }
    const csv_step step = r.next();
    if (const fastread::error* e = r.read_error()) {
        return *e;
    }
    if (step == csv_step::failed) {
        return csv_reader_error(r, 0, file, head.names);
    }
    if (step == csv_step::record) {
        head.names.assign(r.fields().begin(), r.fields().end());
        head.fields = head.names.size();
    }
    return head;
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_SETUP_HPP
