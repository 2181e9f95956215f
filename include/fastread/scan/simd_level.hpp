#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SCAN_SIMD_LEVEL_HPP)
#define FASTREAD_SCAN_SIMD_LEVEL_HPP

/// @file
/// Run-time dispatch for the scanning kernels: which instruction-set level this CPU has,
/// which one kernels use now, and a way for tests and benchmarks to force a lower one.
/// Kernels are compiled into the headers with `target` attributes, so the library needs
/// no `-march` flag; each kernel family picks its implementation from active_level().

#include <atomic>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// 1 where the x86 SIMD kernels are compiled in (x86-64, GCC or Clang), else 0.
#define FASTREAD_SCAN_X86 1
#else
/// 0: not x86-64, or not GCC or Clang (see above).
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

/// The level that kernels chosen now use: the level a test or the bench forced (an internal
/// hook, detail::force_simd_level), else the one
/// named by the environment variable `FASTREAD_SIMD` (`scalar`, `sse2`, `avx2`,
/// `avx512`; read once; an unknown name is ignored), else best_level(). Never above
/// best_level().
inline simd_level active_level() noexcept;

// ---------------------------------------------------------------------------------------
// Implementation

} // namespace fastread::scan

namespace fastread::detail {

inline std::atomic<int>& forced_level() noexcept {
    static std::atomic<int> level{-1}; // -1: not forced
    return level;
}

inline scan::simd_level cap_level(scan::simd_level level) noexcept {
    return level < scan::best_level() ? level : scan::best_level();
}

inline scan::simd_level level_from_environment() noexcept {
    const char* env = std::getenv("FASTREAD_SIMD");
    if (env != nullptr) {
        for (scan::simd_level level : scan::all_levels) {
            if (std::string_view(env) == scan::to_string(level)) {
                return cap_level(level);
            }
        }
    }
    return scan::best_level();
}

} // namespace fastread::detail

namespace fastread::scan {

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

} // namespace fastread::scan

namespace fastread::detail {

/// A hook of the tests, the fuzz targets and the bench, not of the API: makes
/// scan::active_level() return `level` (capped at best_level()) until reset_simd_level(), so
/// that every level can be run. Objects that already chose a kernel, such as a line_range,
/// keep theirs. Thread-safe; not for hot paths.
inline void force_simd_level(scan::simd_level level) noexcept {
    forced_level().store(static_cast<int>(cap_level(level)), std::memory_order_relaxed);
}

/// Undoes force_simd_level().
inline void reset_simd_level() noexcept {
    forced_level().store(-1, std::memory_order_relaxed);
}

} // namespace fastread::detail

#endif // FASTREAD_SCAN_SIMD_LEVEL_HPP
