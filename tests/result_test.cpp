#include <fastread/pnm.hpp>
#include <fastread/result.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>

#include "test_util.hpp"

using fastread::errc;

TEST_CASE("errc: fastread's category names every code", "[result]") {
    const std::error_code code = errc::sample_exceeds_maxval;
    CHECK(code.category().name() == std::string("fastread"));
    CHECK(code.message() == "sample exceeds maxval");
    CHECK(code == errc::sample_exceeds_maxval);
    CHECK(code != errc::truncated_data);
    CHECK(std::error_code(errc::input_shrank).message() == "the input shrank while it was read");
    CHECK(std::error_code(999, fastread::error_category()).message() == "unknown fastread error");
}

TEST_CASE("error: code, offset, path and message, and a default that is no error", "[result]") {
    const fastread::error none;
    CHECK(!none.code());
    CHECK(!none.offset());
    CHECK(none.message().empty());

    const fastread::error e(errc::truncated_data, "a.pgm: byte 12: the input ends", "a.pgm", 12);
    CHECK(e.code() == errc::truncated_data);
    CHECK(e.offset() == 12u);
    CHECK(e.path() == "a.pgm");
    CHECK(e.message() == "a.pgm: byte 12: the input ends");
}

TEST_CASE("result<T>: a value or an error", "[result]") {
    fastread::result<std::string> good(std::string("pixels"));
    REQUIRE(good);
    CHECK(good.has_value());
    CHECK(*good == "pixels");
    CHECK(good->size() == 6);
    CHECK(good.value() == "pixels");
    CHECK(!good.error().code());
    const std::string moved = *std::move(good);
    CHECK(moved == "pixels");

    const fastread::result<int> bad(
        fastread::error(std::make_error_code(std::errc::no_such_file_or_directory),
                        "open \"missing.pgm\"", "missing.pgm"));
    CHECK(!bad);
    CHECK(bad.error().code() == std::errc::no_such_file_or_directory);
    CHECK(bad.error().path() == "missing.pgm");
    try {
        (void)bad.value();
        FAIL("value() of an error returned");
    } catch (const std::system_error& thrown) {
        CHECK(thrown.code() == std::errc::no_such_file_or_directory);
        CHECK(std::string(thrown.what()).rfind("open \"missing.pgm\"", 0) == 0);
    }
}

TEST_CASE("result<void>: success or an error", "[result]") {
    const fastread::result<void> ok;
    CHECK(ok);
    CHECK(!ok.error().code());
    CHECK_NOTHROW(ok.value());

    const fastread::result<void> failed(
        fastread::error(std::make_error_code(std::errc::no_space_on_device), "write \"o.pgm\""));
    CHECK(!failed);
    CHECK_THROWS_AS(failed.value(), std::system_error);
}

TEST_CASE("parse_error carries its kind: the decoder's errors have their codes", "[result]") {
    struct bad {
        const char* bytes;
        errc code;
        std::uint64_t offset;
    };
    // Offsets as the bad-input tests give them (pnm_bad_input_test.cpp, ppm_bad_input_test.cpp).
    const bad cases[] = {
        {"", errc::empty_input, 0},
        {"X5 1 1 255 \x01", errc::bad_magic, 0},
        {"P2 2 1 10 5 11", errc::sample_exceeds_maxval, 12},
        {"P5 0 1 255 ", errc::zero_dimension, 3},
        {"P5 1 1 0 \x01", errc::maxval_out_of_range, 7},
        {"P5 2 2 255 \x01\x02\x03", errc::truncated_data, 14},
        {"P1 2 2\n0 1 2", errc::invalid_data_byte, 11},
        // ENDHDR (byte 20) before DEPTH and MAXVAL.
        {"P7\nWIDTH 1\nHEIGHT 1\nENDHDR\n", errc::missing_header_field, 20},
    };
    fastread_test::temp_dir dir;
    for (const bad& c : cases) {
        CAPTURE(c.bytes);
        const auto path = dir / "bad.pnm";
        fastread_test::write_file(path, c.bytes);
        try {
            (void)fastread::pnm::load<std::uint16_t>(path);
            FAIL("loaded");
        } catch (const fastread::parse_error& e) {
            CHECK(e.code() == c.code);
            CHECK(e.offset() == c.offset);
            const fastread::error value = e.error();
            CHECK(value.code() == c.code);
            CHECK(value.offset() == c.offset);
            CHECK(value.path() == path.string());
            CHECK(value.message() == e.what());
        }
    }
}
