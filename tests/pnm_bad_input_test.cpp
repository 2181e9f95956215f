#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
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

// Decodes `bytes` with `decode` (taking a byte source or a path) through every kind of
// source and checks each one reports the same parse_error: same offset, same reason; from a
// file, the message names the file. Each time, `try_decode` (the try_ form) on the same
// input returns the same error as a value: code, offset, path and message.
template <class Decode, class TryDecode>
void check_rejected(const bad_case& c, Decode decode, TryDecode try_decode) {
    CAPTURE(c.name);
    bool trying = false; // run() calls the try_ form
    auto expect = [&](auto&& run, const std::string& file) {
        trying = true;
        const fastread::error value = run();
        trying = false;
        CHECK(value.code().category() == fastread::error_category());
        CHECK(value.offset() == c.offset);
        CHECK(value.path() == file);
        try {
            run();
            FAIL_CHECK("accepted: " << c.name);
        } catch (const parse_error& e) {
            CHECK(e.offset() == c.offset);
            CHECK_THAT(e.reason(), Catch::Contains(c.reason));
            CHECK(e.file() == file);
            CHECK(value.code() == e.code());
            CHECK(value.message() == e.what());
        }
    };
    // The throwing form, or the try_ form's error (an empty one when it gave a value).
    auto decode_either = [&](auto& input) -> fastread::error {
        if (!trying) {
            decode(input);
            return {};
        }
        auto r = try_decode(input);
        CHECK_FALSE(r);
        return r ? fastread::error() : r.error();
    };
    temp_dir dir;
    const auto path = dir / "bad.pnm";
    write_file(path, c.bytes);
    expect(
        [&] {
            memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
            return decode_either(m);
        },
        "");
    expect([&] { return decode_either(path); }, path.string());
    for (std::size_t chunk : {1, 2, 3, 7, 64}) {
        CAPTURE(chunk);
        expect(
            [&] {
                read_source r(path, chunk);
                return decode_either(r);
            },
            path.string());
        expect(
            [&] {
                chunked_source s(c.bytes, chunk);
                return decode_either(s);
            },
            "");
    }
    expect(
        [&] {
            fastread_test::pipe_feeder pipe(c.bytes);
            read_source r(pipe.read_fd(), 5);
            return decode_either(r);
        },
        "");
}

// The rows of the first image of `input` (a path or a byte source) through a row_reader:
// the header's error, or the first row's, else 0.
template <class Input>
result<int> try_read_rows(Input& input, const load_options& options) {
    auto rows_of = [&](auto& source) -> result<int> {
        pnm::row_reader<std::uint16_t> rows(source, options);
        result<std::optional<pnm::header>> h = rows.try_next_image();
        if (!h) {
            return h.error();
        }
        for (;;) {
            result<std::span<const std::uint16_t>> row = rows.try_next_row();
            if (!row) {
                return row.error();
            }
            if (row->empty()) {
                return 0;
            }
        }
    };
    if constexpr (std::is_same_v<std::remove_cvref_t<Input>, std::filesystem::path>) {
        read_source source(input);
        return rows_of(source);
    } else {
        return rows_of(input);
    }
}

template <class Input>
void read_rows(Input& input, const load_options& options) {
    auto rows_of = [&](auto& source) {
        pnm::row_reader<std::uint16_t> rows(source, options);
        rows.next_image();
        for (std::span<const std::uint16_t> row : rows) {
            CHECK(!row.empty());
        }
    };
    if constexpr (std::is_same_v<std::remove_cvref_t<Input>, std::filesystem::path>) {
        read_source source(input);
        rows_of(source);
    } else {
        rows_of(input);
    }
}

// load, load_into (into a buffer with room and padding) and row_reader, with `options`:
// the same errors.
// A header valid but declaring more than a small buffer holds is load_into's
// std::invalid_argument: `into` false leaves load_into out.
void check_pnm_rejected(const bad_case& c, const load_options& options = {}, bool into = true) {
    check_rejected(
        c, [&](auto&& input) { pnm::load<std::uint16_t>(input, options); },
        [&](auto&& input) { return pnm::try_load<std::uint16_t>(input, options); });
    std::vector<std::uint16_t> room(1 << 12);
    if (into) {
        check_rejected(
            c, [&](auto&& input) { pnm::load_into(input, std::span(room), 64, options); },
            [&](auto&& input) { return pnm::try_load_into(input, std::span(room), 64, options); });
    }
    check_rejected(
        c, [&](auto&& input) { read_rows(input, options); },
        [&](auto&& input) { return try_read_rows(input, options); });
}

} // namespace

