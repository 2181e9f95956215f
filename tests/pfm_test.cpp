#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
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

pfm::image from_bytes(const std::string& bytes) {
    memory_source m(std::span<const char>(bytes.data(), bytes.size()));
    return pfm::load(m);
}

// A sample's 4 bytes in the given byte order.
std::string float_bytes(float f, bool little) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    std::string out(4, '\0');
    for (int i = 0; i < 4; ++i) {
        out[static_cast<std::size_t>(little ? i : 3 - i)] = static_cast<char>(bits >> (8 * i));
    }
    return out;
}

} // namespace

TEST_CASE("pfm: pamtopfm's files decode to the Netpbm images they were made from, rows flipped "
          "back",
          "[pfm][netpbm]") {
    struct pair {
        const char* pfm;
        const char* from;
        std::uint32_t depth;
    };
    for (const pair& p :
         {pair{"madras-be.pfm", "madras.ppm", 3}, pair{"madras-le.pfm", "madras.pgm", 1}}) {
        CAPTURE(p.pfm);
        const pfm::image img = pfm::load(data_path(p.pfm));
        const auto source = pnm::load(data_path(p.from));
        CHECK(img.width == 37);
        CHECK(img.height == 23);
        CHECK(img.depth == p.depth);
        CHECK(img.scale == 1.0f);
        REQUIRE(img.samples.size() == source.samples.size());
        // pamtopfm writes each sample times the float 1 / maxval.
        const float scale = 1.0f / 255.0f;
        for (std::size_t i = 0; i < img.samples.size(); ++i) {
            REQUIRE(img.samples[i] == static_cast<float>(source.samples[i]) * scale);
        }
        // Every source and chunk size gives the same image.
        const std::string bytes = read_file(data_path(p.pfm));
        CHECK(from_bytes(bytes) == img);
        for (std::size_t chunk : {1, 3, 7, 4096}) {
            chunked_source c(bytes, chunk);
            CHECK(pfm::load(c) == img);
            read_source r(data_path(p.pfm), chunk);
            CHECK(pfm::load(r) == img);
        }
        fastread_test::pipe_feeder pipe(bytes);
        read_source piped(pipe.read_fd(), 5);
        CHECK(pfm::load(piped) == img);
    }
}

