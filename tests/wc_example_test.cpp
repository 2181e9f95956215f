// examples/wc.cpp (fastread-wc) against wc(1) from coreutils, in the C and C.UTF-8 locales.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "test_util.hpp"

#ifdef FASTREAD_WC
TEST_CASE("fastread-wc prints what wc prints", "[lines][example]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "no-final-newline.txt", "one two\nthree");
    fastread_test::write_file(dir / "crlf.txt", "a b\r\nc\r\n\r\n");
    fastread_test::write_file(dir / "controls.txt", std::string("a b\x01"
                                                                "c\n\x01 d\t\v\fe\n",
                                                                15));
    fastread_test::write_file(dir / "empty.txt", "");
    fastread_test::write_file(dir / "long.txt",
                              std::string(200000, 'x') + "\n" + std::string(70000, ' ') + "y\n");
    const std::string copy = "cp '" + fastread_test::data_path("README.md").string() + "' '" +
                             fastread_test::data_path("forge-plain.ppm").string() + "' '" +
                             dir.path().string() + "/'";
    REQUIRE(std::system(copy.c_str()) == 0);
    const std::string cd = "cd '" + dir.path().string() + "' && LC_ALL=C ";
    const std::string ours = FASTREAD_WC;
    const char* const file_sets[] = {"README.md",
                                     "forge-plain.ppm",
                                     "no-final-newline.txt",
                                     "crlf.txt",
                                     "controls.txt",
                                     "empty.txt",
                                     "long.txt",
                                     "README.md crlf.txt empty.txt forge-plain.ppm"};
    for (const char* files : file_sets) {
        for (const char* opts : {"", "-l", "-w", "-c", "-lw", "-l -c"}) {
            const std::string args = std::string(opts) + " " + files;
            CAPTURE(args);
            CHECK(fastread_test::run_command(cd + "'" + ours + "' " + args) ==
                  fastread_test::run_command(cd + "wc " + args));
        }
        // stdin from a pipe: no names, and GNU's width of 7 for non-regular input
        const std::string first = std::string(files).substr(0, std::string(files).find(' '));
        CHECK(fastread_test::run_command(cd + "cat " + first + " | '" + ours + "'") ==
              fastread_test::run_command(cd + "cat " + first + " | wc"));
        CHECK(fastread_test::run_command(cd + "cat " + first + " | '" + ours + "' -l") ==
              fastread_test::run_command(cd + "cat " + first + " | wc -l"));
    }
    // "--" ends the options: a file named "-l".
    fastread_test::write_file(dir / "-l", "a b\nc\n");
    CHECK(fastread_test::run_command(cd + "'" + ours + "' -- -l") ==
          fastread_test::run_command(cd + "wc -- -l"));
    CHECK(fastread_test::run_command(cd + "'" + ours + "' -c -- -l README.md") ==
          fastread_test::run_command(cd + "wc -c -- -l README.md"));
    // Output that cannot be written is an error (exit 1 and a message), as for GNU wc.
    if (std::filesystem::exists("/dev/full")) {
        CHECK(
            fastread_test::run_command(cd + "'" + ours + "' README.md 2>&1 >/dev/full; echo $?") ==
            "fastread-wc: write error: No space left on device\n1\n");
        CHECK(fastread_test::run_command(cd + "wc README.md > /dev/full 2>/dev/null; echo $?") ==
              "1\n");
    }
    // sysfs files, which cannot be mapped, in every I/O mode.
    for (const char* io : {"read", "map", "auto"}) {
        CAPTURE(io);
        const std::string sysfs = "/sys/devices/system/cpu/online";
        CHECK(fastread_test::run_command("FASTREAD_IO=" + std::string(io) + " '" + ours + "' " +
                                         sysfs) == fastread_test::run_command("wc " + sysfs));
    }
}

