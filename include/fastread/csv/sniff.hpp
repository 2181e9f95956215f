#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_CSV_SNIFF_HPP)
#define FASTREAD_CSV_SNIFF_HPP

/// @file
/// csv::sniff: the dialect of delimited text found from its bytes (the delimiter, whether
/// the first row is a header, the line end, a BOM) and each column's name and type, for
/// files whose layout the caller does not know; csv::type and csv::infer_type, the types a
/// field's text fits.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "../csv.hpp"

namespace fastread::csv {

/// The type of a column whose type is inferred, narrowest first in each family.
enum class type : unsigned char {
    boolean,   ///< true/false, True/False, TRUE/FALSE: bool
    int64,     ///< a decimal integer in std::int64_t's range, without leading zeros
    float64,   ///< a number strtod reads (not an integer of the above)
    date,      ///< ISO 8601 `YYYY-MM-DD`: std::chrono::sys_days
    timestamp, ///< ISO 8601 date and time: std::chrono::sys_time<std::chrono::nanoseconds>
    text,      ///< anything else
};

/// The type's name as the issue tracker and tables show it: "bool", "int64", "double",
/// "date", "timestamp", "text".
inline std::string to_string(type t) {
    switch (t) {
    case type::boolean:
        return "bool";
    case type::int64:
        return "int64";
    case type::float64:
        return "double";
    case type::date:
        return "date";
    case type::timestamp:
        return "timestamp";
    case type::text:
        break;
    }
    return "text";
}

/// The narrowest type whose reading keeps the field's value exactly: bool, int64 (a sign and
/// digits without a leading zero, in range: `007` and `01234` are text, as ids and zip codes
/// are, and an integer beyond 64 bits is text, not a double that would round it), double
/// (strtod's syntax; a leading zero before another digit makes it text), date, timestamp
/// (csv::columns' syntax for those); else text. A missing value is the caller's to skip.
inline type infer_type(std::string_view f) noexcept {
    if (f.empty()) {
        return type::text;
    }
    if (bool b = false; detail::csv_convert(f, b) == errc{}) { // csv::columns<bool>'s spellings
        return type::boolean;
    }
    const char c = f[0];
    const bool sign = c == '-' || c == '+';
    // A leading zero before another digit: 007, 01234, 00.5 (kept as text if a number).
    const std::size_t d = sign ? 1 : 0;
    const bool leading_zero =
        f.size() > d + 1 && f[d] == '0' && static_cast<unsigned char>(f[d + 1] - '0') < 10;
    const bool digit = c >= '0' && c <= '9';
    // A date's or a timestamp's shape first (no number has digits then '-' at byte 4; a
    // field that only starts so goes on to the numbers).
    if (f.size() >= 10 && digit && f[4] == '-') {
        std::chrono::sys_days day{};
        if (detail::parse_csv_date(f, day)) {
            return type::date;
        }
        detail::csv_timestamp stamp{};
        if (detail::parse_csv_timestamp(f, stamp)) {
            return type::timestamp;
        }
    }
#if FASTREAD_HAS_FAST_FLOAT
    // A short decimal (18.40) from one word, as csv::read converts it: from a copy with room.
    if (f.size() <= 9) {
        char word[16] = {};
        std::memcpy(word, f.data(), f.size());
        double v = 0;
        if (detail::csv_short_decimal(std::string_view(word, f.size()), word + sizeof word, v)) {
            return leading_zero ? type::text : type::float64;
        }
    }
#endif
    if (digit || sign || c == '.' || c == 'i' || c == 'I' || c == 'n' || c == 'N') {
        std::int64_t i = 0;
        detail::number_status st = detail::number_status::invalid;
        const char* end = f.data() + f.size();
        if (detail::convert_integer(f.data(), end, i, st) == end) {
            return st == detail::number_status::ok && !leading_zero ? type::int64 : type::text;
        }
        double v = 0;
        if (detail::convert_floating(f.data(), end, v, st) == end &&
            st == detail::number_status::ok) {
            return leading_zero ? type::text : type::float64;
        }
    }
    return type::text;
}

/// The narrowest type that holds values of both types: itself for equal types, double for
/// int64 and double, timestamp for date and timestamp, else text.
constexpr type widen(type a, type b) noexcept {
    if (a == b) {
        return a;
    }
    const auto in = [&](type x, type y) { return (a == x && b == y) || (a == y && b == x); };
    if (in(type::int64, type::float64)) {
        return type::float64;
    }
    if (in(type::date, type::timestamp)) {
        return type::timestamp;
    }
    return type::text;
}

/// One column as csv::sniff found it.
struct column_info {
    std::string name;            ///< the header's (a BOM is never part of it), or "column_N"
    csv::type type = type::text; ///< over the sampled values (text where all were missing)
    std::uint64_t values = 0;    ///< sampled values that were not missing
    std::uint64_t missing = 0;   ///< sampled values that were (options::missing)
};

/// The encoding of the bytes of a table, as csv::sniff found it from their byte order mark.
enum class text_encoding : unsigned char {
    utf8,    ///< UTF-8, or ASCII (no BOM, or a UTF-8 BOM)
    utf16le, ///< UTF-16 little-endian (BOM FF FE): csv::read transcodes it to UTF-8
    utf16be, ///< UTF-16 big-endian (BOM FE FF): csv::read transcodes it to UTF-8
};

/// What csv::sniff found.
struct dialect {
    char delimiter = ','; ///< among , TAB ; | : and space
    char quote = '"';     ///< the quote byte of RFC 4180
    /// The escape byte (a backslash before a quote, as MySQL and PostgreSQL write it), or 0:
    /// none (doubled quotes only).
    char escape = 0;
    bool header = true; ///< whether the first row names the columns
    bool bom = false;   ///< whether the input starts with a byte order mark (of `encoding`)
    /// UTF-8, or UTF-16 where its BOM says so (the rest of the dialect is of its UTF-8
    /// transcoding, as csv::read reads it).
    text_encoding encoding = text_encoding::utf8;
    std::string line_end; ///< "\n", "\r\n" or "\r" (the first record's; "\n" if none)
    /// Physical lines before the table (a preamble: `# Data source: ...`): the leading
    /// lines of another field count than most records', when they are fewer than 20 (one
    /// field, or fewer fields than most records have).
    std::size_t skip_lines = 0;
    std::uint64_t sampled_rows = 0;  ///< the records read for it (the header's not counted)
    std::uint64_t sampled_bytes = 0; ///< the bytes they came from
    std::vector<column_info> columns;

