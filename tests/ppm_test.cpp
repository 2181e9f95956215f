#include <fastread/page_cache.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::data_path;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

template <class Sample>
std::vector<unsigned> as_unsigned(const ppm::image<Sample>& img) {
    return {img.samples.begin(), img.samples.end()};
}

template <class Sample = std::uint8_t>
ppm::image<Sample> from_bytes(const std::string& bytes) {
    memory_source m(std::span<const char>(bytes.data(), bytes.size()));
    return ppm::load<Sample>(m);
}

// The sample at (row, column, channel).
template <class Sample>
unsigned at(const ppm::image<Sample>& img, std::size_t row, std::size_t col, std::size_t ch) {
    return img.samples[(row * img.width + col) * 3 + ch];
}

const char* const all_images[] = {"forge.ppm",          "forge-plain.ppm", "forge16.ppm",
                                  "forge16-plain.ppm",  "madras.ppm",      "madras15.ppm",
                                  "madras15-plain.ppm", "pixel.ppm",       "frames.ppm"};

} // namespace

TEST_CASE("the Netpbm-made images decode to the pixels data/README.md lists", "[ppm]") {
    struct expected {
        const char* file;
        std::uint32_t width, height;
        std::uint16_t maxval;
        std::vector<unsigned> first_two, last;
    };
    const expected cases[] = {
        {"forge.ppm", 64, 48, 255, {155, 155, 255, 181, 181, 255}, {151, 151, 255}},
        {"forge-plain.ppm", 64, 48, 255, {155, 155, 255, 181, 181, 255}, {151, 151, 255}},
        {"forge16.ppm",
         64,
         48,
         65535,
         {39835, 39835, 65535, 46517, 46517, 65535},
         {38807, 38807, 65535}},
        {"forge16-plain.ppm",
         64,
         48,
         65535,
         {39835, 39835, 65535, 46517, 46517, 65535},
         {38807, 38807, 65535}},
        {"madras.ppm", 37, 23, 255, {0, 21, 253, 73, 111, 180}, {198, 185, 122}},
        {"madras15.ppm", 37, 23, 15, {0, 1, 15, 4, 7, 11}, {12, 11, 7}},
        {"madras15-plain.ppm", 37, 23, 15, {0, 1, 15, 4, 7, 11}, {12, 11, 7}},
        {"pixel.ppm", 1, 1, 255, {255, 128, 0}, {255, 128, 0}},
        {"frames.ppm", 64, 48, 255, {155, 155, 255, 181, 181, 255}, {151, 151, 255}},
    };
    for (const expected& e : cases) {
        CAPTURE(e.file);
        auto img = ppm::load<std::uint16_t>(data_path(e.file));
        CHECK(img.width == e.width);
        CHECK(img.height == e.height);
        CHECK(img.maxval == e.maxval);
        REQUIRE(img.samples.size() == std::size_t{e.width} * e.height * 3);
        std::vector<unsigned> s = as_unsigned(img);
        CHECK(std::vector<unsigned>(s.begin(), s.begin() + static_cast<long>(e.first_two.size())) ==
              e.first_two);
        CHECK(std::vector<unsigned>(s.end() - 3, s.end()) == e.last);
        if (e.maxval <= 255) {
            auto img8 = ppm::load(data_path(e.file)); // std::uint8_t by default
            CHECK(as_unsigned(img8) == s);
        }
    }
}

TEST_CASE("plain and raw twins decode to the same image", "[ppm]") {
    CHECK(ppm::load(data_path("forge.ppm")) == ppm::load(data_path("forge-plain.ppm")));
    CHECK(ppm::load<std::uint16_t>(data_path("forge16.ppm")) ==
          ppm::load<std::uint16_t>(data_path("forge16-plain.ppm")));
    CHECK(ppm::load(data_path("madras15.ppm")) == ppm::load(data_path("madras15-plain.ppm")));
}

TEST_CASE("samples are the file's, never rescaled: pamdepth's arithmetic shows through", "[ppm]") {
    // pamdepth 65535 maps v to v * 65535 / 255 = v * 257; pamdepth 15 rounds v * 15 / 255.
    auto eight = ppm::load(data_path("forge.ppm"));
    auto sixteen = ppm::load<std::uint16_t>(data_path("forge16.ppm"));
    REQUIRE(eight.samples.size() == sixteen.samples.size());
    for (std::size_t i = 0; i < eight.samples.size(); ++i) {
        REQUIRE(sixteen.samples[i] == eight.samples[i] * 257u);
    }
    auto madras = ppm::load(data_path("madras.ppm"));
    auto madras15 = ppm::load(data_path("madras15.ppm"));
    REQUIRE(madras.samples.size() == madras15.samples.size());
    for (std::size_t i = 0; i < madras.samples.size(); ++i) {
        REQUIRE(madras15.samples[i] == (madras.samples[i] * 15u + 127u) / 255u);
    }
}

