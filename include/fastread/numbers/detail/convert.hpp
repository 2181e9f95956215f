#ifndef FASTREAD_NUMBERS_DETAIL_CONVERT_HPP
#define FASTREAD_NUMBERS_DETAIL_CONVERT_HPP

// One number from text: a decimal integer (ours: SWAR, 8 digits a step) or a floating-point
// number (fast_float where its header is installed, else std::from_chars; both correctly
// rounded, so the value is strtod's).

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>

#if defined(__has_include)
#if __has_include(<fast_float/fast_float.h>)
#include <fast_float/fast_float.h>
#define FASTREAD_HAS_FAST_FLOAT 1
#endif
#endif
#ifndef FASTREAD_HAS_FAST_FLOAT
#define FASTREAD_HAS_FAST_FLOAT 0
#endif

#include "../../scan/detail/decimal_block.hpp"
#include "number_type.hpp"

namespace fastread::detail {

/// What a conversion found.
enum class number_status : unsigned char {
    ok,
    invalid,      ///< the bytes are not a number of the type asked for
    out_of_range, ///< an integer beyond its type's range
};

/// Fails to compile, with a message, where no conversion to floating point is available.
template <class T>
constexpr void check_number_conversion() {
#if !FASTREAD_HAS_FAST_FLOAT && !defined(__cpp_lib_to_chars)
    static_assert(!std::is_floating_point_v<T>,
                  "floating-point numbers need <fast_float/fast_float.h> or a standard "
                  "library with std::from_chars for floating point");
#endif
}

#if defined(__GNUC__) && defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
#define FASTREAD_DIGITS16_SSE2 1
// SSE2 (every x86-64 CPU) through the compilers' vector extensions and the builtins that
// <emmintrin.h> wraps: that header would cost the csv translation unit 2,700 lines.
using digits_u8x16 = unsigned char __attribute__((vector_size(16)));
using digits_c8x16 = char __attribute__((vector_size(16)));
using digits_u16x8 = unsigned short __attribute__((vector_size(16)));
using digits_i16x8 = short __attribute__((vector_size(16)));
using digits_i32x4 = int __attribute__((vector_size(16)));

/// The inverses of 5^k modulo 2^64, k = 0..16: a multiple of 5^k times its inverse is the
/// quotient, exactly (Granlund and Montgomery, "Division by invariant integers using
/// multiplication", 1994, section 9).
struct inverse_powers_of_5 {
    std::uint64_t v[17];
    constexpr inverse_powers_of_5() : v() {
        std::uint64_t inv = 5; // Newton's iteration doubles the correct low bits each step
        for (int i = 0; i < 5; ++i) {
            inv *= 2 - 5 * inv;
        }
        v[0] = 1;
        for (int k = 1; k < 17; ++k) {
            v[k] = v[k - 1] * inv;
        }
    }
};
inline constexpr inverse_powers_of_5 inverse_5{};
#endif

/// The ASCII digits at p, up to 15 (16 bytes are read): their count in `len` (16 where the
/// first 16 bytes are all digits: the value is then 0, not theirs) and their value, with no
/// branch on the count (tokens of mixed lengths would mispredict one). On x86 with SSE2:
/// the 16 bytes classified in one register, the bytes after the digits cleared, pairs,
/// quads and octets of digits combined by multiply-adds (the 16 digits' value is the
/// number times 10^(16 - len)), then an exact division by that power. Elsewhere: both 8-byte
/// words converted with SWAR and the count picking the result.
[[gnu::always_inline]] inline std::uint64_t digits16(const char* p, unsigned& len) noexcept {
#if FASTREAD_DIGITS16_SSE2
    digits_u8x16 t;
    std::memcpy(&t, p, 16);
    t -= '0';
    const auto mask =
        static_cast<unsigned>(__builtin_ia32_pmovmskb128(reinterpret_cast<digits_c8x16>(t <= 9)));
    len = static_cast<unsigned>(std::countr_one(mask));
    if (len == 16) {
        return 0;
    }
    static constexpr unsigned char keep[32] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                               0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    digits_u8x16 k;
    std::memcpy(&k, keep + 16 - len, 16);
    const auto w = reinterpret_cast<digits_u16x8>(t & k);
    const auto pairs = reinterpret_cast<digits_i16x8>((w & 0xFF) * 10 + (w >> 8));
    const digits_i32x4 quads =
        __builtin_ia32_pmaddwd128(pairs, digits_i16x8{100, 1, 100, 1, 100, 1, 100, 1});
    const digits_i32x4 octets =
        __builtin_ia32_pmaddwd128(__builtin_ia32_packssdw128(quads, quads),
                                  digits_i16x8{10000, 1, 10000, 1, 10000, 1, 10000, 1});
    const std::uint64_t scaled =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(octets[0])) * 100000000 +
        static_cast<std::uint32_t>(octets[1]);
    // scaled = value * 10^z = value * 5^z * 2^z, z = 16 - len.
    return (scaled >> (16 - len)) * inverse_5.v[16 - len];
#else
    std::uint64_t x0, x1;
    std::memcpy(&x0, p, 8);
    std::memcpy(&x1, p + 8, 8);
    if constexpr (std::endian::native == std::endian::big) {
        x0 = __builtin_bswap64(x0);
        x1 = __builtin_bswap64(x1);
    }
    const std::uint64_t t0 = x0 ^ 0x3030303030303030ull, t1 = x1 ^ 0x3030303030303030ull;
    const unsigned len0 = static_cast<unsigned>(std::countr_zero(
                              (t0 | (t0 + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull)) >>
                          3;
    const unsigned len1 = static_cast<unsigned>(std::countr_zero(
                              (t1 | (t1 + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull)) >>
                          3;
    len = len0 + (len0 == 8 ? len1 : 0);
    if (len == 16) {
        return 0;
    }
    static constexpr std::uint64_t scale[9] = {1,      10,      100,      1000,     10000,
                                               100000, 1000000, 10000000, 100000000};
    // swar_digits8 of n digits, 0 for n 0 (a shift by 64 is undefined).
    auto digits_of = [](std::uint64_t t, unsigned n) -> std::uint64_t {
        return n == 0 ? 0 : swar_digits8(t, n);
    };
    const std::uint64_t low = digits_of(t0, len0);
    return len0 == 8 ? low * scale[len1] + digits_of(t1, len1) : low;
#endif
}

/// Converts the decimal integer at [p, end): an optional '+' or '-', then ASCII digits (any
/// count, leading zeros included), as strtoll/strtoull in base 10 read them. Returns the
/// byte after the last digit; `st` is invalid when there is no digit, out_of_range when the
/// value does not fit in T (a '-' before a nonzero value for an unsigned T). `out` is set
/// only when `st` is ok. Reads only [p, end).
template <class T>
[[gnu::always_inline]] inline const char* convert_integer(const char* p, const char* end, T& out,
                                                          number_status& st) noexcept {
    bool negative = false;
    if (p != end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        ++p;
    }
    const char* const digits = p;
    std::uint64_t acc = 0;
    bool overflow = false;
    if (end - p >= 16) {
        unsigned len = 0;
        const std::uint64_t v = digits16(p, len);
        if (len < 16) {
            acc = v;
            p += len;
            goto done;
        }
    }
    // Eight bytes at a time: the digits before the first non-digit, as the P3 kernel does.
    while (end - p >= 8) {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        if constexpr (std::endian::native == std::endian::big) {
            x = __builtin_bswap64(x);
        }
        const std::uint64_t t = x ^ 0x3030303030303030ull;
        const std::uint64_t non_digit = (t | (t + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
        const unsigned len =
            non_digit == 0 ? 8u : static_cast<unsigned>(std::countr_zero(non_digit)) >> 3;
        if (len == 0) {
            break;
        }
        static constexpr std::uint64_t scale[9] = {1,      10,      100,      1000,     10000,
                                                   100000, 1000000, 10000000, 100000000};
        const std::uint64_t v = swar_digits8(t, len);
        std::uint64_t shifted = 0;
        overflow |= __builtin_mul_overflow(acc, scale[len], &shifted);
        overflow |= __builtin_add_overflow(shifted, v, &acc);
        p += len;
        if (len < 8) {
            goto done;
        }
    }
    while (p != end && static_cast<unsigned char>(*p - '0') < 10) {
        std::uint64_t shifted = 0;
        overflow |= __builtin_mul_overflow(acc, std::uint64_t{10}, &shifted);
        overflow |= __builtin_add_overflow(shifted, static_cast<std::uint64_t>(*p - '0'), &acc);
        ++p;
    }
done:
    if (p == digits) {
        st = number_status::invalid;
        return p;
    }
    if constexpr (std::is_unsigned_v<T>) {
        if (overflow || (negative && acc != 0) || acc > std::numeric_limits<T>::max()) {
            st = number_status::out_of_range;
            return p;
        }
        out = static_cast<T>(acc);
    } else {
        using U = std::make_unsigned_t<T>;
        const std::uint64_t most = negative ? std::uint64_t{U(std::numeric_limits<T>::max())} + 1
                                            : std::uint64_t{U(std::numeric_limits<T>::max())};
        if (overflow || acc > most) {
            st = number_status::out_of_range;
            return p;
        }
        out = negative ? static_cast<T>(U(0) - static_cast<U>(acc)) : static_cast<T>(acc);
    }
    st = number_status::ok;
    return p;
}

/// Appends the decimal digits at [p, end) to `m` (m = m * 10^n + digits), 8 a step;
/// returns the byte after the last digit and adds their count to `count`. `m` wraps when
/// more than 19 digits were taken in all: the caller checks `count`.
inline const char* take_digits(const char* p, const char* end, std::uint64_t& m,
                               int& count) noexcept {
    static constexpr std::uint64_t scale[9] = {1,      10,      100,      1000,     10000,
                                               100000, 1000000, 10000000, 100000000};
    while (end - p >= 8) {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        if constexpr (std::endian::native == std::endian::big) {
            x = __builtin_bswap64(x);
        }
        const std::uint64_t t = x ^ 0x3030303030303030ull;
        const std::uint64_t non_digit = (t | (t + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
        const unsigned len =
            non_digit == 0 ? 8u : static_cast<unsigned>(std::countr_zero(non_digit)) >> 3;
        if (len == 0) {
            return p;
        }
        m = m * scale[len] + swar_digits8(t, len);
        count += static_cast<int>(len);
        p += len;
        if (len < 8) {
            return p;
        }
    }
    while (p != end && static_cast<unsigned char>(*p - '0') < 10) {
        m = m * 10 + static_cast<unsigned>(*p - '0');
        ++count;
        ++p;
    }
    return p;
}

#if FASTREAD_HAS_FAST_FLOAT
/// The common shape of a floating-point number, read here and converted by fast_float's
/// own steps: an optional sign, at most 19 significant digits with an optional '.', an
/// optional exponent of at most 4 digits. A table's usual decimal (1 to 7 digits, '.', 1 to
/// 15 digits, no exponent, 25 bytes readable) is taken from three 8-byte words without a
/// loop; any other significand 8 digits a step. The
/// value is Clinger's exact product or quotient where fast_float takes it (fast_float's
/// fast path), else fast_float's Eisel-Lemire step (compute_float). Returns null, having
/// decided nothing, for any other shape or where fast_float would need its slow path: the
/// caller then calls fast_float::from_chars. So the value is always fast_float's.
template <class T>
const char* convert_common_floating(const char* p, const char* end, T& out) noexcept {
    using format = fast_float::binary_format<T>;
    bool negative = false;
    if (p != end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        ++p;
    }
    std::uint64_t m = 0;
    int digits = 0;
    std::int64_t exponent = 0;
    if (end - p >= 25) {
        // The common shape of a table's decimals first: 1 to 7 digits, '.', then 1 to 15
        // digits (digits16, as convert_integer takes them) and no exponent.
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        if constexpr (std::endian::native == std::endian::big) {
            x = __builtin_bswap64(x);
        }
        const std::uint64_t t = x ^ 0x3030303030303030ull;
        const auto il = static_cast<unsigned>(std::countr_zero((t | (t + 0x0606060606060606ull)) &
                                                               0xF0F0F0F0F0F0F0F0ull)) >>
                        3;
        if (il - 1 < 7 && p[il] == '.') {
            const char* f = p + il + 1;
            unsigned flen = 0;
            const std::uint64_t frac = digits16(f, flen);
            if (flen - 1 < 15 && il + flen <= 19 && (f[flen] | 0x20) != 'e') {
                static constexpr std::uint64_t scale[16] = {1,
                                                            10,
                                                            100,
                                                            1000,
                                                            10000,
                                                            100000,
                                                            1000000,
                                                            10000000,
                                                            100000000,
                                                            1000000000,
                                                            10000000000,
                                                            100000000000,
                                                            1000000000000,
                                                            10000000000000,
                                                            100000000000000,
                                                            1000000000000000};
                m = std::uint64_t{swar_digits8(t, il)} * scale[flen] + frac;
                digits = static_cast<int>(il + flen);
                exponent = -static_cast<std::int64_t>(flen);
                p = f + flen;
                goto shaped;
            }
        }
    }
    p = take_digits(p, end, m, digits);
    if (p != end && *p == '.') {
        const int before = digits;
        p = take_digits(p + 1, end, m, digits);
        exponent = before - digits;
    }
    if (digits == 0 || digits > 19) {
        return nullptr; // ".", "inf", "nan", or digits beyond 64 bits
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
        const char* q = p + 1;
        bool minus = false;
        if (q != end && (*q == '-' || *q == '+')) {
            minus = *q == '-';
            ++q;
        }
        int e = 0, n = 0;
        while (q != end && static_cast<unsigned char>(*q - '0') < 10 && n < 5) {
            e = e * 10 + (*q - '0');
            ++q;
            ++n;
        }
        if (n == 0 || n == 5) {
            return nullptr; // "1e" (the number ends before the e), or a long exponent
        }
        exponent += minus ? -e : e;
        p = q;
    }
shaped:
    if (format::min_exponent_fast_path() <= exponent &&
        exponent <= format::max_exponent_fast_path() && m <= format::max_mantissa_fast_path() &&
        fast_float::detail::rounds_to_nearest()) {
        T value = T(m);
        value = exponent < 0 ? value / format::exact_power_of_ten(-exponent)
                             : value * format::exact_power_of_ten(exponent);
        out = negative ? -value : value;
        return p;
    }
    const fast_float::adjusted_mantissa am = fast_float::compute_float<format>(exponent, m);
    if (am.power2 < 0) {
        return nullptr; // fast_float's digit comparison: its own call
    }
    fast_float::to_float(negative, am, out);
    return p;
}
#endif

/// Converts the floating-point number at [p, end) as strtod (strtof for float) reads it in
/// the "C" locale, except hexadecimal: an optional sign, digits with an optional '.', an
/// optional exponent; inf, infinity, nan, nan(chars), in any case. Correctly rounded (the
/// value is strtod's, bit for bit; an overflow is ±infinity, an underflow ±0 or a
/// subnormal, as strtod returns them; nan(chars) is the default quiet NaN). Returns the
/// byte after the number; `st` is invalid when no number starts at p.
template <class T>
const char* convert_floating(const char* p, const char* end, T& out, number_status& st) noexcept {
    if (p != end && *p == '+') {
        ++p; // from_chars takes no '+'; strtod does, but not "+-1" or "++1"
        if (p != end && (*p == '-' || *p == '+')) {
            st = number_status::invalid;
            return p;
        }
    }
#if FASTREAD_HAS_FAST_FLOAT
    if (const char* q = convert_common_floating(p, end, out)) {
        st = number_status::ok;
        return q;
    }
    const fast_float::from_chars_result r = fast_float::from_chars(p, end, out);
#else
    const std::from_chars_result r = std::from_chars(p, end, out);
#endif
    if (r.ec == std::errc::invalid_argument) {
        st = number_status::invalid;
        return p;
    }
#if !FASTREAD_HAS_FAST_FLOAT
    if (r.ec == std::errc::result_out_of_range) {
        // std::from_chars gives no value for an overflow or underflow; strtod gives ±HUGE_VAL
        // or the nearest subnormal or zero, which fast_float gives too: ask strtod (rare).
        const std::string token(p, r.ptr);
        out = std::is_same_v<T, float> ? static_cast<T>(std::strtof(token.c_str(), nullptr))
                                       : static_cast<T>(std::strtod(token.c_str(), nullptr));
    }
#endif
    st = number_status::ok;
    return r.ptr;
}

/// convert_integer or convert_floating, as T is.
template <class T>
[[gnu::always_inline]] inline const char* convert_number(const char* p, const char* end, T& out,
                                                         number_status& st) noexcept {
    if constexpr (std::is_floating_point_v<T>) {
        return convert_floating(p, end, out, st);
    } else {
        return convert_integer(p, end, out, st);
    }
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_CONVERT_HPP
