#ifndef FASTREAD_SCAN_DETAIL_DECIMAL_BLOCK_HPP
#define FASTREAD_SCAN_DETAIL_DECIMAL_BLOCK_HPP

// The P3 number kernel's portable part: a 64-byte block classified into digit and space
// bitmaps, turned into numbers; scan/decimal_list.hpp documents the contract.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../simd_level.hpp"

namespace fastread::detail {

/// Bytes a bitmap kernel needs from its position for one step: a 64-byte window, plus
/// the 8-byte SWAR load of a token that starts near the window's end.
inline constexpr std::ptrdiff_t decimal_window = 64 + 8;

template <class Value>
inline constexpr int decimal_max_digits = sizeof(Value) == 1 ? 3 : 5;

/// Whitespace as ppm(5) defines it: what C's isspace() accepts in the "C" locale.
constexpr bool is_space_byte(unsigned c) noexcept {
    return c == ' ' || (c - '\t') < 5u; // TAB LF VT FF CR
}

/// Token ends in a window with digit bitmap `digit` and whitespace bitmap `space`: the
/// last digit of each token whose separator is in the window, before any byte that is
/// neither, and before the first token longer than `max_digits`. `stop` is set when the
/// window holds something the caller must see (an invalid byte or a long token).
template <int MaxDigits>
[[gnu::always_inline]] inline std::uint64_t token_ends(std::uint64_t digit, std::uint64_t space,
                                                       bool& stop) noexcept {
    std::uint64_t ends = digit & (space >> 1);
    const std::uint64_t bad = ~(digit | space);
    if (bad != 0) {
        const int first_bad = std::countr_zero(bad);
        ends &= (std::uint64_t{1} << first_bad) - 1; // first_bad < 64
        stop = true;
    }
    std::uint64_t run = ends; // bit e set: bytes e-k..e are all digits
    for (int k = 1; k <= MaxDigits; ++k) {
        run &= digit << k;
    }
    if (run != 0) {
        ends &= (run & (0 - run)) - 1; // the tokens before the first long one
        stop = true;
    }
    return ends;
}

/// Keeps the lowest `keep` set bits of `mask`.
[[gnu::always_inline]] inline std::uint64_t lowest_bits(std::uint64_t mask,
                                                        unsigned keep) noexcept {
    std::uint64_t out = 0;
    for (unsigned i = 0; i < keep && mask != 0; ++i) {
        out |= mask & (0 - mask);
        mask &= mask - 1;
    }
    return out;
}

/// Where the next window starts when this one ended with the token ends in `ends` (not
/// all taken when `stop`): after the last token's separator, else past a whitespace run.
/// Returns 0 when no progress is possible.
[[gnu::always_inline]] inline unsigned window_advance(std::uint64_t ends, std::uint64_t space,
                                                      bool stop) noexcept {
    if (ends != 0) {
        return static_cast<unsigned>(65 - std::countl_zero(ends)); // last end + 2
    }
    if (stop) {
        return 0;
    }
    return static_cast<unsigned>(std::countr_one(space)); // 64 if all whitespace
}

/// The value of the first `len` (1..8) bytes of `t`, digits already 0..9 (ASCII XOR 0x30),
/// byte 0 the most significant digit (little-endian load order): the digits are right-
/// aligned ("00000123", the bytes after the token shift out) and combined in pairs, then
/// fours, then eights, with three multiplies.
[[gnu::always_inline]] inline std::uint32_t swar_digits8(std::uint64_t t, unsigned len) noexcept {
    std::uint64_t v = t << (64 - 8 * len);
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
    return static_cast<std::uint32_t>((v * 10000 + (v >> 32)) & 0xFFFFFFFFull);
}

/// Converts one token of `len` digits (1..MaxDigits) starting at `s` with SWAR. Reads 4
/// bytes (MaxDigits <= 4) or 8 from `s`.
template <int MaxDigits>
[[gnu::always_inline]] inline std::uint32_t swar_token(const char* s, unsigned len) noexcept {
    if constexpr (MaxDigits <= 4) {
        std::uint32_t x;
        std::memcpy(&x, s, 4);
        if constexpr (std::endian::native == std::endian::big) {
            x = __builtin_bswap32(x);
        }
        // Digits to 0..9 and right-aligned ("0123"); the bytes after the token shift out.
        std::uint32_t v = (x ^ 0x30303030u) << (32 - 8 * len);
        v = (v * 10 + (v >> 8)) & 0x00FF00FFu;
        return (v * 100 + (v >> 16)) & 0xFFFFu;
    } else {
        std::uint64_t x;
        std::memcpy(&x, s, 8);
        if constexpr (std::endian::native == std::endian::big) {
            x = __builtin_bswap64(x);
        }
        return swar_digits8(x ^ 0x3030303030303030ull, len);
    }
}

/// The sse2 and avx2 kernels (inlined into each): `Classify::run(p, digit, space)` fills the
/// bitmaps of the 64-byte window at p; tokens are converted one by one from their bit positions.
template <class Classify, class Value>
[[gnu::always_inline]] inline std::size_t decimal_list_bitmap(const char** pos, const char* end,
                                                              Value* out, std::size_t max_values,
                                                              std::uint32_t max_value) noexcept {
    constexpr int max_digits = decimal_max_digits<Value>;
    const char* p = *pos;
    std::size_t n = 0;
    // 8-bit values: the limit as (hundreds, tens and ones) for Classify::values.
    const int high_limit = static_cast<int>(max_value / 100);
    const int low_limit = static_cast<int>(max_value % 100);
    alignas(16) unsigned char values[64];
    while (end - p >= decimal_window && n < max_values) {
        std::uint64_t digit, space, exceed = 0;
        if constexpr (sizeof(Value) == 1) {
            Classify::values(p, digit, space, exceed, values, high_limit, low_limit);
        } else {
            Classify::run(p, digit, space);
        }
        bool stop = false;
        std::uint64_t ends = token_ends<max_digits>(digit, space, stop);
        unsigned count = static_cast<unsigned>(std::popcount(ends));
        if (count > max_values - n) {
            count = static_cast<unsigned>(max_values - n);
            ends = lowest_bits(ends, count);
            stop = true;
        }
        Value* o = out + n;
        if constexpr (sizeof(Value) == 1) {
            // Every position's value was computed with the bitmaps: copy those at the ends.
            if (const std::uint64_t over = exceed & ends; over != 0) {
                // Take the tokens before the first value above the limit, then stop there.
                ends &= (over & (0 - over)) - 1;
                count = static_cast<unsigned>(std::popcount(ends));
                stop = true;
            }
            std::uint64_t e = ends;
            for (unsigned i = 0; i < count; ++i) {
                o[i] = values[std::countr_zero(e)];
                e &= e - 1;
            }
        } else {
            // Token i starts at the i-th start bit: the window begins outside a token.
            std::uint64_t starts = digit & ~(digit << 1);
            std::uint64_t e = ends;
            for (unsigned i = 0; i < count; ++i) {
                const unsigned last = static_cast<unsigned>(std::countr_zero(e));
                const unsigned first = static_cast<unsigned>(std::countr_zero(starts));
                e &= e - 1;
                starts &= starts - 1;
                const std::uint32_t v = swar_token<max_digits>(p + first, last - first + 1);
                if (v > max_value) [[unlikely]] {
                    // Take the tokens before it, then stop there.
                    count = i;
                    ends = lowest_bits(ends, i);
                    stop = true;
                    break;
                }
                o[i] = static_cast<Value>(v);
            }
        }
        n += count;
        const unsigned advance = window_advance(ends, space, stop);
        p += advance;
        if (stop || advance == 0) {
            break;
        }
    }
    *pos = p;
    return n;
}

} // namespace fastread::detail

#endif // FASTREAD_SCAN_DETAIL_DECIMAL_BLOCK_HPP
