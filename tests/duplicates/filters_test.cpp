// find_duplicates' filters (exclude, names, one_file_system, first_recursive_root, isolate)
// and find_duplicate_files' unique files and duplicate directories.
#include <fastread/duplicates.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#if !defined(_WIN32)
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.hpp"

using fastread::duplicate_options;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;

namespace {

using path_groups = std::vector<std::vector<fs::path>>;

path_groups scan(const std::vector<fs::path>& roots, duplicate_options o = {}) {
    return fastread::find_duplicates(roots, o);
}

// Paths relative to `root`, per group.
std::vector<std::vector<std::string>> relative(const path_groups& groups, const fs::path& root) {
    std::vector<std::vector<std::string>> out;
    for (const auto& g : groups) {
        std::vector<std::string> names;
        for (const auto& p : g) {
            names.push_back(fs::relative(p, root).generic_string());
        }
        out.push_back(names);
    }
    return out;
}

using names = std::vector<std::vector<std::string>>;

} // namespace

TEST_CASE("find_duplicates: --exclude and --name globs", "[duplicates][filters]") {
    temp_dir dir;
    fs::create_directories(dir / "src/cache");
    fs::create_directories(dir / "doc");
    for (const char* p : {"src/a.c", "src/b.c", "src/a.tmp", "src/cache/a.c", "src/cache/b.tmp",
                          "doc/a.c", "doc/a.tmp"}) {
        write_file(dir / p, "same");
    }
    const std::vector<fs::path> roots{dir.path()};
    duplicate_options o;
    o.exclude = {"*.tmp"};
    CHECK(relative(scan(roots, o), dir.path()) ==
          names{{"doc/a.c", "src/a.c", "src/b.c", "src/cache/a.c"}});
    o.exclude = {"cache", "doc/*"}; // a directory by name; a pattern with '/' by path
    CHECK(relative(scan(roots, o), dir.path()) == names{{"src/a.c", "src/a.tmp", "src/b.c"}});
    o.exclude.clear();
    o.names = {"a.*"};
    CHECK(relative(scan(roots, o), dir.path()) ==
          names{{"doc/a.c", "doc/a.tmp", "src/a.c", "src/a.tmp", "src/cache/a.c"}});
    o.names = {"src/*.tmp"};
    CHECK(relative(scan(roots, o), dir.path()) == names{{"src/a.tmp", "src/cache/b.tmp"}});
    o.exclude = {"src/cache"};
    CHECK(scan(roots, o).empty()); // one file left: no group
}

TEST_CASE("find_duplicates: first_recursive_root (-R) and isolate (-I)", "[duplicates][filters]") {
    temp_dir one, two;
    fs::create_directories(one / "sub");
    fs::create_directories(two / "sub");
    write_file(one / "f", "A");
    write_file(one / "sub/f", "A");
    write_file(two / "f", "A");
    write_file(two / "sub/f", "A");
    write_file(one / "g", "B");
    write_file(one / "h", "B");
    const std::vector<fs::path> roots{one.path(), two.path()};
    duplicate_options o;
    o.first_recursive_root = 1; // recurse into `two` only
    const path_groups g = scan(roots, o);
    REQUIRE(g.size() == 2);
    CHECK(g[0].size() + g[1].size() == 5);
    for (const auto& group : g) {
        for (const auto& p : group) {
            CHECK(p != one / "sub/f");
        }
    }
    o.first_recursive_root = 0;
    o.isolate = true;
    const path_groups iso = scan(roots, o);
    REQUIRE(iso.size() == 1); // g and h come from one root: not duplicates of each other
    CHECK(iso[0].size() == 4);
}

