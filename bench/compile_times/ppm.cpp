// One call of fastread::ppm::load.
#include <fastread/ppm.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    const auto img = fastread::ppm::load(argc > 1 ? argv[1] : "image.ppm");
    std::printf("%u\n", img.samples.empty() ? 0u : unsigned{img.samples[0]});
}