TEST_CASE("pnm: bad magic numbers, and PFM named as such", "[pnm][error]") {
    const bad_case cases[] = {
        {"empty", "", 0, "empty input; expected a Netpbm image (magic number P1 to P7)"},
        {"P8", "P8 1 1 1\n", 1, "expected a Netpbm magic number P1 to P7, found byte 0x38 '8'"},
        {"P alone", "P", 1, "expected a Netpbm magic number (P1 to P7)"},
        {"PFM color", "PF\n1 1\n-1\n\0\0\0\0", 0, "PF starts a PFM image (color"},
        {"PFM gray", "Pf\n1 1\n-1\n\0\0\0\0", 0, "fastread::pfm::load"},
    };
    for (const bad_case& c : cases) {
        check_pnm_rejected(c);
    }
    // ppm::load names PFM too, and points from P5 to pnm::load.
    check_rejected(
        {"PFM to ppm", "Pf\n1 1\n1\n", 0, "Pf starts a PFM image (grayscale"},
        [](auto&& input) { ppm::load(input); }, [](auto&& input) { return ppm::try_load(input); });
    check_rejected(
        {"P5 to ppm", "P5 1 1 255\n\x01", 1, "fastread::pnm::load reads P1 to P7"},
        [](auto&& input) { ppm::load(input); }, [](auto&& input) { return ppm::try_load(input); });
}

TEST_CASE("pnm: bad PBM, PGM and PAM rasters are rejected at the right byte", "[pnm][error]") {
    const bad_case cases[] = {
        {"P1 digit 2", "P1 2 2\n0 1 2", 11,
         "expected a PBM bit (0 or 1), whitespace or a comment, "
         "found byte 0x32 '2'"},
        {"P1 short", "P1 2 2\n0 1 1", 12, "pixels (4 samples), the input ends after 3 of them"},
        {"P1 letter in a block", "P1 20 1\n0000000000x000000000", 18, "found byte 0x78 'x'"},
        {"P1 comment to the end", "P1 2 1\n0#1", 10, "the input ends after 1 of them"},
        {"P4 short", std::string("P4 9 2\n\xff\xff\xff", 10), 10,
         "(4 bytes), the input ends after 3 of them"},
        {"P4 no raster", "P4 9 2\n", 7, "the input ends after 0 of them"},
        {"P4 no delimiter", "P4 9 2", 6, "expected one whitespace byte"},
        {"P2 above maxval", "P2 2 1 10 5 11", 12, "sample 11 exceeds maxval 10 (row 0, column 1)"},
        {"P5 above maxval", std::string("P5 2 1 100\n\x05\x65", 13), 12,
         "sample 101 exceeds maxval 100 (row 0, column 1)"},
        {"P5 16-bit short", std::string("P5 2 1 1000\n\x03\xe8\x03", 15), 15,
         "(4 bytes), the input ends after 3 of them"},
        {"PAM above maxval", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 100\nENDHDR\n\x01\xc8\x01\x01",
         47, "sample 200 exceeds maxval 100 (row 0, column 0, sample 1 of the tuple)"},
        {"PAM short", "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 9\nENDHDR\n\x01\x02", 46,
         "(4 bytes), the input ends after 2 of them"},
    };
    for (const bad_case& c : cases) {
        check_pnm_rejected(c);
    }
}

