#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SCAN_DECIMAL_LIST_HPP)
#define FASTREAD_SCAN_DECIMAL_LIST_HPP

/// @file
/// Scanning kernel: a list of unsigned decimal numbers separated by whitespace, such as the
/// raster of a plain PPM (P3, Netpbm ppm(5) "plain PPM"). A kernel converts the whole
/// tokens it can take in one call and stops, without judging, at anything else: a comment
/// or an invalid byte, a token longer than it handles, a value above the limit, a token
/// whose terminating whitespace is not in the buffer yet. The caller's byte-wise code
/// takes it from there, so that errors carry exact offsets and tokens may straddle chunks.
///
/// Levels (simd_level, chosen at run time, no `-march` flag needed):
/// - scalar: SWAR, 8 bytes per step: one token of 1 to 7 digits and its separator,
///   converted with three multiply-adds. Portable; also finishes the tail of every level.
/// - sse2 / avx2: a 64-byte window is classified into digit and whitespace bitmaps (16- or
///   32-byte compares); token ends and starts come from bit operations, so each token is
///   converted with 4 or 8 bytes of SWAR and no branch on its length.
/// - avx512 (AVX-512 F, BW, VBMI and VBMI2): the same bitmaps from one 64-byte compare;
///   the token ends are compressed into a vector of byte indices (vpcompressb), every digit
///   of up to 32 tokens is gathered into 16-bit lanes with vpermb from tables that hold a
///   digit only where it belongs to a long enough token, and converted with vpmaddubsw;
///   the limit is checked with vector compares. A CPU with AVX-512BW but without VBMI2
///   uses the avx2 kernel at this level.
///
/// No kernel reads outside [*pos, end) or needs padding, and none uses a lookup table.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "simd_level.hpp"

namespace fastread::scan {

/// A decimal-list kernel for values of type `Value` (std::uint8_t or std::uint16_t).
///
/// Reads from `*pos`, which must be at a whitespace byte or at the first digit of a token,
/// whole tokens: a run of ASCII digits followed by a whitespace byte (SP, TAB, LF, VT, FF,
/// CR, as C's isspace() in the "C" locale). For each token whose value is at most
/// `max_value` it stores the value in `out[0..)`, in input order, and skips the whitespace
/// between tokens. It stops before the first byte or token it does not take (see the file
/// comment), after `max_values` values, or when too few bytes remain for a step, and sets
/// `*pos` past the last whitespace byte it consumed: again at whitespace or at the first
/// digit of a token.
///
/// @returns the number of values stored (0 ... `max_values`).
/// Reads only [*pos, end); writes only out[0, max_values). Time: O(bytes consumed).
template <class Value>
using decimal_list_fn = std::size_t (*)(const char** pos, const char* end, Value* out,
                                        std::size_t max_values, std::uint32_t max_value) noexcept;

/// The kernel of `level` (capped at best_level()) for `Value` = std::uint8_t (tokens of up
/// to 3 digits at the SIMD levels) or std::uint16_t (up to 5 digits). Longer tokens, as
/// with leading zeros, are left to the caller.
template <class Value>
decimal_list_fn<Value> decimal_list_for(simd_level level) noexcept;

/// Bytes the kernel of `level` needs from its position to take a step: 8 (scalar), 72 (sse2, avx2:
/// a 64-byte window and an 8-byte load near its end) or 128 (avx512: a block and the block after
/// it). With fewer it returns at once.
constexpr std::size_t decimal_list_lookahead(simd_level level) noexcept;

/// The scalar kernel (a decimal_list_fn): tokens of 1 to 7 digits, 8 bytes per step; it
/// stops when fewer than 8 bytes remain. Portable; used for the tail of every level.
template <class Value>
std::size_t decimal_list_swar(const char** pos, const char* end, Value* out, std::size_t max_values,
                              std::uint32_t max_value) noexcept;

} // namespace fastread::scan

#include "detail/decimal_block.hpp"
#include "detail/decimal_list_x86.hpp"

namespace fastread::scan {

template <class Value>
std::size_t decimal_list_swar(const char** pos, const char* end, Value* out, std::size_t max_values,
                              std::uint32_t max_value) noexcept {
    const char* p = *pos;
    std::size_t n = 0;
    while (n < max_values && end - p >= 8) {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        if constexpr (std::endian::native == std::endian::big) {
            x = __builtin_bswap64(x);
        }
        const std::uint64_t t = x ^ 0x3030303030303030ull; // digits become 0..9
        // A byte is a digit iff its high nibble and that of (byte + 6) are both 0. A carry
        // out of a non-digit byte can only disturb later bytes, never the first non-digit,
        // which is all that is used.
        const std::uint64_t non_digit = (t | (t + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
        if (non_digit == 0) {
            break; // 8 or more digits
        }
        const unsigned len = static_cast<unsigned>(std::countr_zero(non_digit)) >> 3;
        const unsigned sep = static_cast<unsigned>(x >> (8 * len)) & 0xFF;
        if (!detail::is_space_byte(sep)) {
            break; // a comment, an invalid byte, or a token glued to one
        }
        if (len == 0) {
            ++p; // a whitespace run
            continue;
        }
        const std::uint32_t v = detail::swar_digits8(t, len);
        if (v > max_value) {
            break;
        }
        out[n++] = static_cast<Value>(v);
        p += len + 1;
    }
    *pos = p;
    return n;
}

constexpr std::size_t decimal_list_lookahead(simd_level level) noexcept {
    switch (level) {
    case simd_level::scalar:
        return 8;
    case simd_level::sse2:
    case simd_level::avx2:
        return detail::decimal_window;
    case simd_level::avx512:
        return 128;
    }
    return 8;
}

template <class Value>
decimal_list_fn<Value> decimal_list_for(simd_level level) noexcept {
    static_assert(std::is_same_v<Value, std::uint8_t> || std::is_same_v<Value, std::uint16_t>,
                  "decimal_list values are std::uint8_t or std::uint16_t");
    switch (detail::cap_level(level)) {
#if FASTREAD_SCAN_X86
    case simd_level::avx512:
        if (detail::has_avx512_vbmi2()) {
            return &detail::decimal_list_avx512<Value>;
        }
        [[fallthrough]];
    case simd_level::avx2:
        return &detail::decimal_list_avx2<Value>;
    case simd_level::sse2:
        return &detail::decimal_list_sse2<Value>;
#endif
    default:
        return &decimal_list_swar<Value>;
    }
}

} // namespace fastread::scan

#endif // FASTREAD_SCAN_DECIMAL_LIST_HPP
