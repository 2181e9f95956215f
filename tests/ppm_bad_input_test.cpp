#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

struct bad_case {
    const char* name;
    std::string bytes;
    std::uint64_t offset; // where the error must be reported
    const char* reason;   // a phrase the message must contain
};

std::string p6_header(const std::string& dims) {
    return "P6 " + dims + "\n";
}

// Decodes `bytes` through every kind of source and checks each one reports the same
// parse_error: same offset, same reason; from a file, the message names the file. Each time,
// ppm::try_load on the same input returns the same error as a value: code, offset, path and
// message.
template <class Sample = std::uint8_t>
void check_rejected(const bad_case& c, const load_options& options = {}) {
    CAPTURE(c.name);
    bool trying = false; // decode() calls try_load
    auto load = [&](auto& input) -> fastread::error {
        if (!trying) {
            ppm::load<Sample>(input, options);
            return {};
        }
        auto r = ppm::try_load<Sample>(input, options);
        CHECK_FALSE(r);
        return r ? fastread::error() : r.error();
    };
    auto expect = [&](auto&& decode, const std::string& file) {
        trying = true;
        const fastread::error value = decode();
        trying = false;
        CHECK(value.code().category() == fastread::error_category());
        CHECK(value.offset() == c.offset);
        CHECK(value.path() == file);
        try {
            decode();
            FAIL_CHECK("accepted: " << c.name);
        } catch (const parse_error& e) {
            CHECK(value.code() == e.code());
            CHECK(value.message() == e.what());
            CHECK(e.offset() == c.offset);
            CHECK_THAT(e.reason(), Catch::Contains(c.reason));
            CHECK(e.file() == file);
            std::string prefix =
                (file.empty() ? "" : file + ": ") + "byte " + std::to_string(c.offset) + ": ";
            CHECK_THAT(e.what(), Catch::StartsWith(prefix));
        }
    };
    temp_dir dir;
    const auto path = dir / "bad.ppm";
    write_file(path, c.bytes);
    expect(
        [&] {
            memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
            return load(m);
        },
        "");
    expect([&] { return load(path); }, path.string());
    for (std::size_t chunk : {1, 2, 3, 7, 64}) {
        CAPTURE(chunk);
        expect(
            [&] {
                read_source r(path, chunk);
                return load(r);
            },
            path.string());
        expect(
            [&] {
                chunked_source s(c.bytes, chunk);
                return load(s);
            },
            "");
    }
    expect(
        [&] {
            fastread_test::pipe_feeder pipe(c.bytes);
            read_source r(pipe.read_fd(), 5);
            return load(r);
        },
        "");
}

} // namespace

TEST_CASE("malformed magic numbers are rejected at the right byte", "[ppm][error]") {
    const bad_case cases[] = {
        {"empty file", "", 0, "empty input"},
        {"P alone", "P", 1, "input ends inside the header; expected the magic number"},
        {"P7", "P7\nWIDTH 1\n", 1, "P7 (PAM) is not supported"},
        {"P5", "P5 1 1 255\n\x01", 1, "P5 (PGM raw) is not supported"},
        {"lower-case p6", "p6 1 1 255\n...", 0, "found byte 0x70 'p'"},
        {"P0", "P0", 1, "expected the PPM magic number P3 or P6, found byte 0x30 '0'"},
        {"UTF-8 BOM", "\xef\xbb\xbfP6 1 1 255\n...", 0, "found byte 0xef"},
    };
    for (const bad_case& c : cases) {
        check_rejected(c);
    }
}

TEST_CASE("malformed header numbers are rejected at the right byte", "[ppm][error]") {
    const bad_case cases[] = {
        {"width 0", "P6 0 2 255\n", 3, "width is 0"},
        {"height 0", "P6 2 0 255\n", 5, "height is 0"},
        {"negative width", "P6 -1 2 255\n", 3, "expected width (an unsigned decimal number)"},
        {"plus sign", "P6 +1 2 255\n", 3, "found byte 0x2b '+'"},
        {"20-digit width", "P6 12345678901234567890 1 255\n", 3, "width is larger than"},
        {"height above 32 bits", "P3 1 4294967296 255\n", 5, "height is larger than"},
        {"maxval 0", "P6 2 2 0\n", 7, "maxval 0 is out of range 1..65535"},
        {"maxval 65536", "P6 2 2 65536\n", 7, "maxval 65536 is out of range"},
        {"maxval 70000", "P3 2 2 70000\n", 7, "maxval 70000 is out of range"},
        {"maxval of 40 digits", "P6 1 1 1000000000000000000000000000000000000000\n", 7,
         "out of range 1..65535"},
        {"letters glued to width", "P6 12abc 1 255\n", 5, "expected whitespace after width"},
        {"hex", "P6 0x10 1 255\n", 4, "found byte 0x78 'x'"},
        {"no whitespace after maxval", "P6 1 1 255X", 10,
         "expected whitespace after maxval, found byte 0x58 'X'"},
        {"header ends before height", "P6 2 ", 5, "expected height"},
        {"header ends after maxval", "P6 2 2 255", 10, "expected one whitespace byte"},
        {"comment runs to the end", "P6 2 # a comment", 16, "expected height"},
        {"comment after maxval runs to the end", "P6 1 1 255#x", 12,
         "expected one whitespace byte"},
    };
    for (const bad_case& c : cases) {
        check_rejected(c);
    }
}

