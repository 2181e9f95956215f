#include <fastread/detail/residency.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/source/mmap_source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#if !defined(_WIN32) // mincore, fork, mkfifo: the POSIX-only cases below
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "test_util.hpp"

using fastread_test::on_memory_file_system;

namespace {

// Calls `call(path)` and checks that it throws std::system_error with code `err` and a
// message naming the path and containing `what`.
template <class Call>
void check_refused(Call call, const std::filesystem::path& path, int err, const char* what) {
    try {
        call(path);
        FAIL("accepted " << path);
    } catch (const std::system_error& e) {
        CHECK(e.code().value() == err);
        CHECK_THAT(e.what(), Catch::Contains(path.string()) && Catch::Contains(what));
    }
}

} // namespace

#if defined(_WIN32) // Windows cannot drop or count a file's cached pages (page_cache.hpp)
TEST_CASE("on Windows preload reads the file and evict and resident_fraction say unsupported",
          "[page_cache][error]") {
    fastread_test::temp_dir dir;
    const auto path = dir / "f.bin";
    fastread_test::write_file(path, std::string(std::size_t{3} << 20, 'x'));
    fastread::page_cache::preload(path);
    check_refused([](const auto& p) { fastread::page_cache::evict(p); }, path, ENOTSUP,
                  "cannot be asked to drop");
    check_refused([](const auto& p) { (void)fastread::page_cache::resident_fraction(p); }, path,
                  ENOSYS, "mincore");
    fastread_test::write_file(dir / "empty", "");
    CHECK(fastread::page_cache::resident_fraction(dir / "empty") == 1.0);
    fastread::page_cache::preload(dir / "empty");
    CHECK_THROWS_AS(fastread::page_cache::resident_fraction(dir / "missing"), std::system_error);
    CHECK_THROWS_AS(fastread::page_cache::preload(dir / "missing"), std::system_error);
}
#else
TEST_CASE("evict drops a file's pages and preload brings all of them back", "[page_cache]") {
    fastread_test::temp_dir dir;
    if (on_memory_file_system(dir.path())) {
        WARN("skipped: " << dir.path() << " is on tmpfs/ramfs, where eviction is a no-op");
        return;
    }
    // 24 MiB: three times the kernel's 8 MiB read-ahead window, so a preload that only
    // issued one WILLNEED/readahead call would leave most of the file out.
    const auto path = dir / "big.bin";
    fastread_test::write_file(path, std::string(std::size_t{24} << 20, 'x'));

    fastread::page_cache::evict(path);
    const double after_evict = fastread::page_cache::resident_fraction(path);
    if (after_evict > 0.5) {
        WARN("skipped: this file system ignores POSIX_FADV_DONTNEED (resident " << after_evict
                                                                                << " after evict)");
        return;
    }
    CHECK(after_evict < 0.05);

    fastread::page_cache::preload(path);
    CHECK(fastread::page_cache::resident_fraction(path) > 0.99);

    fastread::page_cache::evict(path);
    CHECK(fastread::page_cache::resident_fraction(path) < 0.05);
}

TEST_CASE("resident_fraction of an empty file is 1 and a missing file throws",
          "[page_cache][error]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "empty", "");
    CHECK(fastread::page_cache::resident_fraction(dir / "empty") == 1.0);
    fastread::page_cache::evict(dir / "empty");
    fastread::page_cache::preload(dir / "empty");
    CHECK_THROWS_AS(fastread::page_cache::resident_fraction(dir / "missing"), std::system_error);
    CHECK_THROWS_AS(fastread::page_cache::evict(dir / "missing"), std::system_error);
    CHECK_THROWS_AS(fastread::page_cache::preload(dir / "missing"), std::system_error);
}

namespace {

// Resident pages of a file by mincore over a map of it: the independent count.
std::size_t mincore_pages(const void* map, std::size_t size) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> resident((size + page - 1) / page);
    REQUIRE(::mincore(const_cast<void*>(map), size, resident.data()) == 0);
    std::size_t count = 0;
    for (unsigned char r : resident) {
        count += r & 1u;
    }
    return count;
}

} // namespace

