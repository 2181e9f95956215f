#include <fastread/line_readers.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

using line_list = std::vector<std::string>;

// The lines each of the three readers gives for `bytes`; all must equal `want`.
void check_readers(const std::string& bytes, const line_list& want, char delimiter = '\n',
                   strip_type strip = strip_type::strip_delimiter) {
    CAPTURE(bytes, delimiter);
    temp_dir dir;
    const auto path = dir / "f.txt";
    write_file(path, bytes);

    line_list got;
    std::ifstream in(path, std::ios::binary);
    for (const std::string& line : istream_line_reader(in, delimiter, strip)) {
        got.push_back(line);
    }
    CHECK(got == want);

    got.clear();
    std::FILE* f = fastread_test::open_file(path, "rb");
    REQUIRE(f != nullptr);
    file_line_reader reader(f, delimiter, strip);
    for (auto it = reader.begin(); it != reader.end(); ++it) {
        got.emplace_back(*it, it.size());
    }
    std::fclose(f);
    CHECK(got == want);

    got.clear();
    for (const std::string& line : mmap_line_reader(path, delimiter, strip)) {
        got.push_back(line);
    }
    CHECK(got == want);
}

} // namespace

TEST_CASE("the article's line readers: empty file, empty lines, last line without newline",
          "[lines][baseline]") {
    check_readers("", {});
    check_readers("\n", {""});
    check_readers("a\nb\n", {"a", "b"});
    check_readers("a\nb", {"a", "b"});
    check_readers("a\r\nb\n", {"a\r", "b"}); // as in the article: CR kept
}

TEST_CASE("the article's line readers: NUL bytes inside lines and as the delimiter",
          "[lines][baseline]") {
    check_readers(std::string("ab\0cd\nef\n", 9), {std::string("ab\0cd", 5), "ef"});
    check_readers(std::string("a\0bc\0", 5), {"a", "bc"}, '\0');
    check_readers("x,y\n,z", {"x", "y\n", "z"}, ',');
}

TEST_CASE("the article's line readers: lines longer than their buffers", "[lines][baseline]") {
    const std::string long_line(5000, 'x');
    check_readers(long_line + "\n" + long_line, {long_line, long_line});
    check_readers(long_line + "," + long_line, {long_line, long_line}, ',');
    check_readers(std::string(255, 'y') + "\n" + std::string(256, 'z') + "\n",
                  {std::string(255, 'y'), std::string(256, 'z')});
}

TEST_CASE("the article's line readers: no_strip_delimiter concatenates to the input",
          "[lines][baseline]") {
    std::mt19937 rng(99);
    const char alphabet[] = {'a', '\n', '\0', 'b', '\r'};
    for (int trial = 0; trial < 60; ++trial) {
        std::string bytes(rng() % 600, '\0');
        for (char& c : bytes) {
            c = alphabet[rng() % sizeof alphabet];
        }
        for (char delimiter : {'\n', '\0'}) {
            // The expected lines, by hand: split after each delimiter.
            line_list want;
            std::string current;
            for (char c : bytes) {
                current += c;
                if (c == delimiter) {
                    want.push_back(current);
                    current.clear();
                }
            }
            if (!current.empty()) {
                want.push_back(current);
            }
            check_readers(bytes, want, delimiter, strip_type::no_strip_delimiter);
        }
    }
}

TEST_CASE("file_line_reader reads a pipe, and mmap_line_reader refuses one", "[lines][baseline]") {
    fastread_test::pipe_feeder pipe("one\ntwo\n");
    std::FILE* f = pipe.take_file();
    line_list got;
    file_line_reader reader(f);
    for (auto it = reader.begin(); it != reader.end(); ++it) {
        got.emplace_back(*it, it.size());
    }
    std::fclose(f);
    CHECK(got == line_list{"one", "two"});

#if !defined(_WIN32) // a pipe by path: /proc/self/fd
    fastread_test::pipe_feeder other("x\n");
    CHECK_THROWS_AS(mmap_line_reader("/proc/self/fd/" + std::to_string(other.read_fd())),
                    std::system_error);
#endif
}
