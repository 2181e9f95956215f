// One call of fastread::pnm::load: what a user's translation unit costs to compile.
#include <fastread/pnm.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    const auto img = fastread::pnm::load(argc > 1 ? argv[1] : "image.ppm");
    std::printf("%u\n", img.samples.empty() ? 0u : unsigned{img.samples[0]});
}
