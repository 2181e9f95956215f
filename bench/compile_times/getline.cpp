// The usual way: std::ifstream and std::getline, counting lines.
#include <cstdio>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
    std::ifstream in(argc > 1 ? argv[1] : "app.log");
    unsigned long n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
    }
    std::printf("%lu\n", n);
}
