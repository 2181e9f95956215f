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

namespace {

// Every file under `root`: "path bytes inode mode mtime ctime" (ns), one line each, sorted:
// what a dry run must leave as it was.
std::string tree_state(const std::string& root) {
    return run_command("cd '" + root +
                       "' && find . -type f -printf '%p %i %m %T@ %C@ ' -exec sha256sum {} \\; "
                       "| sort");
}

// A tree with two groups and a lone file, each file written apart so that times differ.
void plant_tree(const fastread_test::temp_dir& dir) {
    std::filesystem::create_directories(dir / "t/a");
    std::filesystem::create_directories(dir / "t/b");
    write_file(dir / "t/b/one", "same bytes\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write_file(dir / "t/a/one", "same bytes\n");
    write_file(dir / "t/a/two", "same bytes\n");
    write_file(dir / "t/a/s", "small\n");
    write_file(dir / "t/b/s", "small\n");
    write_file(dir / "t/b/lone", "lone\n");
}

} // namespace

TEST_CASE("fastread-dupes --link, -dN and --dry-run: the lines the real run takes, nothing "
          "changed",
          "[duplicates][example][actions]") {
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    for (const std::string flag : {"--link", "-dN"}) {
        fastread_test::temp_dir dir;
        plant_tree(dir);
        const std::string t = (dir / "t").string();
        const std::string before = tree_state(t);
        const std::string planned = run_command(ours + " -r " + flag + " --dry-run '" + t + "'");
        CHECK(tree_state(t) == before);
        const std::string verb = flag == "--link" ? "link " : "delete ";
        // b/one, the oldest, is kept (fdupes' order); a/s and b/s by their times or paths.
        CHECK(planned == verb + t + "/a/one => " + t + "/b/one\n" + verb + t + "/a/two => " + t +
                             "/b/one\n" + verb + t + "/b/s => " + t + "/a/s\n");
        CHECK(run_command(ours + " -r " + flag + " '" + t + "'; echo $?") == planned + "0\n");
        if (flag == "--link") {
            CHECK(run_command("stat -c %i '" + t + "/a/one' '" + t + "/a/two' '" + t +
                              "/b/one' | sort -u | wc -l") == "1\n");
            CHECK(run_command("cat '" + t + "/b/one'") == "same bytes\n");
        } else {
            CHECK(run_command("cd '" + t + "' && find . -type f | sort") ==
                  "./a/s\n./b/lone\n./b/one\n");
        }
        // Nothing left to do.
        CHECK(run_command(ours + " -r " + flag + " '" + t + "'; echo $?") == "0\n");
    }
}

namespace {

// The files under `root`, relative to it, sorted, one per line.
std::string files_under(const std::filesystem::path& root) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        if (e.is_regular_file()) {
            names.push_back(std::filesystem::relative(e.path(), root).string());
        }
    }
    std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names) {
        out += n + "\n";
    }
    return out;
}

// Groups whose oldest file is not the first by path: z/old, then m/mid, then a/new; b/x
// older than a/y; c/b and c/a with one modification time (a tie, kept by path: c/a).
void plant_dated_tree(const std::filesystem::path& root, bool ties) {
    using namespace std::chrono_literals;
    const auto base = std::filesystem::file_time_type::clock::now() - 1000h;
    auto put = [&](const char* name, const std::string& bytes, std::chrono::seconds age) {
        std::filesystem::create_directories((root / name).parent_path());
        write_file(root / name, bytes);
        std::filesystem::last_write_time(root / name, base - age);
    };
    put("a/new", "first group\n", 10s);
    put("m/mid", "first group\n", 20s);
    put("z/old", "first group\n", 30s);
    put("a/y", "second group\n", 40s);
    put("b/x", "second group\n", 50s);
    put("lone", "no twin\n", 60s);
    if (ties) {
        put("c/b", "tied\n", 70s);
        put("c/a", "tied\n", 70s);
    }
}

} // namespace

TEST_CASE("fastread-dupes keeps the oldest file as fdupes does: -rdN deletes the same files",
          "[duplicates][example][actions]") {
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    fastread_test::temp_dir dir;
    plant_dated_tree(dir / "ours", true);
    const std::string t = (dir / "ours").string();
    // Each group oldest first; a tie on the modification time by path.
    CHECK(run_command(ours + " -r '" + t + "'") == t + "/z/old\n" + t + "/m/mid\n" + t +
                                                       "/a/new\n\n" + t + "/b/x\n" + t +
                                                       "/a/y\n\n" + t + "/c/a\n" + t + "/c/b\n\n");
    CHECK(run_command(ours + " -r -o name '" + t + "' | head -1") == t + "/a/new\n");
    CHECK(run_command(ours + " -r -dN '" + t + "'") ==
          "delete " + t + "/m/mid => " + t + "/z/old\n" + "delete " + t + "/a/new => " + t +
              "/z/old\n" + "delete " + t + "/a/y => " + t + "/b/x\n" + "delete " + t + "/c/b => " +
              t + "/c/a\n");
    CHECK(files_under(dir / "ours") == "b/x\nc/a\nlone\nz/old\n");
    if (run_command("command -v fdupes").empty()) {
        WARN("skipped: fdupes is not installed");
        return;
    }
    // Without ties (fdupes breaks them by its directory order), the same files as fdupes.
    plant_dated_tree(dir / "x", false);
    plant_dated_tree(dir / "y", false);
    run_command(ours + " -r -dN '" + (dir / "x").string() + "'");
    run_command("fdupes -q -r -d -N '" + (dir / "y").string() + "'");
    CHECK(files_under(dir / "x") == "b/x\nlone\nz/old\n");
    CHECK(files_under(dir / "x") == files_under(dir / "y"));
}

