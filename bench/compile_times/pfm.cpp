// One call of fastread::pfm::load.
#include <fastread/pfm.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    const auto img = fastread::pfm::load(argc > 1 ? argv[1] : "image.pfm");
    std::printf("%g\n", img.samples.empty() ? 0.0 : double{img.samples[0]});
}
