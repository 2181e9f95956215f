#ifndef FASTREAD_SCAN_BYTE_MASK_HPP
#define FASTREAD_SCAN_BYTE_MASK_HPP

/// @file
/// Scanning kernel: the positions of one byte value in a block, as a bitmask, so that a
/// caller walks the matches with count-trailing-zeros instead of calling memchr per match.

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace fastread::scan {

/// Bit i of the result is set iff `p[i] == c`, for i in [0, 64). Reads exactly 64 bytes.
/// SSE2 on x86-64 (part of its baseline, so no run-time dispatch is needed); a scalar loop
/// elsewhere.
inline std::uint64_t byte_mask64(const char* p, char c) noexcept {
#if defined(__x86_64__) || defined(_M_X64)
    const __m128i needle = _mm_set1_epi8(c);
    auto part = [&](int k) -> std::uint64_t {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)));
    };
    return part(0) | part(1) << 16 | part(2) << 32 | part(3) << 48;
#else
    std::uint64_t m = 0;
    for (int i = 0; i < 64; ++i) {
        m |= std::uint64_t{p[i] == c} << i;
    }
    return m;
#endif
}

/// As byte_mask64 for the first `n` bytes only (n < 64); reads nothing beyond them.
inline std::uint64_t byte_mask_tail(const char* p, std::size_t n, char c) noexcept {
    std::uint64_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        m |= std::uint64_t{p[i] == c} << i;
    }
    return m;
}

} // namespace fastread::scan

#endif // FASTREAD_SCAN_BYTE_MASK_HPP