TEST_CASE("pfm: byte order from the scale's sign, rows bottom to top, header whitespace", "[pfm]") {
    for (bool little : {true, false}) {
        CAPTURE(little);
        // 1 x 2 grayscale: the file's first row is the image's bottom one.
        const std::string bytes = std::string("Pf\n1 2\n") + (little ? "-2.5" : "2.5") + "\n" +
                                  float_bytes(-1.5f, little) + float_bytes(0.25f, little);
        const pfm::image img = from_bytes(bytes);
        CHECK(img.depth == 1);
        CHECK(img.scale == 2.5f);
        CHECK(img.samples == std::vector<float>{0.25f, -1.5f});
    }
    // pfmtopam reads the numbers with scanf: whitespace runs before them, a '+' sign, an
    // exponent.
    const pfm::image spaced =
        from_bytes("PF\n  3\t1 \n  +1e0 " + float_bytes(1, false) + float_bytes(2, false) +
                   float_bytes(3, false) + float_bytes(4, false) + float_bytes(5, false) +
                   float_bytes(6, false) + float_bytes(7, false) + float_bytes(8, false) +
                   float_bytes(9, false));
    CHECK(spaced.width == 3);
    CHECK(spaced.depth == 3);
    CHECK(spaced.samples == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("pfm: save writes what loads back and what Netpbm's pfmtopam reads", "[pfm][save]") {
    temp_dir dir;
    pfm::image img;
    img.width = 3;
    img.height = 2;
    img.depth = 3;
    img.scale = 0.5f;
    for (int i = 0; i < 18; ++i) {
        img.samples.push_back(static_cast<float>(i) / 17.0f);
    }
    pfm::save(dir / "a.pfm", img);
    CHECK(pfm::load(dir / "a.pfm") == img);
    const std::string bytes = read_file(dir / "a.pfm");
    const std::string header =
        std::endian::native == std::endian::little ? "PF\n3 2\n-0.5\n" : "PF\n3 2\n0.5\n";
    CHECK(bytes.substr(0, header.size()) == header);
    CHECK(bytes.size() == header.size() + 18 * 4);

    // pamtopfm's own file, loaded and saved, loads back the same.
    const pfm::image madras = pfm::load(data_path("madras-le.pfm"));
    pfm::save(dir / "m.pfm", madras);
    CHECK(pfm::load(dir / "m.pfm") == madras);
    const std::string tool = FASTREAD_PFMTOPAM;
    if (tool.empty()) {
        WARN("pfmtopam not installed (Debian package netpbm): comparison skipped");
        return;
    }
    // pfmtopam (its default maxval, 255) scales back to the gray image pamtopfm started
    // from. Not `-maxval 255`: Debian 12's pfmtopam then fails in about one run of four
    // ("Maximum allowed -maxval is 65535. You specified 255", writing nothing); without
    // the option it did not fail in 300 runs.
    fastread_test::run_command(tool + " '" + (dir / "m.pfm").string() + "' > '" +
                               (dir / "m.pam").string() + "'");
    const auto back = pnm::load(dir / "m.pam");
    CHECK(back.samples == pnm::load(data_path("madras.pgm")).samples);

    pfm::image bad = img;
    bad.depth = 2;
    CHECK_THROWS_AS(pfm::save(dir / "b.pfm", bad), std::invalid_argument);
    bad = img;
    bad.scale = 0;
    CHECK_THROWS_AS(pfm::save(dir / "b.pfm", bad), std::invalid_argument);
    bad = img;
    bad.samples.pop_back();
    CHECK_THROWS_AS(pfm::save(dir / "b.pfm", bad), std::invalid_argument);
    CHECK_FALSE(std::filesystem::exists(dir / "b.pfm"));
}

TEST_CASE("pfm: bad input is rejected at the right byte without allocating what it declares",
          "[pfm][error]") {
    struct bad_case {
        std::string bytes;
        std::uint64_t offset;
        const char* reason;
        fastread::errc code; // the kind parse_error::code() names
    };
    const bad_case cases[] = {
        {"", 0, "empty input", fastread::errc::empty_input},
        {"P6 1 1 255\n\x01\x02\x03", 0, "P6 starts a Netpbm image, not a PFM one",
         fastread::errc::unsupported_format},
        {"PG\n", 1, "expected the PFM magic number PF or Pf, found byte 0x47 'G'",
         fastread::errc::bad_magic},
        {"PF1 1\n-1\n", 2, "expected whitespace after the PFM magic number",
         fastread::errc::expected_whitespace},
        {"PF\n0 1\n-1\n", 3, "width is out of range", fastread::errc::zero_dimension},
        {"PF\n1x 1\n-1\n", 4, "expected whitespace after the PFM width, found byte 0x78",
         fastread::errc::expected_whitespace},
        {"PF\n1 1x-1\n", 6, "expected whitespace after the PFM height",
         fastread::errc::expected_whitespace},
        {"PF\n1 1\n0\n", 7, "a finite nonzero decimal number", fastread::errc::expected_number},
        {"PF\n1 1\nabc\n", 7, "a finite nonzero decimal number", fastread::errc::expected_number},
        {"PF\n1 1\n1e99\n", 7, "a finite nonzero decimal number", fastread::errc::expected_number},
        {"PF\n1 1\n-1", 9, "input ends inside the PFM header; expected whitespace after scale",
         fastread::errc::truncated_header},
        {"PF\n2 1\n-1\n" + std::string(11, '\0'), 21, "(24 bytes), the input ends after 11",
         fastread::errc::truncated_data},
        {"PF\n100000 100000\n-1\n" + std::string(2, '\0'), 22,
         "(120000000000 bytes), the input ends after 2", fastread::errc::truncated_data},
        {"PF\n4294967295 4294967295\n-1\n", 25, "overflows 64 bits", fastread::errc::size_overflow},
    };
    // No limit but the input's size (the limits have their own tests).
    const load_options unlimited{.max_bytes = UINT64_MAX};
    for (const bad_case& c : cases) {
        CAPTURE(c.bytes);
        // `run` calls the throwing form; `try_run` the try_ form on the same input, whose
        // error must be the exception's: code, offset, path and message.
        auto expect = [&](auto&& run, auto&& try_run) {
            const fastread::result<pfm::image> r = try_run();
            REQUIRE_FALSE(r);
            CHECK(r.error().code() == c.code);
            CHECK(r.error().offset() == c.offset);
            try {
                run();
                FAIL_CHECK("accepted");
            } catch (const parse_error& e) {
                CHECK(e.offset() == c.offset);
                CHECK_THAT(e.reason(), Catch::Contains(c.reason));
                CHECK(e.code() == c.code);
                CHECK(e.error().offset() == c.offset);
                CHECK(e.error().message() == e.what());
                CHECK(r.error().message() == e.what());
                CHECK(r.error().path() == e.file());
            }
        };
        expect(
            [&] {
                memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
                pfm::load(m, unlimited);
            },
            [&] {
                memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
                return pfm::try_load(m, unlimited);
            });
        for (std::size_t chunk : {1, 3, 64}) {
            expect(
                [&] {
                    chunked_source s(c.bytes, chunk);
                    pfm::load(s, unlimited);
                },
                [&] {
                    chunked_source s(c.bytes, chunk);
                    return pfm::try_load(s, unlimited);
                });
        }
        temp_dir dir;
        write_file(dir / "bad.pfm", c.bytes);
        expect([&] { pfm::load(dir / "bad.pfm", unlimited); },
               [&] { return pfm::try_load(dir / "bad.pfm", unlimited); });
    }
}
