#include <fastread/error.hpp>

#include <catch2/catch.hpp>

#include <stdexcept>

TEST_CASE("parse_error carries the offset, the reason and the file", "[error]") {
    const fastread::parse_error with_file(17, "maxval 0 is out of range 1..65535", "image.ppm");
    CHECK(std::string(with_file.what()) == "image.ppm: byte 17: maxval 0 is out of range 1..65535");
    CHECK(with_file.offset() == 17);
    CHECK(with_file.reason() == "maxval 0 is out of range 1..65535");
    CHECK(with_file.file() == "image.ppm");

    const fastread::parse_error without(0, "empty input");
    CHECK(std::string(without.what()) == "byte 0: empty input");
    CHECK(without.file().empty());

    const std::runtime_error& base = with_file; // catchable as std::runtime_error
    CHECK(std::string(base.what()).find("byte 17") != std::string::npos);
}
