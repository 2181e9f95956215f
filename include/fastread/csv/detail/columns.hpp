// The public header first: it includes this one at its end, after what this one uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_COLUMNS_HPP
#define FASTREAD_CSV_DETAIL_COLUMNS_HPP

/// @file
/// csv::columns<T...> (declared in fastread::csv, included by csv.hpp): typed columns chosen
/// by header name or index, from a source on the calling thread, or from a file, in slices
/// on threads when it is big and in the page cache (csv/detail/slices.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../../detail/call_setup.hpp"
#include "../../error.hpp"
#include "convert.hpp"
#include "setup.hpp"

namespace fastread::detail {

/// Room for `rows` in a column (a text column: bytes too, as many a row as it has so far,
/// 10 % more).
template <class T>
void csv_reserve_column(std::vector<T>& v, std::size_t rows) {
    v.reserve(rows);
}
inline void csv_reserve_column(csv::text_column& c, std::size_t rows) {
    const double per_row =
        c.empty() ? 0.0
                  : static_cast<double>(c.bytes().size()) / static_cast<double>(c.size()) * 1.1;
    const double bytes = per_row * static_cast<double>(rows);
    c.reserve(rows, bytes < static_cast<double>(SIZE_MAX / 4) ? static_cast<std::size_t>(bytes)
                                                              : c.bytes().size());
}

/// Room for `rows` in each column (`text_only`: in the text columns only).
template <class... C>
void csv_reserve(std::tuple<C...>& t, std::size_t rows, bool text_only = false) {
    auto one = [&](auto& c) {
        if (!text_only || std::is_same_v<std::decay_t<decltype(c)>, csv::text_column>) {
            csv_reserve_column(c, rows);
        }
    };
    std::apply([&](C&... c) { (one(c), ...); }, t);
}

/// Appends column `from` to `to`.
template <class T>
void csv_append_column(std::vector<T>& to, std::vector<T>&& from) {
    if (to.empty()) {
        to = std::move(from);
    } else {
        to.insert(to.end(), std::make_move_iterator(from.begin()),
                  std::make_move_iterator(from.end()));
    }
}
inline void csv_append_column(csv::text_column& to, csv::text_column&& from) {
    if (to.empty()) {
        to = std::move(from);
    } else {
        to.append(from);
    }
}

/// What a run of csv_columns_run stopped at, besides the end.
struct csv_stop {
    errc code{}; ///< 0: none
    std::string reason;
    csv_place at;             ///< row and line relative to the run's start (row 1 = its first)
    bool misaligned = false;  ///< a slice's last record runs past its end (no error itself)
    std::uint64_t resume = 0; ///< with misaligned: the offset to read on from
    std::optional<fastread::error> read_error;
};

/// The typed columns of one call: which field each comes from, and the conversions.
template <class... T>
class csv_columns_job {
  public:
    static constexpr std::size_t n = sizeof...(T);
    using tuple_type = std::tuple<csv::column_of<T>...>;

    csv_columns_job(const csv::options& o, const std::array<csv::column_key, n>& keys)
        : missing_(o.missing), keys_(keys), ragged_(o.ragged), delimiter_(o.delimiter),
          quote_(o.quote), escape_(o.escape), comment_(o.comment),
          max_field_bytes_(o.max_field_bytes) {
        auto number_byte = [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   c == '+' || c == '-' || c == '.' || c == '(' || c == ')' || c == '_';
        };
        // The fast path reads a record of numbers without the tokenizer: only where its
        // fields are exactly the tokenizer's (see fast_record).
        fast_ =
            !o.trim && !number_byte(o.delimiter) && !number_byte(o.quote) && !number_byte(o.escape);
        for (const std::string& m : o.missing) {
            missing_quote_ = missing_quote_ || (o.quote != 0 && m.find(o.quote) != m.npos);
            check_missing_ = check_missing_ ||
                             (!m.empty() && (number_byte(m[0]) && !(m[0] >= 'a' && m[0] <= 'z') &&
                                             !(m[0] >= 'A' && m[0] <= 'Z')));
        }
    }