TEST_CASE("every data file decodes as Netpbm's pnmtoplainpnm reads it", "[ppm][netpbm]") {
    const std::string tool = FASTREAD_PNMTOPLAINPNM;
    if (tool.empty()) {
        WARN("pnmtoplainpnm not installed (Debian package netpbm): comparison skipped");
        return;
    }
    for (const char* name : all_images) {
        CAPTURE(name);
        auto ref = fastread_test::reference_decode_plain(
            fastread_test::run_command(tool + " '" + data_path(name).string() + "'"));
        auto img = ppm::load<std::uint16_t>(data_path(name));
        CHECK(img.width == ref.width);
        CHECK(img.height == ref.height);
        CHECK(img.maxval == ref.maxval);
        CHECK(as_unsigned(img) == ref.samples);
    }
}

TEST_CASE("every data file decodes the same from every source and chunk size", "[ppm][source]") {
    for (const char* name : all_images) {
        CAPTURE(name);
        const auto path = data_path(name);
        const std::string bytes = read_file(path);
        const auto expected = ppm::load<std::uint16_t>(path);

        mmap_source m(path);
        CHECK(ppm::load<std::uint16_t>(m) == expected);
        CHECK(ppm::load<std::uint16_t>(path, {.io = io_mode::read}) == expected);
        CHECK(ppm::load<std::uint16_t>(path, {.io = io_mode::map}) == expected);
        fread_source f(path);
        CHECK(ppm::load<std::uint16_t>(f) == expected);
        CHECK(from_bytes<std::uint16_t>(bytes) == expected);
        for (std::size_t chunk : {1, 2, 3, 7, 64, 4096}) {
            CAPTURE(chunk);
            read_source r(path, chunk);
            CHECK(ppm::load<std::uint16_t>(r) == expected);
            stdio_source s(path, chunk);
            CHECK(ppm::load<std::uint16_t>(s) == expected);
            std::ifstream in(path, std::ios::binary);
            istream_source i(in, chunk);
            CHECK(ppm::load<std::uint16_t>(i) == expected);
            chunked_source c(bytes, chunk);
            CHECK(ppm::load<std::uint16_t>(c) == expected);
        }
        fastread_test::pipe_feeder pipe(bytes);
        std::FILE* file = pipe.take_file();
        {
            stdio_source s(file, 7);
            CHECK(ppm::load<std::uint16_t>(s) == expected);
        }
        std::fclose(file);
    }
}

TEST_CASE("load(path) decodes a big raw file the same whether it is in the page cache or not",
          "[ppm][page_cache]") {
    // Files of 9 or 18 MiB: over the 8 MiB from which load(path) copies a resident raw file
    // from a map with streaming stores, and reads it with read(2) when it is not resident.
    temp_dir dir;
    for (std::uint16_t maxval : {std::uint16_t{255}, std::uint16_t{200}, std::uint16_t{1000}}) {
        ppm::image<std::uint16_t> img;
        img.width = 2048;
        img.height = 1536;
        img.maxval = maxval;
        img.samples.resize(std::size_t{img.width} * img.height * 3);
        for (std::size_t i = 0; i < img.samples.size(); ++i) {
            img.samples[i] = static_cast<std::uint16_t>((i * 2654435761u >> 7) % (maxval + 1u));
        }
        const auto path = dir / "big.ppm";
        ppm::save(path, img);
        page_cache::preload(path);
        CAPTURE(maxval);
        if (fastread_test::residency_known) {
            CAPTURE(page_cache::resident_fraction(path));
        }
        CHECK(ppm::load<std::uint16_t>(path) == img);
        CHECK(ppm::load<std::uint16_t>(path, {.io = io_mode::read}) == img);
        CHECK(ppm::load<std::uint16_t>(path, {.io = io_mode::map}) == img);
        read_source streamed(path);
        CHECK(ppm::load<std::uint16_t>(streamed) == img);
        mmap_source mapped(path);
        CHECK(ppm::load<std::uint16_t>(mapped) == img); // contiguous: the one-pass kernel
        if (!fastread_test::residency_known) {
            continue; // no page cache to drop the file from (Windows)
        }
        page_cache::evict(path);
        CHECK(ppm::load<std::uint16_t>(path) == img); // from the disk, if evict worked

        // A sample above maxval near the end is found at its offset on both paths.
        if (maxval != 255) {
            std::string bytes = read_file(path);
            const std::size_t header = bytes.size() - img.samples.size() * (maxval > 255 ? 2 : 1);
            const std::size_t bad = img.samples.size() - 4;
            if (maxval > 255) {
                bytes[header + 2 * bad] = static_cast<char>(0xff);
            } else {
                bytes[header + bad] = static_cast<char>(0xff); // 255 > maxval 200
            }
            write_file(path, bytes);
            for (int way : {0, 1, 2}) { // an mmap_source; load(path) resident; evicted
                CAPTURE(way);
                try {
                    if (way == 0) {
                        mmap_source source(path);
                        ppm::load<std::uint16_t>(source);
                    } else {
                        way == 1 ? page_cache::preload(path) : page_cache::evict(path);
                        ppm::load<std::uint16_t>(path);
                    }
                    FAIL("accepted a sample above maxval");
                } catch (const parse_error& e) {
                    CHECK(e.offset() == header + bad * (maxval > 255 ? 2 : 1));
                }
            }
        }
    }
}

