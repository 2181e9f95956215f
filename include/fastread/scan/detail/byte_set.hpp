#ifndef FASTREAD_SCAN_DETAIL_BYTE_SET_HPP
#define FASTREAD_SCAN_DETAIL_BYTE_SET_HPP

/// @file
/// Scanning kernel: where any of a few byte values (up to five: the structural bytes of
/// delimited text, delimiter, quote, LF, CR and an escape) occurs, one 64-bit mask per
/// 64-byte block, bit i set when byte i of the block is in the set. fastread::csv walks the
/// masks with a tzcnt loop, so that its state machine visits only those bytes.
///
/// SSE2 (the x86-64 baseline), AVX2 and AVX-512BW versions are compiled with `target`
/// attributes and chosen at run time (scan/simd_level.hpp); portable code elsewhere, and for
/// the `scalar` level. Every level returns the same masks.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../byte_mask.hpp"
#include "../simd_level.hpp"

namespace fastread::detail {

/// Up to five byte values; unused slots repeat the first one.
struct byte_set {
    char bytes[5];

    /// The set of the non-zero bytes among `a`..`e` (`a` must be non-zero).
    static constexpr byte_set of(char a, char b, char c, char d, char e) noexcept {
        byte_set s{{a, b != 0 ? b : a, c != 0 ? c : a, d != 0 ? d : a, e != 0 ? e : a}};
        return s;
    }
    /// Whether `c` is in the set.
    constexpr bool has(char c) const noexcept {
        return c == bytes[0] || c == bytes[1] || c == bytes[2] || c == bytes[3] || c == bytes[4];
    }
};

/// Writes the mask of each of the `blocks` 64-byte blocks from `p` to out[0..blocks).
/// Reads exactly `64 * blocks` bytes.
using byte_set_masks_fn = void (*)(const char* p, std::size_t blocks, const byte_set& set,
                                   std::uint64_t* out) noexcept;

/// The mask of the first `n` bytes (n <= 64) at `p`; reads nothing beyond them.
inline std::uint64_t byte_set_mask_tail(const char* p, std::size_t n,
                                        const byte_set& set) noexcept {
    std::uint64_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        m |= std::uint64_t{set.has(p[i])} << i;
    }
    return m;
}

inline void byte_set_masks_scalar(const char* p, std::size_t blocks, const byte_set& set,
                                  std::uint64_t* out) noexcept {
    for (std::size_t b = 0; b < blocks; ++b) {
        out[b] = byte_set_mask_tail(p + 64 * b, 64, set);
    }
}

#if FASTREAD_SCAN_X86
inline void byte_set_masks_sse2(const char* p, std::size_t blocks, const byte_set& set,
                                std::uint64_t* out) noexcept {
    bytes16 n[5];
    for (int k = 0; k < 5; ++k) {
        n[k] = bytes16{} + set.bytes[k];
    }
    for (std::size_t b = 0; b < blocks; ++b) {
        std::uint64_t m = 0;
        for (int part = 0; part < 4; ++part) {
            bytes16 v;
            std::memcpy(&v, p + 64 * b + 16 * part, sizeof v); // an unaligned load
            const bytes16 hit = (v == n[0]) | (v == n[1]) | (v == n[2]) | (v == n[3]) | (v == n[4]);
            m |= std::uint64_t{static_cast<std::uint16_t>(__builtin_ia32_pmovmskb128(hit))}
                 << (16 * part);
        }
        out[b] = m;
    }
}

[[gnu::target("avx2,bmi,popcnt")]] inline void byte_set_masks_avx2(const char* p,
                                                                   std::size_t blocks,
                                                                   const byte_set& set,
                                                                   std::uint64_t* out) noexcept {
    // No lambda or loop over the needles: a lambda does not inherit the target.
    const bytes32 n0 = bytes32{} + set.bytes[0], n1 = bytes32{} + set.bytes[1],
                  n2 = bytes32{} + set.bytes[2], n3 = bytes32{} + set.bytes[3],
                  n4 = bytes32{} + set.bytes[4];
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes32 lo, hi;
        std::memcpy(&lo, p + 64 * b, sizeof lo); // unaligned loads
        std::memcpy(&hi, p + 64 * b + 32, sizeof hi);
        const bytes32 hl = (lo == n0) | (lo == n1) | (lo == n2) | (lo == n3) | (lo == n4);
        const bytes32 hh = (hi == n0) | (hi == n1) | (hi == n2) | (hi == n3) | (hi == n4);
        out[b] = static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(hl)) |
                 std::uint64_t{static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(hh))} << 32;
    }
}

[[gnu::target("avx512f,avx512bw,bmi,popcnt")]] inline void
byte_set_masks_avx512(const char* p, std::size_t blocks, const byte_set& set,
                      std::uint64_t* out) noexcept {
    const bytes64 n0 = bytes64{} + set.bytes[0], n1 = bytes64{} + set.bytes[1],
                  n2 = bytes64{} + set.bytes[2], n3 = bytes64{} + set.bytes[3],
                  n4 = bytes64{} + set.bytes[4];
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes64 v;
        std::memcpy(&v, p + 64 * b, sizeof v); // an unaligned load
        // Predicate 0: equal (_MM_CMPINT_EQ); all 64 lanes.
        out[b] = __builtin_ia32_cmpb512_mask(v, n0, 0, ~0ULL) |
                 __builtin_ia32_cmpb512_mask(v, n1, 0, ~0ULL) |
                 __builtin_ia32_cmpb512_mask(v, n2, 0, ~0ULL) |
                 __builtin_ia32_cmpb512_mask(v, n3, 0, ~0ULL) |
                 __builtin_ia32_cmpb512_mask(v, n4, 0, ~0ULL);
    }
}
#endif

