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

namespace fastread::detail {

/// A column's type while it is read: `none` (no value yet) below each csv::type.
enum class csv_kind : unsigned char { none, boolean, int64, float64, date, timestamp, text };

inline csv_kind csv_kind_of(csv::type t) noexcept {
    return static_cast<csv_kind>(static_cast<unsigned char>(t) + 1);
}
inline csv::type csv_type_of(csv_kind k) noexcept {
    return k == csv_kind::none ? csv::type::text
                               : static_cast<csv::type>(static_cast<unsigned char>(k) - 1);
}

/// The largest integer magnitude every double below it holds exactly: 2^53.
inline constexpr std::int64_t csv_exact_double = std::int64_t{1} << 53;

/// The kind that holds the values of kinds `a` and `b` (csv::widen, with none below each);
/// `big`: one of the int64 values is beyond 2^53, so double would round it (text then).
inline csv_kind csv_join(csv_kind a, csv_kind b, bool big) noexcept {
    if (a == csv_kind::none) {
        return b;
    }
    if (b == csv_kind::none) {
        return a;
    }
    const csv_kind k = csv_kind_of(csv::widen(csv_type_of(a), csv_type_of(b)));
    return k == csv_kind::float64 && big ? csv_kind::text : k;
}

/// One column of a part.
struct csv_part_column {
    csv_kind kind = csv_kind::none;
    bool big = false;                  ///< an int64 value beyond 2^53
    bool pending = false;              ///< text whose values are read again (none kept here)
    std::uint64_t size = 0;            ///< its rows
    std::uint64_t missed = 0;          ///< of which missing
    std::vector<std::uint8_t> missing; ///< empty while none is; else 1 per missing row
    std::vector<std::uint8_t> bools;
    std::vector<std::int64_t> ints;
    std::vector<double> doubles;
    std::vector<std::chrono::sys_days> days;
    std::vector<csv_timestamp> stamps;
    csv::text_column text;

    /// Drops the values (text to be read again).
    void make_pending() {
        kind = csv_kind::text;
        pending = true;
        bools = {};
        ints = {};
        doubles = {};
        days = {};
        stamps = {};
        text = {};
    }

    /// The values held converted to kind `k` (>= kind, by csv_join): a placeholder per row
    /// of a column that had none; int64 to double; date to timestamp (a date out of the
    /// timestamps' range makes it pending); anything else to text: pending.
    void convert_to(csv_kind k) {
        if (k == kind || pending) {
            return;
        }
        if (kind == csv_kind::none) {
            kind = k;
            fill(size);
            return;
        }
        if (kind == csv_kind::int64 && k == csv_kind::float64) {
            doubles.reserve(ints.size());
            for (const std::int64_t v : ints) {
                doubles.push_back(static_cast<double>(v));
            }
            ints = {};
            kind = k;
            return;
        }
        if (kind == csv_kind::date && k == csv_kind::timestamp) {
            std::vector<csv_timestamp> out;
            out.reserve(days.size());
            for (const std::chrono::sys_days d : days) {
                std::int64_t ns = 0; // midnight, in nanoseconds: past int64's range is text
                if (__builtin_mul_overflow(std::int64_t{d.time_since_epoch().count()},
                                           std::int64_t{86400000000000}, &ns)) {
                    make_pending();
                    return;
                }
                out.push_back(std::chrono::time_point_cast<std::chrono::nanoseconds>(d));
            }
            stamps = std::move(out);
            days = {};
            kind = k;
            return;
        }
        make_pending();
    }

    /// Room for `rows` rows in the vector of the column's kind (text: bytes as many a row
    /// as it has so far; csv_reserve_column), advised to take huge pages when big.
    void reserve(std::size_t rows) {
        switch (kind) {
        case csv_kind::none:
            break;
        case csv_kind::text:
            if (!pending) {
                csv_reserve_column(text, rows);
            }
            break;
        case csv_kind::boolean:
            csv_reserve_column(bools, rows);
            break;
        case csv_kind::int64:
            csv_reserve_column(ints, rows);
            break;
        case csv_kind::float64:
            csv_reserve_column(doubles, rows);
            break;
        case csv_kind::date:
            csv_reserve_column(days, rows);
            break;
        case csv_kind::timestamp:
            csv_reserve_column(stamps, rows);
            break;
        }
        if (!missing.empty()) {
            missing.reserve(rows);
        }
    }

    /// `n` placeholders (a missing row's value) of the column's kind.
    void fill(std::uint64_t n) {
        const auto c = static_cast<std::size_t>(n);
        switch (kind) {
        case csv_kind::none:
        case csv_kind::text:
            if (!pending) {
                for (std::size_t i = 0; i < c; ++i) {
                    text.push_back({});
                }
            }
            break;
        case csv_kind::boolean:
            bools.resize(bools.size() + c, 0);
            break;
        case csv_kind::int64:
            ints.resize(ints.size() + c, 0);
            break;
        case csv_kind::float64:
            doubles.resize(doubles.size() + c, std::numeric_limits<double>::quiet_NaN());
            break;
        case csv_kind::date:
            days.resize(days.size() + c, std::chrono::sys_days{});
            break;
        case csv_kind::timestamp:
            stamps.resize(stamps.size() + c, csv_timestamp{});
            break;
        }
    }

    /// A missing row.
    void put_missing() {
        if (missing.empty()) {
            missing.resize(static_cast<std::size_t>(size), 0);
        }
        missing.push_back(1);
        ++missed;
        ++size;
        if (kind != csv_kind::none) {
            fill(1);
        }
    }