#if !defined(_WIN32) // a pipe by path: /proc/self/fd
TEST_CASE("load(path) streams files that cannot be mapped", "[ppm][source]") {
    const std::string bytes = read_file(data_path("madras.ppm"));
    fastread_test::pipe_feeder pipe(bytes);
    auto img = ppm::load("/proc/self/fd/" + std::to_string(pipe.read_fd()));
    CHECK(img == ppm::load(data_path("madras.ppm")));
}

#endif

TEST_CASE("header syntax: whitespace, comments and leading zeros as ppm(5) and libnetpbm "
          "allow",
          "[ppm]") {
    const std::string raster = "\x01\x02\x03\x04\x05\x06";
    const std::vector<unsigned> samples{1, 2, 3, 4, 5, 6};
    const char* const headers[] = {
        "P6 2 1 255\n",
        "P6\n2\n1\n255\n",
        "P6\t2\v1\f255\r",                  // every whitespace byte
        "P6 #c\n2 1 255\n",                 // comment between tokens
        "P6\n# comment\r2 1 255\n",         // comment ended by CR
        "P6 2#c\n1 255\n",                  // comment glued to a token ends it
        "P6 0002 000001 000255\n",          // leading zeros
        "P62 1 255\n",                      // width straight after the magic (libnetpbm)
        "P6 2 1 255#comment then raster\n", // the comment's LF delimits the raster
        "P6 2 1 255#c\r",                   // ... or its CR
    };
    for (const char* h : headers) {
        CAPTURE(h);
        auto img = from_bytes(std::string(h) + raster);
        CHECK(img.width == 2);
        CHECK(img.height == 1);
        CHECK(img.maxval == 255);
        CHECK(as_unsigned(img) == samples);
    }
}

TEST_CASE("exactly one whitespace byte ends a raw header, so after 255 CR LF the LF is a sample",
          "[ppm]") {
    auto img = from_bytes("P6 1 1 255\r\n\x07\x08");
    CHECK(as_unsigned(img) == std::vector<unsigned>{10, 7, 8});
    auto spaces = from_bytes("P6 1 1 255    "); // one delimiter, three samples
    CHECK(as_unsigned(spaces) == std::vector<unsigned>{32, 32, 32});
}

TEST_CASE("plain rasters: comments, whitespace runs, leading zeros, no final newline", "[ppm]") {
    auto img = from_bytes("P3\n2 1\n255\n0 # a comment 9 9 9\n  255\t\t007 #x\r1\n\n\n 0000255 "
                          "2");
    CHECK(as_unsigned(img) == std::vector<unsigned>{0, 255, 7, 1, 255, 2});
    auto glued = from_bytes("P3 1 1 15#c\n1#c\n2#c\n3");
    CHECK(as_unsigned(glued) == std::vector<unsigned>{1, 2, 3});
    CHECK(as_unsigned(from_bytes("P3 1 1 255 1 2 3")) == std::vector<unsigned>{1, 2, 3});
}

TEST_CASE("16-bit samples: big-endian pairs in P6, any value up to maxval in P3", "[ppm]") {
    auto raw = from_bytes<std::uint16_t>(std::string("P6 1 1 65535\n\x01\x02\xff\xff\x00\x00", 19));
    CHECK(as_unsigned(raw) == std::vector<unsigned>{258, 65535, 0});
    auto m256 = from_bytes<std::uint16_t>(std::string("P6 1 1 256\n\x00\x00\x01\x00\x00\xff", 17));
    CHECK(as_unsigned(m256) == std::vector<unsigned>{0, 256, 255});
    auto plain = from_bytes<std::uint16_t>("P3 1 1 65535\n65535 0 258\n");
    CHECK(as_unsigned(plain) == std::vector<unsigned>{65535, 0, 258});
    auto narrow = from_bytes<std::uint16_t>("P6 1 1 100\n\x01\x02\x64");
    CHECK(narrow.maxval == 100);
    CHECK(as_unsigned(narrow) == std::vector<unsigned>{1, 2, 100});
}