TEST_CASE("cachestat counts the pages mincore sees, and file_resident follows either",
          "[page_cache]") {
    fastread_test::temp_dir dir;
    const auto path = dir / "f.bin";
    // 4 MiB and 3 bytes: the last page is partly used.
    const std::size_t size = (std::size_t{4} << 20) + 3;
    fastread_test::write_file(path, std::string(size, 'y'));
    fastread::page_cache::preload(path);

    fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    const fastread::mmap_source mapped(fd.get());
    const void* map = mapped.bytes().data();
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t pages = (size + page - 1) / page;

    auto check = [&] {
        const std::size_t seen = mincore_pages(map, size);
        const std::optional<std::uint64_t> cached = fastread::detail::cached_pages(fd.get(), size);
        if (cached) {
            CHECK(*cached == seen);
        } else {
            WARN("this kernel has no cachestat(2): file_resident uses mincore");
        }
        CHECK(fastread::detail::file_resident(fd.get(), size, 100) == (seen == pages));
        CHECK(fastread::detail::file_resident(fd.get(), size, 95) == (seen * 100 >= pages * 95));
        CHECK(fastread::detail::mapping_resident(map, size, 95) == (seen * 100 >= pages * 95));
        return seen;
    };
    CHECK(check() == pages);
    CHECK(fastread::page_cache::resident_fraction(path) == 1.0);

    if (!on_memory_file_system(dir.path())) {
        fastread::page_cache::evict(path);
        if (check() * 2 < pages) {
            CHECK(fastread::page_cache::resident_fraction(path) < 0.5);
        } else {
            WARN("this file system ignores POSIX_FADV_DONTNEED");
        }
    }
    CHECK(fastread::detail::cached_pages(fd.get(), 0) == std::optional<std::uint64_t>(0));
}

TEST_CASE("cachestat refused for one file is still used for the next", "[page_cache]") {
    if (::geteuid() != 0) {
        WARN("skipped: needs root to run a child as another user");
        return;
    }
    fastread::detail::unique_fd probe = fastread::detail::open_read_only("/proc/self/exe");
    if (!fastread::detail::cached_pages(probe.get(), 1)) {
        WARN("skipped: this kernel has no cachestat(2)");
        return;
    }
    fastread_test::temp_dir dir;
    REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
    const std::size_t size = std::size_t{1} << 20;
    const auto theirs = dir / "root-owned.bin"; // 0644, owned by root
    const auto mine = dir / "nobody-owned.bin";
    fastread_test::write_file(theirs, std::string(size, 'a'));
    fastread_test::write_file(mine, std::string(size, 'b'));
    constexpr uid_t nobody = 65534;
    REQUIRE(::chown(mine.c_str(), nobody, nobody) == 0);
    fastread::page_cache::preload(theirs);
    fastread::page_cache::preload(mine);

    // The child, as nobody, asks about both; its exit status says what it saw.
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        if (::setgid(nobody) != 0 || ::setuid(nobody) != 0) {
            ::_exit(10);
        }
        try {
            fastread::detail::unique_fd a = fastread::detail::open_read_only(theirs);
            fastread::detail::unique_fd b = fastread::detail::open_read_only(mine);
            const std::optional<std::uint64_t> other =
                fastread::detail::cached_pages(a.get(), size);
            const std::optional<std::uint64_t> own = fastread::detail::cached_pages(b.get(), size);
            const auto pages = size / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
            // Kernels that restrict cachestat refuse the first (EPERM); older ones count it.
            if (other && *other != pages) {
                ::_exit(11);
            }
            ::_exit(own && *own == pages ? 0 : 12);
        } catch (...) {
            ::_exit(13);
        }
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

#endif

TEST_CASE("page_cache refuses what is not a regular file, and never waits on a FIFO",
          "[page_cache][error]") {
    fastread_test::temp_dir dir;
    std::vector<std::pair<std::filesystem::path, int>> refused{{dir / "directory", EISDIR}};
    std::filesystem::create_directory(dir / "directory");
#if !defined(_WIN32)                                      // Windows has no FIFOs in the file system
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0); // no writer: a blocking open hangs
    refused.emplace_back(dir / "fifo", EINVAL);
#endif
    auto check = [](auto call, const std::filesystem::path& path, int err) {
        check_refused(call, path, err, "not a regular file");
    };
    for (const auto& [path, err] : refused) {
        CAPTURE(path);
        check([](const auto& p) { fastread::page_cache::evict(p); }, path, err);
        check([](const auto& p) { fastread::page_cache::preload(p); }, path, err);
        check([](const auto& p) { (void)fastread::page_cache::resident_fraction(p); }, path, err);
    }
}
