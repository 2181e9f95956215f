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
#include "../../detail/huge_pages.hpp"
#include "../../error.hpp"
#include "convert.hpp"
#include "fast_record.hpp"
#include "setup.hpp"

namespace fastread::detail {

/// Room for `rows` in a column (a text column: bytes too, as many a row as it has so far,
/// 10 % more); a big column's pages are advised to be huge (advise_huge_pages: it is about
/// to be written whole).
template <class T>
void csv_reserve_column(std::vector<T>& v, std::size_t rows) {
    reserve_filled(v, rows);
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

/// What csv_next_record found.
enum class csv_next { record, skip, stop };

/// The next record of `r` read by the tokenizer, checked as every job checks it: the end or
/// an error (csv_next::stop, `stop` set: none at the end), a slice's last record running
/// past its end (stop.misaligned), a record of another field count than `fields` (0: the
/// first record's count, which sets it; `widest`: the fields the first record must have,
/// else an invalid_argument stop) as `ragged` says (skip, or an error); `rows`: the rows
/// before it.
inline csv_next csv_next_record(csv_reader& r, csv_stop& stop, std::uint64_t rows,
                                std::size_t& fields, bool slice_end, csv::ragged_rows ragged,
                                bool header, std::size_t widest = 0) {
    const std::uint64_t before = r.position();
    const csv_step step = r.next();
    if (const fastread::error* e = r.read_error()) {
        stop.read_error = *e;
        return csv_next::stop;
    }
    if (step == csv_step::end) {
        return csv_next::stop;
    }
    if (step == csv_step::failed) {
        if (slice_end && r.failure().code == errc::malformed_input &&
            r.failure().reason.find("no closing quote") != std::string::npos) {
            stop.misaligned = true;
            stop.resume = before;
            return csv_next::stop;
        }
        stop.code = r.failure().code;
        stop.reason = r.failure().reason;
        stop.at = {r.failure_offset(), r.failure_line(), rows + 1, r.failure().field};
        return csv_next::stop;
    }
    if (slice_end && r.unterminated()) {
        stop.misaligned = true;
        stop.resume = before;
        return csv_next::stop;
    }
    const csv_fields& f = r.fields();
    if (fields == 0) {
        fields = f.size();
        if (widest > fields) {
            stop.code = errc::invalid_argument;
            stop.reason = "column index " + std::to_string(widest - 1) +
                          " beyond the first row's " + std::to_string(fields) + " fields";
            stop.at = {r.offset(), r.line(), rows + 1, SIZE_MAX};
            return csv_next::stop;
        }
    }
    if (f.size() != fields && ragged != csv::ragged_rows::keep) {
        if (ragged == csv::ragged_rows::skip) {
            return csv_next::skip;
        }
        if (ragged == csv::ragged_rows::error || f.size() > fields) {
            stop.code = errc::wrong_column_count;
            stop.reason = "a row of " + std::to_string(f.size()) + " fields, the " +
                          (header ? "header has " : "first row has ") + std::to_string(fields);
            stop.at = {r.offset(), r.line(), rows + 1, SIZE_MAX};
            return csv_next::stop;
        }
    }
    return csv_next::record;
}

/// The typed columns of one call: which field each comes from, and the conversions.
template <class... T>
class csv_columns_job {
  public:
    static constexpr const char* call = "csv::columns"; // for its errors
    static constexpr std::size_t n = sizeof...(T);
    using tuple_type = std::tuple<csv::column_of<T>...>;

    csv_columns_job(const csv::options& o, const std::array<csv::column_key, n>& keys)
        : missing_(o.missing), fast_(o), keys_(keys), ragged_(o.ragged), delimiter_(o.delimiter),
          quote_(o.quote), escape_(o.escape), comment_(o.comment) {}

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

    /// What csv_job_slices asks of a job besides run: room for `rows` in `out`'s columns;
    /// `from` appended to `to`; the join of the slices' columns, column `k` of each of
    /// `rest` appended to `to`'s (one column a call, the columns joined on threads).
    using output_type = tuple_type;
    void reserve(tuple_type& out, std::size_t rows) const { csv_reserve(out, rows); }
    void append(tuple_type& to, tuple_type&& from) const;
    static constexpr std::size_t join_units() noexcept { return n; }
    void join(tuple_type& to, const std::vector<tuple_type*>& rest, std::size_t k) const {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            auto one = [&](auto index) {
                constexpr std::size_t c = decltype(index)::value;
                if (c == k) {
                    for (tuple_type* from : rest) {
                        csv_append_column(std::get<c>(to), std::move(std::get<c>(*from)));
                    }
                }
            };
            (one(std::integral_constant<std::size_t, I>{}), ...);
        }
        (std::index_sequence_for<T...>{});
    }

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
        std::vector<int> slots; // field -> column asked for, or -1 (csv_fast_record)
        bool fast = fast_.usable();
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
                        return fast_.read(p, end, cursor, lines, slots, out, scratch,
                                          std::index_sequence_for<T...>{});
                    })) {
                    ++rows;
                    continue;
                }
            }
            std::size_t widest = 0; // the fields a record must have for every key
            for (std::size_t k = 0; k < n; ++k) {
                widest = std::max(widest, index_[k] + 1);
            }
            const csv_next next =
                csv_next_record(r, stop, rows, fields, slice_end, ragged_, !head_.names.empty(),
                                head_.names.empty() && fields == 0 ? widest : 0);
            if (next == csv_next::stop) {
                return stop;
            }
            if (next == csv_next::skip) {
                continue;
            }
            const csv_fields& f = r.fields();
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
    csv_fast_record<T...> fast_;
    std::array<csv::column_key, n> keys_;
    std::array<std::size_t, n> index_{};
    csv::ragged_rows ragged_;
    csv_head head_;
    char delimiter_, quote_, escape_, comment_;
};