TEST_CASE("pnm: bad PAM headers are rejected at the right byte", "[pnm][error]") {
    const std::string tail = "HEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n";
    const bad_case cases[] = {
        {"text after P7", "P7 x\n", 3,
         "expected the end of the PAM header line P7, found byte 0x78"},
        {"no line end after P7", "P7", 2, "input ends inside the header; expected ENDHDR"},
        {"unknown keyword", "P7\nWIDTH 1\nCOLORS 3\n" + tail, 11, "expected a PAM header line"},
        {"long keyword", "P7\nWIDTHWIDTHWIDTH 1\n" + tail, 3, "expected a PAM header line"},
        {"keyword glued to a value", "P7\nWIDTH1\n" + tail, 3, "expected a PAM header line"},
        {"value glued to text", "P7\nWIDTH 12x\n" + tail, 11,
         "expected the end of the PAM header line WIDTH, found byte 0x78 'x'"},
        {"no value", "P7\nWIDTH\n" + tail, 8, "expected width (an unsigned decimal number)"},
        {"negative", "P7\nWIDTH -1\n" + tail, 9, "found byte 0x2d '-'"},
        {"width 0", "P7\nWIDTH 0\n" + tail, 9, "width is 0; an image has at least one pixel"},
        {"depth 0", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 0\nMAXVAL 1\nENDHDR\n", 26,
         "depth is 0; a pixel has at least one sample"},
        {"width of 33 bits", "P7\nWIDTH 4294967296\n" + tail, 9, "width is larger than 4294967295"},
        {"maxval 0", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 0\nENDHDR\n", 35,
         "maxval 0 is out of range 1..65535"},
        {"maxval 65536", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 65536\nENDHDR\n", 35,
         "maxval 65536 is out of range"},
        {"no MAXVAL", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nENDHDR\n", 28,
         "the PAM header ends without a MAXVAL line"},
        {"no DEPTH", "P7\nWIDTH 1\nHEIGHT 1\nMAXVAL 1\nENDHDR\n", 29,
         "the PAM header ends without a DEPTH line"},
        {"no ENDHDR", "P7\nWIDTH 1\nHEIGHT 1\n", 20, "expected ENDHDR"},
        {"text after ENDHDR", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nENDHDR x\n", 44,
         "the PAM header line ENDHDR, found byte 0x78"},
        {"ENDHDR ends the input", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nENDHDR", 43,
         "expected ENDHDR"},
        {"tuple type of 300 bytes", "P7\nTUPLTYPE " + std::string(300, 'a') + "\n" + tail, 3,
         "TUPLTYPE is longer than 255 bytes"},
        {"tuple types joined beyond 255",
         "P7\nTUPLTYPE " + std::string(200, 'a') + "\nTUPLTYPE " + std::string(60, 'b') + "\n" +
             tail,
         213, "TUPLTYPE is longer than 255 bytes"},
    };
    for (const bad_case& c : cases) {
        check_pnm_rejected(c);
    }
    // 8-bit samples cannot hold maxval 1000.
    check_rejected(
        {"8-bit", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 1000\nENDHDR\n\x03\xe8", 35,
         "needs 16-bit samples"},
        [](auto&& input) { pnm::load<std::uint8_t>(input); },
        [](auto&& input) { return pnm::try_load<std::uint8_t>(input); });
}

TEST_CASE("pnm: declared sizes the input cannot hold are rejected without allocating them",
          "[pnm][error]") {
    const std::string pam_big = "P7\nWIDTH 100000\nHEIGHT 100000\nDEPTH 4\nMAXVAL 255\nENDHDR\n";
    const std::string pam_huge =
        "P7\nWIDTH 4294967295\nHEIGHT 4294967295\nDEPTH 4294967295\nMAXVAL 255\nENDHDR\n";
    const bad_case cases[] = {
        {"PAM 4e10 samples", pam_big + "\x01\x02\x03", pam_big.size() + 3,
         "the input ends after 3 of them"},
        {"PAM overflowing 64 bits", pam_huge + "\x01", 66, "overflows 64 bits"},
        {"PBM plain 100000 squared", "P1 100000 100000\n0 1 1", 22,
         "the input ends after 3 of them"},
        {"PBM raw 100000 squared", "P4 100000 100000\n\x01\x02", 19,
         "the input ends after 2 of them"},
        {"PGM plain 100000 squared", "P2 100000 100000 255\n7 ", 23,
         "the input ends after 1 of them"},
        {"PBM overflowing 64 bits", "P4 4294967295 4294967295\n", 14, "overflows 64 bits"},
        {"PBM raw, one row of 4e9 pixels", "P4 4000000000 1\n\x01\x02", 18,
         "(500000000 bytes), the input ends after 2 of them"},
        {"PAM of depth 4e9", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4000000000\nMAXVAL 255\nENDHDR\n\x01",
         56, "the input ends after 1 of them"},
    };
    for (const bad_case& c : cases) {
        // No limit but the input's size (the limits have their own tests).
        check_pnm_rejected(c, load_options{.max_bytes = UINT64_MAX}, false);
        fastread_test::allocation_watch watch;
        try {
            memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
            pnm::load(m);
        } catch (const parse_error&) {
        }
        temp_dir dir;
        write_file(dir / "f.pnm", c.bytes);
        try {
            pnm::load(dir / "f.pnm");
        } catch (const parse_error&) {
        }
        try {
            read_source r(dir / "f.pnm", 3);
            pnm::load(r);
        } catch (const parse_error&) {
        }
        try {
            chunked_source s(c.bytes, 3);
            pnm::load(s);
        } catch (const parse_error&) {
        }
        CHECK(watch.largest() < (std::size_t{1} << 20));
    }
}

