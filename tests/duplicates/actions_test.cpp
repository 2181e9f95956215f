// fastread/duplicate_actions.hpp: act_on_duplicates (link, dedupe, remove, dry run), its
// checks before acting, and failures injected at each system call; order_duplicates.
#include <fastread/detail/platform.hpp>
#include <fastread/duplicate_actions.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#if !defined(_WIN32)
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "test_util.hpp"

using fastread::action_outcome;
using fastread::action_record;
using fastread::duplicate_action;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;

namespace {

// Every file under `root`: contents, inode, mode, modification and status-change times (ns).
struct file_state {
    std::string bytes;
    std::uint64_t inode;
    unsigned mode;
    std::int64_t mtime_ns, ctime_ns;
    bool operator==(const file_state&) const = default;
};
std::map<std::string, file_state> snapshot(const fs::path& root) {
    std::map<std::string, file_state> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        struct stat st {};
        REQUIRE(::lstat(e.path().c_str(), &st) == 0);
        if (S_ISREG(st.st_mode)) {
            out[fs::relative(e.path(), root).string()] =
                file_state{read_file(e.path()), static_cast<std::uint64_t>(st.st_ino),
                           static_cast<unsigned>(st.st_mode),
                           st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                           st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
        }
    }
    return out;
}

std::uint64_t inode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::lstat(p.c_str(), &st) == 0);
    return static_cast<std::uint64_t>(st.st_ino);
}

// A tree of two groups: {a/one, b/one, b/two} ("x..."), {a/s, c/s} ("small").
void plant(const temp_dir& dir) {
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    fs::create_directories(dir / "c");
    const std::string big(100000, 'x');
    write_file(dir / "a" / "one", big);
    write_file(dir / "b" / "one", big);
    write_file(dir / "b" / "two", big);
    write_file(dir / "a" / "s", "small");
    write_file(dir / "c" / "s", "small");
    write_file(dir / "c" / "lone", "lone");
}

std::vector<action_record> act(const std::vector<fs::path>& roots, duplicate_action action,
                               bool dry_run = false) {
    const auto found = fastread::find_duplicate_files(roots);
    fastread::action_options o;
    o.action = action;
    o.dry_run = dry_run;
    return fastread::act_on_duplicates(roots, found.groups, o);
}

// "outcome file kept" per record, to compare runs.
std::vector<std::string> lines_of(const std::vector<action_record>& records) {
    std::vector<std::string> out;
    for (const action_record& r : records) {
        out.push_back((r.outcome == action_outcome::done || r.outcome == action_outcome::planned
                           ? std::string("acted ")
                           : std::to_string(static_cast<int>(r.outcome)) + " ") +
                      r.file.string() + " => " + r.kept.string());
    }
    return out;
}

} // namespace

TEST_CASE("act_on_duplicates: link leaves one inode per group, every path and its bytes",
          "[duplicates][actions]") {
    temp_dir dir;
    plant(dir);
    const auto before = snapshot(dir.path());
    const auto records = act({dir.path()}, duplicate_action::link);
    REQUIRE(records.size() == 3);
    for (const action_record& r : records) {
        CHECK(r.outcome == action_outcome::done);
    }
    CHECK(lines_of(records) ==
          std::vector<std::string>{
              "acted " + (dir / "b/one").string() + " => " + (dir / "a/one").string(),
              "acted " + (dir / "b/two").string() + " => " + (dir / "a/one").string(),
              "acted " + (dir / "c/s").string() + " => " + (dir / "a/s").string()});
    const auto after = snapshot(dir.path());
    REQUIRE(after.size() == before.size());
    for (const auto& [path, st] : before) {
        CHECK(after.at(path).bytes == st.bytes);
    }
    CHECK(inode_of(dir / "b/one") == inode_of(dir / "a/one"));
    CHECK(inode_of(dir / "b/two") == inode_of(dir / "a/one"));
    CHECK(inode_of(dir / "c/s") == inode_of(dir / "a/s"));
    CHECK(after.at("a/one").inode == before.at("a/one").inode); // the kept copy stays
    CHECK(after.at("c/lone") == before.at("c/lone"));
    // No temporary name left behind.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir.path())) {
        ++entries;
    }
    CHECK(entries == 9);
    // Files already linked are not acted on again (and with -H they are one group).
    fastread::duplicate_options with_links;
    with_links.hardlinks_are_duplicates = true;
    const std::vector<fs::path> roots{dir.path()};
    const auto again = fastread::find_duplicate_files(roots, with_links);
    REQUIRE(again.groups.size() == 2);
    fastread::action_options o;
    o.action = duplicate_action::link;
    CHECK(fastread::act_on_duplicates(roots, again.groups, o).empty());
    CHECK(snapshot(dir.path()) == after);
}

