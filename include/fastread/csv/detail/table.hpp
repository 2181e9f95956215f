// The public header first: it includes this one after the types this one uses.
#include "../read.hpp"
#ifndef FASTREAD_CSV_DETAIL_TABLE_HPP
#define FASTREAD_CSV_DETAIL_TABLE_HPP

/// @file
/// csv::read's steps (declared in fastread::csv, included by csv/read.hpp): a job of the
/// slices (csv_job_file, csv_job_input) whose columns have a type found while they are read.
/// Each column of a part (a slice, or the whole input) starts at the sniffed type (or none),
/// converts each value to it, and widens where one does not fit: int64 to double and date to
/// timestamp by converting the values it holds (exactly: an int64 beyond 2^53 makes the
/// column text instead), anything else to text, which only a second reading of that column
/// gives (its values so far are dropped, the column marked `pending`). The parts are joined
/// by the same rule, so the types and values do not depend on where the slices were cut.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "table_column.hpp"

namespace fastread::detail {

/// A part's columns (one per column read).
struct csv_table_part {
    std::vector<csv_part_column> columns;
};

/// What a column of csv::read is read as: the field it comes from, whether its type is
/// fixed (else inferred) and the type it starts at.
struct csv_table_key {
    std::size_t field = 0;
    csv_kind start = csv_kind::none;
    bool fixed = false;
};

/// A field of a record as the fast split found it: its bytes (inside its quotes, if quoted)
/// and whether they hold doubled quotes.
struct csv_raw_field {
    std::string_view raw;
    bool doubled = false;
    bool quoted = false;
};

/// The fast path of csv::read's records: the `count` fields of the record at p, split by the
/// structural cursor exactly as the tokenizer would (unquoted fields, quoted fields without
/// an escape, their line ends counted in `lines`), into `out`; the byte after the record's
/// line end, or null for any other record (empty, a comment, another field count, a quote
/// inside an unquoted field, an escape, a field over `max_bytes`, one the bytes before `end`
/// do not hold whole), which is then the tokenizer's.
inline const char* csv_fast_split(const char* p, const char* end, csv_cursor& cursor,
                                  std::uint64_t& lines, std::size_t count, const csv_dialect& d,
                                  std::vector<csv_raw_field>& out) {
    if (p == end || *p == '\n' || *p == '\r' || (d.comment != 0 && *p == d.comment)) {
        return nullptr;
    }
    out.resize(count);
    std::uint64_t inside = 0;
    for (std::size_t f = 0; f < count; ++f) {
        csv_raw_field& field = out[f];
        field.doubled = false;
        field.quoted = p != end && *p == d.quote && d.quote != 0;
        const char* q;
        if (field.quoted) {
            const char* s = p + 1;
            for (;;) {
                s = cursor.next(s);
                if (s == end) {
                    return nullptr;
                }
                const char b = *s;
                if (b == d.quote) {
                    if (s + 1 == end) {
                        return nullptr;
                    }
                    if (s[1] != d.quote) {
                        break;
                    }
                    field.doubled = true;
                    s += 2;
                    continue;
                }
                if (b == '\n') {
                    ++inside;
                } else if (b == '\r') {
                    if (s + 1 == end) {
                        return nullptr;
                    }
                    inside += s[1] != '\n';
                } else if (b != d.delimiter) {
                    return nullptr; // the escape byte
                }
                ++s;
            }
            field.raw = std::string_view(p + 1, static_cast<std::size_t>(s - p - 1));
            q = s + 1;
        } else {
            q = cursor.next(p);
            field.raw = std::string_view(p, static_cast<std::size_t>(q - p));
        }
        if (q == end || field.raw.size() > d.max_field_bytes) {
            return nullptr;
        }
        const char c = *q;
        if (f + 1 < count) {
            if (c != d.delimiter) {
                return nullptr;
            }
            p = q + 1;
        } else if (c == '\n') {
            p = q + 1;
        } else if (c == '\r' && q + 1 != end) {
            p = q + (q[1] == '\n' ? 2 : 1);
        } else {
            return nullptr;
        }
    }
    lines += inside;
    return p;
}

/// csv::read's job for csv_job_file and csv_job_input: the records' fields `keys` into
/// the columns of a csv_table_part.
class csv_table_job {
  public:
    using output_type = csv_table_part;

    /// `keys` resolved by field index; `names`: the columns' names, for errors.
    csv_table_job(const csv::options& o, const csv_dialect& d, std::vector<csv_table_key> keys)
        : missing_(o.missing), keys_(std::move(keys)), ragged_(o.ragged), d_(d) {
        for (const csv_table_key& k : keys_) {
            widest_ = std::max(widest_, k.field + 1);
        }
    }

    fastread::error resolve(const csv_head& head, const std::string&) {
        head_ = head;
        return {};
    }
    const csv_head& head() const noexcept { return head_; }

    /// Room for `rows` in each column of `out` (made here, at their start types).
    void reserve(csv_table_part& out, std::size_t rows) const {
        make_columns(out);
        for (csv_part_column& c : out.columns) {
            c.reserve(rows);
        }
    }
    void append(csv_table_part& to, csv_table_part&& from) const {
        if (to.columns.empty()) {
            to = std::move(from);
            return;
        }
        for (std::size_t k = 0; k < to.columns.size() && k < from.columns.size(); ++k) {
            to.columns[k].append(std::move(from.columns[k]));
        }
    }
    std::size_t join_units() const noexcept { return keys_.size(); }
    void join(csv_table_part& to, const std::vector<csv_table_part*>& rest, std::size_t k) const {
        for (csv_table_part* from : rest) {
            to.columns[k].append(std::move(from->columns[k]));
        }
    }

