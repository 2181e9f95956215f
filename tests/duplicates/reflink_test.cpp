// act_on_duplicates' dedupe on a real copy-on-write file system: scripts/test (as root)
// mounts an XFS image made with reflink=1 and names a directory on it in
// FASTREAD_REFLINK_DIR; the files of each group must then share their extents (FIEMAP),
// with their bytes, modes and times unchanged. Without that directory the test says so.
#include <fastread/detail/platform.hpp>
#include <fastread/duplicate_actions.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#if defined(__linux__)
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.hpp"

namespace fs = std::filesystem;

namespace {

// The physical start of each extent of the file (FIEMAP), in file order.
std::vector<std::uint64_t> extents_of(const fs::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    constexpr unsigned most = 64;
    std::vector<unsigned char> buffer(sizeof(fiemap) + most * sizeof(fiemap_extent));
    auto* map = reinterpret_cast<fiemap*>(buffer.data());
    map->fm_start = 0;
    map->fm_length = FIEMAP_MAX_OFFSET;
    map->fm_flags = FIEMAP_FLAG_SYNC;
    map->fm_extent_count = most;
    const int rc = ::ioctl(fd, FS_IOC_FIEMAP, map);
    ::close(fd);
    REQUIRE(rc == 0);
    std::vector<std::uint64_t> out;
    for (unsigned i = 0; i < map->fm_mapped_extents; ++i) {
        out.push_back(map->fm_extents[i].fe_physical);
    }
    return out;
}

struct meta {
    unsigned mode;
    std::int64_t mtime_ns, ctime_ns;
    bool operator==(const meta&) const = default;
};
meta meta_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return meta{static_cast<unsigned>(st.st_mode),
                st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
}

} // namespace

TEST_CASE("act_on_duplicates: dedupe shares extents on a copy-on-write file system",
          "[duplicates][actions][reflink]") {
    if (!FASTREAD_LINUX_CALLS) {
        WARN("built with FASTREAD_POSIX_FALLBACKS: dedupe is unsupported by design here");
        return;
    }
    const char* where = std::getenv("FASTREAD_REFLINK_DIR");
    if (where == nullptr || where[0] == '\0') {
        WARN("FASTREAD_REFLINK_DIR not set (scripts/test sets it as root, on an XFS image with "
             "reflink=1): dedupe on a copy-on-write file system NOT CHECKED");
        return;
    }
    const fs::path dir = fs::path(where) / ("dedupe-" + std::to_string(::getpid()));
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    // Two groups written separately (no reflink by cp): 5 MiB of random bytes, 3 copies;
    // 20 KiB, 2 copies; each copy with its own mode.
    std::mt19937_64 rng(42);
    std::string big(5 << 20, '\0'), small(20 << 10, '\0');
    for (char& c : big) {
        c = static_cast<char>(rng());
    }
    for (char& c : small) {
        c = static_cast<char>(rng());
    }
    const std::vector<fs::path> bigs{dir / "a/big", dir / "b/big", dir / "b/big2"};
    const std::vector<fs::path> smalls{dir / "a/small", dir / "b/small"};
    unsigned mode = 0600;
    for (const fs::path& p : bigs) {
        fastread_test::write_file(p, big);
        ::chmod(p.c_str(), mode++);
    }
    for (const fs::path& p : smalls) {
        fastread_test::write_file(p, small);
        ::chmod(p.c_str(), mode++);
    }
    ::sync();
    std::vector<meta> before;
    for (const auto& list : {bigs, smalls}) {
        for (const fs::path& p : list) {
            before.push_back(meta_of(p));
        }
    }
    CHECK(extents_of(bigs[0]) != extents_of(bigs[1]));
    const std::vector<fs::path> roots{dir};
    const auto found = fastread::find_duplicate_files(roots);
    REQUIRE(found.groups.size() == 2);
    fastread::action_options o;
    o.action = fastread::duplicate_action::dedupe;
    const auto records = fastread::act_on_duplicates(roots, found.groups, o);
    REQUIRE(records.size() == 3);
    for (const auto& r : records) {
        CHECK(r.outcome == fastread::action_outcome::done);
        INFO(r.reason);
    }
    CHECK(extents_of(bigs[1]) == extents_of(bigs[0]));
    CHECK(extents_of(bigs[2]) == extents_of(bigs[0]));
    CHECK(extents_of(smalls[1]) == extents_of(smalls[0]));
    std::size_t k = 0;
    for (const auto& list : {bigs, smalls}) {
        for (const fs::path& p : list) {
            CHECK(fastread_test::read_file(p) == (list.size() == 3 ? big : small));
            CHECK(meta_of(p) == before[k++]);
        }
    }
    // A copy whose bytes changed after the scan: the kernel's comparison refuses it.
    const auto again = fastread::find_duplicate_files(roots);
    std::string changed = small;
    changed[1000] ^= 1;
    fastread_test::write_file(smalls[1], changed);
    const auto refused = fastread::act_on_duplicates(roots, again.groups, o);
    bool seen = false;
    for (const auto& r : refused) {
        if (r.file == smalls[1]) {
            seen = true;
            CHECK(r.outcome == fastread::action_outcome::skipped);
        }
    }
    CHECK(seen);
    CHECK(fastread_test::read_file(smalls[1]) == changed);
#ifdef FASTREAD_DUPES
    // The tool: fastread-dupes -r --dedupe over fresh copies, exit status 0, extents shared,
    // bytes, modes and times as they were.
    const fs::path tool_dir = dir / "tool";
    fs::create_directories(tool_dir);
    const std::vector<fs::path> copies{tool_dir / "x", tool_dir / "y", tool_dir / "z"};
    for (const fs::path& p : copies) {
        fastread_test::write_file(p, big);
    }
    ::sync();
    std::vector<meta> tool_before;
    for (const fs::path& p : copies) {
        tool_before.push_back(meta_of(p));
    }
    CHECK(fastread_test::run_command(std::string("'") + FASTREAD_DUPES + "' -r --dedupe '" +
                                     tool_dir.string() + "'; echo $?") ==
          "dedupe " + copies[1].string() + " => " + copies[0].string() + "\ndedupe " +
              copies[2].string() + " => " + copies[0].string() + "\n0\n");
    for (std::size_t i = 0; i < copies.size(); ++i) {
        CHECK(extents_of(copies[i]) == extents_of(copies[0]));
        CHECK(fastread_test::read_file(copies[i]) == big);
        CHECK(meta_of(copies[i]) == tool_before[i]);
    }
#endif
    fs::remove_all(dir);
}
#endif