TEST_CASE("fastread-wc counts words as wc does in C.UTF-8 and in C, and directories",
          "[lines][example]") {
    fastread_test::temp_dir dir;
    const std::string d = dir.path().string();
    const std::string ours = "'" + std::string(FASTREAD_WC) + "'";
    // Multibyte spaces (U+00A0, U+2003, U+3000) separate words in C.UTF-8, not in C.
    fastread_test::write_file(dir / "spaces.txt", "a\xc2\xa0"
                                                  "b c\xe2\x80\x83"
                                                  "d e\xe3\x80\x80"
                                                  "f\n");
    CHECK(fastread_test::run_command("LC_ALL=C.UTF-8 " + ours + " -w '" + d + "/spaces.txt'") ==
          "6 " + d + "/spaces.txt\n");
    CHECK(fastread_test::run_command("LC_ALL=C " + ours + " -w '" + d + "/spaces.txt'") ==
          "3 " + d + "/spaces.txt\n");
    // Invalid UTF-8 (stray continuation bytes, an overlong space, a surrogate, a cut
    // sequence, a byte past F4), controls, U+2028 and U+0085 (not printable), no-break and
    // other spaces, printable characters of 2 to 4 bytes, in a pseudo-random order; and a
    // 4-byte character at each of 4 offsets, which the 64 KiB chunks cut at every byte.
    std::string mixed;
    std::uint32_t x = 12345;
    const char* const pieces[] = {"a",
                                  "b",
                                  " ",
                                  "\n",
                                  "\t",
                                  "\xc2\xa0",
                                  "\xc3\xa9",
                                  "\xe2\x80\xa8",
                                  "\xe2\x80\x83",
                                  "\xe3\x80\x80",
                                  "\xe2\x81\xa0",
                                  "\xf0\x9f\x98\x80",
                                  "\xc0\xa0",
                                  "\xed\xa0\x80",
                                  "\x80",
                                  "\xe2\x80",
                                  "\xf5\x80\x80\x80",
                                  "\x01",
                                  "\xc2\x85"};
    while (mixed.size() < 300000) {
        x = x * 1103515245u + 12345u;
        mixed += pieces[(x >> 16) % (sizeof pieces / sizeof *pieces)];
    }
    fastread_test::write_file(dir / "mixed.txt", mixed);
    std::string cut;
    while (cut.size() < 200000) {
        cut += "\xf0\x9f\x98\x80 \xe2\x80\x83x\xc3\xa9";
    }
    for (int k = 0; k < 4; ++k) {
        fastread_test::write_file(dir / ("cut" + std::to_string(k) + ".txt"),
                                  std::string(static_cast<std::size_t>(k), 'y') + cut);
    }
    std::vector<std::string> files = {d + "/spaces.txt", d + "/mixed.txt", d + "/cut0.txt",
                                      d + "/cut1.txt",   d + "/cut2.txt",  d + "/cut3.txt"};
    // Unicode's own text files (Debian's unicode-data, which scripts/test installs).
    for (const char* name :
         {"NamesList.txt", "UnicodeData.txt", "Blocks.txt", "CJKRadicals.txt", "NamesList.html"}) {
        const std::string path = std::string("/usr/share/unicode/") + name;
        if (std::filesystem::exists(path)) {
            files.push_back(path);
        }
    }
    CHECK(files.size() >= 10); // the unicode-data files are there
    for (const char* locale : {"C.UTF-8", "C"}) {
        const std::string env = std::string("LC_ALL=") + locale + " ";
        for (const std::string& f : files) {
            CAPTURE(locale, f);
            CHECK(fastread_test::run_command(env + ours + " '" + f + "'") ==
                  fastread_test::run_command(env + "wc '" + f + "'"));
            CHECK(fastread_test::run_command("cat '" + f + "' | " + env + ours + " -w") ==
                  fastread_test::run_command("cat '" + f + "' | " + env + "wc -w"));
        }
        // POSIXLY_CORRECT: no-break spaces do not separate.
        CHECK(fastread_test::run_command("POSIXLY_CORRECT=1 " + env + ours + " -w < '" + d +
                                         "/mixed.txt'") ==
              fastread_test::run_command("POSIXLY_CORRECT=1 " + env + "wc -w < '" + d +
                                         "/mixed.txt'"));
    }
    // A directory: wc's message, a row of zeros, status 1; the other files still counted.
    std::filesystem::create_directory(dir / "sub");
    CHECK(fastread_test::run_command(ours + " '" + d + "/sub' 2>&1; echo $?") ==
          "fastread-wc: " + d + "/sub: Is a directory\n      0       0       0 " + d + "/sub\n1\n");
    CHECK(fastread_test::run_command(ours + " '" + d + "/sub' '" + d +
                                     "/spaces.txt' 2>/dev/null; echo $?") ==
          fastread_test::run_command("wc '" + d + "/sub' '" + d +
                                     "/spaces.txt' 2>/dev/null; echo $?"));
    CHECK(fastread_test::run_command(ours + " -l '" + d + "/sub' 2>/dev/null") ==
          fastread_test::run_command("wc -l '" + d + "/sub' 2>/dev/null"));
}

TEST_CASE("fastread-wc counts a line longer than memory allows in flat memory",
          "[lines][example]") {
    // 512 MB without a newline through a pipe: GNU wc stays flat; counting must never keep a
    // line. GNU time (scripts/test installs it) gives the peak resident size of the shell
    // and what it ran: below 200 MB, where keeping the line would take over 512 MB.
    REQUIRE(std::filesystem::exists("/usr/bin/time"));
    const std::string out = fastread_test::run_command(
        "/usr/bin/time -f 'peak %M KiB' sh -c \"head -c 512M /dev/zero | '" +
        std::string(FASTREAD_WC) + "' -l\" 2>&1");
    const std::size_t at = out.find("peak ");
    REQUIRE(at != std::string::npos);
    CHECK(out.substr(0, at) == "0\n");
    CHECK(std::stoul(out.substr(at + 5)) < 200 * 1024);
    CHECK(fastread_test::run_command("head -c 3M /dev/zero | '" + std::string(FASTREAD_WC) + "'") ==
          fastread_test::run_command("head -c 3M /dev/zero | LC_ALL=C wc"));
}
#endif
