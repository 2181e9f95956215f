// One call of fastread::page_cache::resident_fraction.
#include <fastread/page_cache.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    std::printf("%g\n", fastread::page_cache::resident_fraction(argc > 1 ? argv[1] : "a"));
}
