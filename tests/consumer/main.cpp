#include <fastread/fastread.hpp>

#include <cstdio>
#include <cstring>
#include <string_view>

// Decodes a PPM given in memory and prints its size and first sample, and the version of
// the headers it was built with (checked against the package's when the build says it).
int main() {
    constexpr std::string_view bytes = "P3 2 1 255\n7 8 9 10 11 12\n";
    fastread::memory_source source(bytes);
    auto img = fastread::ppm::load(source);
    std::printf("fastread %s: %ux%u first sample %u\n", FASTREAD_VERSION_STRING, img.width,
                img.height, unsigned{img.samples[0]});
#ifdef FASTREAD_EXPECTED_VERSION
    if (std::strcmp(FASTREAD_VERSION_STRING, FASTREAD_EXPECTED_VERSION) != 0) {
        std::printf("the package says version %s\n", FASTREAD_EXPECTED_VERSION);
        return 1;
    }
#endif
    return img.width == 2 && img.samples[0] == 7 ? 0 : 1;
}
