// The compare article's programs kept as fastread-bench baselines
// (bench/baselines/compare_methods.hpp): they agree with files_equal, byte for byte.

#include <catch2/catch.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <tuple>

#include "baselines/compare_methods.hpp"
#include "test_util.hpp"

using fastread_test::bytes_of;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace baseline = fastread::compare_baseline;
namespace fs = std::filesystem;

TEST_CASE("compare baselines: getc, getc_unlocked and preload then blocks agree with files_equal",
          "[compare][baseline]") {
    temp_dir dir;
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4097},
                             (std::size_t{1} << 20) + 3}) {
        CAPTURE(size);
        const std::string bytes = bytes_of(size, 5);
        write_file(dir / "a", bytes);
        write_file(dir / "b", bytes);
        std::string last = bytes, longer = bytes + 'x';
        if (size > 0) {
            last.back() = static_cast<char>(last.back() ^ 0x40);
        }
        write_file(dir / "last", last);
        write_file(dir / "longer", longer);
        for (const auto& [other, same] :
             {std::tuple{"b", true}, std::tuple{"last", size == 0}, std::tuple{"longer", false}}) {
            CAPTURE(other);
            CHECK(fastread::files_equal(dir / "a", dir / other) == same);
            CHECK(baseline::compare_getc(dir / "a", dir / other, false) == same);
            CHECK(baseline::compare_getc(dir / "a", dir / other, true) == same);
            CHECK(baseline::compare_preload_then_block(dir / "a", dir / other, 4096) == same);
            CHECK(baseline::compare_preload_then_block(dir / "a", dir / other, 0) == same);
        }
    }
}

TEST_CASE("compare baselines: a missing file is std::system_error naming it",
          "[compare][baseline]") {
    temp_dir dir;
    write_file(dir / "a", "abc");
    for (bool unlocked : {false, true}) {
        try {
            baseline::compare_getc(dir / "a", dir / "none", unlocked);
            FAIL("a missing file compared");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::no_such_file_or_directory);
            CHECK_THAT(e.what(), Catch::Contains("none"));
        }
    }
    CHECK_THROWS_AS(baseline::compare_preload_then_block(dir / "none", dir / "a", 4096),
                    std::system_error);
}

#if !defined(_WIN32)
TEST_CASE("compare baselines: preload then blocks on pipes compares their bytes (nothing to "
          "preload)",
          "[compare][baseline]") {
    for (const auto& [x, y, same] :
         {std::tuple{"abc", "xyz", false}, std::tuple{"abc", "abc", true},
          std::tuple{"abc", "abcd", false}}) {
        CAPTURE(x, y);
        fastread_test::pipe_feeder a(x), b(y);
        const fs::path pa = "/proc/self/fd/" + std::to_string(a.read_fd());
        const fs::path pb = "/proc/self/fd/" + std::to_string(b.read_fd());
        CHECK(baseline::compare_preload_then_block(pa, pb, 4096) == same);
    }
}
#endif
