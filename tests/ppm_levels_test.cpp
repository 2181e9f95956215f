// fastread::ppm::load at every SIMD level of the decimal-list kernel: the same samples and
// the same errors, at the same offsets, as the scalar path.

#include <fastread/ppm.hpp>
#include <fastread/scan/simd_level.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread::scan::simd_level;
using fastread_test::chunked_source;
using fastread_test::data_path;
using fastread_test::read_file;
using fastread_test::supported_levels;

namespace {

// What a load gave: the samples, or the error's offset and message.
struct outcome {
    std::vector<unsigned> samples;
    std::optional<std::uint64_t> error_offset;
    std::string message;

    friend bool operator==(const outcome&, const outcome&) = default;
};

template <class Sample, class Load>
outcome run(Load load) {
    outcome o;
    try {
        const ppm::image<Sample> img = load();
        o.samples.assign(img.samples.begin(), img.samples.end());
    } catch (const parse_error& e) {
        o.error_offset = e.offset();
        o.message = e.reason(); // what() adds the file name, when there is one
    }
    return o;
}

// Loads `bytes` at `level` from memory and through chunks of several sizes; every way must
// agree, and the result is returned.
template <class Sample>
outcome load_at(simd_level level, const std::string& bytes) {
    fastread::detail::force_simd_level(level);
    const outcome whole = run<Sample>([&] {
        memory_source m(std::span<const char>(bytes.data(), bytes.size()));
        return ppm::load<Sample>(m);
    });
    for (std::size_t chunk : {std::size_t{61}, std::size_t{4096}, std::size_t{65536}}) {
        CAPTURE(chunk);
        CHECK(run<Sample>([&] {
                  chunked_source s(bytes, chunk);
                  return ppm::load<Sample>(s);
              }) == whole);
    }
    fastread::detail::reset_simd_level();
    return whole;
}

struct plain_image {
    std::string bytes;
    std::vector<unsigned> samples;
    std::vector<std::size_t> sample_offsets; // byte offset of each sample's first digit
};

// A random P3 image: random whitespace runs (every kind), leading zeros, comments between
// samples and glued to them, values up to maxval (maxval itself often).
plain_image random_plain(std::mt19937& rng, unsigned maxval, std::uint32_t width,
                         std::uint32_t height, int comments_per_mille) {
    static const char spaces[] = {' ', '\t', '\n', '\v', '\f', '\r'};
    plain_image img;
    img.bytes = "P3\n" + std::to_string(width) + " " + std::to_string(height) + "\n" +
                std::to_string(maxval) + "\n";
    const std::size_t n = std::size_t{width} * height * 3;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned v = rng() % 8 == 0 ? maxval : static_cast<unsigned>(rng() % (maxval + 1));
        img.samples.push_back(v);
        const int zeros = rng() % 16 == 0 ? static_cast<int>(rng() % 4) : 0;
        img.sample_offsets.push_back(img.bytes.size());
        img.bytes += std::string(static_cast<std::size_t>(zeros), '0') + std::to_string(v);
        if (static_cast<int>(rng() % 1000) < comments_per_mille) {
            img.bytes += rng() % 2 == 0 ? "#glued 1 2 3\n" : " # 9 9 9\r";
        }
        const int run = rng() % 10 == 0 ? 1 + static_cast<int>(rng() % 80) : 1;
        for (int k = 0; k < run; ++k) {
            img.bytes += spaces[rng() % 4 == 0 ? rng() % 6 : 0];
        }
    }
    return img;
}

} // namespace

TEST_CASE("every SIMD level decodes the data images as the scalar path does", "[ppm][scan]") {
    for (const char* name : {"forge-plain.ppm", "forge16-plain.ppm", "madras15-plain.ppm",
                             "forge.ppm", "madras.ppm"}) {
        CAPTURE(name);
        const std::string bytes = read_file(data_path(name));
        const outcome scalar = load_at<std::uint16_t>(simd_level::scalar, bytes);
        REQUIRE_FALSE(scalar.error_offset);
        for (simd_level level : supported_levels()) {
            CAPTURE(scan::to_string(level));
            CHECK(load_at<std::uint16_t>(level, bytes) == scalar);
        }
    }
}

TEST_CASE("every SIMD level decodes random plain images exactly", "[ppm][scan]") {
    std::mt19937 rng(3);
    for (unsigned maxval : {255u, 200u, 100u, 15u, 1u, 256u, 1000u, 65535u}) {
        for (int comments : {0, 5, 100}) {
            CAPTURE(maxval, comments);
            const std::uint32_t width = 1 + rng() % 90, height = 1 + rng() % 40;
            const plain_image img = random_plain(rng, maxval, width, height, comments);
            for (simd_level level : supported_levels()) {
                CAPTURE(scan::to_string(level));
                CHECK(load_at<std::uint16_t>(level, img.bytes).samples == img.samples);
                if (maxval <= 255) {
                    CHECK(load_at<std::uint8_t>(level, img.bytes).samples == img.samples);
                }
            }
        }
    }
}

