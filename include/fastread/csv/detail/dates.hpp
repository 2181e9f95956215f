#ifndef FASTREAD_CSV_DETAIL_DATES_HPP
#define FASTREAD_CSV_DETAIL_DATES_HPP

/// @file
/// Dates and timestamps of delimited text: ISO 8601 calendar dates (`2024-01-31`) as
/// std::chrono::sys_days, and date-times (`2024-01-31 12:34:56.5+01:00`) as
/// std::chrono::sys_time<std::chrono::nanoseconds> in UTC. The calendar is the standard
/// library's (std::chrono::year_month_day: proleptic Gregorian, its ok() the validity of a
/// day).

#include <chrono>
#include <cstdint>
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

/// The calendar date `YYYY-MM-DD` (ISO 8601's extended format, years 0000 to 9999) that
/// starts `f` (its first 10 bytes) into `out`; false where they are not that shape or name
/// no day of the calendar (2023-02-29, 2024-13-01, 2024-04-31).
constexpr bool parse_iso_date(std::string_view f, std::chrono::sys_days& out) noexcept {
    if (f.size() < 10 || f[4] != '-' || f[7] != '-') {
        return false;
    }
    const int c = two_digits(f.data()), y = two_digits(f.data() + 2);
    const int m = two_digits(f.data() + 5), d = two_digits(f.data() + 8);
    if ((c | y | m | d) < 0) {
        return false;
    }
    const std::chrono::year_month_day ymd{std::chrono::year{c * 100 + y},
                                          std::chrono::month{static_cast<unsigned>(m)},
                                          std::chrono::day{static_cast<unsigned>(d)}};
    if (!ymd.ok()) {
        return false;
    }
    out = std::chrono::sys_days{ymd};
    return true;
}

/// The field `f`, whole, as a date: exactly `YYYY-MM-DD`.
constexpr bool parse_csv_date(std::string_view f, std::chrono::sys_days& out) noexcept {
    return f.size() == 10 && parse_iso_date(f, out);
}

/// The field `f`, whole, as a timestamp (ISO 8601, as RFC 3339 writes it): a date, then
/// optionally 'T' (or 't', or a space), `hh:mm:ss` (hours 00-23, seconds 00-59: a leap
/// second has no sys_time), a fraction of 1 to 9 digits after '.' or ',', and 'Z' or an
/// offset `+hh:mm` / `-hh:mm` (the time is then converted to UTC; without one it is taken
/// as UTC). A date alone is its midnight. False for any other text, and for a time out of
/// nanoseconds' range (about 1677-09-21 to 2262-04-11).
constexpr bool parse_csv_timestamp(std::string_view f, csv_timestamp& out) noexcept {
    std::chrono::sys_days day{};
    if (!parse_iso_date(f, day)) {
        return false;
    }
    std::int64_t seconds = std::int64_t{day.time_since_epoch().count()} * 86400;
    std::int64_t fraction = 0; // nanoseconds
    if (f.size() > 10) {
        if ((f[10] != 'T' && f[10] != 't' && f[10] != ' ') || f.size() < 19 || f[13] != ':' ||
            f[16] != ':') {
            return false;
        }
        const int h = two_digits(f.data() + 11), m = two_digits(f.data() + 14),
                  s = two_digits(f.data() + 17);
        if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59) {
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
