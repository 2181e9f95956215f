#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SCAN_BYTE_MASK_HPP)
#define FASTREAD_SCAN_BYTE_MASK_HPP

/// @file
/// Scanning kernel: where one byte value occurs in a block. `byte_positions` compares a run
/// of 64-byte blocks with the byte, one bitmask per block, and turns the bitmasks into an
/// array of match offsets in one call ("flattening" them), so that a caller
/// such as fastread::lines walks the matches with one predictable load each instead of a
/// memchr call or a hard-to-predict branch per 64-byte block.
///
/// Implementations for SSE2 (the x86-64 baseline), AVX2 and AVX-512BW are compiled into
/// the header with `target` attributes and chosen at run time (simd_level); no `-march`
/// flag is needed. Other architectures use portable code.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "simd_level.hpp"

namespace fastread::scan {

/// Offsets of every byte equal to `c` in `blocks` 64-byte blocks from `p`, in increasing
/// order, written to `out`; returns how many. Reads exactly `64 * blocks` bytes. `out`
/// must have room for `64 * blocks + 8` entries (the kernel stores a few entries past the
/// last match rather than branch on the count). Offsets are relative to `p`.
using byte_positions_fn = std::size_t (*)(const char* p, std::size_t blocks, char c,
                                          std::uint32_t* out) noexcept;

/// The byte_positions kernel for `level` (capped at best_level()).
inline byte_positions_fn byte_positions_for(simd_level level) noexcept;

/// How many bytes equal to `c` there are in the `blocks` 64-byte blocks from `p` (the same
/// compares as byte_positions, counted instead of flattened). Reads exactly `64 * blocks`
/// bytes.
using byte_count_fn = std::size_t (*)(const char* p, std::size_t blocks, char c) noexcept;

/// The byte_count kernel for `level` (capped at best_level()).
inline byte_count_fn byte_count_for(simd_level level) noexcept;

/// As a byte_positions_fn for the first `n` bytes of one block only (n < 64): reads
/// nothing beyond them; `out` needs room for `n + 8` entries. Portable code.
inline std::size_t byte_positions_tail(const char* p, std::size_t n, char c,
                                       std::uint32_t* out) noexcept;

// ---------------------------------------------------------------------------------------
// Implementation

} // namespace fastread::scan

namespace fastread::detail {

// An empty asm that makes the optimiser forget what it knows about `v`. Without it, GCC -O3
// sees that countr_zero(0) is 64 and adds a branch on "mask is now zero" after every step of
// flatten, which mispredicts on text and halves the speed of lines() (measured).
[[gnu::always_inline]] inline void hide_value([[maybe_unused]] std::uint64_t& v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    asm("" : "+r"(v));
#endif
}

// Appends the set bits of `mask`, plus `base`, to out[n...]; returns the new count. Four
// entries are stored unconditionally (most blocks of text hold 0-2 matches), so the
// common case has no data-dependent branch; a block with more loops.
[[gnu::always_inline]] inline std::size_t flatten(std::uint64_t mask, std::uint32_t base,
                                                  std::uint32_t* out, std::size_t n) noexcept {
    const auto count = static_cast<std::size_t>(std::popcount(mask));
    std::uint32_t* o = out + n;
    for (int i = 0; i < 4; ++i) {
        hide_value(mask);
        o[i] = base + static_cast<std::uint32_t>(std::countr_zero(mask));
        mask &= mask - 1;
    }
    if (count > 4) [[unlikely]] {
        for (std::size_t i = 4; i < count; ++i) {
            o[i] = base + static_cast<std::uint32_t>(std::countr_zero(mask));
            mask &= mask - 1;
        }
    }
    return n + count;
}

inline std::uint64_t byte_mask64_scalar(const char* p, char c) noexcept {
    std::uint64_t m = 0;
    for (int i = 0; i < 64; ++i) {
        m |= std::uint64_t{p[i] == c} << i;
    }
    return m;
}

inline std::size_t byte_positions_scalar(const char* p, std::size_t blocks, char c,
                                         std::uint32_t* out) noexcept {
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        n = flatten(byte_mask64_scalar(p + 64 * b, c), static_cast<std::uint32_t>(64 * b), out, n);
    }
    return n;
}

#if FASTREAD_SCAN_X86
// GCC and Clang vector types and the x86 builtins behind _mm_movemask_epi8,
// _mm256_movemask_epi8 and _mm512_cmpeq_epi8_mask, instead of <immintrin.h>, which
// costs a translation unit about 0.9 s to parse (GCC 12) for three instructions.
using bytes16 = char __attribute__((vector_size(16)));
using bytes32 = char __attribute__((vector_size(32)));
using bytes64 = char __attribute__((vector_size(64)));

[[gnu::always_inline]] inline std::uint64_t byte_mask64_sse2(const char* p, char c) noexcept {
    const bytes16 needle = bytes16{} + c;
    auto part = [&](int k) -> std::uint64_t {
        bytes16 v;
        std::memcpy(&v, p + 16 * k, sizeof v); // an unaligned load
        return static_cast<std::uint32_t>(
            __builtin_ia32_pmovmskb128(reinterpret_cast<bytes16>(v == needle)));
    };
    return part(0) | part(1) << 16 | part(2) << 32 | part(3) << 48;
}

