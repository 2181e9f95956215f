// pnm::load_batch (fastread/pnm/image.hpp): many files of one shape into one buffer, each
// slot as pnm::load decodes the file, each bad file reported in its own result with its
// slot untouched.

#include <fastread/pnm.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

// A raw PGM of `width` x `height` (P5; with `plain`, P2) of random samples <= maxval.
std::string random_pgm(std::uint32_t width, std::uint32_t height, unsigned maxval, unsigned seed,
                       bool plain = false, const std::string& comment = "") {
    std::string out = std::string(plain ? "P2" : "P5") + "\n" + comment + std::to_string(width) +
                      " " + std::to_string(height) + "\n" + std::to_string(maxval) + "\n";
    std::mt19937 rng(seed);
    for (std::size_t i = 0; i < std::size_t{width} * height; ++i) {
        const unsigned v = rng() % (maxval + 1);
        if (plain) {
            out += std::to_string(v) + (i % 16 == 15 ? "\n" : " ");
        } else {
            if (maxval > 255) {
                out += static_cast<char>(v >> 8);
            }
            out += static_cast<char>(v & 255);
        }
    }
    return out;
}

constexpr std::uint32_t width = 92, height = 112; // the ORL faces' shape
constexpr std::size_t per_image = std::size_t{width} * height;

} // namespace

TEST_CASE("pnm::load_batch: every file's samples in its slot, bad files reported in place",
          "[pnm][batch]") {
    temp_dir dir;
    std::vector<std::filesystem::path> paths;
    std::vector<std::string> expected_error(40); // empty: decodes
    for (unsigned i = 0; i < 40; ++i) {
        const auto path = dir / ("face" + std::to_string(i) + ".pgm");
        std::string bytes = random_pgm(width, height, 255, i);
        switch (i) {
        case 3: // plain, with a comment: the same shape
            bytes = random_pgm(width, height, 200, i, true, "# a face\n");
            break;
        case 7: // another shape
            bytes = random_pgm(width + 1, height, 255, i);
            break;
        case 11: // truncated raster
            bytes.resize(bytes.size() - 100);
            break;
        case 13: // a sample above maxval
            bytes = random_pgm(width, height, 100, i);
            bytes[bytes.size() - 5] = static_cast<char>(101);
            break;
        case 17: // a longer header than the first file's, raster read beyond the first read
            bytes = random_pgm(width, height, 255, i, false, "#" + std::string(9000, 'c') + "\n");
            break;
        case 19: // 16-bit samples into 8-bit ones
            bytes = random_pgm(width, height, 1000, i);
            break;
        case 23: // not an image
            bytes = "hello";
            break;
        default:
            break;
        }
        if (i != 29) { // 29: no such file
            write_file(path, bytes);
        }
        paths.push_back(path);
        if (i == 7) {
            expected_error[i] = path.string() + ": byte 0: a 93x112x1 image in a batch of 92x112x1 "
                                                "images (width x height x depth)";
        } else if (i != 29) {
            result<pnm::image<std::uint8_t>> one = pnm::try_load(path);
            expected_error[i] = one ? "" : one.error().message();
        }
    }
    for (const unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        std::vector<std::uint8_t> all(paths.size() * per_image + 5, 0x5A);
        std::vector<result<pnm::header>> each =
            pnm::load_batch(paths, std::span(all), load_options{.threads = threads});
        REQUIRE(each.size() == paths.size());
        for (std::size_t i = 0; i < paths.size(); ++i) {
            CAPTURE(i);
            const auto slot = all.begin() + static_cast<std::ptrdiff_t>(i * per_image);
            if (expected_error[i].empty() && i != 29) {
                REQUIRE(each[i]);
                const pnm::image<std::uint8_t> img = pnm::load(paths[i]);
                CHECK(std::equal(img.samples.begin(), img.samples.end(), slot));
                CHECK(each[i]->width == width);
                CHECK(each[i]->maxval == img.maxval);
                CHECK(each[i]->encoding == img.encoding);
                continue;
            }
            REQUIRE_FALSE(each[i]);
            if (i == 29) {
                CHECK(each[i].error().code() == std::errc::no_such_file_or_directory);
            } else {
                CHECK(each[i].error().message() == expected_error[i]);
            }
            if (i == 7) {
                CHECK(each[i].error().code() == make_error_code(errc::shape_mismatch));
                CHECK(each[i].error().offset() == 0);
            }
            CHECK(std::all_of(slot, slot + static_cast<std::ptrdiff_t>(per_image),
                              [](std::uint8_t v) { return v == 0x5A; }));
        }
        CHECK(std::all_of(all.end() - 5, all.end(), [](std::uint8_t v) { return v == 0x5A; }));
    }
}

TEST_CASE("pnm::load_batch: the shape is the first readable file's, 16-bit samples",
          "[pnm][batch]") {
    temp_dir dir;
    std::vector<std::filesystem::path> paths{dir / "missing.pgm", dir / "bad.pgm"};
    write_file(paths[1], "P5 92");
    for (unsigned i = 0; i < 3; ++i) {
        paths.push_back(dir / ("p" + std::to_string(i) + ".pgm"));
        write_file(paths.back(), random_pgm(3, 2, i == 1 ? 255 : 60000, i));
    }
    std::vector<std::uint16_t> all(5 * 6, 1);
    result<std::vector<result<pnm::header>>> r = pnm::try_load_batch(paths, std::span(all));
    REQUIRE(r);
    const std::vector<result<pnm::header>>& each = *r;
    CHECK(each[0].error().code() == std::errc::no_such_file_or_directory);
    CHECK(each[1].error().code() == make_error_code(errc::truncated_header));
    CHECK(std::all_of(all.begin(), all.begin() + 12, [](std::uint16_t v) { return v == 1; }));
    for (std::size_t i = 2; i < 5; ++i) {
        REQUIRE(each[i]);
        const pnm::image<std::uint16_t> img = pnm::load<std::uint16_t>(paths[i]);
        CHECK(std::equal(img.samples.begin(), img.samples.end(), all.begin() + 6 * i));
        CHECK(each[i]->maxval == img.maxval);
    }
}

TEST_CASE("pnm::load_batch: a buffer too small is std::invalid_argument before any raster is "
          "read",
          "[pnm][batch]") {
    temp_dir dir;
    std::vector<std::filesystem::path> paths;
    for (unsigned i = 0; i < 3; ++i) {
        paths.push_back(dir / ("p" + std::to_string(i) + ".pgm"));
        write_file(paths.back(), random_pgm(4, 4, 255, i));
    }
    std::vector<std::uint8_t> small(3 * 16 - 1, 9);
    CHECK_THROWS_WITH(pnm::load_batch(paths, std::span(small)),
                      "fastread::pnm::load_batch: the buffer holds 47 samples; 3 images of 16 "
                      "samples need more");
    result<std::vector<result<pnm::header>>> r = pnm::try_load_batch(paths, std::span(small));
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == make_error_code(errc::invalid_argument));
    CHECK(std::all_of(small.begin(), small.end(), [](std::uint8_t v) { return v == 9; }));
    // No file at all: nothing to decode, no error.
    std::vector<std::filesystem::path> none;
    CHECK(pnm::load_batch(none, std::span(small)).empty());
    // Over a limit: each file reports it.
    std::vector<std::uint8_t> room(3 * 16);
    for (const result<pnm::header>& each :
         pnm::load_batch(paths, std::span(room), load_options{.max_samples = 15})) {
        CHECK(each.error().code() == make_error_code(errc::over_limit));
    }
}