TEST_CASE("a token or comment split at any chunk boundary decodes the same", "[ppm][source]") {
    const std::string plain = "P3\n# header comment\n3 2\n#c\n65535\n"
                              "0 1 22 333 4444 55555 # comment 999\n"
                              "65535 00007 8\r\n9\t10 11 12 13 14 15 16 17\n";
    const std::string raw = std::string("P6 #x\n2 1 #y\n65535#z\n") + "\x01\x02\x03\x04\x05\x06" +
                            "\x07\x08\x09\x0a\x0b\x0c";
    for (const std::string& bytes : {plain, raw}) {
        const auto expected = from_bytes<std::uint16_t>(bytes);
        for (std::size_t chunk = 1; chunk <= bytes.size(); ++chunk) {
            CAPTURE(chunk);
            chunked_source c(bytes, chunk);
            REQUIRE(ppm::load<std::uint16_t>(c) == expected);
        }
    }
    CHECK(as_unsigned(from_bytes<std::uint16_t>(plain)) ==
          std::vector<unsigned>{0, 1, 22, 333, 4444, 55555, 65535, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                16, 17});
}

TEST_CASE("reader decodes concatenated raw images and stops at the end", "[ppm]") {
    const auto forge = ppm::load(data_path("forge.ppm"));
    const auto madras = ppm::load(data_path("madras.ppm"));
    const auto pixel = ppm::load(data_path("pixel.ppm"));
    for (std::size_t chunk : {7, 65536}) {
        read_source source(data_path("frames.ppm"), chunk);
        ppm::reader frames(source);
        ppm::image<std::uint8_t> img;
        REQUIRE(frames.next(img));
        CHECK(img == forge);
        REQUIRE(frames.next(img));
        CHECK(img == madras);
        REQUIRE(frames.next(img));
        CHECK(img == pixel);
        CHECK(frames.offset() == std::filesystem::file_size(data_path("frames.ppm")));
        CHECK_FALSE(frames.next(img));
        CHECK_FALSE(frames.next(img));
    }

    // Whitespace between and after images is skipped (libnetpbm's pm_nextimage).
    const std::string two = "P6 1 1 255\nabc\n\n P6 1 1 255\ndef \t\n";
    memory_source m(std::span<const char>(two.data(), two.size()));
    ppm::reader<std::uint16_t, memory_source> r(m);
    ppm::image<std::uint16_t> img;
    REQUIRE(r.next(img));
    CHECK(as_unsigned(img) == std::vector<unsigned>{'a', 'b', 'c'});
    REQUIRE(r.next(img));
    CHECK(as_unsigned(img) == std::vector<unsigned>{'d', 'e', 'f'});
    CHECK_FALSE(r.next(img));
}

TEST_CASE("save writes P6 and P3 that load back and that Netpbm reads", "[ppm]") {
    temp_dir dir;
    const std::string tool = FASTREAD_PNMTOPLAINPNM;
    for (const char* name : {"forge.ppm", "forge16.ppm", "madras15.ppm", "pixel.ppm"}) {
        CAPTURE(name);
        const auto img = ppm::load<std::uint16_t>(data_path(name));
        for (ppm::format fmt : {ppm::format::raw, ppm::format::plain}) {
            const auto out = dir / "out.ppm";
            ppm::save(out, img, fmt);
            CHECK(ppm::load<std::uint16_t>(out) == img);
            const std::string text = read_file(out);
            CHECK(text.substr(0, 2) == (fmt == ppm::format::raw ? "P6" : "P3"));
            if (fmt == ppm::format::plain) {
                std::istringstream lines(text);
                std::size_t longest = 0, count = 0;
                for (std::string line; std::getline(lines, line); ++count) {
                    longest = std::max(longest, line.size());
                    CHECK((line.empty() || line.back() != ' '));
                }
                CHECK(longest <= 70);
                CHECK(count >= 3 + img.height); // each row starts a line
            } else {
                // The raw size follows from the header: 1 or 2 bytes per sample.
                const std::size_t bps = img.maxval > 255 ? 2 : 1;
                const std::string header = "P6\n" + std::to_string(img.width) + " " +
                                           std::to_string(img.height) + "\n" +
                                           std::to_string(img.maxval) + "\n";
                CHECK(text.size() == header.size() + img.samples.size() * bps);
                CHECK(text.substr(0, header.size()) == header);
            }
            if (!tool.empty()) {
                auto ref = fastread_test::reference_decode_plain(
                    fastread_test::run_command(tool + " '" + out.string() + "'"));
                CHECK(ref.samples == as_unsigned(img));
                CHECK(ref.maxval == img.maxval);
            }
        }
    }
    // 8-bit images save identically to the file Netpbm made.
    const auto forge = ppm::load(data_path("forge.ppm"));
    ppm::save(dir / "forge.ppm", forge);
    CHECK(read_file(dir / "forge.ppm") == read_file(data_path("forge.ppm")));
    // Nothing but the targets is left in the directory: no temporary files.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) {
        ++entries;
    }
    CHECK(entries == 2);
}