TEST_CASE("act_on_duplicates: remove keeps exactly the first file of each group",
          "[duplicates][actions]") {
    temp_dir dir;
    plant(dir);
    const auto before = snapshot(dir.path());
    const auto records = act({dir.path()}, duplicate_action::remove);
    CHECK(records.size() == 3);
    const auto after = snapshot(dir.path());
    CHECK(after.size() == 3);
    CHECK(after.at("a/one") == before.at("a/one"));
    CHECK(after.at("a/s") == before.at("a/s"));
    CHECK(after.at("c/lone") == before.at("c/lone"));
}

TEST_CASE("act_on_duplicates: a dry run changes nothing and plans what the real run does",
          "[duplicates][actions]") {
    for (const duplicate_action action : {duplicate_action::link, duplicate_action::remove}) {
        temp_dir dir;
        plant(dir);
        const auto before = snapshot(dir.path());
        const auto planned = act({dir.path()}, action, true);
        for (const action_record& r : planned) {
            CHECK(r.outcome == action_outcome::planned);
        }
        CHECK(snapshot(dir.path()) == before);
        const auto done = act({dir.path()}, action);
        CHECK(lines_of(planned) == lines_of(done));
        CHECK(planned.size() == 3);
    }
}

TEST_CASE("act_on_duplicates: a file changed since the scan is skipped and named",
          "[duplicates][actions]") {
    temp_dir dir;
    plant(dir);
    const std::vector<fs::path> roots{dir.path()};
    const auto found = fastread::find_duplicate_files(roots);
    // Same size, other bytes, and then the times put back as they were (cp -a does this):
    // only the status-change time tells.
    struct stat st {};
    REQUIRE(::stat((dir / "b/two").c_str(), &st) == 0);
    write_file(dir / "b/two", std::string(100000, 'y'));
    const timespec times[2] = {st.st_atim, st.st_mtim};
    REQUIRE(::utimensat(AT_FDCWD, (dir / "b/two").c_str(), times, 0) == 0);
    // Dry runs first: the real link changes the kept copy's status-change time.
    for (const duplicate_action action :
         {duplicate_action::remove, duplicate_action::dedupe, duplicate_action::link}) {
        fastread::action_options o;
        o.action = action;
        o.dry_run = action != duplicate_action::link;
        const auto records = fastread::act_on_duplicates(roots, found.groups, o);
        bool named = false;
        for (const action_record& r : records) {
            if (r.file == dir / "b/two") {
                named = true;
                CHECK(r.outcome == action_outcome::skipped);
                CHECK(r.reason == "changed since the scan");
            }
        }
        CHECK(named);
    }
    CHECK(read_file(dir / "b/two") == std::string(100000, 'y'));
    CHECK(inode_of(dir / "b/two") != inode_of(dir / "a/one"));
}

TEST_CASE("act_on_duplicates: when the kept copy changed, its group is left alone",
          "[duplicates][actions]") {
    temp_dir dir;
    plant(dir);
    const std::vector<fs::path> roots{dir.path()};
    const auto found = fastread::find_duplicate_files(roots);
    write_file(dir / "a/one", std::string(100000, 'z'));
    fastread::action_options o;
    o.action = duplicate_action::remove;
    const auto records = fastread::act_on_duplicates(roots, found.groups, o);
    std::size_t skipped = 0;
    for (const action_record& r : records) {
        if (r.kept == dir / "a/one") {
            CHECK(r.outcome == action_outcome::skipped);
            CHECK(r.reason == "the kept copy changed since the scan");
            ++skipped;
        }
    }
    CHECK(skipped == 2);
    CHECK(fs::exists(dir / "b/one"));
    CHECK(fs::exists(dir / "b/two"));
    CHECK_FALSE(fs::exists(dir / "c/s")); // the other group was not concerned
}