    csv_stop run(csv_reader& r, csv_table_part& out, std::uint64_t& rows, std::size_t& fields,
                 bool slice_end, std::uint64_t input_bytes = 0, bool = false) const {
        csv_stop stop;
        // After 1024 rows, room for as many as the bytes left promise (10 % more).
        const std::uint64_t start = r.position();
        const std::uint64_t reserve_at = input_bytes != 0 ? rows + 1024 : UINT64_MAX;
        make_columns(out);
        std::vector<csv_raw_field> raw;
        std::string scratch;          // a field without its doubled quotes
        const char* record = nullptr; // the fast path's record
        const bool fast = !d_.trim;
        for (;;) {
            if (rows == reserve_at) [[unlikely]] {
                reserve(r, out, rows, start, input_bytes);
            }
            if (fast && fields != 0 && fields >= widest_ &&
                r.next_fast(
                    [&](const char* p, const char* end, csv_cursor& cursor, std::uint64_t& lines) {
                        record = p;
                        return csv_fast_split(p, end, cursor, lines, fields, d_, raw);
                    })) {
                ++rows;
                for (std::size_t k = 0; k < keys_.size(); ++k) {
                    const csv_raw_field& f = raw[keys_[k].field];
                    std::string_view field = f.raw;
                    if (f.doubled) [[unlikely]] {
                        scratch.clear();
                        std::size_t from = 0;
                        for (std::size_t q = field.find(d_.quote); q != std::string_view::npos;
                             q = field.find(d_.quote, from)) {
                            scratch.append(field.data() + from, q + 1 - from);
                            from = q + 2;
                        }
                        scratch.append(field.data() + from, field.size() - from);
                        field = scratch;
                    }
                    if (!put(out.columns[k], keys_[k], field, stop)) [[unlikely]] {
                        const auto at = static_cast<std::uint64_t>(f.raw.data() - record) -
                                        (f.quoted ? 1 : 0); // the field's first byte
                        stop.at = {r.offset() + at, r.line(), rows, keys_[k].field};
                        return stop;
                    }
                }
                continue;
            }
            const csv_next next =
                csv_next_record(r, stop, rows, fields, slice_end, ragged_, !head_.names.empty(),
                                head_.names.empty() && fields == 0 ? widest_ : 0);
            if (next == csv_next::stop) {
                return stop;
            }
            if (next == csv_next::skip) {
                continue;
            }
            ++rows;
            const csv_fields& f = r.fields();
            for (std::size_t k = 0; k < keys_.size(); ++k) {
                const csv_table_key& key = keys_[k];
                const bool there = key.field < f.size();
                if (!put(out.columns[k], key, there ? f[key.field] : std::string_view(), stop,
                         !there)) {
                    stop.at = {r.field_offset(key.field), r.line(), rows, key.field};
                    return stop;
                }
            }
        }
    }

  private:
    /// The columns of `out`, each at its start type, unless made already.
    void make_columns(csv_table_part& out) const {
        if (out.columns.size() != keys_.size()) {
            out.columns.assign(keys_.size(), {});
            for (std::size_t k = 0; k < keys_.size(); ++k) {
                out.columns[k].kind = keys_[k].start;
            }
        }
    }

    /// Field `field` of a row into column `c` (read as `key` says); false, with stop's code
    /// and reason, for a value that does not convert to a fixed type.
    [[gnu::always_inline]] bool put(csv_part_column& c, const csv_table_key& key,
                                    std::string_view field, csv_stop& stop,
                                    bool absent = false) const {
        if (absent || missing_.has(field)) {
            c.put_missing();
        } else if (!key.fixed) {
            if (c.kind == csv_kind::none) [[unlikely]] {
                c.convert_to(csv_kind_of(csv::infer_type(csv_sniff_trimmed(field))));
            }
            c.infer(field);
        } else if (errc code{}; !c.put(field, true, code)) {
            stop.code = code;
            stop.reason = csv_shown(field) + " is not " + type_name(key.start);
            return false;
        }
        return true;
    }

    /// After 1024 rows, room in each column for as many as the bytes left promise (10 %
    /// more).
    static void reserve(const csv_reader& r, csv_table_part& out, std::uint64_t rows,
                        std::uint64_t start, std::uint64_t input_bytes) {
        const std::uint64_t read = std::max<std::uint64_t>(r.position() - start, 1);
        const double expect = static_cast<double>(rows) * static_cast<double>(input_bytes) /
                              static_cast<double>(read) * 1.1;
        if (expect < static_cast<double>(SIZE_MAX / 64)) {
            for (csv_part_column& c : out.columns) {
                c.reserve(static_cast<std::size_t>(expect) + 64);
            }
        }
    }

  private:
    static std::string type_name(csv_kind k) {
        switch (k) {
        case csv_kind::boolean:
            return "a bool";
        case csv_kind::int64:
            return "a " + csv_type_name<std::int64_t>();
        case csv_kind::float64:
            return "a double";
        case csv_kind::date:
            return "a " + csv_type_name<std::chrono::sys_days>();
        case csv_kind::timestamp:
            return "a " + csv_type_name<csv_timestamp>();
        case csv_kind::none:
        case csv_kind::text:
            break;
        }
        return "text";
    }

    csv_missing missing_;
    std::vector<csv_table_key> keys_;
    csv::ragged_rows ragged_;
    csv_dialect d_;
    csv_head head_;
    std::size_t widest_ = 0;
};

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_TABLE_HPP