TEST_CASE("save rejects an inconsistent image and leaves the target untouched", "[ppm][error]") {
    temp_dir dir;
    const auto out = dir / "keep.ppm";
    write_file(out, "old contents");

    ppm::image<std::uint8_t> img;
    img.width = 2;
    img.height = 1;
    img.maxval = 255;
    img.samples.assign(5, 0); // one short
    CHECK_THROWS_AS(ppm::save(out, img), std::invalid_argument);
    img.samples.assign(6, 0);
    img.maxval = 300; // above what 8-bit samples can carry
    CHECK_THROWS_AS(ppm::save(out, img), std::invalid_argument);
    img.maxval = 0;
    CHECK_THROWS_AS(ppm::save(out, img), std::invalid_argument);
    img.maxval = 100;
    img.samples[4] = 101;
    CHECK_THROWS_WITH(ppm::save(out, img), Catch::Contains("above maxval 100"));
    // The try_ form: the same message, errc::invalid_argument, nothing written.
    const fastread::result<void> above = ppm::try_save(out, img);
    REQUIRE_FALSE(above);
    CHECK(above.error().code() == fastread::errc::invalid_argument);
    CHECK(above.error().message() == "fastread::ppm::save: sample 4 is 101, above maxval 100");
    img.width = 0;
    CHECK_THROWS_AS(ppm::save(out, img), std::invalid_argument);
    CHECK_FALSE(ppm::try_save(out, img));
    CHECK(read_file(out) == "old contents");

    img.width = 2;
    img.samples[4] = 100;
    CHECK_THROWS_AS(ppm::save(dir / "no-such-dir" / "x.ppm", img), std::system_error);
    const fastread::result<void> no_dir = ppm::try_save(dir / "no-such-dir" / "x.ppm", img);
    REQUIRE_FALSE(no_dir);
    CHECK(no_dir.error().code() == std::errc::no_such_file_or_directory);
    CHECK_THAT(no_dir.error().message(), Catch::Contains("no-such-dir"));
    CHECK(ppm::try_save(out, img, ppm::format::raw));
    ppm::save(out, img, ppm::format::plain);
    CHECK(read_file(out) == "P3\n2 1\n100\n0 0 0 0 100 0\n");
}

TEST_CASE("plain output wraps long rows at 70 characters", "[ppm]") {
    ppm::image<std::uint16_t> img;
    img.width = 20;
    img.height = 2;
    img.maxval = 65535;
    img.samples.assign(120, 65535);
    temp_dir dir;
    ppm::save(dir / "w.ppm", img, ppm::format::plain);
    const std::string text = read_file(dir / "w.ppm");
    // "65535" is 5 characters; 11 per line with spaces = 65 characters, 12 would be 71.
    std::string line11;
    for (int i = 0; i < 11; ++i) {
        line11 += (i ? " " : "") + std::string("65535");
    }
    std::string row = line11 + "\n" + line11 + "\n" + line11 + "\n" + line11 + "\n" + line11 +
                      "\n65535 65535 65535 65535 65535\n";
    CHECK(text == "P3\n20 2\n65535\n" + row + row);
}

