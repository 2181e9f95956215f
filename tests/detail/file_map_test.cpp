// The file layer's map and its SIGBUS guard: a guarded map of a file that shrinks reads
// zeros past the new end and says where; a SIGBUS elsewhere still reaches the handler that
// was there before, or the default action.

#include <fastread/detail/file_map.hpp>

#include <catch2/catch.hpp>

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <string>
#include <system_error>

#if !defined(_WIN32) // SIGBUS, fork and ftruncate: the guard's cases, POSIX-only
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "test_util.hpp"

using fastread::detail::file_map;

#if !defined(_WIN32)
namespace {

// Runs `body` in a child process; returns its wait status.
template <class Body>
int in_child(Body body) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::_exit(body());
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    return status;
}

int read_write_fd(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    REQUIRE(fd >= 0);
    return fd;
}

sigjmp_buf user_jump;
void user_handler(int) {
    siglongjmp(user_jump, 1);
}

} // namespace
#endif

TEST_CASE("file_map maps a file read-only, and nothing for size 0", "[file_map]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "f", "hello map");
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(dir / "f");
    const file_map m(fd.get(), 9, file_map::access::read_only, file_map::sharing::shared,
                     dir / "f");
    CHECK(std::string(m.data(), m.size()) == "hello map");
    CHECK(m.lost() == -1);
    const file_map empty(fd.get(), 0, file_map::access::read_only, file_map::sharing::shared,
                         dir / "f");
    CHECK_FALSE(empty);
    CHECK(empty.size() == 0);
    int err = 0;
    const file_map fails =
        file_map::try_map(-1, 9, file_map::access::read_only, file_map::sharing::shared, err);
    CHECK(err == EBADF);
    CHECK_FALSE(fails);
    CHECK_THROWS_WITH(
        file_map(-1, 9, file_map::access::read_only, file_map::sharing::shared, dir / "f"),
        Catch::Contains("mmap") && Catch::Contains((dir / "f").string()));
#if defined(_WIN32)
    CHECK(fastread::detail::page_size() == 4096); // x86-64 Windows
#else
    CHECK(fastread::detail::page_size() == static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
#endif
}

#if defined(_WIN32)
// Why Windows needs no guard (bus_guard.hpp): it refuses to shrink a file with a mapped view,
// so the map keeps every byte; once the map is gone the file can shrink.
TEST_CASE("on Windows a mapped file cannot shrink and its map keeps its bytes", "[file_map]") {
    fastread_test::temp_dir dir;
    const auto path = dir / "f";
    const std::size_t page = fastread::detail::page_size();
    fastread_test::write_file(path, std::string(4 * page, 'e'));
    {
        fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
        file_map m(fd.get(), 4 * page, file_map::access::read_only, file_map::sharing::shared,
                   path);
        REQUIRE(m.guard());
        CHECK_FALSE(fastread_test::resize_file(path, page));
        CHECK(std::string(m.data(), m.size()) == std::string(4 * page, 'e'));
        CHECK(m.lost() == -1);
    }
    CHECK(fastread_test::resize_file(path, page));
    CHECK(std::filesystem::file_size(path) == page);
}
#else

TEST_CASE("a guarded map of a file that shrank reads zeros past the end and says where",
          "[file_map]") {
    const std::size_t page = fastread::detail::page_size();
    fastread_test::temp_dir dir;
    const auto path = dir / "shrinks.bin";
    fastread_test::write_file(path, std::string(8 * page, 'a'));
    const int raw = read_write_fd(path);
    fastread::detail::unique_fd fd(raw);
    file_map m(fd.get(), 8 * page, file_map::access::read_only, file_map::sharing::shared, path);
    REQUIRE(m.guard());
    CHECK(m.data()[5 * page] == 'a');
    // Another writer cuts the file to 2.5 pages, as logrotate's copytruncate would.
    REQUIRE(::ftruncate(fd.get(), static_cast<off_t>(2 * page + page / 2)) == 0);
    CHECK(m.data()[page] == 'a');              // still in the file
    CHECK(m.data()[2 * page + page / 2] == 0); // the rest of the last page: zeros, no fault
    CHECK(m.lost() == -1);
    CHECK(m.data()[6 * page] == 0); // past the end: the guard's zero pages instead of SIGBUS
    CHECK(m.lost() == static_cast<std::int64_t>(6 * page));
    CHECK(m.data()[3 * page] == 0); // the fault replaced pages from 6 on; 3 faults again
    CHECK(m.lost() == static_cast<std::int64_t>(3 * page));
    CHECK(m.data()[7 * page + 1] == 0);
}

namespace {

// In a child whose SIGBUS disposition is `handler`: a guarded map of fastread's and the
// program's own unguarded map of one 4-page file, which is then cut to nothing; `after`
// touches them and returns the child's exit status (10-12: the setup failed).
template <class After>
int with_both_maps(void (*handler)(int), After after) {
    const std::size_t page = fastread::detail::page_size();
    fastread_test::temp_dir dir;
    const auto path = dir / "theirs.bin";
    fastread_test::write_file(path, std::string(4 * page, 'b'));
    return in_child([&] {
        struct sigaction sa {};
        sa.sa_handler = handler;
        sigemptyset(&sa.sa_mask);
        if (::sigaction(SIGBUS, &sa, nullptr) != 0) {
            return 10;
        }
        const int fd = ::open(path.c_str(), O_RDWR);
        // fastread's guard installs its handler over the one above.
        file_map ours(fd, 4 * page, file_map::access::read_only, file_map::sharing::shared, path);
        if (!ours.guard()) {
            return 11;
        }
        void* theirs = ::mmap(nullptr, 4 * page, PROT_READ, MAP_SHARED, fd, 0);
        if (theirs == MAP_FAILED || ::ftruncate(fd, 0) != 0) {
            return 12;
        }
        return after(ours, static_cast<const char*>(theirs) + 2 * page);
    });
}

} // namespace

TEST_CASE("a guarded writable map of a file that shrank takes stores past the end and says "
          "where",
          "[file_map]") {
    const std::size_t page = fastread::detail::page_size();
    fastread_test::temp_dir dir;
    const auto path = dir / "shrinks.bin";
    fastread_test::write_file(path, std::string(8 * page, 'a'));
    fastread::detail::unique_fd fd(read_write_fd(path));
    file_map m(fd.get(), 8 * page, file_map::access::read_write, file_map::sharing::shared, path);
    REQUIRE(m.guard());
    m.data()[page] = 'b'; // reaches the file
    REQUIRE(::ftruncate(fd.get(), static_cast<off_t>(2 * page)) == 0);
    CHECK(m.lost() == -1);
    m.data()[5 * page] = 'c'; // past the end: stored into the guard's pages, no SIGBUS
    CHECK(m.lost() == static_cast<std::int64_t>(5 * page));
    CHECK(m.data()[5 * page] == 'c');
    m.data()[page + 1] = 'd'; // still in the file
    CHECK(fastread_test::read_file(path) ==
          std::string(page, 'a') + "bd" + std::string(page - 2, 'a'));
}

TEST_CASE("a SIGBUS outside fastread's maps reaches the earlier handler", "[file_map]") {
    const int status = with_both_maps(&user_handler, [](const file_map& ours, const char* lost) {
        if (sigsetjmp(user_jump, 1) == 0) {
            volatile char c = *lost;
            (void)c;
            return 13; // no signal at all
        }
        // The user's handler ran. fastread's map is still guarded.
        const std::size_t page = fastread::detail::page_size();
        volatile char c = ours.data()[2 * page];
        return c == 0 && ours.lost() == static_cast<std::int64_t>(2 * page) ? 0 : 14;
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a SIGBUS outside fastread's maps, with no earlier handler, ends the process",
          "[file_map]") {
    const int status = with_both_maps(SIG_DFL, [](const file_map&, const char* lost) {
        volatile char c = *lost;
        (void)c;
        return 13; // survived: the guard swallowed a fault that was not its own
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGBUS);
}

TEST_CASE("guards are released with their maps, so slots never run out", "[file_map]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "f", std::string(100, 'd'));
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(dir / "f");
    for (std::size_t i = 0; i < 3 * fastread::detail::bus_guard_table::slots; ++i) {
        file_map m(fd.get(), 100, file_map::access::read_only, file_map::sharing::shared,
                   dir / "f");
        REQUIRE(m.guard());
    }
}
#endif