/// The error of a run's stop, its row and line counted from `first_row` and `first_line`
/// (the rows and lines before the run); `call`: the call whose argument a std::invalid_argument
/// names (the job's: "csv::columns", "csv::read", "csv::count_rows").
inline fastread::error csv_stop_error(const csv_stop& s, std::uint64_t rows_before,
                                      std::uint64_t lines_before, const std::string& file,
                                      const std::vector<std::string>& names, const char* call) {
    if (s.read_error) {
        return *s.read_error;
    }
    csv_place at = s.at;
    at.row += rows_before;
    at.line += lines_before;
    if (s.code == errc::invalid_argument) {
        return invalid_argument_value(std::string(call) + ": " + s.reason);
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

template <class... T>
void csv_columns_job<T...>::append(tuple_type& to, tuple_type&& from) const {
    csv_append(to, std::move(from));
}

/// The records of `in` read by `job` (resolved against the header here) on the calling
/// thread, `o` settled and `d` its dialect; `size_hint`: the input's size, when known.
template <class Job>
result<typename Job::output_type>
csv_job_input(csv_input& in, const csv::options& o, const csv_dialect& d, Job& job,
              const std::string& file, std::uint64_t size_hint = 0) {
    csv_reader r(d, in);
    result<csv_head> head = csv_read_head(r, o, file);
    if (!head) {
        return head.error();
    }
    if (fastread::error e = job.resolve(*head, file); e.code()) {
        return e;
    }
    typename Job::output_type out;
    std::uint64_t rows = 0;
    std::size_t fields = head->fields;
    const csv_stop stop = job.run(r, out, rows, fields, false,
                                  size_hint > r.position() ? size_hint - r.position() : 0);
    if (stop.code != errc{} || stop.read_error) {
        return csv_stop_error(stop, 0, 0, file, head->names, Job::call);
    }
    return out;
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
    csv_columns_job<T...> job(o, keys);
    return csv_job_input(in, o, *d, job, file, size_hint);
}

} // namespace fastread::detail

#include "slices.hpp"

#endif // FASTREAD_CSV_DETAIL_COLUMNS_HPP
