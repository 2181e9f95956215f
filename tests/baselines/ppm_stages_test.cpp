#include <fastread/ppm.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <system_error>

#include "baselines/ppm_stages.hpp"
#include "test_util.hpp"

using namespace fastread;
using fastread_test::data_path;

namespace {
using stage_fn = ppm::image<std::uint8_t> (*)(const std::filesystem::path&);
struct stage {
    const char* name;
    stage_fn decode;
};
const stage stages[] = {{"stage 1 iostream", &ppm::baseline::stage1_iostream},
                        {"stage 2 fscanf", &ppm::baseline::stage2_fscanf},
                        {"stage 3 atoi", &ppm::baseline::stage3_atoi},
                        {"stage 4 parser", &ppm::baseline::stage4_parser},
                        {"stage 5 mmap", &ppm::baseline::stage5_mmap}};
} // namespace

TEST_CASE("every stage decodes the 8-bit test images to the samples ppm::load gives",
          "[ppm][baseline]") {
    for (const char* name : {"forge.ppm", "forge-plain.ppm", "madras.ppm", "madras15.ppm",
                             "madras15-plain.ppm", "pixel.ppm"}) {
        const auto expected = ppm::load(data_path(name));
        for (const stage& s : stages) {
            CAPTURE(name, s.name);
            CHECK(s.decode(data_path(name)) == expected);
        }
    }
}

TEST_CASE("every stage handles header comments and a plain file without a final newline "
          "(comments inside a plain raster are beyond the article's technique)",
          "[ppm][baseline]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "c.ppm", "P3\n# made by hand\n2 1 # width height\n255\n"
                                             "1 22\n 255 0 7 99");
    const auto expected = ppm::load(dir / "c.ppm");
    for (const stage& s : stages) {
        CAPTURE(s.name);
        CHECK(s.decode(dir / "c.ppm") == expected);
    }
}

TEST_CASE("every stage rejects bad input with an exception, never a crash",
          "[ppm][baseline][error]") {
    fastread_test::temp_dir dir;
    const std::string bad[] = {
        "",                         // empty
        "P6 2 2 255\n123",          // truncated raster
        "P3 2 1 255\n1 2 3 4 5",    // one sample short
        "P3 1 1 255\n1 x 3",        // not a number
        "P3 1 1 100\n1 200 3",      // above maxval
        "P6 65536 65536 255\n1234", // declares far more than the file holds
        "P6 1 1 65535\n123456",     // 16-bit: baselines are 8-bit only
        "P5 1 1 255\n1",            // not PPM
    };
    for (const std::string& bytes : bad) {
        fastread_test::write_file(dir / "bad.ppm", bytes);
        for (const stage& s : stages) {
            CAPTURE(bytes, s.name);
            CHECK_THROWS_AS(s.decode(dir / "bad.ppm"), parse_error);
        }
    }
    for (const stage& s : stages) {
        CHECK_THROWS_AS(s.decode(dir / "missing.ppm"), std::system_error);
    }
}

TEST_CASE("read_whole_file returns the file's bytes", "[ppm][baseline]") {
    const auto buffer = ppm::baseline::read_whole_file(data_path("pixel.ppm"));
    CHECK(buffer.size() == 14);
    CHECK(std::string(buffer.begin(), buffer.end()) ==
          fastread_test::read_file(data_path("pixel.ppm")));
}