inline std::size_t byte_count_scalar(const char* p, std::size_t blocks, char c) noexcept {
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        n += static_cast<std::size_t>(std::popcount(byte_mask64_scalar(p + 64 * b, c)));
    }
    return n;
}

inline std::size_t byte_count_sse2(const char* p, std::size_t blocks, char c) noexcept {
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        n += static_cast<std::size_t>(std::popcount(byte_mask64_sse2(p + 64 * b, c)));
    }
    return n;
}

inline std::size_t byte_positions_sse2(const char* p, std::size_t blocks, char c,
                                       std::uint32_t* out) noexcept {
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        n = flatten(byte_mask64_sse2(p + 64 * b, c), static_cast<std::uint32_t>(64 * b), out, n);
    }
    return n;
}

[[gnu::target("avx2,bmi,popcnt")]] inline std::size_t
byte_positions_avx2(const char* p, std::size_t blocks, char c, std::uint32_t* out) noexcept {
    // No lambda here: a lambda does not inherit the function's target.
    const bytes32 needle = bytes32{} + c;
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes32 lo, hi;
        std::memcpy(&lo, p + 64 * b, sizeof lo); // unaligned loads
        std::memcpy(&hi, p + 64 * b + 32, sizeof hi);
        const std::uint64_t m =
            static_cast<std::uint32_t>(
                __builtin_ia32_pmovmskb256(reinterpret_cast<bytes32>(lo == needle))) |
            std::uint64_t{static_cast<std::uint32_t>(
                __builtin_ia32_pmovmskb256(reinterpret_cast<bytes32>(hi == needle)))}
                << 32;
        n = flatten(m, static_cast<std::uint32_t>(64 * b), out, n);
    }
    return n;
}

[[gnu::target("avx2,bmi,popcnt")]] inline std::size_t
byte_count_avx2(const char* p, std::size_t blocks, char c) noexcept {
    const bytes32 needle = bytes32{} + c;
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes32 lo, hi;
        std::memcpy(&lo, p + 64 * b, sizeof lo); // unaligned loads
        std::memcpy(&hi, p + 64 * b + 32, sizeof hi);
        n += static_cast<std::size_t>(
            __builtin_popcount(static_cast<unsigned>(
                __builtin_ia32_pmovmskb256(reinterpret_cast<bytes32>(lo == needle)))) +
            __builtin_popcount(static_cast<unsigned>(
                __builtin_ia32_pmovmskb256(reinterpret_cast<bytes32>(hi == needle)))));
    }
    return n;
}

[[gnu::target("avx512f,avx512bw,bmi,popcnt")]] inline std::size_t
byte_count_avx512(const char* p, std::size_t blocks, char c) noexcept {
    const bytes64 needle = bytes64{} + c;
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes64 v;
        std::memcpy(&v, p + 64 * b, sizeof v); // an unaligned load
        n += static_cast<std::size_t>(
            __builtin_popcountll(__builtin_ia32_cmpb512_mask(v, needle, 0, ~0ULL)));
    }
    return n;
}

[[gnu::target("avx512f,avx512bw,bmi,popcnt")]] inline std::size_t
byte_positions_avx512(const char* p, std::size_t blocks, char c, std::uint32_t* out) noexcept {
    const bytes64 needle = bytes64{} + c;
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        bytes64 v;
        std::memcpy(&v, p + 64 * b, sizeof v); // an unaligned load
        // Predicate 0: equal (_MM_CMPINT_EQ); all 64 lanes.
        const std::uint64_t m = __builtin_ia32_cmpb512_mask(v, needle, 0, ~0ULL);
        n = flatten(m, static_cast<std::uint32_t>(64 * b), out, n);
    }
    return n;
}
#endif

} // namespace fastread::detail

namespace fastread::scan {

inline byte_positions_fn byte_positions_for(simd_level level) noexcept {
    switch (detail::cap_level(level)) {
#if FASTREAD_SCAN_X86
    case simd_level::avx512:
        return &detail::byte_positions_avx512;
    case simd_level::avx2:
        return &detail::byte_positions_avx2;
    case simd_level::sse2:
        return &detail::byte_positions_sse2;
#endif
    default:
        return &detail::byte_positions_scalar;
    }
}

inline byte_count_fn byte_count_for(simd_level level) noexcept {
    switch (detail::cap_level(level)) {
#if FASTREAD_SCAN_X86
    case simd_level::avx512:
        return &detail::byte_count_avx512;
    case simd_level::avx2:
        return &detail::byte_count_avx2;
    case simd_level::sse2:
        return &detail::byte_count_sse2;
#endif
    default:
        return &detail::byte_count_scalar;
    }
}

inline std::size_t byte_positions_tail(const char* p, std::size_t n, char c,
                                       std::uint32_t* out) noexcept {
    std::uint64_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        m |= std::uint64_t{p[i] == c} << i;
    }
    return detail::flatten(m, 0, out, 0);
}

} // namespace fastread::scan

#endif // FASTREAD_SCAN_BYTE_MASK_HPP
