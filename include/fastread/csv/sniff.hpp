#ifndef FASTREAD_CSV_SNIFF_HPP
#define FASTREAD_CSV_SNIFF_HPP

/// @file
/// csv::sniff: the dialect of delimited text found from its bytes (the delimiter, whether
/// the first row is a header, the line end, a BOM) and each column's name and type, for
/// files whose layout the caller does not know; csv::type and csv::infer_type, the types a
/// field's text fits.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
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
    if (f == "true" || f == "True" || f == "TRUE" || f == "false" || f == "False" || f == "FALSE") {
        return type::boolean;
    }
    const char c = f[0];
    const bool sign = c == '-' || c == '+';
    // A leading zero before another digit: 007, 01234, 00.5 (kept as text if a number).
    const std::size_t d = sign ? 1 : 0;
    const bool leading_zero =
        f.size() > d + 1 && f[d] == '0' && static_cast<unsigned char>(f[d + 1] - '0') < 10;
    if ((c >= '0' && c <= '9') || sign || c == '.' || c == 'i' || c == 'I' || c == 'n' ||
        c == 'N') {
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
    if (f.size() >= 10 && c >= '0' && c <= '9') {
        std::chrono::sys_days day{};
        if (detail::parse_csv_date(f, day)) {
            return type::date;
        }
        detail::csv_timestamp stamp{};
        if (detail::parse_csv_timestamp(f, stamp)) {
            return type::timestamp;
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

/// What csv::sniff found.
struct dialect {
    char delimiter = ',';            ///< among , TAB ; | : and space
    char quote = '"';                ///< the quote byte of RFC 4180
    bool header = true;              ///< whether the first row names the columns
    bool bom = false;                ///< whether the input starts with a UTF-8 byte order mark
    std::string line_end;            ///< "\n", "\r\n" or "\r" (the first record's; "\n" if none)
    std::uint64_t sampled_rows = 0;  ///< the records read for it (the header's not counted)
    std::uint64_t sampled_bytes = 0; ///< the bytes they came from
    std::vector<column_info> columns;

    /// `base` with this dialect's delimiter, quote and header.
    csv::options options(csv::options base = {}) const {
        base.delimiter = delimiter;
        base.quote = quote;
        base.header = header;
        return base;
    }
};

} // namespace fastread::csv

namespace fastread::detail {

/// The bytes sniffed at most: the head of the input.
inline constexpr std::size_t csv_sniff_bytes = std::size_t{1} << 20;

/// The records of `sample` with delimiter `d`, at most `limit`: whole records only (a last
/// one cut by the sample's end is dropped unless `whole` says the sample is the input).
inline std::vector<std::vector<std::string>> csv_sniff_records(std::string_view sample, char d,
                                                               bool whole, std::size_t limit) {
    csv_dialect dialect;
    dialect.delimiter = d;
    csv_tokenizer tok(dialect);
    const char* p = sample.data();
    const char* const end = p + sample.size();
    tok.reset(p, end);
    std::vector<std::vector<std::string>> out;
    while (out.size() < limit) {
        const csv_step step = tok.parse(p, end, whole);
        if (step != csv_step::record) {
            break; // the end, a record cut by the sample's end, or malformed text
        }
        out.emplace_back(tok.fields().begin(), tok.fields().end());
        p = tok.next_record();
    }
    return out;
}

/// How well a delimiter splits `records`: the share of records with the most common field
/// count; 0 where that count is 1 (nothing split) or no more than half the records have it
/// (prose split at its spaces).
inline double csv_sniff_score(const std::vector<std::vector<std::string>>& records) {
    if (records.empty()) {
        return 0;
    }
    std::vector<std::size_t> counts;
    counts.reserve(records.size());
    for (const auto& r : records) {
        counts.push_back(r.size());
    }
    std::sort(counts.begin(), counts.end());
    std::size_t best = 0, best_count = 0;
    for (std::size_t i = 0; i < counts.size();) {
        std::size_t j = i;
        while (j < counts.size() && counts[j] == counts[i]) {
            ++j;
        }
        if (j - i > best) {
            best = j - i;
            best_count = counts[i];
        }
        i = j;
    }
    const double share = static_cast<double>(best) / static_cast<double>(records.size());
    return best_count > 1 && share > 0.5 ? share : 0;
}

/// csv::sniff of the first bytes of an input (`whole`: they are all of it).
inline csv::dialect csv_sniff_sample(std::string_view sample, bool whole, const csv::options& o) {
    csv::dialect out;
    if (sample.size() >= 3 && sample.substr(0, 3) == "\xEF\xBB\xBF") {
        out.bom = true;
        sample.remove_prefix(3);
    }
    constexpr std::size_t limit = 10000; // records sampled after the first
    std::vector<std::vector<std::string>> records;
    double best = -1;
    for (const char d : {',', '\t', ';', '|', ':', ' '}) {
        std::vector<std::vector<std::string>> r = csv_sniff_records(sample, d, whole, limit + 1);
        const double score = csv_sniff_score(r);
        if (score > best) { // ties: the earlier delimiter of the list
            best = score;
            out.delimiter = d;
            records = std::move(r);
        }
    }
    // The line end of the first record.
    const std::size_t nl = sample.find_first_of("\r\n");
    out.line_end = nl == std::string_view::npos     ? "\n"
                   : sample[nl] == '\n'             ? "\n"
                   : sample.substr(nl, 2) == "\r\n" ? "\r\n"
                                                    : "\r";
    std::size_t width = 0;
    for (const auto& r : records) {
        width = std::max(width, r.size());
    }
    const csv_missing missing(o.missing);
    // Each column's type over the records after the first; the first's fit.
    auto type_of = [&](std::size_t from, std::vector<std::uint64_t>& values,
                       std::vector<std::uint64_t>& missed) {
        std::vector<csv::type> types(width, csv::type::text);
        std::vector<bool> seen(width, false);
        values.assign(width, 0);
        missed.assign(width, 0);
        for (std::size_t i = from; i < records.size(); ++i) {
            for (std::size_t k = 0; k < width; ++k) {
                if (k >= records[i].size() || missing.has(records[i][k])) {
                    ++missed[k];
                    continue;
                }
                const csv::type t = csv::infer_type(records[i][k]);
                types[k] = seen[k] ? csv::widen(types[k], t) : t;
                seen[k] = true;
                ++values[k];
            }
        }
        return types;
    };
    std::vector<std::uint64_t> values, missed;
    const std::vector<csv::type> body = type_of(1, values, missed);
    // A header: a first row whose value does not fit its column's type somewhere; where
    // every column is text, a first row of distinct names, none empty (pandas' default).
    bool header = !records.empty();
    if (!records.empty()) {
        const std::vector<std::string>& first = records[0];
        bool typed = false, misfit = false;
        std::set<std::string> names;
        for (std::size_t k = 0; k < width; ++k) {
            const std::string f = k < first.size() ? first[k] : std::string();
            names.insert(f);
            if (body[k] != csv::type::text && values[k] != 0) {
                typed = true;
                misfit =
                    misfit || missing.has(f) || csv::widen(body[k], csv::infer_type(f)) != body[k];
            }
        }
        const bool plain_names =
            names.size() == width && std::none_of(first.begin(), first.end(),
                                                  [](const std::string& s) { return s.empty(); });
        header = typed ? misfit : plain_names;
    }
    out.header = header;
    const std::vector<csv::type> types = header ? body : type_of(0, values, missed);
    for (std::size_t k = 0; k < width; ++k) {
        csv::column_info c;
        c.name =
            header && k < records[0].size() ? records[0][k] : "column_" + std::to_string(k + 1);
        c.type = values[k] == 0 ? csv::type::text : types[k];
        c.values = values[k];
        c.missing = missed[k];
        out.columns.push_back(std::move(c));
    }
    out.sampled_rows = records.size() - (header && !records.empty() ? 1 : 0);
    out.sampled_bytes = sample.size() + (out.bom ? 3 : 0);
    return out;
}

/// Reads the head of `in` (up to csv_sniff_bytes) and sniffs it.
inline result<csv::dialect> csv_sniff_input(csv_input& in, const csv::options& o) {
    std::string head(csv_sniff_bytes, '\0');
    std::size_t got = 0;
    bool whole = false;
    while (got < head.size()) {
        const std::size_t n = in.read(head.data() + got, head.size() - got);
        if (n == 0) {
            whole = true;
            break;
        }
        got += n;
    }
    if (const fastread::error* e = in.read_error()) {
        return *e;
    }
    head.resize(got);
    return csv_sniff_sample(head, whole, o);
}

} // namespace fastread::detail

namespace fastread::csv {

/// The dialect of the delimited text in `source` and its columns' names and types, from its
/// first MiB (or all of it): the delimiter among `,` TAB `;` `|` `:` and space (the one
/// that splits most records into the same number of fields, more than one; `,` where none
/// does), whether the first row is a header (a row whose values do not fit their columns'
/// types; where every column is text, a row of distinct non-empty names), the line end, a
/// UTF-8 BOM (never part of a name), and each column's type (infer_type over its sampled
/// values, missing values being `o.missing`'s). Never fails on text that reads: one column
/// of text is a valid answer. Reads at most 1 MiB, O(sampled bytes) time per delimiter.
/// @returns the dialect, or the source's read error.
template <byte_source Source>
result<dialect> try_sniff(Source& source, const options& o = {}) {
    detail::csv_source_input<Source> in(source);
    return detail::csv_sniff_input(in, o);
}

/// try_sniff of the file at `path`; also an error where it does not open.
inline result<dialect> try_sniff(const std::filesystem::path& path, const options& o = {}) {
    result<detail::input_file> opened = detail::input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    result<detail::file_stream> stream = detail::stream_file(*opened);
    if (!stream) {
        return stream.error();
    }
    detail::csv_source_input<detail::file_stream> in(*stream);
    return detail::csv_sniff_input(in, o);
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
