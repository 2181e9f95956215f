// The public header first (csv::text): it includes this one at its end, after what this one
// uses.
#include "../../csv.hpp"
#ifndef FASTREAD_CSV_DETAIL_CONVERT_HPP
#define FASTREAD_CSV_DETAIL_CONVERT_HPP

/// @file
/// The field conversions of csv::columns<T...>: integers and floating point through the
/// number kernels of fastread::numbers (the whole field one number; floating point
/// bit-identical to strtod), bool, std::string, dates and timestamps (dates.hpp), and
/// std::optional of those (empty for a missing value).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../../numbers/detail/convert.hpp"
#include "../../numbers/detail/number_type.hpp"
#include "../../result.hpp"
#include "dates.hpp"

namespace fastread::detail {

template <class T>
struct csv_optional : std::false_type {
    using type = T;
};
template <class T>
struct csv_optional<std::optional<T>> : std::true_type {
    using type = T;
};

/// The value types csv::columns reads (inside std::optional or not).
template <class T>
inline constexpr bool is_csv_value = is_number_type<T> || std::is_same_v<T, bool> ||
                                     std::is_same_v<T, std::string> || is_csv_time<T>;

/// The value types the fast path of csv::columns holds as values (the others as text).
template <class T>
inline constexpr bool csv_fast_scalar = is_number_type<T> || is_csv_time<T>;

template <class T>
inline constexpr bool is_csv_column =
    is_csv_value<typename csv_optional<T>::type> || std::is_same_v<T, csv::text>;

/// The name of a column type in messages.
template <class T>
std::string csv_type_name() {
    if constexpr (std::is_same_v<T, double>) {
        return "double";
    } else if constexpr (std::is_same_v<T, float>) {
        return "float";
    } else if constexpr (std::is_same_v<T, bool>) {
        return "bool";
    } else if constexpr (is_csv_date<T>) {
        return "date (YYYY-MM-DD)";
    } else if constexpr (is_csv_timestamp<T>) {
        return "timestamp (ISO 8601, years 1678 to 2261)";
    } else if constexpr (std::is_signed_v<T>) {
        return std::to_string(sizeof(T) * 8) + "-bit integer";
    } else {
        return std::to_string(sizeof(T) * 8) + "-bit unsigned integer";
    }
}

/// Converts a whole field `f` (not missing) to the number type V, reading no byte at or
/// after `limit` (>= f's end: bytes past a short field let the converters take their
/// word-wide steps; the byte at f's end must be one no number holds); the error code, or 0
/// (errc{}) when it did.
template <class V>
[[gnu::always_inline]] inline errc csv_convert_number(std::string_view f, const char* limit,
                                                      V& out) {
    number_status st = number_status::invalid;
    if (f.empty() || convert_number(f.data(), limit, out, st) != f.data() + f.size()) {
        return errc::invalid_number;
    }
    return st == number_status::ok             ? errc{}
           : st == number_status::out_of_range ? errc::number_out_of_range
                                               : errc::invalid_number;
}

/// Converts a whole field (not missing) to V; the error code, or 0 (errc{}) when it did.
template <class V>
[[gnu::always_inline]] inline errc csv_convert(std::string_view f, V& out) {
    if constexpr (std::is_same_v<V, std::string>) {
        out.assign(f.data(), f.size());
        return errc{};
    } else if constexpr (std::is_same_v<V, bool>) {
        if (f == "true" || f == "True" || f == "TRUE") {
            out = true;
        } else if (f == "false" || f == "False" || f == "FALSE") {
            out = false;
        } else {
            return errc::invalid_number;
        }
        return errc{};
    } else if constexpr (is_csv_date<V>) {
        return parse_csv_date(f, out) ? errc{} : errc::invalid_date;
    } else if constexpr (is_csv_timestamp<V>) {
        return parse_csv_timestamp(f, out) ? errc{} : errc::invalid_date;
    } else {
        return csv_convert_number(f, f.data() + f.size(), out);
    }
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_CONVERT_HPP