TEST_CASE("the allocation watch sees allocations (positive control)", "[ppm][error]") {
    fastread_test::allocation_watch watch;
    std::vector<char> big(1 << 20);
    fastread_test::escape(big.data());
    CHECK(watch.largest() >= big.size());
}

TEST_CASE("sizes that overflow are rejected without allocating the image", "[ppm][error]") {
    const std::string tiny = "\x01\x02\x03\x04";
    const std::string h1 = p6_header("65536 65536 255"); // W*H = 2^32
    const std::string h2 = p6_header("37838 37838 255"); // W*H*3 = 200036 mod 2^32
    const std::string h3 = "P3 100000 100000 255\n";
    const std::string h4 = p6_header("65536 65536 65535"); // 16-bit: 2^32 * 6 bytes
    const bad_case cases[] = {
        {"65536 squared", h1 + tiny, h1.size() + 4, "truncated raster"},
        {"37838 squared", h2 + tiny, h2.size() + 4, "the input ends after 4 of them"},
        {"plain 100000 squared", h3 + "1 ", h3.size() + 2, "ends after 1 of them"},
        {"4294967295 squared", "P6 4294967295 4294967295 255\n" + tiny, 14, "overflows 64 bits"},
    };
    const load_options unlimited{.max_bytes = UINT64_MAX}; // the input's size alone
    for (const bad_case& c : cases) {
        check_rejected(c, unlimited);
        // However the input arrives, no allocation comes near the declared size.
        fastread_test::allocation_watch watch;
        try {
            memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
            ppm::load(m);
        } catch (const parse_error&) {
        }
        temp_dir dir;
        write_file(dir / "f.ppm", c.bytes);
        try {
            read_source r(dir / "f.ppm", 3);
            ppm::load(r);
        } catch (const parse_error&) {
        }
        try {
            fastread_test::pipe_feeder pipe(c.bytes);
            read_source r(pipe.read_fd(), 3);
            ppm::load(r);
        } catch (const parse_error&) {
        }
        CHECK(watch.largest() < 256 * 1024);
    }
    check_rejected<std::uint16_t>({"16-bit 65536 squared", h4 + tiny, h4.size() + 4,
                                   "(25769803776 bytes), the input ends after 4 of them"},
                                  unlimited);
}

TEST_CASE("truncated rasters are rejected at the end of the input", "[ppm][error]") {
    const std::string h = p6_header("2 2 255"); // 12 raster bytes
    const std::string h16 = p6_header("1 1 65535");
    const bad_case cases[] = {
        {"P6, no raster", h, h.size(), "ends after 0 of them"},
        {"P6, one byte short", h + std::string(11, 'x'), h.size() + 11,
         "(12 bytes), the input ends after 11 of them"},
        {"P3, one sample short", "P3 2 1 255\n1 2 3 4 5\n", 21, "ends after 5 of them"},
        {"P3, no raster", "P3 1 1 255\n", 11, "ends after 0 of them"},
        {"P3, raster missing after maxval", "P3 1 1 255", 10, "ends after 0 of them"},
        {"P3, comment to the end", "P3 1 1 255 1 2 #3\n", 18, "ends after 2 of them"},
    };
    for (const bad_case& c : cases) {
        check_rejected(c);
    }
    check_rejected<std::uint16_t>({"P6 16-bit, half a sample",
                                   h16 + std::string("\x01\x02\x03\x04\x05", 5), h16.size() + 5,
                                   "(6 bytes), the input ends after 5"});
}

