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

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

#if FASTREAD_HAS_FAST_FLOAT
/// A whole field `f` of the shape a table's decimals mostly have (an optional sign, then at
/// most 8 bytes: digits, one '.', digits, a digit on each side; `18.40`, `-0.5`) into
/// `out`, from one 8-byte word (the bytes from f's digits to `limit` must hold it): the
/// '.' found and shifted out, the (at most 7) digits converted by SWAR, the value their
/// integer divided by 10^(digits after the '.'), which is exact and correctly rounded
/// (Clinger's fast path: both are exact doubles, and floats). False, with `out` untouched,
/// for any other field: the general converter's then.
template <class V>
[[gnu::always_inline]] inline bool csv_short_decimal(std::string_view f, const char* limit,
                                                     V& out) noexcept {
    const std::size_t s = !f.empty() && (f[0] == '-' || f[0] == '+') ? 1 : 0;
    const std::size_t k = f.size() - s; // the bytes after the sign
    if (k < 3 || k > 8 || limit - (f.data() + s) < 8 || !fast_float::detail::rounds_to_nearest()) {
        return false;
    }
    std::uint64_t x;
    std::memcpy(&x, f.data() + s, 8);
    if constexpr (std::endian::native == std::endian::big) {
        x = __builtin_bswap64(x);
    }
    const std::uint64_t z = x ^ 0x2E2E2E2E2E2E2E2Eull; // a '.' byte is 0 here
    const std::uint64_t dots = (z - 0x0101010101010101ull) & ~z & 0x8080808080808080ull;
    const auto d = static_cast<unsigned>(std::countr_zero(dots)) >> 3; // the first '.': 8 none
    if (d == 0 || d + 2 > k) {
        return false; // no digit before the '.', or none after it (or no '.' in f)
    }
    const std::uint64_t below = (std::uint64_t{1} << (8 * d)) - 1;
    const std::uint64_t t = x ^ 0x3030303030303030ull;
    const std::uint64_t digits = (t & below) | ((t >> 8) & ~below); // the '.' shifted out
    const auto n = static_cast<unsigned>(k - 1);
    const std::uint64_t non_digit =
        (digits | (digits + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
    if ((non_digit & ((std::uint64_t{1} << (8 * n)) - 1)) != 0) {
        return false;
    }
    static constexpr V powers[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    const V value = static_cast<V>(swar_digits8(digits, n)) / powers[n - d];
    out = f[0] == '-' ? -value : value;
    return true;
}
#endif

/// Converts a whole field `f` (not missing) to the number type V, reading no byte at or
/// after `limit` (>= f's end: bytes past a short field let the converters take their
/// word-wide steps; the byte at f's end must be one no number holds); the error code, or 0
/// (errc{}) when it did.
template <class V>
[[gnu::always_inline]] inline errc csv_convert_number(std::string_view f, const char* limit,
                                                      V& out) {
#if FASTREAD_HAS_FAST_FLOAT
    if constexpr (std::is_floating_point_v<V>) {
        if (csv_short_decimal(f, limit, out)) {
            return errc{};
        }
    }
#endif
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
        // By length first, the bytes compared inline (a memcmp call per spelling was most of
        // what a sniffed number cost: `8.79` is as long as `true`).
        const auto is = [&](const char* w) {
            for (std::size_t i = 0; i < f.size(); ++i) {
                if (f[i] != w[i]) {
                    return false;
                }
            }
            return true;
        };
        if (f.size() == 4 && (is("true") || is("True") || is("TRUE"))) {
            out = true;
        } else if (f.size() == 5 && (is("false") || is("False") || is("FALSE"))) {
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
