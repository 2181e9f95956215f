// Count the lines of a file with the article's mmap line reader.
#include <fastread/line_readers.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    unsigned long n = 0;
    for (std::string_view line : fastread::mmap_line_reader(argc > 1 ? argv[1] : "app.log")) {
        n += !line.empty() || true;
    }
    std::printf("%lu\n", n);
}