TEST_CASE("act_on_duplicates: a directory swapped for a symbolic link stops the action",
          "[duplicates][actions]") {
    temp_dir dir, outside;
    plant(dir);
    const std::vector<fs::path> roots{dir.path()};
    const auto found = fastread::find_duplicate_files(roots);
    // b/ becomes a link to a directory outside the tree holding files of the same names.
    fs::create_directories(outside / "b");
    const std::string big(100000, 'x');
    write_file(outside / "b/one", big);
    write_file(outside / "b/two", big);
    fs::rename(dir / "b", dir / "b-old");
    fs::create_directory_symlink(outside / "b", dir / "b");
    const auto outside_before = snapshot(outside.path());
    for (const duplicate_action action : {duplicate_action::remove, duplicate_action::link}) {
        fastread::action_options o;
        o.action = action;
        const auto records = fastread::act_on_duplicates(roots, found.groups, o);
        for (const action_record& r : records) {
            if (r.file.parent_path() == dir / "b") {
                CHECK(r.outcome == action_outcome::skipped);
                // O_NOFOLLOW with O_DIRECTORY: ENOTDIR on Linux, ELOOP elsewhere.
                CHECK((r.error == std::errc::not_a_directory ||
                       r.error == std::errc::too_many_symbolic_link_levels));
            }
        }
    }
    CHECK(snapshot(outside.path()) == outside_before);
}

TEST_CASE("act_on_duplicates: one path reached twice is no duplicate of itself",
          "[duplicates][actions]") {
    temp_dir dir;
    write_file(dir / "only", "the only copy");
    const std::vector<fs::path> roots{dir.path(), dir.path()};
    const auto found = fastread::find_duplicate_files(roots);
    CHECK(found.groups.empty());
    // Even a group made by hand of the same file twice, by two roots.
    const auto one = fastread::find_duplicate_files(std::vector<fs::path>{dir.path()}, [] {
        fastread::duplicate_options o;
        o.list_unique = true;
        return o;
    }());
    REQUIRE(one.unique.size() == 1);
    std::vector<std::vector<fastread::duplicate_file>> groups{{one.unique[0], one.unique[0]}};
    groups[0][1].root = 1;
    fastread::action_options o;
    o.action = duplicate_action::remove;
    CHECK(fastread::act_on_duplicates(roots, groups, o).empty());
    CHECK(read_file(dir / "only") == "the only copy");
}

TEST_CASE("act_on_duplicates: protected files are never acted on and are kept first",
          "[duplicates][actions]") {
    temp_dir dir;
    plant(dir);
    const std::vector<fs::path> roots{dir.path()};
    const auto found = fastread::find_duplicate_files(roots);
    fastread::action_options o;
    o.action = duplicate_action::remove;
    o.protect = [&](const fastread::duplicate_file& f) {
        return f.path.parent_path() == dir / "b";
    };
    const auto records = fastread::act_on_duplicates(roots, found.groups, o);
    REQUIRE(records.size() == 2);
    CHECK(records[0].file == dir / "a/one");
    CHECK(records[0].kept == dir / "b/one");
    CHECK(records[1].file == dir / "c/s"); // no protected file: the first is kept
    CHECK(fs::exists(dir / "b/one"));
    CHECK(fs::exists(dir / "b/two"));
    CHECK_FALSE(fs::exists(dir / "a/one"));
}

TEST_CASE("act_on_duplicates: a failure at any system call leaves every path as it was",
          "[duplicates][actions]") {
    using fastread::detail::sys::hook_table;
    using fastread::detail::sys::hooks;
    struct fault {
        const char* name;
        duplicate_action action;
        void (*arm)(hook_table&);
    };
    const fault faults[] = {
        {"linkat", duplicate_action::link,
         [](hook_table& h) {
             h.linkat = [](int, const char*, int, const char*, int) {
                 errno = EPERM;
                 return -1;
             };
         }},
        {"renameat", duplicate_action::link,
         [](hook_table& h) {
             h.renameat = [](int, const char*, int, const char*) {
                 errno = EIO;
                 return -1;
             };
         }},
        {"unlinkat", duplicate_action::remove,
         [](hook_table& h) {
             h.unlinkat = [](int, const char*, int) {
                 errno = EROFS;
                 return -1;
             };
         }},
        {"ioctl", duplicate_action::dedupe,
         [](hook_table& h) {
             h.ioctl = [](int, unsigned long, void*) {
                 errno = EIO;
                 return -1;
             };
         }},
    };
    for (const fault& f : faults) {
        SECTION(f.name) {
            if (f.action == duplicate_action::dedupe && !FASTREAD_LINUX_CALLS) {
                return; // no FIDEDUPERANGE with FASTREAD_POSIX_FALLBACKS: no call to fail
            }
            temp_dir dir;
            plant(dir);
            const auto before = snapshot(dir.path());
            const hook_table saved = hooks();
            f.arm(hooks());
            std::vector<action_record> records;
            try {
                records = act({dir.path()}, f.action);
            } catch (...) {
                hooks() = saved;
                throw;
            }
            hooks() = saved;
            REQUIRE(records.size() == 3);
            for (const action_record& r : records) {
                CHECK(r.outcome == action_outcome::failed);
                CHECK(r.error.value() != 0);
            }
            // Every path, its bytes, inode, mode and modification time as they were (a link
            // made and removed again changed the kept copy's status-change time), and no
            // temporary name left.
            auto after = snapshot(dir.path());
            REQUIRE(after.size() == before.size());
            for (auto& [path, st] : after) {
                st.ctime_ns = before.at(path).ctime_ns;
            }
            CHECK(after == before);
        }
    }
}