    /// `base` with this dialect's delimiter, quote, escape, header and skip_lines.
    csv::options options(csv::options base = {}) const {
        base.delimiter = delimiter;
        base.quote = quote;
        base.escape = escape;
        base.header = header;
        base.skip_lines = skip_lines;
        return base;
    }
};

} // namespace fastread::csv

#include "detail/sniff.hpp" // IWYU pragma: export

namespace fastread::csv {

/// The dialect of the delimited text in `source` and its columns' names and types, from its
/// first MiB (or all of it): the delimiter among `,` TAB `;` `|` `:` and space (the one
/// that splits most records into the same number of fields, more than one; `,` where none
/// does), whether the first row is a header (a row whose values do not fit their columns'
/// types; where every column is text, a row of distinct non-empty names), the line end, the
/// encoding and a BOM (UTF-8, or UTF-16 LE or BE by its BOM, sniffed in its UTF-8
/// transcoding; a BOM is never part of a name), and each column's type (infer_type over its
/// sampled values, missing values being `o.missing`'s). Never fails on text that reads: one
/// column of text is a valid answer. Reads at most 1 MiB, O(sampled bytes) time per
/// delimiter.
/// @returns the dialect, or the source's read error; errc::invalid_argument for a bad process
///          setting (FASTREAD_IO, FASTREAD_THREADS), before anything is read;
///          errc::invalid_data_byte for UTF-16 with an unpaired surrogate in the bytes read,
///          at its byte offset.
template <byte_source Source>
result<dialect> try_sniff(Source& source, const options& o = {}) {
    if (const result<options> settled = detail::settle_call(o); !settled) {
        return settled.error();
    }
    detail::csv_source_input<Source> in(source);
    return detail::csv_sniff_input(in, o.missing);
}

/// try_sniff of the file at `path`; also an error where it does not open. A regular file
/// longer than its first MiB is also sampled after it, from 8 evenly spaced points, 64 KiB
/// at each, each from its first record start, found as csv::columns(path) cuts its slices:
/// where the head holds a quote byte, exactly (the quote bytes before each point are
/// counted, which reads the file once to the last point: a count of one byte, at memory
/// speed for a file in the page cache); else at the first line end after the point (a
/// file whose quotes start after its head may then give a sample from inside a quoted
/// field). Their values are typed with the head's: a column whose values change type after
/// the head is typed by all the samples. The dialect (delimiter, quote, header) is the
/// head's. UTF-16 is sniffed from its head.
inline result<dialect> try_sniff(const std::filesystem::path& path, const options& o = {}) {
    if (const result<options> settled = detail::settle_call(o); !settled) {
        return settled.error();
    }
    result<detail::input_file> opened = detail::input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    if (opened->sized() && !opened->head(detail::csv_sniff_bytes).empty()) {
        return detail::csv_sniff_file(*opened, o.missing);
    }
    result<detail::file_stream> stream = detail::stream_file(*opened);
    if (!stream) {
        return stream.error();
    }
    detail::csv_source_input<detail::file_stream> in(*stream);
    return detail::csv_sniff_input(in, o.missing);
}

/// try_sniff that throws: parse_error or std::system_error for a read error, as the
/// source throws.
template <byte_source Source>
dialect sniff(Source& source, const options& o = {}) {
    return detail::value_or_throw(try_sniff(source, o));
}

/// try_sniff(path) that throws std::system_error where the file does not open or read.
inline dialect sniff(const std::filesystem::path& path, const options& o = {}) {
    return detail::value_or_throw(try_sniff(path, o));
}

} // namespace fastread::csv

#endif // FASTREAD_CSV_SNIFF_HPP