TEST_CASE("samples above maxval and stray bytes are rejected where they are", "[ppm][error]") {
    const std::string h100 = p6_header("2 1 100");
    const bad_case cases[] = {
        {"P3 300 at maxval 255", "P3 2 1 255\n1 300 3\n", 13,
         "sample 300 exceeds maxval 255 (row 0, column 0, green)"},
        {"P3 256 at maxval 255", "P3 1 2 255\n0 0 0\n0 0 256\n", 21,
         "sample 256 exceeds maxval 255 (row 1, column 0, blue)"},
        {"P3 huge sample", "P3 1 1 255 99999999999999999999 1 1", 11,
         "sample of 7 or more digits exceeds maxval 255"},
        {"P6 200 at maxval 100", h100 + "\x01\x02\x03\x04\xc8\x06", h100.size() + 4,
         "sample 200 exceeds maxval 100 (row 0, column 1, green)"},
        {"P3 sign", "P3 1 1 255\n1 -2 3\n", 13, "found byte 0x2d '-'"},
        {"P3 letter glued to a sample", "P3 1 1 255\n1 2x 3\n", 14, "found byte 0x78 'x'"},
        {"P3 NUL byte", std::string("P3 1 1 255\n1\0 2 3", 17), 12, "found byte 0x00"},
    };
    for (const bad_case& c : cases) {
        check_rejected(c);
    }
    check_rejected<std::uint16_t>({"P6 16-bit sample above maxval 1000",
                                   std::string("P6 1 1 1000\n\x00\x01\x03\xe9\x00\x00", 18), 14,
                                   "sample 1001 exceeds maxval 1000"});
    check_rejected<std::uint16_t>({"P3 65536 at maxval 65535", "P3 1 1 65535 65536 1 1", 13,
                                   "sample 65536 exceeds maxval 65535"});
    check_rejected<std::uint16_t>({"P3 16-bit sample above maxval", "P3 1 1 1000\n1 1001 1\n", 14,
                                   "sample 1001 exceeds maxval 1000"});
}

TEST_CASE("a 16-bit image loaded as std::uint8_t says to use std::uint16_t", "[ppm][error]") {
    check_rejected({"16-bit raw", std::string("P6 1 1 65535\n\0\0\0\0\0\0", 19), 7,
                    "maxval 65535 needs 16-bit samples; load this image as std::uint16_t"});
    check_rejected({"16-bit plain", "P3 1 1 256\n0 0 0\n", 7, "load this image as std::uint16_t"});
}

TEST_CASE("reader rejects garbage after an image at the garbage's offset", "[ppm][error]") {
    const std::string bytes = "P6 1 1 255\nabc \n GARBAGE";
    for (std::size_t chunk : {1, 4, 100}) {
        chunked_source s(bytes, chunk);
        ppm::reader frames(s);
        ppm::image<std::uint8_t> img;
        REQUIRE(frames.next(img));
        try {
            frames.next(img);
            FAIL("accepted garbage");
        } catch (const parse_error& e) {
            CHECK(e.offset() == 17);
            CHECK_THAT(e.what(), Catch::Contains("found byte 0x47 'G'"));
        }
        CHECK(img.samples.empty()); // never half an image
        CHECK(img.width == 0);
        // try_next: the same error as a value, the image left empty too.
        chunked_source again(bytes, chunk);
        ppm::reader tried(again);
        ppm::image<std::uint8_t> other;
        const fastread::result<bool> first = tried.try_next(other);
        REQUIRE(first);
        CHECK(*first);
        const fastread::result<bool> junk = tried.try_next(other);
        REQUIRE_FALSE(junk);
        CHECK(junk.error().code() == fastread::errc::bad_magic);
        CHECK(junk.error().offset() == 17);
        CHECK_THAT(junk.error().message(), Catch::Contains("found byte 0x47 'G'"));
        CHECK(other.samples.empty());
    }
    // A broken second header is reported where it breaks.
    const std::string second = "P6 1 1 255\nabcP6 1 0 255\n";
    memory_source m(std::span<const char>(second.data(), second.size()));
    ppm::reader frames(m);
    ppm::image<std::uint8_t> img;
    REQUIRE(frames.next(img));
    CHECK_THROWS_MATCHES(frames.next(img), parse_error,
                         Catch::Matchers::Predicate<parse_error>(
                             [](const parse_error& e) { return e.offset() == 19; }));
    // An input without any image is an error, not an empty sequence.
    memory_source empty;
    ppm::reader none(empty);
    CHECK_THROWS_AS(none.next(img), parse_error);
    memory_source empty_again;
    ppm::reader none_again(empty_again);
    const fastread::result<bool> nothing = none_again.try_next(img);
    REQUIRE_FALSE(nothing);
    CHECK(nothing.error().code() == fastread::errc::empty_input);
    CHECK(nothing.error().offset() == 0);
}