namespace {

// A photo-like 8-bit image, saved as `fmt`; returns the image.
ppm::image<std::uint8_t> save_test_image(const std::filesystem::path& path, std::uint32_t side,
                                         ppm::format fmt) {
    ppm::image<std::uint8_t> img;
    img.width = img.height = side;
    img.maxval = 255;
    img.samples.resize(std::size_t{side} * side * 3);
    for (std::size_t i = 0; i < img.samples.size(); ++i) {
        img.samples[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
    }
    ppm::save(path, img, fmt);
    return img;
}

void cut_file(const std::filesystem::path& path, std::uint64_t size) {
    REQUIRE_NOTHROW(std::filesystem::resize_file(path, size));
}

} // namespace

// POSIX only: truncate(2) racing the load. Windows refuses to shrink a file while it is
// mapped (ERROR_USER_MAPPED_FILE), so there a map never sees its file shrink.
#if !defined(_WIN32)
TEST_CASE("load(path): a file that shrinks while it is read gives a parse_error where it ends",
          "[ppm][error]") {
    temp_dir dir;
    const auto path = dir / "shrinks.ppm";
    // P3 of 1024x1024 is about 11 MB: parsed in slices on threads when mapped. P6 of
    // 2048x2048 (12 MB), so that a load takes long enough for the cutter to land inside it.
    for (ppm::format fmt : {ppm::format::raw, ppm::format::plain}) {
        CAPTURE(fmt == ppm::format::raw ? "P6" : "P3");
        const int side = fmt == ppm::format::raw ? 2048 : 1024;
        const auto img = save_test_image(path, side, fmt);
        const std::uint64_t size = std::filesystem::file_size(path);
        const std::uint64_t cut = size / 2 + 11;

        // The map made, then the file cut, then the parse: the pages past the new end
        // read as zeros (the guard), and the error says where the data ended.
        {
            detail::input_file file = detail::value_or_throw(detail::input_file::open(path));
            const detail::file_map map = file.map();
            REQUIRE(map);
            cut_file(path, cut);
            try {
                detail::value_or_throw(detail::load_mapped_pnm<std::uint8_t>(file, map, false));
                FAIL("a shrunk file decoded");
            } catch (const parse_error& e) {
                CHECK(e.offset() == cut);
                CHECK_THAT(e.what(), Catch::Contains(path.string()) &&
                                         Catch::Contains("shrank from " + std::to_string(size) +
                                                         " to " + std::to_string(cut)));
            }
        }
        // Opened for reading, then cut: the input ends there.
        save_test_image(path, side, fmt);
        {
            read_source source(path);
            cut_file(path, cut);
            try {
                ppm::load(source);
                FAIL("a shrunk file decoded");
            } catch (const parse_error& e) {
                CHECK(e.offset() == cut);
            }
        }
        // The public entry point, with another thread cutting the file as the call starts:
        // either the whole image (the cut came after) or an error at the cut, never a signal.
        for (io_mode io : {io_mode::read, io_mode::map}) {
            CAPTURE(to_string(io));
            int cut_seen = 0;
            // Rounds until the cut landed inside a call (at least 8, at most 40): how long a
            // truncate takes on ext4 (journal, writeback) is not the test's to choose.
            for (int round = 0; round < 40 && (round < 8 || cut_seen == 0); ++round) {
                save_test_image(path, side, fmt);
                fastread_test::sync_file(path);
                page_cache::preload(path);
                // The cutter runs before the call starts, and cuts at once in round 0, then
                // later in each round.
                std::atomic<bool> ready{false}, go{false};
                std::thread cutter([&, round] {
                    ready = true;
                    while (!go.load()) {
                    }
                    if (round % 8 > 0) {
                        std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 8)));
                    }
                    std::error_code ec; // no Catch2 here
                    std::filesystem::resize_file(path, cut, ec);
                });
                while (!ready.load()) {
                }
                go = true;
                try {
                    const auto got = ppm::load(path, {.io = io}); // outside CHECK, which catches
                    CHECK(got == img);
                } catch (const parse_error& e) {
                    CHECK(e.offset() == cut);
                    ++cut_seen;
                }
                cutter.join();
            }
            // The race was really run where the load takes many steps (P3 parses the
            // file chunk by chunk; a map copies page by page). P6 read in one pread(2) of
            // the raster may see every cut land after it (a truncate does not split a
            // read in progress), and then the whole image is right.
            if (fmt == ppm::format::plain || io == io_mode::map) {
                CHECK(cut_seen > 0);
            }
        }
    }
}

#endif

