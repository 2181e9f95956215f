// overwrites_in_place: true only where every byte of the range lies in blocks the file
// owns, written and unshared, on a file system that writes in place.

#include <fastread/detail/extents.hpp>
#include <fastread/detail/posix.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#if FASTREAD_LINUX_CALLS // statfs and fallocate for the extent cases
#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>
#endif

#include "test_util.hpp"

namespace {

using fastread::detail::overwrites_in_place;

// A file of `bytes` written as given (write_file), synced so that its blocks are allocated.
fastread::detail::unique_fd written(const std::filesystem::path& path, std::size_t bytes) {
    fastread_test::write_file(path, std::string(bytes, 'x'));
    fastread_test::sync_file(path);
    return fastread::detail::open_read_only(path);
}

#if FASTREAD_LINUX_CALLS
bool writes_in_place(const std::filesystem::path& dir) {
    struct statfs fs {};
    return ::statfs(dir.c_str(), &fs) == 0 &&
           (fs.f_type == 0xEF53 /* ext2/3/4 */ || fs.f_type == 0x58465342 /* XFS */);
}
#endif

} // namespace

TEST_CASE("overwrites_in_place is true over written blocks and false over holes and reserved "
          "ranges",
          "[extents]") {
    fastread_test::temp_dir dir;
    const std::size_t mib = std::size_t{1} << 20;
#if !FASTREAD_LINUX_CALLS
    // Only the POSIX fallbacks, or Windows: no extent map to ask, so never in place (stores
    // use positioned writes).
    const auto full = written(dir / "full", mib);
    CHECK_FALSE(overwrites_in_place(full.get(), mib));
#else
    if (!writes_in_place(dir.path())) {
        WARN("skipped: " << dir.path() << " is neither ext4 nor XFS");
        return;
    }

    SECTION("a file written and synced") {
        const auto fd = written(dir / "full", 8 * mib + 123);
        CHECK(overwrites_in_place(fd.get(), 8 * mib + 123));
        CHECK(overwrites_in_place(fd.get(), 4096));           // any prefix of it
        CHECK_FALSE(overwrites_in_place(fd.get(), 16 * mib)); // past its blocks
    }
    SECTION("a sparse file") {
        const auto path = dir / "sparse";
        const int raw = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
        REQUIRE(raw >= 0);
        const fastread::detail::unique_fd fd(raw);
        REQUIRE(::ftruncate(fd.get(), static_cast<off_t>(8 * mib)) == 0);
        CHECK_FALSE(overwrites_in_place(fd.get(), 8 * mib));
    }
    SECTION("a hole between written blocks") {
        const auto path = dir / "holed";
        {
            const auto fd = written(path, 3 * mib);
            (void)fd;
        }
        const int raw = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        REQUIRE(raw >= 0);
        const fastread::detail::unique_fd fd(raw);
        if (::fallocate(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        static_cast<off_t>(mib), static_cast<off_t>(mib)) != 0) {
            WARN("skipped: no hole punching here");
            return;
        }
        CHECK(overwrites_in_place(fd.get(), mib));
        CHECK_FALSE(overwrites_in_place(fd.get(), 3 * mib));
    }
    SECTION("fallocated, never written (unwritten extents)") {
        const auto path = dir / "reserved";
        const int raw = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
        REQUIRE(raw >= 0);
        const fastread::detail::unique_fd fd(raw);
        REQUIRE(::fallocate(fd.get(), 0, 0, static_cast<off_t>(4 * mib)) == 0);
        CHECK_FALSE(overwrites_in_place(fd.get(), 4 * mib));
    }
    SECTION("not a file with blocks") {
        CHECK_FALSE(overwrites_in_place(-1, 4096));
        const auto fd = fastread::detail::open_read_only("/proc/self/status");
        CHECK_FALSE(overwrites_in_place(fd.get(), 100));
    }
#endif
}
