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
    print_first_pixel(fastread_test::data_path("madras.ppm").string().c_str());
    CHECK(readme::out.str() == "37x23 maxval 255, first pixel 0 21 253\n");
}

// ---- README "Lines" example, made runnable ----
#include <algorithm>
#include <fastread/lines.hpp>

TEST_CASE("the README lines example counts and splits as it says", "[readme]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "app.log", "E boom\nok\r\nE again\n");
    auto is_error = [](std::string_view l) { return l.starts_with("E"); };
    std::size_t seen = 0;
    for (std::string_view line : fastread::lines(dir / "app.log")) {
        seen += line.size();
    }
    CHECK(seen == 6 + 2 + 7);
    std::FILE* f = fastread_test::open_file(dir / "app.log", "rb");
#if defined(__cpp_lib_ranges) // libc++ before 15 has no std::ranges algorithms
    auto n = std::ranges::count_if(fastread::lines(f), is_error);
#else
    std::ptrdiff_t n = 0;
    for (std::string_view line : fastread::lines(f)) {
        n += is_error(line) ? 1 : 0;
    }
#endif
    std::fclose(f);
    CHECK(n == 2);
    fastread::line_options csv{.delimiter = ',', .keep_delimiter = true};
    fastread_test::write_file(dir / "a.csv", "x,y,z");
    std::string joined;
    for (std::string_view field : fastread::lines(dir / "a.csv", csv)) {
        joined += std::string(field) + "|";
    }
    CHECK(joined == "x,|y,|z|");
}
