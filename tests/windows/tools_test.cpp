// The tools (examples/wc.cpp, examples/dupes.cpp) as Windows programs, started through
// cmd.exe as a Windows user would: the cases of tests/wc_example_test.cpp and
// tests/dupes_example_test.cpp that need no Linux program. There the references are GNU wc
// and fdupes run beside the tool; here the expected text is what they print for the same
// files (GNU wc 9.1 in the C locale; fdupes' layout), with Windows paths.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "../test_util.hpp"

namespace {

using fastread_test::write_file;

// A program's path as cmd.exe takes it: absolute, with backslashes, quoted.
std::string program(const char* built) {
    return "\"" + std::filesystem::absolute(built).make_preferred().string() + "\"";
}

// What `command` prints, run by cmd.exe /c; cmd strips the first and last quote of a command
// line that starts with one, so the whole line goes in one more pair.
std::string shell(const std::string& command) {
    return fastread_test::run_command("\"" + command + "\"");
}

// The exit status of `command`, run by cmd.exe /c with its output discarded.
int status_of(const std::string& command) {
    return std::system(("\"" + command + " >NUL 2>&1\"").c_str());
}

// `command` run in `dir`.
std::string in_dir(const std::filesystem::path& dir, const std::string& command) {
    return "cd /d \"" + dir.string() + "\" && " + command;
}

// What `command` prints to a file, run in `dir` with `input` written to its standard input
// through a pipe (ours: cmd's own "|" may pass a temporary file instead).
std::string piped(const std::filesystem::path& dir, const std::string& command,
                  const std::string& input) {
    std::FILE* in = ::_popen(("\"" + in_dir(dir, command + " >piped.txt") + "\"").c_str(), "wb");
    REQUIRE(in != nullptr);
    CHECK(std::fwrite(input.data(), 1, input.size(), in) == input.size());
    CHECK(::_pclose(in) == 0);
    return fastread_test::read_file(dir / "piped.txt");
}

// Text as the tools write it on Windows: standard output in text mode, as Windows programs
// write it, so every "\n" goes out as "\r\n".
std::string text(const std::string& lf) {
    std::string out;
    for (const char c : lf) {
        if (c == '\n') {
            out += '\r';
        }
        out += c;
    }
    return out;
}

} // namespace

#ifdef FASTREAD_WC
TEST_CASE("fastread-wc.exe prints what GNU wc prints for the same files", "[lines][example]") {
    fastread_test::temp_dir dir;
    write_file(dir / "no-final-newline.txt", "one two\nthree");
    write_file(dir / "crlf.txt", "a b\r\nc\r\n\r\n");
    write_file(dir / "controls.txt", std::string("a b\x01"
                                                 "c\n\x01 d\t\v\fe\n",
                                                 15));
    write_file(dir / "empty.txt", "");
    write_file(dir / "long.txt", std::string(200000, 'x') + "\n" + std::string(70000, ' ') + "y\n");
    std::filesystem::copy_file(fastread_test::data_path("README.md"), dir / "README.md");
    const std::string ours = program(FASTREAD_WC);
    auto wc = [&](const std::string& args) { return shell(in_dir(dir.path(), ours + " " + args)); };

    CHECK(wc("README.md") == text("  41  601 3323 README.md\n"));
    CHECK(wc("README.md crlf.txt empty.txt no-final-newline.txt controls.txt long.txt") ==
          text("    41    601   3323 README.md\n"
               "     3      3     10 crlf.txt\n"
               "     0      0      0 empty.txt\n"
               "     1      3     13 no-final-newline.txt\n"
               "     2      4     15 controls.txt\n"
               "     2      2 270003 long.txt\n"
               "    49    613 273364 total\n"));
    CHECK(wc("-l -c README.md crlf.txt") ==
          text("  41 3323 README.md\n   3   10 crlf.txt\n  44 3333 total\n"));
    CHECK(wc("-w empty.txt") == text("0 empty.txt\n"));
    // Standard input from a pipe, its bytes as they are (no CRLF turned into LF): no name, and
    // GNU's width of 7 for input that is not a regular file.
    CHECK(piped(dir.path(), ours, "a b\r\nc\r\n\r\n") == text("      3       3      10\n"));
    CHECK(piped(dir.path(), ours + " -c", "a b\r\nc\r\n\r\n\x1a after a Ctrl-Z") == text("26\n"));
    // "--" ends the options: a file named "-l".
    write_file(dir / "-l", "a b\nc\n");
    CHECK(wc("-- -l") == text("2 3 6 -l\n"));
    // A missing file: named on standard error, exit status 1, the others still counted.
    CHECK(wc("-l crlf.txt missing.txt 2>NUL") == text(" 3 crlf.txt\n 3 total\n"));
    CHECK(wc("-l missing.txt 2>&1 >NUL") ==
          text("fastread-wc: open \"missing.txt\": No such file or directory\n"));
    CHECK(status_of(in_dir(dir.path(), ours + " -l missing.txt")) == 1);
    CHECK(status_of(ours + " -x") == 2); // a usage error
}
#endif