TEST_CASE("fastread-dupes: which copy is kept (-o, -i, --keep-in), -f, -I",
          "[duplicates][example][actions]") {
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    fastread_test::temp_dir dir;
    plant_tree(dir);
    const std::string t = (dir / "t").string();
    // -o time: b/one is the oldest; -i reverses; --keep-in prefers and protects.
    CHECK(run_command(ours + " -r -o time '" + t + "/a' '" + t + "/b' | head -1") ==
          t + "/b/one\n");
    CHECK(run_command(ours + " -r -o name -i '" + t + "' | head -1") == t + "/b/one\n");
    CHECK(run_command(ours + " -r -f '" + t + "'") ==
          t + "/a/one\n" + t + "/a/two\n\n" + t + "/b/s\n\n");
    CHECK(run_command(ours + " -r -o name -f '" + t + "'") ==
          t + "/a/two\n" + t + "/b/one\n\n" + t + "/b/s\n\n");
    CHECK(run_command(ours + " -r -dN --dry-run --keep-in='" + t + "/b' '" + t + "'") ==
          "delete " + t + "/a/one => " + t + "/b/one\n" + "delete " + t + "/a/two => " + t +
              "/b/one\n" + "delete " + t + "/a/s => " + t + "/b/s\n");
    // -I: a/one and a/two are from one root: with a/one kept, only the file from b is
    // acted on.
    CHECK(run_command(ours + " -r -I -o name -dN --dry-run '" + t + "/a' '" + t + "/b'") ==
          "delete " + t + "/b/one => " + t + "/a/one\n" + "delete " + t + "/b/s => " + t +
              "/a/s\n");
    CHECK(run_command(ours + " -r -u '" + t + "'") == t + "/b/lone\n");
}

TEST_CASE("fastread-dupes: -d asks on a terminal and refuses without one, usage errors",
          "[duplicates][example][actions]") {
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    fastread_test::temp_dir dir;
    plant_tree(dir);
    const std::string t = (dir / "t").string();
    CHECK(run_command(ours + " -r -d '" + t + "' </dev/null 2>&1; echo $?") ==
          "fastread-dupes: -d asks which files to keep on a terminal: standard input is not one "
          "(or --dry-run); add -N to keep the first of each group\n2\n");
    CHECK(status_of(ours + " --link --dedupe '" + t + "'") == 2);
    CHECK(status_of(ours + " --dry-run '" + t + "'") == 2);
    CHECK(status_of(ours + " -N '" + t + "'") == 2);
    CHECK(status_of(ours + " --link --json '" + t + "'") == 2);
    CHECK(status_of(ours + " -o size '" + t + "'") == 2);
    // On a terminal (script(1) gives one): keep 2 of the first set, all of the second.
    if (status_of("command -v script") == 0) {
        const std::string before = tree_state(t);
        run_command("printf '2\\nall\\n' | script -qec \"" + ours + " -r -d '" + t +
                    "'\" /dev/null");
        CHECK(run_command("cd '" + t + "' && find . -type f | sort") ==
              "./a/one\n./a/s\n./b/lone\n./b/s\n"); // b/one, a/one, a/two: the 2nd kept
        CHECK(before != tree_state(t));
    } else {
        WARN("no script(1): the -d prompt is not checked");
    }
}

TEST_CASE("fastread-dupes: --files-from, -0, --exclude, --name, -R, -D",
          "[duplicates][example][filters]") {
    const std::string ours = std::string("'") + FASTREAD_DUPES + "'";
    fastread_test::temp_dir dir;
    plant_tree(dir);
    const std::string t = (dir / "t").string();
    CHECK(run_command("printf '%s\\0%s\\0' '" + t + "/a/one' '" + t + "/b/one' | " + ours +
                      " -0 --files-from=- | tr '\\0' '|'") == t + "/b/one|" + t + "/a/one||");
    write_file(dir / "list", t + "/a/s\n" + t + "/b/s\n");
    CHECK(run_command(ours + " --files-from '" + (dir / "list").string() + "'") ==
          t + "/a/s\n" + t + "/b/s\n\n");
    CHECK(run_command(ours + " -r --exclude=a '" + t + "'").empty());
    CHECK(run_command(ours + " -r --name='s' '" + t + "'") == t + "/a/s\n" + t + "/b/s\n\n");
    // -R: only the roots after it are recursed into (t's subdirectories are not read).
    CHECK(run_command(ours + " '" + t + "' -R '" + t + "/b'").empty());
    CHECK(run_command(ours + " -R '" + t + "' '" + t + "/b' | head -1") == t + "/b/one\n");
    std::filesystem::create_directories(dir / "t/c/a");
    for (const char* f : {"one", "two", "s"}) {
        write_file(dir / "t/c/a" / f, f == std::string("s") ? "small\n" : "same bytes\n");
    }
    CHECK(run_command(ours + " -r -D '" + t + "'") ==
          t + "/a/\n" + t + "/c/a/\n\n" + t + "/b/one\n" + t + "/a/one\n" + t + "/a/two\n" + t +
              "/c/a/one\n" + t + "/c/a/two\n\n" + t + "/a/s\n" + t + "/b/s\n" + t + "/c/a/s\n\n");
    CHECK(run_command(ours + " -r -D --json '" + t + "' | grep -A1 directories") ==
          " \"directories\": [\n  [\"" + t + "/a\", \"" + t + "/c/a\"]\n");
}

#endif
