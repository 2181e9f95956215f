// The public header first: it includes this one after the types this one uses.
#include "../sniff.hpp"
#ifndef FASTREAD_CSV_DETAIL_SNIFF_HPP
#define FASTREAD_CSV_DETAIL_SNIFF_HPP

/// @file
/// csv::sniff's steps (declared in fastread::csv, included by csv/sniff.hpp): the records
/// of a sample for each candidate delimiter, their score, the header and the types.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fastread::detail {

/// `f` without the spaces and tabs at its ends: what a typed value is read from.
inline std::string_view csv_sniff_trimmed(std::string_view f) noexcept {
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) {
        f.remove_prefix(1);
    }
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) {
        f.remove_suffix(1);
    }
    return f;
}

/// The bytes sniffed at most: the head of the input.
inline constexpr std::size_t csv_sniff_bytes = std::size_t{1} << 20;

/// Calls `each(fields)` (a csv_fields) for the records of `sample` with delimiter `d` and
/// `quote`, at most `limit`: whole records only (a last one cut by the sample's end is
/// dropped unless `whole` says the sample is the input); stops at malformed text.
template <class Each>
void csv_sniff_walk(std::string_view sample, char d, bool whole, std::size_t limit, char quote,
                    Each&& each) {
    csv_dialect dialect;
    dialect.delimiter = d;
    dialect.quote = quote;
    csv_tokenizer tok(dialect);
    const char* p = sample.data();
    const char* const end = p + sample.size();
    tok.reset(p, end);
    for (std::size_t n = 0; n < limit && tok.parse(p, end, whole) == csv_step::record; ++n) {
        each(tok.fields());
        p = tok.next_record();
    }
}

/// The records of `sample` (csv_sniff_walk's), each field copied.
inline std::vector<std::vector<std::string>> csv_sniff_records(std::string_view sample, char d,
                                                               bool whole, std::size_t limit,
                                                               char quote = '"') {
    std::vector<std::vector<std::string>> out;
    csv_sniff_walk(sample, d, whole, limit, quote,
                   [&](const csv_fields& f) { out.emplace_back(f.begin(), f.end()); });
    return out;
}

/// The field counts of the records of `sample` (csv_sniff_walk's; nothing copied).
inline std::vector<std::size_t> csv_sniff_counts(std::string_view sample, char d, bool whole,
                                                 std::size_t limit, char quote) {
    std::vector<std::size_t> out;
    csv_sniff_walk(sample, d, whole, limit, quote,
                   [&](const csv_fields& f) { out.push_back(f.size()); });
    return out;
}

/// The most common of the field counts `counts` (the smallest where several are) and how
/// many records have it; {0, 0} for none.
struct csv_sniff_mode {
    std::size_t count = 0;
    std::size_t records = 0;
};
inline csv_sniff_mode csv_sniff_modal(std::vector<std::size_t> counts) {
    std::sort(counts.begin(), counts.end());
    csv_sniff_mode m;
    for (std::size_t i = 0; i < counts.size();) {
        std::size_t j = i;
        while (j < counts.size() && counts[j] == counts[i]) {
            ++j;
        }
        if (j - i > m.records) {
            m = {counts[i], j - i};
        }
        i = j;
    }
    return m;
}

/// How well a delimiter splits records of field counts `counts`: the share of records with
/// the most common field count; 0 where that count is 1 (nothing split) or no more than half
/// the records have it (prose split at its spaces).
inline double csv_sniff_score(const std::vector<std::size_t>& counts) {
    if (counts.empty()) {
        return 0;
    }
    const csv_sniff_mode m = csv_sniff_modal(counts);
    const std::size_t best = m.records, best_count = m.count;
    const double share = static_cast<double>(best) / static_cast<double>(counts.size());
    return best_count > 1 && share > 0.5 ? share : 0;
}

