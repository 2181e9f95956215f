// Open a string table and print its size.
#include <fastread/string_table.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    const auto table = fastread::string_table::view::open(argc > 1 ? argv[1] : "strings.bin");
    std::printf("%zu\n", table.size());
}
