// The README's example, compiled and run as a test.
#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>
#include <string>

#include "test_util.hpp"

namespace readme {
std::ostringstream out; // stands in for std::cout
}

// ---- begin README example ----
#include <fastread/ppm.hpp>

void print_first_pixel(const char* path) {
    auto img = fastread::ppm::load(path); // P3 or P6; throws fastread::parse_error if malformed
    readme::out << img.width << "x" << img.height << " maxval " << img.maxval << ", first pixel "
                << +img.samples[0] << " " << +img.samples[1] << " " << +img.samples[2] << "\n";
}
// ---- end README example ----

TEST_CASE("the README example prints the first pixel", "[readme]") {
    print_first_pixel(fastread_test::data_path("madras.ppm").c_str());
    CHECK(readme::out.str() == "37x23 maxval 255, first pixel 0 21 253\n");
}