#ifdef FASTREAD_DUPES
TEST_CASE("fastread-dupes.exe prints fdupes' format with Windows paths", "[duplicates][example]") {
    fastread_test::temp_dir dir;
    const std::string d = std::filesystem::absolute(dir.path()).make_preferred().string();
    const std::string ours = program(FASTREAD_DUPES);
    write_file(dir / "a", "same\n");
    write_file(dir / "b", "same\n");
    write_file(dir / "c d", "other\n");
    write_file(dir / "e", "other\n");
    write_file(dir / "lone", "x");
    auto dupes = [&](const std::string& args) {
        return shell(ours + " " + args + " \"" + d + "\"");
    };
    // The fdupes layout; -1 and --json escape the backslashes of the paths (fdupes escapes
    // backslashes and spaces in -1 lines).
    std::string escaped = d;
    for (std::size_t at = 0; (at = escaped.find('\\', at)) != std::string::npos; at += 2) {
        escaped.insert(at, 1, '\\');
    }
    CHECK(dupes("") == text(d + "\\a\n" + d + "\\b\n\n" + d + "\\c d\n" + d + "\\e\n\n"));
    CHECK(dupes("-S") == text("5 bytes each:\n" + d + "\\a\n" + d + "\\b\n\n6 bytes each:\n" + d +
                              "\\c d\n" + d + "\\e\n\n"));
    CHECK(dupes("-1") == text(escaped + "\\\\a " + escaped + "\\\\b \n" + escaped + "\\\\c\\ d " +
                              escaped + "\\\\e \n"));
    CHECK(dupes("-m") == text("2 duplicate files (in 2 sets), occupying 11 bytes.\n\n"));
    CHECK(dupes("--json") ==
          text("{\"groups\": [\n  {\"size\": 5, \"files\": [\"" + escaped + "\\\\a\", \"" +
               escaped + "\\\\b\"]},\n  {\"size\": 6, \"files\": [\"" + escaped + "\\\\c d\", \"" +
               escaped + "\\\\e\"]}\n ],\n \"errors\": []}\n"));
    CHECK(dupes("-G 6") == text(d + "\\c d\n" + d + "\\e\n\n"));
    // Exit status: 0 scanned; 2 usage errors; 1 something could not be read (named on
    // standard error), the rest still scanned.
    CHECK(status_of(ours + " \"" + d + "\"") == 0);
    CHECK(status_of(ours) == 2);
    CHECK(status_of(ours + " -x \"" + d + "\"") == 2);
    CHECK(status_of(ours + " \"" + d + "\" \"" + d + "\\missing\"") == 1);
    CHECK(shell(ours + " \"" + d + "\\missing\" 2>&1 >NUL") ==
          text("fastread-dupes: " + d + "\\missing: No such file or directory (stat)\n"));
}
#endif

#ifdef FASTREAD_PNMINFO
TEST_CASE("fastread-pnminfo.exe reads a binary image from standard input as its bytes are",
          "[pnm][example]") {
    fastread_test::temp_dir dir;
    // The raster holds CR LF and Ctrl-Z bytes, which text-mode stdio would change.
    CHECK(piped(dir.path(), program(FASTREAD_PNMINFO) + " -", "P6\n2 1\n255\n\r\n\x1a\r\n\x1a") ==
          text("-: P6 (PPM raw), 2x1, depth 3, maxval 255, RGB, first pixel 13 10 26\n"));
}
#endif
