#ifndef FASTREAD_CSV_DETAIL_DATES_HPP
#define FASTREAD_CSV_DETAIL_DATES_HPP

/// @file
/// Dates and timestamps of delimited text: ISO 8601 calendar dates (`2024-01-31`) as
/// std::chrono::sys_days, and date-times (`2024-01-31 12:34:56.5+01:00`) as
/// std::chrono::sys_time<std::chrono::nanoseconds> in UTC, on the proleptic Gregorian
/// calendar of std::chrono::year_month_day (tested against it for every day of years 0000 to
/// 9999).

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace fastread::detail {

/// A UTC time to the nanosecond, what a timestamp column holds.
using csv_timestamp = std::chrono::sys_time<std::chrono::nanoseconds>;

template <class T>
inline constexpr bool is_csv_date = std::is_same_v<T, std::chrono::sys_days>;
template <class T>
inline constexpr bool is_csv_timestamp = std::is_same_v<T, csv_timestamp>;
template <class T>
inline constexpr bool is_csv_time = is_csv_date<T> || is_csv_timestamp<T>;

/// The two ASCII digits at p as a number, or -1.
constexpr int two_digits(const char* p) noexcept {
    const unsigned a = static_cast<unsigned char>(p[0]) - unsigned{'0'};
    const unsigned b = static_cast<unsigned char>(p[1]) - unsigned{'0'};
    return a < 10 && b < 10 ? static_cast<int>(a * 10 + b) : -1;
}

/// Whether the 8 bytes at p have a fixed shape: the bytes whose mask byte in `digits` is
/// 0xFF ASCII digits, those of `fixed` equal to `want`'s. If so, `pairs`' byte i (the first
/// byte the low one) is the number of the two digits at p[i] and p[i + 1], where both are
/// digits: one SWAR step for the fields of a date or a time.
inline bool csv_digit_pairs8(const char* p, std::uint64_t digits, std::uint64_t fixed,
                             std::uint64_t want, std::uint64_t& pairs) noexcept {
    std::uint64_t x;
    std::memcpy(&x, p, 8);
    if constexpr (std::endian::native == std::endian::big) {
        x = __builtin_bswap64(x);
    }
    const std::uint64_t t = x ^ 0x3030303030303030ull;
    // A byte above 9 sets its high nibble here (a carry out of one only from a byte of
    // 0xFA or more, which is neither digit nor `want`, so the answer is no either way).
    const std::uint64_t non_digit = (t | (t + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
    if ((non_digit & digits) != 0 || (x & fixed) != want) {
        return false;
    }
    const std::uint64_t v = t & digits; // digits 0..9, the rest 0: no carry below
    pairs = v * 10 + (v >> 8);
    return true;
}

/// Byte i of `pairs` (csv_digit_pairs8).
inline unsigned csv_pair(std::uint64_t pairs, unsigned i) noexcept {
    return static_cast<unsigned>(pairs >> (8 * i)) & 0xFF;
}

/// The days from 1970-01-01 to the proleptic Gregorian date `year`-`month`-`day` (a valid
/// date, years 0 to 9999): what std::chrono::sys_days{year_month_day} gives, by Howard
/// Hinnant's days_from_civil ("chrono-Compatible Low-Level Date Algorithms": March-based
/// years, so that the leap day ends one), with unsigned arithmetic (no year before 0).
constexpr int csv_days_from_civil(unsigned year, unsigned month, unsigned day) noexcept {
    const unsigned y = year + 400 - (month <= 2); // 400 years earlier: none below 0
    const unsigned era = y / 400, yoe = y % 400;  // [0, 399]
    const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    return static_cast<int>(era * 146097 + doe) - 146097 - 719468;
}

/// The calendar date `YYYY-MM-DD` (ISO 8601's extended format, years 0000 to 9999) that
/// starts `f` (its first 10 bytes) into `out`; false where they are not that shape or name
/// no day of the calendar (2023-02-29, 2024-13-01, 2024-04-31). The Gregorian rule: 29
/// days in February of a year divisible by 4, except of a century not divisible by 400.
inline bool parse_iso_date(std::string_view f, std::chrono::sys_days& out) noexcept {
    // "YYYY-MM-" in one word: digits at bytes 0-3, 5, 6; '-' at 4 and 7.
    std::uint64_t ym = 0;
    if (f.size() < 10 || !csv_digit_pairs8(f.data(), 0x00FFFF00FFFFFFFFull, 0xFF0000FF00000000ull,
                                           0x2D00002D00000000ull, ym)) {
        return false;
    }
    const unsigned c = csv_pair(ym, 0), y = csv_pair(ym, 2), m = csv_pair(ym, 5);
    const int d = two_digits(f.data() + 8);
    if (m - 1 > 11 || d <= 0) {
        return false;
    }
    constexpr unsigned char month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = y % 4 == 0 && (y != 0 || c % 4 == 0);
    if (d > month_days[m - 1] || (m == 2 && d == 29 && !leap)) {
        return false;
    }
    out = std::chrono::sys_days{
        std::chrono::days{csv_days_from_civil(c * 100 + y, m, static_cast<unsigned>(d))}};
    return true;
}

/// The field `f`, whole, as a date: exactly `YYYY-MM-DD`.
inline bool parse_csv_date(std::string_view f, std::chrono::sys_days& out) noexcept {
    return f.size() == 10 && parse_iso_date(f, out);
}

/// The field `f`, whole, as a timestamp (ISO 8601, as RFC 3339 writes it): a date, then
/// optionally 'T' (or 't', or a space), `hh:mm:ss` (hours 00-23, seconds 00-59: a leap
/// second has no sys_time), a fraction of 1 to 9 digits after '.' or ',', and 'Z' or an
/// offset `+hh:mm` / `-hh:mm` (the time is then converted to UTC; without one it is taken
/// as UTC). A date alone is its midnight. False for any other text, and for a time out of
/// nanoseconds' range (about 1677-09-21 to 2262-04-11).
inline bool parse_csv_timestamp(std::string_view f, csv_timestamp& out) noexcept {
    std::chrono::sys_days day{};
    if (!parse_iso_date(f, day)) {
        return false;
    }
    std::int64_t seconds = std::int64_t{day.time_since_epoch().count()} * 86400;
    std::int64_t fraction = 0; // nanoseconds
    if (f.size() > 10) {
        // "hh:mm:ss" in one word: digits at bytes 0, 1, 3, 4, 6, 7; ':' at 2 and 5.
        std::uint64_t hms = 0;
        if ((f[10] != 'T' && f[10] != 't' && f[10] != ' ') || f.size() < 19 ||
            !csv_digit_pairs8(f.data() + 11, 0xFFFF00FFFF00FFFFull, 0x0000FF0000FF0000ull,
                              0x00003A00003A0000ull, hms)) {
            return false;
        }
        const unsigned h = csv_pair(hms, 0), m = csv_pair(hms, 3), s = csv_pair(hms, 6);
        if (h > 23 || m > 59 || s > 59) {
            return false;
        }
        seconds += h * 3600 + m * 60 + s;
        std::size_t i = 19;
        if (i < f.size() && (f[i] == '.' || f[i] == ',')) {
            std::size_t digits = 0;
            for (++i; i < f.size() && static_cast<unsigned char>(f[i] - '0') < 10; ++i, ++digits) {
                if (digits == 9) {
                    return false; // finer than a nanosecond: not kept exactly
                }
                fraction = fraction * 10 + (f[i] - '0');
            }
            if (digits == 0) {
                return false;
            }
            for (std::size_t k = digits; k < 9; ++k) {
                fraction *= 10;
            }
        }
        if (i < f.size() && (f[i] == 'Z' || f[i] == 'z')) {
            ++i;
        } else if (i < f.size() && (f[i] == '+' || f[i] == '-')) {
            if (f.size() - i != 6 || f[i + 3] != ':') {
                return false;
            }
            const int oh = two_digits(f.data() + i + 1), om = two_digits(f.data() + i + 4);
            if (oh < 0 || oh > 23 || om < 0 || om > 59) {
                return false;
            }
            const int offset = oh * 3600 + om * 60;
            seconds += f[i] == '+' ? -offset : offset; // local time minus its offset: UTC
            i += 6;
        }
        if (i != f.size()) {
            return false;
        }
    }
    if (seconds < 0 && fraction > 0) { // so that INT64_MIN's second does not overflow
        seconds += 1;
        fraction -= 1000000000;
    }
    std::int64_t ns = 0;
    if (__builtin_mul_overflow(seconds, std::int64_t{1000000000}, &ns) ||
        __builtin_add_overflow(ns, fraction, &ns)) {
        return false;
    }
    out = csv_timestamp{std::chrono::nanoseconds{ns}};
    return true;
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_DATES_HPP