namespace {

// A plain image of `width` x `height` whose raster has runs of spaces, line ends of both
// kinds and comments between samples, so that cuts fall near all of them; `maxval` 255 or
// 1000 (two-byte samples).
std::string irregular_plain(std::uint32_t width, std::uint32_t height, unsigned maxval) {
    std::string out = "P3\n# made by the test\n" + std::to_string(width) + " " +
                      std::to_string(height) + "\n" + std::to_string(maxval) + "\n";
    const std::size_t n = std::size_t{width} * height * 3;
    for (std::size_t i = 0; i < n; ++i) {
        out += std::to_string((i * 2654435761u >> 9) % (maxval + 1));
        switch (i % 97) {
        case 0:
            out += " # a comment 1 2 3\n";
            break;
        case 1:
            out += "\r\n";
            break;
        case 2:
            out += "     ";
            break;
        default:
            out += i % 16 == 15 ? '\n' : ' ';
        }
    }
    return out;
}

// What the streaming path (one thread, no cut) makes of `bytes`: the image, or the error.
template <class Sample>
std::string streamed_outcome(const std::string& bytes) {
    try {
        const auto img = from_bytes<Sample>(bytes);
        return "image of " + std::to_string(img.samples.size()) + " samples";
    } catch (const parse_error& e) {
        return "error at " + std::to_string(e.offset()) + ": " + e.reason();
    }
}

// The first byte at or after `from` that starts a sample: a digit after a space, on a
// line with no comment before it.
std::size_t sample_start(const std::string& bytes, std::size_t from) {
    for (std::size_t i = from; i < bytes.size(); ++i) {
        const std::size_t line = bytes.find_last_of("\r\n", i) + 1;
        if (bytes[i] >= '0' && bytes[i] <= '9' && bytes[i - 1] == ' ' &&
            bytes.find('#', line) > i) {
            return i;
        }
    }
    return std::string::npos;
}

// What load_plain_in_file_slices makes of the file at `path` on `threads` threads.
template <class Sample>
std::string sliced_outcome(const std::filesystem::path& path, unsigned threads,
                           ppm::image<Sample>* img = nullptr) {
    detail::input_file file = detail::value_or_throw(detail::input_file::open(path));
    try {
        auto sliced = detail::load_plain_in_file_slices<Sample>(file, threads, false);
        if (!sliced) {
            return "nothing";
        }
        const ppm::image<Sample> got =
            detail::as_image<ppm::image<Sample>>(detail::value_or_throw(std::move(*sliced)));
        if (img != nullptr) {
            *img = got;
        }
        return "image of " + std::to_string(got.samples.size()) + " samples";
    } catch (const parse_error& e) {
        CHECK(e.file() == path.string());
        return "error at " + std::to_string(e.offset()) + ": " + e.reason();
    }
}

} // namespace

TEST_CASE("load(path) of a cached plain file: slices read and parsed on threads decode as one "
          "stream does",
          "[ppm][source]") {
    temp_dir dir;
    const auto path = dir / "plain.ppm";
    for (unsigned maxval : {255u, 1000u}) {
        CAPTURE(maxval);
        const std::string bytes = irregular_plain(640, 480, maxval);
        write_file(path, bytes);
        const auto expected = from_bytes<std::uint16_t>(bytes);
        for (unsigned threads : {2u, 3u, 7u}) {
            CAPTURE(threads);
            ppm::image<std::uint16_t> img;
            CHECK(sliced_outcome<std::uint16_t>(path, threads, &img) ==
                  "image of " + std::to_string(expected.samples.size()) + " samples");
            CHECK(img == expected);
        }
        // The public entry point takes this path on a machine of two CPUs or more.
        page_cache::preload(path);
        CHECK(ppm::load<std::uint16_t>(path) == expected);
        CHECK(ppm::load<std::uint16_t>(path, {.io = io_mode::read}) == expected);
    }
}

TEST_CASE("load(path) of a cached plain file in slices: errors at the offset one stream gives",
          "[ppm][error]") {
    temp_dir dir;
    const auto path = dir / "bad.ppm";
    const std::string good = irregular_plain(512, 400, 255);
    const std::size_t raster = good.find("255\n") + 4;
    std::vector<std::pair<std::string, std::string>> cases;
    // A sample above maxval late in the raster (in the last slice), and one early (first).
    for (std::size_t where : {good.size() - 40, raster + 100}) {
        std::string bad = good;
        bad.insert(sample_start(bad, where), "9");
        cases.emplace_back("a sample above maxval at " + std::to_string(where), bad);
    }
    // A byte that is not a digit, whitespace or comment, in the middle.
    {
        std::string bad = good;
        bad[sample_start(bad, good.size() / 2) - 1] = 'x';
        cases.emplace_back("a stray byte", bad);
    }
    // Too few samples: the raster ends early (still long enough to be parsed in slices).
    cases.emplace_back("a raster cut short", good.substr(0, good.size() - 1000));
    // Samples left over after the last one are not read.
    cases.emplace_back("bytes after the last sample", good + " 1 2 3 junk");
    for (const auto& [what, bytes] : cases) {
        CAPTURE(what);
        write_file(path, bytes);
        for (unsigned threads : {2u, 3u}) {
            CAPTURE(threads);
            CHECK(sliced_outcome<std::uint8_t>(path, threads) ==
                  streamed_outcome<std::uint8_t>(bytes));
        }
    }
}