TEST_CASE("find_duplicate_files: unique files, roots and stat of each file",
          "[duplicates][filters]") {
    temp_dir dir;
    write_file(dir / "a", "same");
    write_file(dir / "b", "same");
    write_file(dir / "c", "other");
    duplicate_options o;
    o.list_unique = true;
    const std::vector<fs::path> roots{dir / "a", dir.path()};
    const auto r = fastread::find_duplicate_files(roots, o);
    REQUIRE(r.groups.size() == 1);
    REQUIRE(r.groups[0].size() == 2);
    CHECK(r.groups[0][0].path == dir / "a");
    CHECK(r.groups[0][0].root == 0); // given as a root first
    CHECK(r.groups[0][1].root == 1);
    CHECK(r.groups[0][0].size == 4);
    struct stat st {};
    REQUIRE(::stat((dir / "b").c_str(), &st) == 0);
    CHECK(r.groups[0][1].inode == static_cast<std::uint64_t>(st.st_ino));
    CHECK(r.groups[0][1].device == static_cast<std::uint64_t>(st.st_dev));
    CHECK(r.groups[0][1].ctime_ns == st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec);
    CHECK(r.groups[0][0].mtime_ns != 0);
    REQUIRE(r.unique.size() == 1);
    CHECK(r.unique[0].path == dir / "c");
    CHECK(r.directories.empty()); // not asked
}

TEST_CASE("find_duplicate_files: duplicate directories nested at several depths",
          "[duplicates][filters]") {
    temp_dir dir;
    // x/one and y/deep/er/one hold one tree; z/t is its t/; w differs from it by one
    // file's bytes, v by an extra name, u by a symbolic link; two empty directories.
    auto plant = [&](const fs::path& at) {
        fs::create_directories(at / "t");
        write_file(at / "f", "F");
        write_file(at / "g", "G");
        write_file(at / "t" / "h", "H");
    };
    plant(dir / "x/one");
    plant(dir / "y/deep/er/one");
    fs::create_directories(dir / "z/t");
    write_file(dir / "z/t/h", "H");
    plant(dir / "w");
    write_file(dir / "w/g", "g");
    plant(dir / "v");
    write_file(dir / "v/extra", "F");
    plant(dir / "u");
    fs::create_symlink("f", dir / "u" / "link");
    fs::create_directories(dir / "empty1");
    fs::create_directories(dir / "empty2");
    duplicate_options o;
    o.directories = true;
    const std::vector<fs::path> roots{dir.path()};
    const auto r = fastread::find_duplicate_files(roots, o);
    REQUIRE(r.directories.size() == 2);
    // Each t/ is a duplicate of the others; those in x/one and y/deep/er/one are not
    // repeated, their parents being reported.
    CHECK(r.directories[0] ==
          std::vector<fs::path>{dir / "u/t", dir / "v/t", dir / "w/t", dir / "z/t"});
    // x (depth 1) and y/deep/er (depth 3) hold the same tree (x/one, y/deep/er/one).
    CHECK(r.directories[1] == std::vector<fs::path>{dir / "x", dir / "y/deep/er"});
    // With -A, hidden names are not compared.
    write_file(dir / "x/one/.hidden", "only here");
    CHECK(fastread::find_duplicate_files(roots, o).directories.size() == 1);
    o.include_hidden = false;
    CHECK(fastread::find_duplicate_files(roots, o).directories.size() == 2);
}

TEST_CASE("find_duplicates: one_file_system stops at a mount point", "[duplicates][filters]") {
    temp_dir dir;
    fs::create_directories(dir / "mnt");
    write_file(dir / "a", "same");
    if (::geteuid() != 0 || ::mount("fastread-test", (dir / "mnt").c_str(), "tmpfs", 0, "") != 0) {
        WARN("cannot mount a tmpfs here (not root, or no permission): not checked");
        return;
    }
    write_file(dir / "mnt/b", "same");
    const std::vector<fs::path> roots{dir.path()};
    duplicate_options o;
    const std::size_t all = scan(roots, o).size();
    o.one_file_system = true;
    const std::size_t one = scan(roots, o).size();
    fs::remove(dir / "mnt/b");
    ::umount((dir / "mnt").c_str());
    CHECK(all == 1);
    CHECK(one == 0);
}

#endif // !_WIN32
