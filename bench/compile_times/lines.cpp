// Count the lines of a file with fastread::lines.
#include <fastread/lines.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    unsigned long n = 0;
    for (std::string_view line : fastread::lines(argc > 1 ? argv[1] : "app.log")) {
        n += !line.empty() || true;
    }
    std::printf("%lu\n", n);
}
