#include <fastread/scan/byte_mask.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

using fastread::scan::simd_level;

TEST_CASE("byte_mask64 gives the same mask at every SIMD level this CPU has", "[scan]") {
    std::mt19937 rng(5);
    const simd_level best = fastread::scan::best_level();
    INFO("best level: " << fastread::scan::to_string(best));
    for (int trial = 0; trial < 2000; ++trial) {
        char block[64];
        const int alphabet = 1 + static_cast<int>(rng() % 4); // dense and sparse matches
        for (char& c : block) {
            c = static_cast<char>(rng() % 5 < static_cast<unsigned>(alphabet) ? '\n' : rng() & 0xff);
        }
        const char needle = trial % 3 == 0 ? '\0' : trial % 3 == 1 ? '\n' : static_cast<char>(0xff);
        std::uint64_t want = 0;
        for (int i = 0; i < 64; ++i) {
            want |= std::uint64_t{block[i] == needle} << i;
        }
        for (simd_level l : {simd_level::scalar, simd_level::sse2, simd_level::avx2,
                             simd_level::avx512}) {
            if (l > best) {
                continue;
            }
            CAPTURE(fastread::scan::to_string(l), trial);
            REQUIRE(fastread::scan::byte_mask64_for(l)(block, needle) == want);
        }
        CHECK(fastread::scan::byte_mask_tail(block, 64 - 1 - trial % 63, needle) ==
              (want & ((std::uint64_t{1} << (63 - trial % 63)) - 1)));
    }
}

TEST_CASE("force_level caps at the CPU's best and reset_level undoes it", "[scan]") {
    fastread::scan::force_level(simd_level::scalar);
    CHECK(fastread::scan::active_level() == simd_level::scalar);
    fastread::scan::force_level(simd_level::avx512);
    CHECK(fastread::scan::active_level() == fastread::scan::best_level());
    fastread::scan::reset_level();
    CHECK(fastread::scan::active_level() <= fastread::scan::best_level());
}
