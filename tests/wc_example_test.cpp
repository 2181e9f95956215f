// examples/wc.cpp (fastread-wc) against wc(1) from coreutils, in the C locale.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

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