    /// Resolves the keys against `head` (names, field count); the invalid_argument error of
    /// a name not in the header or an index beyond it.
    fastread::error resolve(const csv_head& head, const std::string& file) {
        head_ = head;
        for (std::size_t k = 0; k < n; ++k) {
            if (keys_[k].by_name()) {
                std::size_t i = 0;
                while (i < head.names.size() && head.names[i] != keys_[k].name()) {
                    ++i;
                }
                if (i == head.names.size()) {
                    return invalid_argument_value("csv::columns: no column named \"" +
                                                  keys_[k].name() + "\" in the header" +
                                                  (file.empty() ? "" : " of " + file));
                }
                index_[k] = i;
            } else {
                index_[k] = keys_[k].index();
                if (head.fields != 0 && index_[k] >= head.fields) {
                    return invalid_argument_value(
                        "csv::columns: column index " +
                        (index_[k] == SIZE_MAX ? std::string("< 0") : std::to_string(index_[k])) +
                        " beyond the " + std::to_string(head.fields) + " columns" +
                        (file.empty() ? "" : " of " + file));
                }
            }
        }
        return {};
    }

    const csv_head& head() const noexcept { return head_; }

    /// Reads the records of `r` into `out` until the end, an error, or (with `slice_end`
    /// set: a slice that is not the file's last) a record that runs past the end. `fields`
    /// is the field count every record must have (0: set from the first).
    /// `input_bytes` (0: unknown): the bytes from the reader's position to the end, by
    /// which the columns are reserved after the first 1024 rows (as their density promises,
    /// 10 % more), so that they do not grow by copying; `reserved`: only the text columns
    /// (the others have their room).
    csv_stop run(csv_reader& r, tuple_type& out, std::uint64_t& rows, std::size_t& fields,
                 bool slice_end, std::uint64_t input_bytes = 0, bool reserved = false) const {
        csv_stop stop;
        const std::uint64_t start = r.position();
        const std::uint64_t reserve_at = input_bytes != 0 ? rows + 1024 : UINT64_MAX;
        std::vector<int> slots; // field -> column asked for, or -1 (fast_record)
        bool fast = fast_;
        std::string scratch; // a quoted field's text without its doubled quotes (fast_append)
        for (;;) {
            if (rows == reserve_at) [[unlikely]] {
                const std::uint64_t read = std::max<std::uint64_t>(r.position() - start, 1);
                const double expect = static_cast<double>(rows) * static_cast<double>(input_bytes) /
                                      static_cast<double>(read) * 1.1;
                if (expect < static_cast<double>(SIZE_MAX / 64)) {
                    csv_reserve(out, static_cast<std::size_t>(expect) + 64, reserved);
                }
            }
            if (fields != 0 && fast) [[likely]] {
                if (slots.size() != fields) {
                    slots.assign(fields, -1);
                    for (std::size_t k = 0; k < n; ++k) {
                        if (index_[k] < fields) {
                            // A field asked for twice: the tokenizer's (a slot holds one).
                            fast = fast && slots[index_[k]] < 0;
                            slots[index_[k]] = static_cast<int>(k);
                        }
                    }
                }
                if (fast && r.next_fast([&](const char* p, const char* end, csv_cursor& cursor,
                                            std::uint64_t& lines) {
                        return fast_record(p, end, cursor, lines, slots, out, scratch,
                                           std::index_sequence_for<T...>{});
                    })) {
                    ++rows;
                    continue;
                }
            }
            const std::uint64_t before = r.position();
            const csv_step step = r.next();
            if (const fastread::error* e = r.read_error()) {
                stop.read_error = *e;
                return stop;
            }
            if (step == csv_step::end) {
                return stop;
            }
            if (step == csv_step::failed) {
                if (slice_end && r.failure().code == errc::malformed_input &&
                    r.failure().reason.find("no closing quote") != std::string::npos) {
                    stop.misaligned = true;
                    stop.resume = before;
                    return stop;
                }
                stop.code = r.failure().code;
                stop.reason = r.failure().reason;
                stop.at = {r.failure_offset(), r.failure_line(), rows + 1, r.failure().field};
                return stop;
            }
            if (slice_end && r.unterminated()) {
                stop.misaligned = true;
                stop.resume = before;
                return stop;
            }
            const csv_fields& f = r.fields();
            if (fields == 0) {
                fields = f.size();
                for (std::size_t k = 0; k < n; ++k) {
                    if (index_[k] >= fields) {
                        stop.code = errc::invalid_argument;
                        stop.reason = "column index " + std::to_string(index_[k]) +
                                      " beyond the first row's " + std::to_string(fields) +
                                      " fields";
                        stop.at = {r.offset(), r.line(), rows + 1, SIZE_MAX};
                        return stop;
                    }
                }
            }
            if (f.size() != fields && ragged_ != csv::ragged_rows::keep) {
                if (ragged_ == csv::ragged_rows::skip) {
                    continue;
                }
                if (ragged_ == csv::ragged_rows::error || f.size() > fields) {
                    stop.code = errc::wrong_column_count;
                    stop.reason = "a row of " + std::to_string(f.size()) + " fields, the " +
                                  (head_.names.empty() ? "first row has " : "header has ") +
                                  std::to_string(fields);
                    stop.at = {r.offset(), r.line(), rows + 1, SIZE_MAX};
                    return stop;
                }
            }
            ++rows;
            std::size_t bad = SIZE_MAX;
            errc code{};
            put(out, f, bad, code, std::index_sequence_for<T...>{});
            if (bad != SIZE_MAX) {
                const std::size_t i = index_[bad];
                const std::string_view field = i < f.size() ? f[i] : std::string_view();
                stop.code = code;
                stop.reason = code == errc::missing_value
                                  ? "a missing value (" + csv_shown(field) +
                                        ") in a column that is not std::optional"
                                  : csv_shown(field) + " is not " + type_name(bad);
                stop.at = {r.field_offset(i), r.line(), rows, i};
                return stop;
            }
        }
    }