/// Writes, for each of the `blocks` 64-byte blocks from `p`, the mask of each of the three
/// bytes `c` alone: out[k][b] for byte c[k]. Reads exactly `64 * blocks` bytes. (One pass
/// where three byte_set_masks calls would make three: the masks inside a quoted field.)
using byte_masks3_fn = void (*)(const char* p, std::size_t blocks, const char (&c)[3],
                                std::uint64_t* const (&out)[3]) noexcept;

inline void byte_masks3_scalar(const char* p, std::size_t blocks, const char (&c)[3],
                               std::uint64_t* const (&out)[3]) noexcept {
    for (std::size_t b = 0; b < blocks; ++b) {
        std::uint64_t m[3] = {0, 0, 0};
        for (std::size_t i = 0; i < 64; ++i) {
            const char x = p[64 * b + i];
            for (int k = 0; k < 3; ++k) {
                m[k] |= std::uint64_t{x == c[k]} << i;
            }
        }
        for (int k = 0; k < 3; ++k) {
            out[k][b] = m[k];
        }
    }
}

#if FASTREAD_SCAN_X86
inline void byte_masks3_sse2(const char* p, std::size_t blocks, const char (&c)[3],
                             std::uint64_t* const (&out)[3]) noexcept {
    const bytes16 n0 = bytes16{} + c[0], n1 = bytes16{} + c[1], n2 = bytes16{} + c[2];
    for (std::size_t b = 0; b < blocks; ++b) {
        std::uint64_t m0 = 0, m1 = 0, m2 = 0;
        for (int part = 0; part < 4; ++part) {
            bytes16 v;
            std::memcpy(&v, p + 64 * b + 16 * part, sizeof v); // an unaligned load
            const int shift = 16 * part;
            m0 |= std::uint64_t{static_cast<std::uint16_t>(__builtin_ia32_pmovmskb128(v == n0))}
                  << shift;
            m1 |= std::uint64_t{static_cast<std::uint16_t>(__builtin_ia32_pmovmskb128(v == n1))}
                  << shift;
            m2 |= std::uint64_t{static_cast<std::uint16_t>(__builtin_ia32_pmovmskb128(v == n2))}
                  << shift;
        }
        out[0][b] = m0;
        out[1][b] = m1;
        out[2][b] = m2;
    }
}

[[gnu::target("avx2,bmi,popcnt")]] inline void
byte_masks3_avx2(const char* p, std::size_t blocks, const char (&c)[3],
                 std::uint64_t* const (&out)[3]) noexcept {
    const bytes32 n0 = bytes32{} + c[0], n1 = bytes32{} + c[1], n2 = bytes32{} + c[2];
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes32 lo, hi;
        std::memcpy(&lo, p + 64 * b, sizeof lo); // unaligned loads
        std::memcpy(&hi, p + 64 * b + 32, sizeof hi);
        out[0][b] = static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(lo == n0)) |
                    std::uint64_t{static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(hi == n0))}
                        << 32;
        out[1][b] = static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(lo == n1)) |
                    std::uint64_t{static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(hi == n1))}
                        << 32;
        out[2][b] = static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(lo == n2)) |
                    std::uint64_t{static_cast<std::uint32_t>(__builtin_ia32_pmovmskb256(hi == n2))}
                        << 32;
    }
}

[[gnu::target("avx512f,avx512bw,bmi,popcnt")]] inline void
byte_masks3_avx512(const char* p, std::size_t blocks, const char (&c)[3],
                   std::uint64_t* const (&out)[3]) noexcept {
    const bytes64 n0 = bytes64{} + c[0], n1 = bytes64{} + c[1], n2 = bytes64{} + c[2];
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes64 v;
        std::memcpy(&v, p + 64 * b, sizeof v); // an unaligned load
        out[0][b] = __builtin_ia32_cmpb512_mask(v, n0, 0, ~0ULL);
        out[1][b] = __builtin_ia32_cmpb512_mask(v, n1, 0, ~0ULL);
        out[2][b] = __builtin_ia32_cmpb512_mask(v, n2, 0, ~0ULL);
    }
}
#endif

/// The byte_masks3 kernel for `level` (capped at best_level()).
inline byte_masks3_fn byte_masks3_for(scan::simd_level level) noexcept {
#if FASTREAD_SCAN_X86
    switch (detail::cap_level(level)) {
    case scan::simd_level::avx512:
        return byte_masks3_avx512;
    case scan::simd_level::avx2:
        return byte_masks3_avx2;
    case scan::simd_level::sse2:
        return byte_masks3_sse2;
    case scan::simd_level::scalar:
        break;
    }
#else
    (void)level;
#endif
    return byte_masks3_scalar;
}

/// The number of bits set in `m`: std::popcount where the target has an instruction for
/// it, else a few shifts and adds, inline (not libgcc's call).
[[gnu::always_inline]] inline int count_bits(std::uint64_t m) noexcept {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
    return std::popcount(m);
#else
    m -= (m >> 1) & 0x5555555555555555ULL;
    m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<int>((m * 0x0101010101010101ULL) >> 56);
#endif
}

/// The byte_set_masks kernel for `level` (capped at best_level()).
inline byte_set_masks_fn byte_set_masks_for(scan::simd_level level) noexcept {
#if FASTREAD_SCAN_X86
    switch (detail::cap_level(level)) {
    case scan::simd_level::avx512:
        return byte_set_masks_avx512;
    case scan::simd_level::avx2:
        return byte_set_masks_avx2;
    case scan::simd_level::sse2:
        return byte_set_masks_sse2;
    case scan::simd_level::scalar:
        break;
    }
#else
    (void)level;
#endif
    return byte_set_masks_scalar;
}

} // namespace fastread::detail

#endif // FASTREAD_SCAN_DETAIL_BYTE_SET_HPP
