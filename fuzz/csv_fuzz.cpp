// fastread::csv on untrusted bytes, differential: the input's first byte picks the options
// (delimiter, strict, trim, escape, comment, header) and the chunk size of a streamed pass.
// The rows (every field, line, offset and number) and the error, if any, must be the same
// from the whole input at the best SIMD level, at the scalar level, and streamed in chunks;
// a numeric column (std::optional<double>, read through the fast path for records of
// numbers) must be the same whole and streamed, and the same as the tokenizer's reading of
// that column as text converted one field at a time; the first column as csv::text (the fast
// path for text, quoted fields too) must be the same whole and streamed, and the rows' text.

#include <fastread/csv.hpp>
#include <fastread/scan/simd_level.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_util.hpp"

namespace {

namespace csv = fastread::csv;

struct reading {
    std::vector<std::vector<std::string>> fields;
    std::vector<std::uint64_t> places; // line, offset, number of each row
    std::string error;
    bool operator==(const reading&) const = default;
};

template <class Source>
reading read_rows(Source& src, const csv::options& o) {
    reading out;
    fastread::result<csv::rows> r = csv::try_rows(src, o);
    if (!r) {
        out.error = r.error().message();
        return out;
    }
    for (const csv::row& row : *r) {
        out.fields.emplace_back(row.begin(), row.end());
        out.places.insert(out.places.end(), {row.line(), row.offset(), row.number()});
    }
    out.error = r->error().message();
    return out;
}

template <class Source>
std::string read_column(Source& src, const csv::options& o, std::vector<std::optional<double>>& v) {
    auto r = csv::try_columns<std::optional<double>>(src, {0}, o);
    if (!r) {
        return r.error().message();
    }
    v = std::move(std::get<0>(*r));
    return {};
}

template <class Source>
std::string read_text(Source& src, csv::options o, std::vector<std::string>& v) {
    o.missing = {};
    auto r = csv::try_columns<csv::text>(src, {0}, o);
    if (!r) {
        return r.error().message();
    }
    const csv::text_column& c = std::get<0>(*r);
    v.assign(c.begin(), c.end());
    return {};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    const fastread_fuzz::split_input in = fastread_fuzz::split(bytes, size);
    const std::uint8_t p = in.param;
    csv::options o;
    o.delimiter = (p & 3) == 0 ? ',' : (p & 3) == 1 ? '\t' : (p & 3) == 2 ? ';' : '|';
    o.strict = (p & 4) != 0;
    o.trim = (p & 8) != 0;
    o.escape = (p & 16) != 0 ? '\\' : 0;
    o.comment = (p & 32) != 0 ? '#' : 0;
    o.header = (p & 64) != 0;
    o.ragged = csv::ragged_rows::keep;
    o.max_field_bytes = 1000;
    const std::size_t chunk = 1 + (p >> 7) * 6 + (size % 5);

    fastread::memory_source whole(in.data);
    const reading best = read_rows(whole, o);
    fastread::detail::force_simd_level(fastread::scan::simd_level::scalar);
    fastread::memory_source again(in.data);
    const reading scalar = read_rows(again, o);
    fastread::detail::reset_simd_level();
    fastread_fuzz::check(best == scalar, "the scalar kernel reads what the SIMD one reads");
    fastread_fuzz::chunked_source pieces(in.data, chunk);
    fastread_fuzz::check(read_rows(pieces, o) == best, "chunks read as the whole");

    // The first column as numbers: whole, in chunks, and converted from the rows' text.
    std::vector<std::optional<double>> a, b;
    fastread::memory_source w2(in.data);
    const std::string ea = read_column(w2, o, a);
    fastread_fuzz::chunked_source p2(in.data, chunk);
    const std::string eb = read_column(p2, o, b);
    fastread_fuzz::check(ea == eb, "the column's error is the same in chunks");
    fastread_fuzz::check(a.size() == b.size(), "the column is the same in chunks");
    for (std::size_t i = 0; i < a.size(); ++i) {
        fastread_fuzz::check(a[i].has_value() == b[i].has_value() &&
                                 (!a[i] || std::memcmp(&*a[i], &*b[i], sizeof(double)) == 0),
                             "the column's values are the same in chunks");
    }
    if (ea.empty() && best.error.empty()) {
        fastread_fuzz::check(a.size() == best.fields.size(), "a value for every row");
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::vector<std::string>& row = best.fields[i];
            const std::string text = row.empty() ? std::string() : row[0];
            const bool missing = text.empty() || text == "NA" || text == "N/A" || text == "NaN" ||
                                 text == "null" || text == "NULL";
            fastread_fuzz::check(a[i].has_value() == !missing, "missing where the text is");
            if (a[i]) {
                double v = 0;
                fastread::detail::number_status st = fastread::detail::number_status::invalid;
                const char* end = text.data() + text.size();
                fastread_fuzz::check(fastread::detail::convert_floating(text.data(), end, v, st) ==
                                             end &&
                                         st == fastread::detail::number_status::ok &&
                                         std::memcmp(&v, &*a[i], sizeof v) == 0,
                                     "the value is the field's text converted");
            }
        }
    }

    // The first column as flat text: whole, in chunks, and the rows' first fields.
    std::vector<std::string> ta, tb;
    fastread::memory_source w3(in.data);
    const std::string eta = read_text(w3, o, ta);
    fastread_fuzz::chunked_source p3(in.data, chunk);
    const std::string etb = read_text(p3, o, tb);
    fastread_fuzz::check(eta == etb && ta == tb, "the text column is the same in chunks");
    if (eta.empty() && best.error.empty()) {
        fastread_fuzz::check(ta.size() == best.fields.size(), "a text for every row");
        for (std::size_t i = 0; i < ta.size(); ++i) {
            fastread_fuzz::check(ta[i] == best.fields[i][0], "the text is the row's field");
        }
    }
    return 0;
}