  private:
    // What the fast path holds of a field until its record is whole: the value of a number,
    // the view of a text field; inside std::optional for a column that may miss values.
    // A text field's bytes as they are in the input (inside its quotes, if quoted), and
    // whether they hold doubled quotes (each one quote of the text).
    struct text_piece {
        std::string_view raw;
        bool doubled = false;
    };
    template <class C>
    using fast_value = std::conditional_t<
        is_number_type<typename csv_optional<C>::type>, C,
        std::conditional_t<csv_optional<C>::value, std::optional<text_piece>, text_piece>>;
    template <class C>
    static constexpr bool fast_type =
        is_number_type<typename csv_optional<C>::type> ||
        std::is_same_v<typename csv_optional<C>::type, std::string> || std::is_same_v<C, csv::text>;

    // Field of column type C at p, exactly as the tokenizer would read it, into v; the byte
    // after it in *q; the line ends inside a quoted field added to `lines`. False to leave
    // the record to the tokenizer: a missing value in a column that is not optional, a
    // field that is not a number (inf, nan, NA...), a field over the limit, an escape, a
    // field that the bytes before `end` do not hold whole; a field that ends before a byte
    // other than a delimiter or a line end is the caller's to refuse.
    template <class C>
    [[gnu::always_inline]] bool fast_field(const char* p, const char* end, csv_cursor& cursor,
                                           std::uint64_t& lines, fast_value<C>& v,
                                           const char*& q) const {
        using V = typename csv_optional<C>::type;
        if (p == end) {
            return false;
        }
        const char c = *p;
        if (c == delimiter_ || c == '\n' || c == '\r') { // an empty field
            if constexpr (csv_optional<C>::value) {
                if (missing_.has({})) {
                    v = {};
                    q = p;
                    return true;
                }
            }
            if constexpr (!is_number_type<V>) {
                if (!missing_.has({})) {
                    v = text_piece{};
                    q = p;
                    return true;
                }
            }
            return false;
        }
        if constexpr (is_number_type<V>) {
            if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.')) {
                return false;
            }
            number_status st = number_status::invalid;
            V value{};
            q = convert_number(p, end, value, st);
            if (st != number_status::ok || static_cast<std::size_t>(q - p) > max_field_bytes_)
                [[unlikely]] {
                return false;
            }
            v = value;
            return !check_missing_ ||
                   !missing_.has(std::string_view(p, static_cast<std::size_t>(q - p)));
        } else {
            text_piece piece;
            if (c == quote_ && quote_ != 0) {
                // A quoted field: to the quote that is not doubled. Delimiters and line ends
                // inside are text (the line ends counted); an escape is the tokenizer's.
                const char* s = p + 1;
                std::uint64_t inside = 0;
                for (;;) {
                    s = cursor.next(s);
                    if (s == end) {
                        return false;
                    }
                    const char b = *s;
                    if (b == quote_) {
                        if (s + 1 == end) {
                            return false;
                        }
                        if (s[1] != quote_) {
                            break;
                        }
                        piece.doubled = true;
                        s += 2;
                        continue;
                    }
                    if (b == '\n') {
                        ++inside;
                    } else if (b == '\r') {
                        if (s + 1 == end) {
                            return false;
                        }
                        inside += s[1] != '\n';
                    } else if (b != delimiter_) {
                        return false; // the escape byte
                    }
                    ++s;
                }
                piece.raw = std::string_view(p + 1, static_cast<std::size_t>(s - p - 1));
                // Without its doubled quotes the text is shorter than raw: a raw over the
                // limit, or a missing spelling that holds a quote, is the tokenizer's to judge.
                if (piece.raw.size() > max_field_bytes_ || (piece.doubled && missing_quote_)) {
                    return false;
                }
                q = s + 1;
                lines += inside;
            } else {
                q = cursor.next(p);
                piece.raw = std::string_view(p, static_cast<std::size_t>(q - p));
                if (piece.raw.size() > max_field_bytes_) {
                    return false;
                }
            }
            if (!piece.doubled && missing_.has(piece.raw)) {
                if constexpr (csv_optional<C>::value) {
                    v = {};
                    return true;
                }
                return false;
            }
            v = piece;
            return true;
        }
    }

