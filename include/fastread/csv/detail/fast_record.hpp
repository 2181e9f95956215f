// The public header first: it includes this one at its end, after what this one uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_FAST_RECORD_HPP
#define FASTREAD_CSV_DETAIL_FAST_RECORD_HPP

/// @file
/// The fast path of csv::columns: a record whose fields are numbers, unquoted text or quoted
/// text without an escape, read straight from the structural cursor into the columns (no
/// tokenizer, no field views). Every field it takes is exactly what the tokenizer would make
/// of it; anything else (a value that does not convert, a missing value in a column that is
/// not optional, a field over the limit, a record the buffer does not hold whole) makes it
/// give the record back, untouched, to the tokenizer, whose reading also makes the errors.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "cursor.hpp"
#include "setup.hpp"

namespace fastread::detail {

/// The fast path for the records of csv::columns<T...>.
template <class... T>
class csv_fast_record {
  public:
    using tuple_type = std::tuple<csv::column_of<T>...>;

    explicit csv_fast_record(const csv::options& o)
        : missing_(o.missing), delimiter_(o.delimiter), quote_(o.quote), comment_(o.comment),
          max_field_bytes_(o.max_field_bytes) {
        constexpr auto number_byte = csv_number_byte;
        // Only where its fields are exactly the tokenizer's: no trim, and no dialect byte that
        // a number can hold.
        usable_ =
            !o.trim && !number_byte(o.delimiter) && !number_byte(o.quote) && !number_byte(o.escape);
        for (const std::string& m : o.missing) {
            missing_quote_ = missing_quote_ || (o.quote != 0 && m.find(o.quote) != m.npos);
            check_missing_ = check_missing_ ||
                             (!m.empty() && (number_byte(m[0]) && !(m[0] >= 'a' && m[0] <= 'z') &&
                                             !(m[0] >= 'A' && m[0] <= 'Z')));
        }
    }

    /// Whether the dialect lets the fast path read any record.
    bool usable() const noexcept { return usable_; }

    // The record at p, each field exactly what the tokenizer would make of it (no quote, no
    // escape, a delimiter or a line end right after each field read): its values appended
    // to `out`, and the byte after its line end; null (nothing appended) for any other
    // record, or one that the bytes before `end` do not hold whole.
    template <std::size_t... I>
    [[gnu::always_inline]] const char* read(const char* p, const char* end, csv_cursor& cursor,
                                            std::uint64_t& lines, const std::vector<int>& slots,
                                            tuple_type& out, std::string& scratch,
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

  private:
    // A text field's bytes as they are in the input (inside its quotes, if quoted), and
    // whether they hold doubled quotes (each one quote of the text).
    struct text_piece {
        std::string_view raw;
        bool doubled = false;
    };
    // What the fast path holds of a field until its record is whole: the value of a number,
    // the view of a text field; inside std::optional for a column that may miss values.
    template <class C>
    using fast_value = std::conditional_t<
        csv_fast_scalar<typename csv_optional<C>::type>, C,
        std::conditional_t<csv_optional<C>::value, std::optional<text_piece>, text_piece>>;
    template <class C>
    static constexpr bool fast_type =
        csv_fast_scalar<typename csv_optional<C>::type> ||
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
            if constexpr (!csv_fast_scalar<V>) {
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
        } else if constexpr (is_csv_time<V>) {
            if (c == quote_ && quote_ != 0) {
                return false; // a quoted date: the tokenizer's
            }
            q = cursor.next(p);
            const std::string_view field(p, static_cast<std::size_t>(q - p));
            V value{};
            if (field.size() > max_field_bytes_ || csv_convert(field, value) != errc{}) {
                return false;
            }
            v = value;
            return !check_missing_ || !missing_.has(field);
        } else {
            text_piece piece;
            if (c == quote_ && quote_ != 0) {
                // A quoted field: to the quote that is not doubled. Delimiters and line ends
                // inside are text (the line ends counted); an escape is the tokenizer's.
                std::uint64_t inside = 0;
                const char* s = csv_closing_quote(p + 1, end, cursor, quote_, delimiter_, inside,
                                                  piece.doubled);
                if (s == nullptr) {
                    return false;
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
        return t.doubled ? csv_undoubled(t.raw, quote_, scratch) : t.raw;
    }

    // Appends a fast_value to its column.
    template <class C, class Column>
    [[gnu::always_inline]] void fast_append(Column& column, fast_value<C>& v,
                                            std::string& scratch) const {
        using V = typename csv_optional<C>::type;
        if constexpr (csv_fast_scalar<V>) {
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

    csv_missing missing_;
    char delimiter_, quote_, comment_;
    std::size_t max_field_bytes_;
    bool usable_ = false;
    bool missing_quote_ = false; // a missing spelling holds the quote byte
    bool check_missing_ = false; // a missing spelling starts as a number does
};

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_FAST_RECORD_HPP
