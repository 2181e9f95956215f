// The public header first: it includes this one after the types this one uses.
#include "../read.hpp"
#ifndef FASTREAD_CSV_DETAIL_TABLE_COLUMN_HPP
#define FASTREAD_CSV_DETAIL_TABLE_COLUMN_HPP

/// @file
/// A column of csv::read while it is read (csv_part_column): its kind, from none (no value
/// yet) up to text, the values of that kind, the missing rows, and the widening of a column
/// whose value does not fit (int64 to double and date to timestamp in place; to text by
/// dropping the values, the column `pending` until it is read again).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cursor.hpp"

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

    /// The values `v[0]`, `v[stride]`, ... (n of them) of consecutive rows, each (where `doubled`:
    /// without its doubled quotes, in `scratch`) stored while it fits the column's kind: a missing
    /// spelling of `m` a missing row. A value that is not text is read without the spaces and tabs
    /// around it
    /// (` .01138`, `3088 `: numbers as pandas reads them); text keeps them. `exact`: a fixed
    /// type (every spelling its conversion reads, leading zeros too); else, as inferred
    /// values, no leading zero (`007`) and no integer a double would round. Returns how many
    /// were stored; v[that] (not missing) does not fit (why in `code`). The kind is switched
    /// on once, not per value. `limit`: where a number may be read up to (a field of the
    /// input buffer, not doubled, ends before a byte no number holds): the converters'
    /// word-wide paths need bytes past a short field's end; null: the field's end.
    /// O(n + their bytes).
    std::size_t put_run(const csv_raw_field* v, std::size_t n, std::size_t stride,
                        const csv_missing& m, char quote, const char* limit, bool exact, errc& code,
                        std::string& scratch) {
        const std::uint64_t base = size;
        std::size_t i = 0;
        auto field_of = [&](const csv_raw_field& f) {
            return f.doubled ? csv_undoubled(f.raw, quote, scratch) : f.raw;
        };
        // A missing row at i of the run: marked (missing tracks every row from its first).
        auto missed_at = [&](std::size_t at) {
            missing.resize(static_cast<std::size_t>(base + at), 0);
            missing.push_back(1);
            ++missed;
        };
        // The loop for a kind whose values go to `vec`: `convert(field, value)` says
        // whether the (trimmed) field is a value of it.
        auto run = [&](auto& vec, auto placeholder, auto convert) {
            if (vec.capacity() - vec.size() < n) {
                vec.reserve(std::max(vec.size() + n, 2 * vec.capacity()));
            }
            for (; i < n; ++i) {
                const std::string_view f = field_of(v[i * stride]);
                if (m.has(f)) [[unlikely]] {
                    missed_at(i);
                    vec.push_back(placeholder);
                    continue;
                }
                // Converted as it is first; only a field that does not convert is looked at
                // for spaces or tabs around it, and converted again without them.
                const bool wide = !v[i * stride].doubled && limit != nullptr;
                typename std::decay_t<decltype(vec)>::value_type x{};
                if (!convert(f, wide ? limit : f.data() + f.size(), x)) {
                    if (f.empty() || (f.front() != ' ' && f.front() != '\t' && f.back() != ' ' &&
                                      f.back() != '\t')) {
                        break;
                    }
                    const std::string_view t = csv_sniff_trimmed(f);
                    if (!convert(t, wide ? limit : t.data() + t.size(), x)) {
                        break;
                    }
                }
                vec.push_back(x);
            }
        };
        auto number = [&](std::string_view t, const char* to, auto& x) {
            return (code = csv_convert_number(t, to, x)) == errc{};
        };
        switch (kind) {
        case csv_kind::none:
            for (; i < n; ++i) {
                if (!m.has(field_of(v[i * stride]))) {
                    break;
                }
                missed_at(i);
            }
            code = errc::invalid_number; // no kind yet: the caller's to widen
            break;
        case csv_kind::text:
            for (; i < n; ++i) {
                if (v[i * stride].doubled && !pending) {
                    // Without its doubled quotes, written to the column's bytes: missing (a
                    // spelling with a quote) taken back.
                    const std::string_view raw = v[i * stride].raw;
                    const std::string_view f = text.push_back_written(
                        raw.size(), [&](char* dst) { return csv_undouble_to(raw, quote, dst); });
                    if (m.has(f)) [[unlikely]] {
                        text.pop_back();
                        text.push_back({});
                        missed_at(i);
                    }
                    continue;
                }
                const std::string_view f = field_of(v[i * stride]);
                if (m.has(f)) [[unlikely]] {
                    missed_at(i);
                    if (!pending) {
                        text.push_back({});
                    }
                    continue;
                }
                if (pending) {
                    continue;
                }
                if (limit != nullptr && f.size() <= 16 && limit - f.data() >= 16) {
                    // A short field of the input buffer: 16 bytes copied, no memcpy call
                    // (the column's bytes past the field are room, rewritten by the next).
                    text.push_back_written(16, [&](char* dst) {
                        std::memcpy(dst, f.data(), 16);
                        return f.size();
                    });
                } else {
                    text.push_back(f);
                }
            }
            break;
        case csv_kind::boolean:
            run(bools, std::uint8_t{0}, [&](std::string_view t, const char*, std::uint8_t& x) {
                bool b = false;
                code = csv_convert(t, b);
                x = b ? 1 : 0;
                return code == errc{};
            });
            break;
        case csv_kind::int64:
            run(ints, std::int64_t{0}, [&](std::string_view t, const char* to, std::int64_t& x) {
                if (!number(t, to, x)) {
                    return false;
                }
                if (!exact && csv_leading_zero(t)) {
                    code = errc::invalid_number;
                    return false;
                }
                big = big || x > csv_exact_double || x < -csv_exact_double;
                return true;
            });
            break;
        case csv_kind::float64:
            run(doubles, std::numeric_limits<double>::quiet_NaN(),
                [&](std::string_view t, const char* to, double& x) {
                    if (!number(t, to, x)) {
                        return false;
                    }
                    if (!exact &&
                        (csv_leading_zero(t) || (std::fabs(x) > 0x1p53 && csv_integer(t)))) {
                        code = errc::invalid_number; // an integer double would round
                        return false;
                    }
                    return true;
                });
            break;
        case csv_kind::date:
            run(days, std::chrono::sys_days{},
                [&](std::string_view t, const char*, std::chrono::sys_days& x) {
                    return (code = csv_convert(t, x)) == errc{};
                });
            break;
        case csv_kind::timestamp:
            run(stamps, csv_timestamp{}, [&](std::string_view t, const char*, csv_timestamp& x) {
                return (code = csv_convert(t, x)) == errc{};
            });
            break;
        }
        size = base + i;
        if (!missing.empty()) {
            missing.resize(static_cast<std::size_t>(size), 0);
        }
        return i;
    }

    /// `f` (not missing by `m`, not of the column's kind) of an inferred column: stored, the
    /// column widened first (to text at last, which every value fits). Out of line: rare.
    [[gnu::noinline]] void widen_for(std::string_view f, const csv_missing& m) {
        errc code{};
        std::string unused; // f holds no doubled quotes
        const csv_raw_field one{f};
        const csv_kind t = csv_kind_of(csv::infer_type(csv_sniff_trimmed(f)));
        csv_kind k = csv_join(kind, t, big);
        if (k == kind) {
            k = csv_kind::text; // the kind's own syntax, but not kept exactly (2^53, 0-lead)
        }
        convert_to(k);
        if (put_run(&one, 1, 1, m, 0, nullptr, false, code, unused) != 1) {
            convert_to(csv_kind::text);
            put_run(&one, 1, 1, m, 0, nullptr, false, code, unused);
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
} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_TABLE_COLUMN_HPP
