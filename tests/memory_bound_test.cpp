// Loading never allocates more than a small constant plus what the input can justify: with
// the address space capped (setrlimit RLIMIT_AS, in a child process), tiny files that
// declare huge images are rejected with parse_error, not std::bad_alloc. Built without
// sanitizers (AddressSanitizer reserves terabytes of address space and cannot run under
// such a limit).

#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

constexpr rlim_t address_space_limit = rlim_t{512} << 20; // far below any declared size

// Runs `body` in a child whose address space is capped; returns its exit status: 0 when
// body returned true, 1 on false, 2 on std::bad_alloc, 3 on any other exception.
template <class Body>
int capped(Body body) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        struct rlimit limit {
            address_space_limit, address_space_limit
        };
        if (::setrlimit(RLIMIT_AS, &limit) != 0) {
            ::_exit(4);
        }
        int code = 3;
        try {
            code = body() ? 0 : 1;
        } catch (const std::bad_alloc&) {
            code = 2;
        } catch (...) {
            code = 3;
        }
        ::_exit(code);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

template <class Sample>
bool rejected_from_memory(const std::string& bytes) {
    try {
        fastread::memory_source m(std::span<const char>(bytes.data(), bytes.size()));
        fastread::ppm::load<Sample>(m);
    } catch (const fastread::parse_error&) {
        return true;
    }
    return false;
}

template <class Sample>
bool rejected_from_pipe(const std::string& bytes) {
    try {
        fastread_test::pipe_feeder pipe(bytes);
        fastread::read_source r(pipe.read_fd(), 7);
        fastread::ppm::load<Sample>(r);
    } catch (const fastread::parse_error&) {
        return true;
    }
    return false;
}

} // namespace

TEST_CASE("the address-space cap is in force (positive control)", "[memory]") {
    CHECK(capped([] {
              std::vector<char> big(std::size_t{1} << 30); // 1 GiB: above the cap
              fastread_test::escape(big.data());
              return big.data() != nullptr;
          }) == 2);
}

TEST_CASE("tiny files declaring huge images are rejected without a huge allocation", "[memory]") {
    const std::string raw = std::string("P6 65536 65536 255\n") + "\x01\x02\x03\x04";
    REQUIRE(raw.size() < 40);
    std::string plain = "P3 100000 100000 255\n1 2 3 4 5 ";
    CHECK(capped([&] { return rejected_from_memory<std::uint8_t>(raw); }) == 0);
    CHECK(capped([&] { return rejected_from_pipe<std::uint8_t>(raw); }) == 0);
    CHECK(capped([&] { return rejected_from_memory<std::uint16_t>(raw); }) == 0);
    CHECK(capped([&] { return rejected_from_pipe<std::uint16_t>(raw); }) == 0);
    CHECK(capped([&] { return rejected_from_memory<std::uint8_t>(plain); }) == 0);
    CHECK(capped([&] { return rejected_from_pipe<std::uint8_t>(plain); }) == 0);
    CHECK(capped([&] {
              fastread_test::temp_dir dir;
              fastread_test::write_file(dir / "huge.ppm", plain);
              try {
                  fastread::ppm::load(dir / "huge.ppm");
              } catch (const fastread::parse_error&) {
                  return true;
              }
              return false;
          }) == 0);
}

TEST_CASE("where the address space cannot hold a map, the default paths read instead", "[memory]") {
    // 600 MiB, mostly holes, a line break at the end of every MiB: more than the cap lets a
    // map take (mmap fails with ENOMEM), little to read.
    fastread_test::temp_dir dir;
    constexpr std::uint64_t mib = std::uint64_t{1} << 20, size = 600 * mib;
    for (const char* name : {"a.log", "b.log"}) {
        const int fd = ::open((dir / name).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
        for (std::uint64_t at = mib - 1; at < size; at += mib) {
            REQUIRE(::pwrite(fd, "\n", 1, static_cast<off_t>(at)) == 1);
        }
        ::close(fd);
    }
    CHECK(capped([&] {
              fastread::line_options o;
              o.io = fastread::io_mode::map;
              std::uint64_t n = 0;
              for (std::string_view line : fastread::lines(dir / "a.log", o)) {
                  n += line.size() == mib - 1;
              }
              return n == 600;
          }) == 0);
    CHECK(capped([&] {
              fastread::compare_options o;
              o.io = fastread::io_mode::map;
              return fastread::files_equal(dir / "a.log", dir / "b.log", o);
          }) == 0);
}