TEST_CASE("P1 from a stream: a buffer filled by a block of bits ends the scan there",
          "[pnm][error]") {
    // A P1 that declares more samples than arrive, from a source of unknown size: the samples
    // grow as bits arrive, 65536 at first. Bits without whitespace fill that buffer exactly
    // at the end of a 16-byte block; the byte after it used to be stored past the buffer
    // (found by the pnm_load fuzz target; fuzz/corpus/pnm_load/regression-p1-full-after-block).
    const std::string header = "P1 37 1000000\n";
    const std::string bytes = header + std::string(200000, '1');
    for (std::size_t chunk : {std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
        CAPTURE(chunk);
        chunked_source s(bytes, chunk);
        try {
            pnm::load(s);
            FAIL("a short raster decoded");
        } catch (const parse_error& e) {
            CHECK(e.offset() == bytes.size());
            CHECK_THAT(e.reason(), Catch::Contains("37000000"));
        }
    }
}

TEST_CASE("pnm, ppm, pfm: a file of another common format is named, from any source",
          "[pnm][error]") {
    const bad_case cases[] = {
        {"PNG", std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16), 0, "a PNG file, not a"},
        {"JPEG", "\xff\xd8\xff\xe0\x00\x10JFIF", 0, "a JPEG file, not a"},
        {"GIF", "GIF87a\x02\x00\x02\x00", 0, "a GIF file, not a"},
        {"TIFF", std::string("MM\0*\0\0\0\x08", 8), 0, "a TIFF file, not a"},
        {"WebP", std::string("RIFF\x1a\0\0\0WEBPVP8L", 16), 0, "a WebP file, not a"},
        {"gzip", std::string("\x1f\x8b\x08\0\0\0\0\0", 8), 0, "a gzip-compressed file, not a"},
        {"zip", std::string("PK\x03\x04\x14\0\0\0", 8), 0, "a zip file, not a"},
        {"PDF", "%PDF-1.4\n%\xe2\xe3", 0, "a PDF file, not a"},
        // Too short for its signature, or only like one: the byte, as before.
        {"PNG cut", "\x89PN", 0, "found byte 0x89"},
        {"PK", "PKzip", 1, "found byte 0x4b 'K'"},
    };
    for (const bad_case& c : cases) {
        check_rejected(
            c, [](auto&& input) { pnm::load<std::uint8_t>(input); },
            [](auto&& input) { return pnm::try_load<std::uint8_t>(input); });
        check_rejected(
            c, [](auto&& input) { ppm::load(input); },
            [](auto&& input) { return ppm::try_load(input); });
        check_rejected(
            c, [](auto&& input) { pfm::load(input); },
            [](auto&& input) { return pfm::try_load(input); });
    }
    // The whole message of each.
    temp_dir dir;
    write_file(dir / "a.ppm", cases[0].bytes);
    const std::string a = (dir / "a.ppm").string();
    CHECK(pnm::try_load<std::uint8_t>(dir / "a.ppm").error().message() ==
          a + ": byte 0: a PNG file, not a Netpbm image (magic number P1 to P7)");
    CHECK(ppm::try_load(dir / "a.ppm").error().message() ==
          a + ": byte 0: a PNG file, not a PPM image (magic number P3 or P6)");
    CHECK(pfm::try_load(dir / "a.ppm").error().message() ==
          a + ": byte 0: a PNG file, not a PFM image (magic number PF or Pf)");
}