TEST_CASE("act_on_duplicates: dedupe where the file system cannot share extents",
          "[duplicates][actions]") {
    // ext4 and tmpfs (where the tests' temporary directory is) have no FIDEDUPERANGE: each
    // file is reported unsupported and nothing changes. On XFS or Btrfs the dedupe is done;
    // tests/duplicates/reflink_test.cpp checks it on a copy-on-write file system.
    temp_dir dir;
    plant(dir);
    const auto before = snapshot(dir.path());
    const auto planned = act({dir.path()}, duplicate_action::dedupe, true);
    const auto records = act({dir.path()}, duplicate_action::dedupe);
    REQUIRE(records.size() == 3);
    CHECK(lines_of(planned) == lines_of(records)); // the dry run asks the file system too
    const bool unsupported = records[0].outcome == action_outcome::unsupported;
    for (const action_record& r : records) {
        CHECK(r.outcome == (unsupported ? action_outcome::unsupported : action_outcome::done));
    }
    CHECK(snapshot(dir.path()) == before);
}

TEST_CASE("act_on_duplicates: link never crosses devices", "[duplicates][actions]") {
    // Two roots on two file systems where the machine has them (/dev/shm, a tmpfs, and the
    // temporary directory).
    temp_dir dir;
    const fs::path shm = "/dev/shm";
    struct stat a {
    }, b{};
    if (::stat(shm.c_str(), &a) != 0 || ::stat(dir.path().c_str(), &b) != 0 ||
        a.st_dev == b.st_dev || ::access(shm.c_str(), W_OK) != 0) {
        WARN("no second file system to link across: not checked");
        return;
    }
    const fs::path there = shm / ("fastread-xdev-" + std::to_string(::getpid()));
    write_file(dir / "f", "same bytes");
    write_file(there, "same bytes");
    const std::vector<fs::path> roots{dir / "f", there};
    const auto found = fastread::find_duplicate_files(roots);
    fastread::action_options o;
    o.action = duplicate_action::link;
    const auto records = fastread::act_on_duplicates(roots, found.groups, o);
    fs::remove(there);
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome == action_outcome::skipped);
    CHECK(records[0].error == std::errc::cross_device_link);
}

TEST_CASE("order_duplicates: by time, status change, name, reversed", "[duplicates][actions]") {
    auto file = [](const char* path, std::int64_t mtime, std::int64_t ctime) {
        fastread::duplicate_file f;
        f.path = path;
        f.mtime_ns = mtime;
        f.ctime_ns = ctime;
        return f;
    };
    const std::vector<std::vector<fastread::duplicate_file>> groups{
        {file("a", 30, 10), file("b", 10, 30), file("c", 20, 20), file("d", 10, 40)}};
    auto order = [&](fastread::duplicate_order by, bool reverse) {
        auto g = groups;
        fastread::order_duplicates(g, by, reverse);
        std::string out;
        for (const auto& f : g[0]) {
            out += f.path.string();
        }
        return out;
    };
    CHECK(order(fastread::duplicate_order::time, false) == "bdca");
    CHECK(order(fastread::duplicate_order::ctime, false) == "acbd");
    CHECK(order(fastread::duplicate_order::name, false) == "abcd");
    CHECK(order(fastread::duplicate_order::time, true) == "acdb");
}

#endif // !_WIN32
