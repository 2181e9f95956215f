// Sum the numbers of a file with fastread::numbers.
#include <fastread/numbers.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    double sum = 0;
    for (double x : fastread::numbers<double>(argc > 1 ? argv[1] : "samples.txt")) {
        sum += x;
    }
    std::printf("%g\n", sum);
}
