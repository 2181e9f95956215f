#ifndef FASTREAD_SCAN_BYTE_MASK_HPP
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

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FASTREAD_SCAN_X86 1
#else
#define FASTREAD_SCAN_X86 0
#endif

namespace fastread::scan {

/// Instruction-set levels of the scanning kernels, lowest first.
enum class simd_level { scalar, sse2, avx2, avx512 };

/// Every level, lowest first.
inline constexpr simd_level all_levels[] = {simd_level::scalar, simd_level::sse2, simd_level::avx2,
                                            simd_level::avx512};

/// The name of a level: "scalar", "sse2", "avx2" or "avx512".
constexpr std::string_view to_string(simd_level level) noexcept {
    switch (level) {
    case simd_level::scalar:
        return "scalar";
    case simd_level::sse2:
        return "sse2";
    case simd_level::avx2:
        return "avx2";
    case simd_level::avx512:
        return "avx512";
    }
    return "scalar";
}

/// The highest level this CPU supports: avx512 needs AVX-512F and AVX-512BW, avx2 needs
/// AVX2 and BMI1 (from cpuid, queried once); sse2 on any other x86-64; scalar elsewhere.
inline simd_level best_level() noexcept;

/// The level that kernels chosen now use: the level forced by force_level(), else the one
/// named by the environment variable `FASTREAD_SIMD` (`scalar`, `sse2`, `avx2`,
/// `avx512`; read once; an unknown name is ignored), else best_level(). Never above
/// best_level().
inline simd_level active_level() noexcept;

/// Makes active_level() return `level` (capped at best_level()) until reset_level(), so
/// that tests and benchmarks can run every level. Objects that already chose a kernel,
/// such as a line_range, keep theirs. Thread-safe; meant for tests, not hot paths.
inline void force_level(simd_level level) noexcept;

/// Undoes force_level().
inline void reset_level() noexcept;

/// Offsets of every byte equal to `c` in `blocks` 64-byte blocks from `p`, in increasing
/// order, written to `out`; returns how many. Reads exactly `64 * blocks` bytes. `out`
/// must have room for `64 * blocks + 8` entries (the kernel stores a few entries past the
/// last match rather than branch on the count). Offsets are relative to `p`.
using byte_positions_fn = std::size_t (*)(const char* p, std::size_t blocks, char c,
                                          std::uint32_t* out) noexcept;

/// The byte_positions kernel for `level` (capped at best_level()).
inline byte_positions_fn byte_positions_for(simd_level level) noexcept;

/// As a byte_positions_fn for the first `n` bytes of one block only (n < 64): reads
/// nothing beyond them; `out` needs room for `n + 8` entries. Portable code.
inline std::size_t byte_positions_tail(const char* p, std::size_t n, char c,
                                       std::uint32_t* out) noexcept;

// ---------------------------------------------------------------------------------------
// Implementation

namespace detail {

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
[[gnu::always_inline]] inline std::uint64_t byte_mask64_sse2(const char* p, char c) noexcept {
    const __m128i needle = _mm_set1_epi8(c);
    auto part = [&](int k) -> std::uint64_t {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)));
    };
    return part(0) | part(1) << 16 | part(2) << 32 | part(3) << 48;
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
    const __m256i needle = _mm256_set1_epi8(c);
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        const char* q = p + 64 * b;
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32));
        const std::uint64_t m =
            static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, needle))) |
            std::uint64_t{
                static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, needle)))}
                << 32;
        n = flatten(m, static_cast<std::uint32_t>(64 * b), out, n);
    }
    return n;
}

[[gnu::target("avx512f,avx512bw,bmi,popcnt")]] inline std::size_t
byte_positions_avx512(const char* p, std::size_t blocks, char c, std::uint32_t* out) noexcept {
    const __m512i needle = _mm512_set1_epi8(c);
    std::size_t n = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        const __m512i v = _mm512_loadu_si512(p + 64 * b);
        n = flatten(_mm512_cmpeq_epi8_mask(v, needle), static_cast<std::uint32_t>(64 * b), out, n);
    }
    return n;
}
#endif

inline std::atomic<int>& forced_level() noexcept {
    static std::atomic<int> level{-1}; // -1: not forced
    return level;
}

inline simd_level cap(simd_level level) noexcept {
    return level < best_level() ? level : best_level();
}

inline simd_level level_from_environment() noexcept {
    const char* env = std::getenv("FASTREAD_SIMD");
    if (env != nullptr) {
        for (simd_level level : all_levels) {
            if (std::string_view(env) == to_string(level)) {
                return cap(level);
            }
        }
    }
    return best_level();
}

} // namespace detail

inline simd_level best_level() noexcept {
#if FASTREAD_SCAN_X86
    static const simd_level best = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("bmi") && __builtin_cpu_supports("popcnt")) {
            return simd_level::avx512;
        }
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
            __builtin_cpu_supports("popcnt")) {
            return simd_level::avx2;
        }
        return simd_level::sse2;
    }();
    return best;
#else
    return simd_level::scalar;
#endif
}

inline simd_level active_level() noexcept {
    const int forced = detail::forced_level().load(std::memory_order_relaxed);
    if (forced >= 0) {
        return static_cast<simd_level>(forced);
    }
    static const simd_level from_environment = detail::level_from_environment();
    return from_environment;
}

inline void force_level(simd_level level) noexcept {
    detail::forced_level().store(static_cast<int>(detail::cap(level)), std::memory_order_relaxed);
}

inline void reset_level() noexcept {
    detail::forced_level().store(-1, std::memory_order_relaxed);
}

inline byte_positions_fn byte_positions_for(simd_level level) noexcept {
    switch (detail::cap(level)) {
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