    // The text of a piece: its raw bytes, or (with doubled quotes) those without the second
    // quote of each pair, in `scratch`.
    std::string_view piece_text(const text_piece& t, std::string& scratch) const {
        if (!t.doubled) {
            return t.raw;
        }
        scratch.clear();
        std::size_t from = 0;
        for (std::size_t k = t.raw.find(quote_); k != std::string_view::npos;
             k = t.raw.find(quote_, from)) {
            scratch.append(t.raw.data() + from, k + 1 - from); // through the first quote
            from = k + 2;                                      // the second one skipped
        }
        scratch.append(t.raw.data() + from, t.raw.size() - from);
        return scratch;
    }

    // Appends a fast_value to its column.
    template <class C, class Column>
    [[gnu::always_inline]] void fast_append(Column& column, fast_value<C>& v,
                                            std::string& scratch) const {
        using V = typename csv_optional<C>::type;
        if constexpr (is_number_type<V>) {
            column.push_back(v);
        } else if constexpr (std::is_same_v<V, csv::text>) {
            column.push_back(piece_text(v, scratch));
        } else if constexpr (csv_optional<C>::value) {
            if (v) {
                const std::string_view t = piece_text(*v, scratch);
                column.emplace_back(std::in_place, t.data(), t.size());
            } else {
                column.emplace_back();
            }
        } else {
            const std::string_view t = piece_text(v, scratch);
            column.emplace_back(t.data(), t.size());
        }
    }

