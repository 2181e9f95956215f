#include <fastread/fastread.hpp>

#include <cstdio>
#include <string_view>

// Decodes a PPM given in memory and prints its size and first sample.
int main() {
    constexpr std::string_view bytes = "P3 2 1 255\n7 8 9 10 11 12\n";
    fastread::memory_source source(bytes);
    auto img = fastread::ppm::load(source);
    std::printf("%ux%u first sample %u\n", img.width, img.height, unsigned{img.samples[0]});
    return img.width == 2 && img.samples[0] == 7 ? 0 : 1;
}
