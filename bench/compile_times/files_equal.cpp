// One call of fastread::files_equal.
#include <fastread/files_equal.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    std::printf("%d\n", fastread::files_equal(argc > 2 ? argv[1] : "a", argc > 2 ? argv[2] : "b"));
}