    /// Whether `f` (not missing) fits the kind as inferred values do, stored if so.
    /// `exact`: a fixed type (every spelling its conversion reads, leading zeros too).
    /// A value that is not text is read without the spaces and tabs around it (` .01138`,
    /// `3088 `: numbers as pandas reads them); text keeps them.
    [[gnu::always_inline]] bool put(std::string_view field, bool exact, errc& code) {
        bool ok = false;
        if (kind == csv_kind::text) {
            if (!pending) {
                text.push_back(field);
            }
            if (!missing.empty()) {
                missing.push_back(0);
            }
            ++size;
            return true;
        }
        const std::string_view f = csv_trimmed(field);
        switch (kind) {
        case csv_kind::none:
        case csv_kind::text:
            return false;
        case csv_kind::boolean: {
            bool b = false;
            code = csv_convert(f, b);
            if ((ok = code == errc{})) {
                bools.push_back(b ? 1 : 0);
            }
            break;
        }
        case csv_kind::int64: {
            std::int64_t v = 0;
            code = csv_convert(f, v);
            if ((ok = code == errc{} && (exact || !csv_leading_zero(f)))) {
                ints.push_back(v);
                big = big || v > csv_exact_double || v < -csv_exact_double;
            }
            break;
        }
        case csv_kind::float64: {
            double v = 0;
            code = csv_convert(f, v);
            ok = code == errc{} &&
                 (exact || (!csv_leading_zero(f) && (std::fabs(v) <= 0x1p53 || !csv_integer(f))));
            if (ok) {
                doubles.push_back(v);
            }
            break;
        }
        case csv_kind::date: {
            std::chrono::sys_days d{};
            code = csv_convert(f, d);
            if ((ok = code == errc{})) {
                days.push_back(d);
            }
            break;
        }
        case csv_kind::timestamp: {
            csv_timestamp t{};
            code = csv_convert(f, t);
            if ((ok = code == errc{})) {
                stamps.push_back(t);
            }
            break;
        }
        }
        if (ok) {
            if (!missing.empty()) {
                missing.push_back(0);
            }
            ++size;
        } else if (code == errc{}) {
            code = errc::invalid_number; // a leading zero, or an integer double would round
        }
        return ok;
    }

    /// `f` (not missing) of an inferred column: stored, the column widened first where it
    /// does not fit (to text at last, which every value fits).
    [[gnu::always_inline]] void infer(std::string_view f) {
        errc code{};
        if (put(f, false, code)) [[likely]] {
            return;
        }
        widen_for(f);
    }

    /// infer's widening, out of line: `f` did not fit the kind.
    [[gnu::noinline]] void widen_for(std::string_view f) {
        errc code{};
        const csv_kind t = csv_kind_of(csv::infer_type(csv_trimmed(f)));
        csv_kind k = csv_join(kind, t, big);
        if (k == kind) {
            k = csv_kind::text; // the kind's own syntax, but not kept exactly (2^53, 0-lead)
        }
        convert_to(k);
        if (!put(f, false, code)) {
            convert_to(csv_kind::text);
            put(f, false, code);
        }
    }

    /// Appends `from` (another part's rows of the same column, after these), both
    /// converted to the kind that holds them.
    void append(csv_part_column&& from) {
        const csv_kind k = csv_join(kind, from.kind, big || from.big);
        convert_to(k);
        from.convert_to(k);
        if (from.pending && !pending) {
            make_pending();
        }
        if (!missing.empty() || !from.missing.empty()) {
            missing.resize(static_cast<std::size_t>(size), 0);
            from.missing.resize(static_cast<std::size_t>(from.size), 0);
            missing.insert(missing.end(), from.missing.begin(), from.missing.end());
        }
        if (!pending) {
            auto join = [](auto& to, auto& v) {
                if (to.empty()) {
                    to = std::move(v);
                } else {
                    to.insert(to.end(), v.begin(), v.end());
                }
            };
            join(bools, from.bools);
            join(ints, from.ints);
            join(doubles, from.doubles);
            join(days, from.days);
            join(stamps, from.stamps);
            if (text.empty()) {
                text = std::move(from.text);
            } else {
                text.append(from.text);
            }
        }
        size += from.size;
        missed += from.missed;
        big = big || from.big;
        from = {};
    }

    /// `f` without the spaces and tabs at its ends.
    static std::string_view csv_trimmed(std::string_view f) noexcept {
        while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) {
            f.remove_prefix(1);
        }
        while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) {
            f.remove_suffix(1);
        }
        return f;
    }

    /// Whether `f` has a leading zero before another digit (`007`, `-01`, `00.5`).
    static bool csv_leading_zero(std::string_view f) noexcept {
        const std::size_t d = !f.empty() && (f[0] == '-' || f[0] == '+') ? 1 : 0;
        return f.size() > d + 1 && f[d] == '0' && static_cast<unsigned char>(f[d + 1] - '0') < 10;
    }
    /// Whether `f` is an integer's text (a sign and digits only).
    static bool csv_integer(std::string_view f) noexcept {
        std::size_t i = !f.empty() && (f[0] == '-' || f[0] == '+') ? 1 : 0;
        if (i == f.size()) {
            return false;
        }
        for (; i < f.size(); ++i) {
            if (static_cast<unsigned char>(f[i] - '0') >= 10) {
                return false;
            }
        }
        return true;
    }
};

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
                c.convert_to(csv_kind_of(csv::infer_type(csv_part_column::csv_trimmed(field))));
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
