// One call of fastread::find_duplicates.
#include <fastread/duplicates.hpp>

#include <cstdio>
#include <filesystem>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::filesystem::path> roots{argc > 1 ? argv[1] : "."};
    std::printf("%zu\n", fastread::find_duplicates(roots).size());
}
