// Sum the bytes of a file through fastread::read_source.
#include <fastread/source/read_source.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    fastread::read_source source(argc > 1 ? argv[1] : "a");
    unsigned long sum = 0;
    for (auto chunk = source.next(); !chunk.empty(); chunk = source.next()) {
        for (char c : chunk) {
            sum += static_cast<unsigned char>(c);
        }
    }
    std::printf("%lu\n", sum);
}
