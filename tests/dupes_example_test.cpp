// examples/dupes.cpp (fastread-dupes): its own output, exactly, and the same groups as
// fdupes(1) when fdupes is installed (scripts/test installs it).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>

#include "test_util.hpp"

#ifdef FASTREAD_DUPES
namespace {

using fastread_test::run_command;
using fastread_test::write_file;

std::set<std::vector<std::string>> groups_of(const std::string& out) {
    std::set<std::vector<std::string>> groups;
    std::vector<std::string> g;
    std::istringstream in(out + "\n");
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) {
            if (!g.empty()) {
                std::sort(g.begin(), g.end());
                groups.insert(g);
            }
            g.clear();
        } else {
            g.push_back(line);
        }
    }
    return groups;
}

int status_of(const std::string& command) {
    const int s = std::system((command + " >/dev/null 2>&1").c_str());
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

} // namespace

TEST_CASE("fastread-dupes prints fdupes' format", "[duplicates][example]") {
    fastread_test::temp_dir dir;
    const std::string d = dir.path().string();
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    write_file(dir / "a", "same\n");
    write_file(dir / "b", "same\n");
    write_file(dir / "c d", "other\n");
    write_file(dir / "e", "other\n");
    write_file(dir / "lone", "x");
    CHECK(run_command(ours + " '" + d + "'") ==
          d + "/a\n" + d + "/b\n\n" + d + "/c d\n" + d + "/e\n\n");
    // Output that cannot be written: a message and exit status 1.
    if (std::filesystem::exists("/dev/full")) {
        CHECK(run_command(ours + " '" + d + "' 2>&1 >/dev/full; echo $?") ==
              "fastread-dupes: write error: No space left on device\n1\n");
    }
    CHECK(run_command(ours + " -S '" + d + "'") == "5 bytes each:\n" + d + "/a\n" + d +
                                                       "/b\n\n6 bytes each:\n" + d + "/c d\n" + d +
                                                       "/e\n\n");
    CHECK(run_command(ours + " -1 '" + d + "'") ==
          d + "/a " + d + "/b \n" + d + "/c\\ d " + d + "/e \n");
    CHECK(run_command(ours + " -m '" + d + "'") ==
          "2 duplicate files (in 2 sets), occupying 11 bytes.\n\n");
    CHECK(run_command(ours + " -m '" + d + "/lone'").empty());
    CHECK(run_command(ours + " --json '" + d + "'") ==
          "{\"groups\": [\n  {\"size\": 5, \"files\": [\"" + d + "/a\", \"" + d +
              "/b\"]},\n  {\"size\": 6, \"files\": [\"" + d + "/c d\", \"" + d +
              "/e\"]}\n ],\n \"errors\": []}\n");
    CHECK(run_command(ours + " -G 6 '" + d + "'") == d + "/c d\n" + d + "/e\n\n");
    CHECK(run_command(ours + " --maxsize=5 '" + d + "'") == d + "/a\n" + d + "/b\n\n");
    // Exit status: 0 scanned; 2 usage errors.
    CHECK(status_of(ours + " '" + d + "'") == 0);
    CHECK(status_of(ours) == 2);
    CHECK(status_of(ours + " -x '" + d + "'") == 2);
    CHECK(status_of(ours + " -G nonsense '" + d + "'") == 2);
    // 1: something could not be read (named on stderr), the rest still scanned.
    CHECK(status_of(ours + " '" + d + "' '" + d + "/missing'") == 1);
    CHECK(run_command(ours + " '" + d + "' '" + d + "/missing' 2>&1 >/dev/null") ==
          "fastread-dupes: " + d + "/missing: No such file or directory (stat)\n");
}

TEST_CASE("fastread-dupes --cache keeps hashes where XDG says and --verify confirms",
          "[duplicates][example][cache]") {
    fastread_test::temp_dir dir;
    const std::string d = dir.path().string();
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    std::filesystem::create_directory(dir / "tree");
    write_file(dir / "tree" / "a", "same\n");
    write_file(dir / "tree" / "b", "same\n");
    write_file(dir / "tree" / "c", "else\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(250)); // older than the scan
    const std::string want = d + "/tree/a\n" + d + "/tree/b\n\n";
    const std::string env = "XDG_CACHE_HOME='" + d + "/xdg' HOME='" + d + "/home' ";
    CHECK(run_command(env + ours + " --cache '" + d + "/tree'") == want);
    CHECK(std::filesystem::file_size(dir / "xdg" / "fastread" / "dupes-hashes") ==
          64 + 3 * 80 + 16);
    CHECK(run_command(env + ours + " --cache --verify '" + d + "/tree'") == want);
    // Without XDG_CACHE_HOME (or with a relative one): ~/.cache.
    CHECK(run_command("XDG_CACHE_HOME=relative HOME='" + d + "/home' " + ours + " --cache '" + d +
                      "/tree'") == want);
    CHECK(std::filesystem::exists(dir / "home" / ".cache" / "fastread" / "dupes-hashes"));
    // A named file; a corrupt one is said on stderr and rebuilt, the status stays 0.
    write_file(dir / "named", "not a cache");
    CHECK(run_command(ours + " --cache='" + d + "/named' '" + d + "/tree' 2>&1; echo $?") ==
          "fastread-dupes: " + d + "/named: damaged or not a hash cache, rebuilt (cache)\n" + want +
              "0\n");
    CHECK(std::filesystem::file_size(dir / "named") == 64 + 3 * 80 + 16);
    CHECK(status_of("env -u XDG_CACHE_HOME -u HOME " + ours + " --cache '" + d + "/tree'") == 2);
}

TEST_CASE("fastread-dupes finds the groups fdupes finds", "[duplicates][example]") {
    if (run_command("command -v fdupes").empty()) {
        WARN("skipped: fdupes is not installed");
        return;
    }
    fastread_test::temp_dir dir;
    const std::string d = dir.path().string();
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    std::filesystem::create_directories(dir / "sub" / ".hidden");
    std::string big(70000, 'q');
    for (std::size_t i = 0; i < big.size(); ++i) {
        big[i] = static_cast<char>('a' + (i * 7919) % 26);
    }
    write_file(dir / "big1", big);
    write_file(dir / "sub" / "big2", big);
    std::string near = big;
    near.back() = 'Z';
    write_file(dir / "sub" / "near", near);
    write_file(dir / "e1", "");
    write_file(dir / "sub" / "e2", "");
    write_file(dir / "sub" / ".hidden" / "h", "hidden twin");
    write_file(dir / "h", "hidden twin");
    write_file(dir / "t1", "tiny");
    write_file(dir / "t2", "tiny");
    std::filesystem::create_hard_link(dir / "t1", dir / "t1-link");
    std::filesystem::create_symlink(dir / "big1", dir / "big1-symlink");
    // The summary is the same text, byte for byte.
    CHECK(run_command(ours + " -q -r -m '" + d + "'") ==
          run_command("fdupes -q -r -m '" + d + "'"));
    for (const char* flags : {"-r", "", "-r -n", "-r -A", "-r -s", "-r -G 10", "-r -L 10"}) {
        CAPTURE(flags);
        const std::string args = std::string(" -q ") + flags + " '" + d + "'";
        CHECK(groups_of(run_command(ours + args)) == groups_of(run_command("fdupes" + args)));
    }
}
#endif
