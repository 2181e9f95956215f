// Sum the bytes of a file through fastread::mmap_source.
#include <fastread/source/mmap_source.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    fastread::mmap_source source(argc > 1 ? argv[1] : "a");
    unsigned long sum = 0;
    for (char c : source.bytes()) {
        sum += static_cast<unsigned char>(c);
    }
    std::printf("%lu\n", sum);
}