TEST_CASE("every SIMD level reports bad samples at the scalar path's offset",
          "[ppm][scan][error]") {
    std::mt19937 rng(9);
    for (unsigned maxval : {255u, 100u, 9u, 65535u, 999u}) {
        for (int round = 0; round < 12; ++round) {
            CAPTURE(maxval, round);
            plain_image img = random_plain(rng, maxval, 40, 10, round % 3 == 0 ? 20 : 0);
            const std::size_t victim = rng() % img.samples.size();
            const std::size_t at = img.sample_offsets[victim];
            std::string bytes = img.bytes;
            std::uint64_t want_offset = at;
            switch (round % 4) {
            case 0: // maxval + 1 in place of a sample
                bytes.insert(at, std::to_string(maxval + 1) + " ");
                break;
            case 1: // a stray byte glued to a sample
                bytes.insert(at, "x");
                break;
            case 2: // a sign
                bytes.insert(at, "-");
                break;
            case 3: // truncated inside the raster: the end of input is the offset
                bytes.resize(at);
                want_offset = at;
                break;
            }
            const outcome scalar = load_at<std::uint16_t>(simd_level::scalar, bytes);
            REQUIRE(scalar.error_offset);
            CHECK(*scalar.error_offset == want_offset);
            for (simd_level level : supported_levels()) {
                CAPTURE(scan::to_string(level));
                CHECK(load_at<std::uint16_t>(level, bytes) == scalar);
                if (maxval <= 255) {
                    const outcome narrow = load_at<std::uint8_t>(level, bytes);
                    CHECK(narrow.error_offset == scalar.error_offset);
                    CHECK(narrow.message == scalar.message);
                }
            }
        }
    }
}

TEST_CASE("big plain rasters parsed in slices decode as one sequential scan does", "[ppm]") {
    // Inputs over 8 MiB: a contiguous source (memory, a file by path) is cut into slices
    // parsed on threads (on a machine with more than one CPU); chunks of 64 KiB are scanned
    // in order. Both must agree exactly, errors included.
    std::mt19937 rng(21);
    auto sequential = [](const std::string& bytes) {
        return run<std::uint8_t>([&] {
            chunked_source s(bytes, 65536);
            return ppm::load<std::uint8_t>(s);
        });
    };
    auto sliced = [](const std::string& bytes) {
        return run<std::uint8_t>([&] {
            memory_source m(std::span<const char>(bytes.data(), bytes.size()));
            return ppm::load<std::uint8_t>(m);
        });
    };
    fastread_test::temp_dir dir;
    const auto path = dir / "big.ppm";
    auto by_path = [&](const std::string& bytes) {
        fastread_test::write_file(path, bytes);
        return run<std::uint8_t>([&] { return ppm::load<std::uint8_t>(path); });
    };
    for (int comments : {0, 1000}) { // 1000: a comment after every sample
        CAPTURE(comments);
        const plain_image img = random_plain(rng, 255, 1024, 800, comments);
        REQUIRE(img.bytes.size() > (std::size_t{9} << 20));
        const outcome want{img.samples, std::nullopt, ""};
        CHECK(sequential(img.bytes) == want);
        CHECK(sliced(img.bytes) == want);
        CHECK(by_path(img.bytes) == want);

        // A bad sample in the last quarter, then also one in the first quarter.
        std::string bad = img.bytes;
        const std::size_t late = img.sample_offsets[img.samples.size() * 3 / 4];
        bad.insert(late, "256 ");
        const outcome late_error = sequential(bad);
        REQUIRE(late_error.error_offset == late);
        CHECK(sliced(bad) == late_error);
        CHECK(by_path(bad) == late_error);
        const std::size_t early = img.sample_offsets[img.samples.size() / 4];
        bad.insert(early, "x");
        const outcome early_error = sequential(bad);
        REQUIRE(early_error.error_offset == early);
        CHECK(sliced(bad) == early_error);

        // Truncated: the header declares one more row than the raster holds.
        std::string truncated = img.bytes;
        truncated.replace(truncated.find(" 800\n"), 5, " 801\n");
        const outcome short_raster = sequential(truncated);
        REQUIRE(short_raster.error_offset == truncated.size());
        CHECK(sliced(truncated) == short_raster);

        // The header declares half the rows: the raster ends in the first half, and what
        // follows (here with garbage in it) is not read.
        std::string half = img.bytes;
        half.replace(half.find(" 800\n"), 5, " 400\n");
        half.insert(img.sample_offsets[img.samples.size() * 3 / 4], "garbage ");
        const outcome first_half = sequential(half);
        REQUIRE_FALSE(first_half.error_offset);
        REQUIRE(first_half.samples.size() == img.samples.size() / 2);
        CHECK(sliced(half) == first_half);
    }
}