TEST_CASE("load(path) of a cached plain file in slices: what it leaves to the stream",
          "[ppm][source]") {
    temp_dir dir;
    const auto path = dir / "odd.ppm";
    // A header longer than the 64 KiB the slices read it from (a long comment).
    const std::string body = irregular_plain(300, 200, 255);
    const std::string long_header = "P3\n#" + std::string(70000, 'c') + "\n" + body.substr(3);
    write_file(path, long_header);
    CHECK(sliced_outcome<std::uint8_t>(path, 2) == "nothing");
    CHECK(ppm::load(path) == from_bytes(long_header));
    // A raster too short for the samples declared: no image is allocated for it.
    const std::string huge = "P3 100000 100000 255\n" + body.substr(body.find("255\n") + 4);
    write_file(path, huge);
    CHECK(sliced_outcome<std::uint8_t>(path, 2) == "nothing");
    CHECK(streamed_outcome<std::uint8_t>(huge).starts_with("error at "));
    // No cut: a comment longer than the 4 KiB a cut looks back and ahead, across the middle.
    const std::size_t mid = body.size() / 2;
    const std::string no_cut =
        body.substr(0, mid) + "\n#" + std::string(20000, 'c') + "\n" + body.substr(mid);
    write_file(path, no_cut);
    CHECK(sliced_outcome<std::uint8_t>(path, 2) == "nothing");
    CHECK(ppm::load(path) == from_bytes(no_cut));
    // P6: not the slices' job.
    save_test_image(path, 64, ppm::format::raw);
    CHECK(sliced_outcome<std::uint8_t>(path, 2) == "nothing");
}

TEST_CASE("load(path) of a cached plain file in slices: a file cut short gives a parse_error "
          "where it ends",
          "[ppm][error]") {
    temp_dir dir;
    const auto path = dir / "shrinks.ppm";
    save_test_image(path, 600, ppm::format::plain);
    const std::uint64_t size = std::filesystem::file_size(path);
    // Three slices, cut near 1/3 and 2/3 of the file. Cut in the last slice, after the
    // slices' starts were found: the raster ends where the data ends. Cut before a slice's
    // start: no start is found there, nothing is decoded (ppm::load then streams the file,
    // and finds it short at the same byte). Cut after the last sample (the final line end):
    // the image is whole. The cut landing while the slices read is the race test's (above).
    for (std::uint64_t cut : {size / 4, size / 2 + 11, size * 5 / 6, size - 1}) {
        CAPTURE(cut);
        const auto img = save_test_image(path, 600, ppm::format::plain);
        detail::input_file file = detail::value_or_throw(detail::input_file::open(path));
        cut_file(path, cut);
        const bool in_last_slice = cut > size * 2 / 3 + 5000;
        try {
            auto got = detail::load_plain_in_file_slices<std::uint8_t>(file, 3, false);
            if (cut == size - 1) {
                REQUIRE(got.has_value());
                CHECK(detail::as_image<ppm::image<std::uint8_t>>(
                          detail::value_or_throw(std::move(*got))) == img);
                continue;
            }
            if (got && !*got) {
                detail::value_or_throw(std::move(*got)); // the error, as load reports it
            }
            CHECK_FALSE(in_last_slice);
            CHECK_FALSE(got.has_value());
            ppm::load(path);
            FAIL("a short file decoded");
        } catch (const parse_error& e) {
            CHECK(e.offset() == cut);
            CHECK(e.file() == path.string());
            CHECK_THAT(e.reason(), Catch::StartsWith("truncated raster"));
        }
    }
}

#if !defined(_WIN32) // without_threads forks
TEST_CASE("load: a big plain image is decoded where no thread can be created", "[ppm]") {
    // 11 MB: parsed in slices on threads, in memory (a map) and by path (slices read with
    // pread); without threads every slice runs on the calling thread.
    temp_dir dir;
    const auto path = dir / "big.ppm";
    const auto img = save_test_image(path, 1024, ppm::format::plain);
    const mmap_source mapped(path);
    detail::input_file file = detail::value_or_throw(detail::input_file::open(path));
    const int status = fastread_test::without_threads([&] {
        memory_source memory(mapped.bytes());
        if (ppm::load(memory) != img) {
            return 1;
        }
        auto by_path = detail::load_plain_in_file_slices<std::uint8_t>(file, 2, false);
        return by_path && detail::as_image<ppm::image<std::uint8_t>>(
                              detail::value_or_throw(std::move(*by_path))) == img
                   ? 0
                   : 2;
    });
    CHECK(status == 0);
}
#endif