    // The record at p, each field exactly what the tokenizer would make of it (no quote, no
    // escape, a delimiter or a line end right after each field read): its values appended
    // to `out`, and the byte after its line end; null (nothing appended) for any other
    // record, or one that the bytes before `end` do not hold whole.
    template <std::size_t... I>
    [[gnu::always_inline]] const char*
    fast_record(const char* p, const char* end, csv_cursor& cursor, std::uint64_t& lines,
                const std::vector<int>& slots, tuple_type& out, std::string& scratch,
                std::index_sequence<I...>) const {
        if constexpr (!(fast_type<T> && ...)) {
            return nullptr;
        } else {
            if (p == end || *p == '\n' || *p == '\r' || (comment_ != 0 && *p == comment_)) {
                return nullptr;
            }
            std::tuple<fast_value<T>...> values;
            const std::size_t count = slots.size();
            for (std::size_t f = 0; f < count; ++f) {
                const char* q = end;
                const int k = slots[f];
                if (k >= 0) {
                    bool ok = false;
                    (void)((k == static_cast<int>(I) ? (ok = fast_field<T>(p, end, cursor, lines,
                                                                           std::get<I>(values), q),
                                                        true)
                                                     : false) ||
                           ...);
                    if (!ok) {
                        return nullptr;
                    }
                } else {
                    q = cursor.next(p);
                }
                if (q == end) {
                    return nullptr;
                }
                const char c = *q;
                if (f + 1 < count) {
                    if (c != delimiter_) {
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
            (fast_append<T>(std::get<I>(out), std::get<I>(values), scratch), ...);
            return p;
        }
    }

    template <std::size_t... I>
    [[gnu::always_inline]] void put(tuple_type& out, const csv_fields& f, std::size_t& bad,
                                    errc& code, std::index_sequence<I...>) const {
        (void)(put_one<I>(std::get<I>(out), f, bad, code) && ...);
    }
    template <std::size_t K, class Column>
    [[gnu::always_inline]] bool put_one(Column& v, const csv_fields& f, std::size_t& bad,
                                        errc& code) const {
        using C = std::tuple_element_t<K, std::tuple<T...>>;
        using traits = csv_optional<C>;
        using V = typename traits::type;
        const std::size_t i = index_[K];
        const bool there = i < f.size();
        const std::string_view field = there ? f[i] : std::string_view();
        if (!there || missing_.has(field)) {
            if constexpr (traits::value) {
                v.emplace_back();
                return true;
            } else {
                bad = K;
                code = errc::missing_value;
                return false;
            }
        }
        if constexpr (std::is_same_v<V, csv::text>) {
            v.push_back(field);
            return true;
        } else if constexpr (std::is_same_v<V, std::string>) {
            if constexpr (traits::value) {
                v.emplace_back(std::in_place, field.data(), field.size());
            } else {
                v.emplace_back(field.data(), field.size());
            }
            return true;
        } else {
            V value{};
            const errc e = csv_convert(field, value);
            if (e != errc{}) [[unlikely]] {
                bad = K;
                code = e;
                return false;
            }
            v.emplace_back(std::move(value));
            return true;
        }
    }
    std::string type_name(std::size_t k) const {
        std::string names[] = {"a " + csv_type_name<typename csv_optional<T>::type>()...};
        return names[k];
    }

    csv_missing missing_;
    std::array<csv::column_key, n> keys_;
    std::array<std::size_t, n> index_{};
    csv::ragged_rows ragged_;
    csv_head head_;
    char delimiter_, quote_, escape_, comment_;
    std::size_t max_field_bytes_;
    bool missing_quote_ = false; // a missing spelling holds the quote byte
    bool fast_ = false;
    bool check_missing_ = false; // a missing spelling starts as a number does
};

/// The error of a run's stop, its row and line counted from `first_row` and `first_line`
/// (the rows and lines before the run).
inline fastread::error csv_stop_error(const csv_stop& s, std::uint64_t rows_before,
                                      std::uint64_t lines_before, const std::string& file,
                                      const std::vector<std::string>& names) {
    if (s.read_error) {
        return *s.read_error;
    }
    csv_place at = s.at;
    at.row += rows_before;
    at.line += lines_before;
    if (s.code == errc::invalid_argument) {
        return invalid_argument_value("csv::columns: " + s.reason);
    }
    return csv_error(s.code, at, s.reason, file, names);
}

template <class... C>
void csv_append(std::tuple<C...>& to, std::tuple<C...>&& from) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (csv_append_column(std::get<I>(to), std::move(std::get<I>(from))), ...);
    }
    (std::index_sequence_for<C...>{});
}

/// csv::columns of a csv_input, on the calling thread.
template <class... T>
result<std::tuple<csv::column_of<T>...>>
csv_columns_input(csv_input& in, const csv::options& o,
                  const std::array<csv::column_key, sizeof...(T)>& keys, const std::string& file,
                  std::uint64_t size_hint = 0) {
    if (const result<csv::options> settled = settle_call(o); !settled) {
        return settled.error();
    }
    result<csv_dialect> d = csv_dialect_of(o);
    if (!d) {
        return d.error();
    }
    csv_reader r(*d, in);
    result<csv_head> head = csv_read_head(r, o, file);
    if (!head) {
        return head.error();
    }
    csv_columns_job<T...> job(o, keys);
    if (fastread::error e = job.resolve(*head, file); e.code()) {
        return e;
    }
    std::tuple<csv::column_of<T>...> out;
    std::uint64_t rows = 0;
    std::size_t fields = head->fields;
    const csv_stop stop = job.run(r, out, rows, fields, false,
                                  size_hint > r.position() ? size_hint - r.position() : 0);
    if (stop.code != errc{} || stop.read_error) {
        return csv_stop_error(stop, 0, 0, file, head->names);
    }
    return out;
}

} // namespace fastread::detail

#include "slices.hpp"

#endif // FASTREAD_CSV_DETAIL_COLUMNS_HPP
