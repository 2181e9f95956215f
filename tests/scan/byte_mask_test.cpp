#include <fastread/scan/byte_mask.hpp>

#include <catch2/catch.hpp>

#include "../test_bytes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

using fastread::scan::simd_level;
using fastread_test::supported_levels;

namespace {

// What byte_positions must return, by the definition.
std::vector<std::uint32_t> naive_positions(const char* p, std::size_t n, char c) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < n; ++i) {
        if (p[i] == c) {
            out.push_back(static_cast<std::uint32_t>(i));
        }
    }
    return out;
}

// Runs the kernel of `level` over exactly `bytes` (an allocation of exactly that size, so
// that AddressSanitizer reports a read past it).
std::vector<std::uint32_t> kernel_positions(simd_level level, const std::string& bytes, char c) {
    const std::size_t blocks = bytes.size() / 64;
    std::unique_ptr<char[]> exact(new char[bytes.size()]);
    std::copy(bytes.begin(), bytes.end(), exact.get());
    std::vector<std::uint32_t> out(64 * blocks + 8);
    const std::size_t n =
        fastread::scan::byte_positions_for(level)(exact.get(), blocks, c, out.data());
    out.resize(n);
    return out;
}

} // namespace

TEST_CASE("byte_positions: every level lists every match, in order", "[scan]") {
    std::mt19937 rng(7);
    for (simd_level level : supported_levels()) {
        CAPTURE(fastread::scan::to_string(level));
        // Densities from no match to every byte: blocks with 0, 1-4 and more than 4 matches.
        for (int percent : {0, 1, 5, 20, 50, 90, 100}) {
            CAPTURE(percent);
            for (std::size_t blocks : {1, 2, 3, 16}) {
                std::string bytes(64 * blocks, 'x');
                for (char& b : bytes) {
                    if (static_cast<int>(rng() % 100) < percent) {
                        b = '\n';
                    } else {
                        b = static_cast<char>(rng() % 256);
                        b = b == '\n' ? 'y' : b;
                    }
                }
                CHECK(kernel_positions(level, bytes, '\n') ==
                      naive_positions(bytes.data(), bytes.size(), '\n'));
            }
        }
        // Any byte value as the needle, including NUL and bytes with the high bit set.
        for (int c : {0, 0x0a, 0x7f, 0x80, 0xff}) {
            std::string bytes(128, 'a');
            bytes[0] = bytes[63] = bytes[64] = bytes[127] = static_cast<char>(c);
            CHECK(kernel_positions(level, bytes, static_cast<char>(c)) ==
                  std::vector<std::uint32_t>{0, 63, 64, 127});
        }
    }
}

TEST_CASE("byte_positions_tail: reads only the bytes it is given", "[scan]") {
    std::string pattern = "a\nbb\n\n" + std::string(60, '\n');
    for (std::size_t n = 0; n < 64; ++n) {
        CAPTURE(n);
        std::unique_ptr<char[]> exact(new char[n == 0 ? 1 : n]);
        std::copy(pattern.begin(), pattern.begin() + static_cast<std::ptrdiff_t>(n), exact.get());
        std::vector<std::uint32_t> out(n + 8);
        out.resize(fastread::scan::byte_positions_tail(exact.get(), n, '\n', out.data()));
        CHECK(out == naive_positions(pattern.data(), n, '\n'));
    }
}

TEST_CASE("simd levels: forcing, capping and the FASTREAD_SIMD variable", "[scan]") {
    using namespace fastread::scan;
    const simd_level best = best_level();
#if defined(__x86_64__)
    CHECK(best >= simd_level::sse2);
#else
    CHECK(best == simd_level::scalar);
#endif
    fastread::detail::force_simd_level(simd_level::scalar);
    CHECK(active_level() == simd_level::scalar);
    fastread::detail::force_simd_level(simd_level::avx512); // capped at what the CPU has
    CHECK(active_level() == best);
    fastread::detail::reset_simd_level();
    // Without a forced level the environment decides (CTest runs this program once per
    // level with FASTREAD_SIMD set), else the best level.
    const char* env = std::getenv("FASTREAD_SIMD");
    if (env == nullptr) {
        CHECK(active_level() == best);
    } else {
        CAPTURE(env);
        simd_level named = best;
        for (simd_level level : all_levels) {
            if (to_string(level) == env) {
                named = level < best ? level : best;
            }
        }
        CHECK(active_level() == named);
    }
}

TEST_CASE("byte_count: every level counts every match, reading only its blocks", "[scan]") {
    std::mt19937_64 rng(5);
    for (simd_level level : supported_levels()) {
        INFO("level " << static_cast<int>(level));
        for (std::size_t blocks : {0, 1, 2, 7, 33}) {
            std::string bytes(64 * blocks, '\0');
            for (char& b : bytes) {
                // Dense and sparse matches, and the bytes next to LF in value.
                b = static_cast<char>(rng() % 4 == 0 ? '\n' : 0x09 + rng() % 3);
            }
            std::unique_ptr<char[]> exact(new char[bytes.size() + 1]);
            std::copy(bytes.begin(), bytes.end(), exact.get());
            const auto want =
                static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
            CHECK(fastread::scan::byte_count_for(level)(exact.get(), blocks, '\n') == want);
        }
    }
}
