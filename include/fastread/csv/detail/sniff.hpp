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
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "encoding.hpp"

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
                    Each&& each, char escape = 0) {
    csv_dialect dialect;
    dialect.delimiter = d;
    dialect.quote = quote;
    dialect.escape = escape;
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
                                                               char quote = '"', char escape = 0) {
    std::vector<std::vector<std::string>> out;
    csv_sniff_walk(
        sample, d, whole, limit, quote,
        [&](const csv_fields& f) { out.emplace_back(f.begin(), f.end()); }, escape);
    return out;
}

/// The field counts of the records of `sample` (csv_sniff_walk's; nothing copied).
inline std::vector<std::size_t> csv_sniff_counts(std::string_view sample, char d, bool whole,
                                                 std::size_t limit, char quote, char escape = 0) {
    std::vector<std::size_t> out;
    csv_sniff_walk(
        sample, d, whole, limit, quote, [&](const csv_fields& f) { out.push_back(f.size()); },
        escape);
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

/// No records besides the head's (csv_sniff_sample's `more` for an input read once).
struct csv_sniff_head_only {
    result<std::vector<std::vector<std::string>>> operator()(const csv::dialect&,
                                                             std::size_t) const {
        return std::vector<std::vector<std::string>>();
    }
};

/// csv::sniff of the first bytes of an input (`whole`: they are all of it), the spellings
/// of a missing value being `missing_spellings`. `more(dialect, body)`, once the dialect is
/// found (`body`: the sample's offset where the table starts, after a BOM and a preamble),
/// gives records from elsewhere in the input (csv_sniff_jumps), their bytes added to
/// `sampled_bytes` by it: their values are typed with the head's (records wider than the
/// head's widest are left out), or its error.
template <class More = csv_sniff_head_only>
result<csv::dialect> csv_sniff_sample(std::string_view sample, bool whole,
                                      const std::vector<std::string>& missing_spellings,
                                      More&& more = {}) {
    csv::dialect out;
    const std::size_t sample_size = sample.size();
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
    // An escape: a backslash before a quote in the sample, and records (with it) whose
    // field counts are more consistent than without it (MySQL's and PostgreSQL's `\"`), or
    // as consistent and as many (a field that ends in a backslash, `"C:\dir\"`, runs on
    // into the next record with it: fewer records).
    if (const std::string esc = std::string("\\") + out.quote;
        sample.find(esc) != std::string_view::npos) {
        std::vector<std::size_t> counts =
            csv_sniff_counts(sample, out.delimiter, whole, score_limit + 1, out.quote, '\\');
        if (const double score = csv_sniff_score(counts);
            score > 0 && (score > best || (score == best && counts.size() >= best_counts.size()))) {
            out.escape = '\\';
            best = score;
            best_counts = std::move(counts);
        }
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
            const std::vector<std::size_t> again = csv_sniff_counts(
                sample.substr(0, at), out.delimiter, true, lead + 1, out.quote, out.escape);
            if (lines == lead && again.size() == lead &&
                std::equal(again.begin(), again.end(), counts.begin())) {
                out.skip_lines = lead;
                sample.remove_prefix(at);
            }
        }
    }
    std::vector<std::vector<std::string>> records =
        csv_sniff_records(sample, out.delimiter, whole, limit + 1, out.quote, out.escape);
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
    result<std::vector<std::vector<std::string>>> jumped =
        more(out, sample_size - sample.size()); // sample: its body now
    if (!jumped) {
        return jumped.error();
    }
    for (std::vector<std::string>& r : *jumped) {
        if (r.size() <= width && !records.empty()) {
            records.push_back(std::move(r));
        }
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
    out.sampled_bytes += sample_size + (out.bom ? 3 : 0);
    return out;
}

/// csv_sniff_sample of an input's `head` (`whole`: all of it), UTF-8 or UTF-16 by its BOM:
/// UTF-16's whole code points (a unit cut by the head's end, or a high surrogate whose low
/// one is past it, dropped) transcoded, the dialect sniffed in UTF-8 (without `more`: its
/// offsets are of the UTF-8 bytes).
template <class More = csv_sniff_head_only>
result<csv::dialect> csv_sniff_head(std::string_view head, bool whole,
                                    const std::vector<std::string>& missing, More&& more = {}) {
    const int bom = csv_utf16_bom(head);
    if (bom == 0) {
        return csv_sniff_sample(head, whole, missing, std::forward<More>(more));
    }
    std::size_t units = head.size() & ~std::size_t{1};
    if (!whole && units >= 4) {
        const std::size_t last = units - 2;
        const auto hi = static_cast<unsigned char>(head[bom == 1 ? last + 1 : last]);
        if (hi >= 0xD8 && hi <= 0xDB) {
            units = last;
        }
    }
    if (!whole) {
        head = head.substr(0, units);
    }
    result<std::string> utf8 = csv_transcode(head, bom, false, std::string());
    if (!utf8) {
        return utf8.error();
    }
    result<csv::dialect> d = csv_sniff_sample(*utf8, whole, missing);
    if (d) {
        d->bom = true;
        d->encoding = bom == 1 ? csv::text_encoding::utf16le : csv::text_encoding::utf16be;
        d->sampled_bytes = head.size();
    }
    return d;
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
    return csv_sniff_head(head, whole, missing);
}

/// The jump points of csv::sniff(path) after its head, and the bytes read at each.
inline constexpr unsigned csv_sniff_jumps_count = 8;
inline constexpr std::size_t csv_sniff_jump_bytes = std::size_t{64} << 10;

/// Records from csv_sniff_jumps_count points evenly spaced over the part of `file` after its
/// head (`head` bytes; the table starting at `body`), csv_sniff_jump_bytes read at each, in
/// dialect `d`: each from the first record start after its point, exact about quotes as
/// the slices of csv::columns(path) are. Where the head holds the quote byte
/// (`quoted_head`), the quote bytes between the table's start and each point are counted
/// (a point after an odd number is inside a quoted field, and its record starts at the
/// first line end after an even number): the file is read once to the last point for that
/// count. Else, as the slices guess their cuts, each starts at the first line end after its
/// point, the file not read between: a file whose quotes start after its head may then give
/// a sample from inside a quoted field (its types only: csv::read reads every value from
/// the start). Then 64 KiB at each point; whole records only. Adds the bytes read at the
/// points to d.sampled_bytes.
/// @returns the records, or the read error (a file that shrank gives fewer).
inline result<std::vector<std::vector<std::string>>>
csv_sniff_jumps(const input_file& file, std::uint64_t head, std::uint64_t body, bool quoted_head,
                csv::dialect& d) {
    std::vector<std::vector<std::string>> out;
    const std::uint64_t size = file.size();
    if (size <= head + csv_sniff_jump_bytes || d.escape != 0) {
        return out; // no points (an escape: no quote count says where a record starts)
    }
    std::uint64_t points[csv_sniff_jumps_count];
    for (unsigned i = 0; i < csv_sniff_jumps_count; ++i) {
        points[i] = head + (size - head - csv_sniff_jump_bytes) * i / (csv_sniff_jumps_count - 1);
    }
    // The quote parity at each point.
    bool odd[csv_sniff_jumps_count] = {};
    slice_reads reads(file, 1);
    if (d.quote != 0 && quoted_head) {
        const scan::byte_count_fn count = scan::byte_count_for(scan::active_level());
        std::uint64_t quotes = 0;
        unsigned next = 0;
        while (next < csv_sniff_jumps_count && points[next] <= body) {
            ++next; // a point in the head's table start: parity even
        }
        reads.read_through(0, body, points[csv_sniff_jumps_count - 1],
                           [&](const char* p, const char* end, std::uint64_t at) {
                               std::uint64_t pos = at - static_cast<std::uint64_t>(end - p);
                               while (p != end) {
                                   // To the next point, or the block's end.
                                   const std::uint64_t stop =
                                       next < csv_sniff_jumps_count
                                           ? std::min<std::uint64_t>(points[next], at)
                                           : at;
                                   const auto n = static_cast<std::size_t>(stop - pos);
                                   const std::size_t blocks = n / 64;
                                   quotes += count(p, blocks, d.quote);
                                   for (std::size_t i = 64 * blocks; i < n; ++i) {
                                       quotes += p[i] == d.quote;
                                   }
                                   p += n;
                                   pos = stop;
                                   while (next < csv_sniff_jumps_count && points[next] == pos) {
                                       odd[next++] = (quotes & 1) != 0;
                                   }
                               }
                               return true;
                           });
        if (std::optional<fastread::error> e = reads.first_read_error()) {
            return *e;
        }
        if (next < csv_sniff_jumps_count) {
            return out; // the file shrank: the head's records alone
        }
    }
    const char end_byte = d.line_end == "\r" ? '\r' : '\n';
    std::string chunk(csv_sniff_jump_bytes, '\0');
    const std::size_t per_point = 10000 / csv_sniff_jumps_count;
    for (unsigned i = 0; i < csv_sniff_jumps_count; ++i) {
        const auto want = static_cast<std::size_t>(
            std::min<std::uint64_t>(csv_sniff_jump_bytes, size - points[i]));
        slice_reads one(file, 1);
        one.start(0, points[i]);
        one.read(0, chunk.data(), want, points[i]);
        if (one.read_error(0).code()) {
            return one.read_error(0);
        }
        const auto got = static_cast<std::size_t>(one.reached(0) - points[i]);
        d.sampled_bytes += got;
        // The first line end outside quotes after the point.
        bool inside = odd[i];
        std::size_t start = got;
        for (std::size_t k = 0; k < got; ++k) {
            const char c = chunk[k];
            if (c == d.quote && d.quote != 0) {
                inside = !inside;
            } else if (c == end_byte && !inside) {
                start = k + 1;
                break;
            }
        }
        if (start >= got) {
            continue;
        }
        for (auto& r :
             csv_sniff_records(std::string_view(chunk.data() + start, got - start), d.delimiter,
                               points[i] + got == size, per_point, d.quote, d.escape)) {
            out.push_back(std::move(r));
        }
    }
    return out;
}

/// csv::sniff(path) of a sized file: its head (csv_sniff_bytes, one pread) sniffed, then
/// for UTF-8 text longer than the head records from csv_sniff_jumps' points typed with it.
inline result<csv::dialect> csv_sniff_file(input_file& file,
                                           const std::vector<std::string>& missing) {
    const std::span<const char> head = file.head(csv_sniff_bytes);
    const bool whole = head.size() == file.size();
    return csv_sniff_head(std::string_view(head.data(), head.size()), whole, missing,
                          [&](csv::dialect& d, std::size_t body) {
                              const bool quoted =
                                  d.quote != 0 &&
                                  std::memchr(head.data(), d.quote, head.size()) != nullptr;
                              return csv_sniff_jumps(file, head.size(), body, quoted, d);
                          });
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_SNIFF_HPP