/// csv::sniff of the first bytes of an input (`whole`: they are all of it), the spellings
/// of a missing value being `missing_spellings`.
inline csv::dialect csv_sniff_sample(std::string_view sample, bool whole,
                                     const std::vector<std::string>& missing_spellings) {
    csv::dialect out;
    if (sample.size() >= 3 && sample.substr(0, 3) == "\xEF\xBB\xBF") {
        out.bom = true;
        sample.remove_prefix(3);
    }
    constexpr std::size_t limit = 10000; // records sampled after the first
    // The delimiter and the quote (" or ') together: the pair whose records have the most
    // consistent field count; ties go to the earlier delimiter of the list, then to ".
    // Scored on the first 2000 records (each pair's walk is a tokenizer pass: 12 of them
    // over 10,000 records took most of the sniff's 3 ms on a 64 MB table).
    constexpr std::size_t score_limit = 2000;
    double best = -1;
    std::vector<std::size_t> best_counts; // the field counts of the best pair's records
    for (const char d : {',', '\t', ';', '|', ':', ' '}) {
        for (const char q : {'"', '\''}) {
            if (q == '\'' && sample.find('\'') == std::string_view::npos) {
                continue;
            }
            std::vector<std::size_t> counts =
                csv_sniff_counts(sample, d, whole, score_limit + 1, q);
            const double score = csv_sniff_score(counts);
            if (score > best) {
                best = score;
                out.delimiter = d;
                out.quote = q;
                best_counts = std::move(counts);
            }
        }
    }
    // Where both quotes split as well: ' only where more fields are wrapped in it than in ".
    if (out.quote == '"' && sample.find('\'') != std::string_view::npos &&
        csv_sniff_score(csv_sniff_counts(sample, out.delimiter, whole, score_limit + 1, '\'')) ==
            best) {
        std::size_t wrapped[2] = {0, 0};
        for (const auto& r : csv_sniff_records(sample, out.delimiter, whole, limit + 1, 0)) {
            for (const std::string& f : r) {
                const std::string_view t = csv_sniff_trimmed(f);
                for (int q = 0; q < 2; ++q) {
                    const char c = q == 0 ? '"' : '\'';
                    wrapped[q] += t.size() >= 2 && t.front() == c && t.back() == c;
                }
            }
        }
        out.quote = wrapped[1] > wrapped[0] ? '\'' : '"';
        best_counts = csv_sniff_counts(sample, out.delimiter, whole, score_limit + 1, out.quote);
    }
    // A preamble: fewer than 20 leading records of fewer fields than the most common count,
    // each on one line, skipped as lines.
    {
        const std::vector<std::size_t>& counts = best_counts;
        const std::size_t modal = csv_sniff_modal(counts).count;
        std::size_t lead = 0;
        while (lead < counts.size() && lead < 20 && counts[lead] < modal) {
            ++lead;
        }
        if (lead > 0 && lead < 20 && lead < counts.size()) {
            std::size_t at = 0, lines = 0;
            while (lines < lead && at < sample.size()) {
                const std::size_t nl = sample.find('\n', at);
                if (nl == std::string_view::npos) {
                    break;
                }
                at = nl + 1;
                ++lines;
            }
            // Only where each preamble record is one line: its lines, read again, give the
            // same field counts.
            const std::vector<std::size_t> again =
                csv_sniff_counts(sample.substr(0, at), out.delimiter, true, lead + 1, out.quote);
            if (lines == lead && again.size() == lead &&
                std::equal(again.begin(), again.end(), counts.begin())) {
                out.skip_lines = lead;
                sample.remove_prefix(at);
            }
        }
    }
    const std::vector<std::vector<std::string>> records =
        csv_sniff_records(sample, out.delimiter, whole, limit + 1, out.quote);
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
    const csv_missing missing(missing_spellings);
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
                const csv::type t = csv::infer_type(csv_sniff_trimmed(records[i][k]));
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
        // Besides a misfit, votes (as Python's csv.Sniffer.has_header counts them): a typed
        // column whose first value is of another type that fits it (an integer above a
        // column of decimals, `1960` over fertility rates) votes for a header, one of the
        // same type against.
        bool typed = false, misfit = false;
        int votes = 0;
        std::set<std::string> names;
        for (std::size_t k = 0; k < width; ++k) {
            const std::string f = k < first.size() ? first[k] : std::string();
            names.insert(f);
            if (body[k] != csv::type::text && values[k] != 0) {
                typed = true;
                const csv::type t = csv::infer_type(csv_sniff_trimmed(f));
                misfit = misfit || missing.has(f) || csv::widen(body[k], t) != body[k];
                votes += t == body[k] ? -1 : 1;
            }
        }
        misfit = misfit || votes > 0;
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
inline result<csv::dialect> csv_sniff_input(csv_input& in,
                                            const std::vector<std::string>& missing) {
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
    return csv_sniff_sample(head, whole, missing);
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_SNIFF_HPP
