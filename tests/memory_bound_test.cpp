// Loading never allocates more than a small constant plus what the input can justify: with
// the address space capped (setrlimit RLIMIT_AS, in a child process), tiny files that
// declare huge images are rejected with parse_error, not std::bad_alloc. Built without
// sanitizers (AddressSanitizer reserves terabytes of address space and cannot run under
// such a limit).

#include <fastread/csv.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <thread>
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

TEST_CASE("a 30-byte header declaring 2^30 x 2^30 pixels is over the default limit, from a file "
          "and a pipe, and so is a header over a lowered limit",
          "[memory][pnm]") {
    const std::string header = std::string("P5\n1073741824 1073741824\n255\n") + "\x01";
    REQUIRE(header.size() == 30);
    // What `load` reports: true for an over_limit parse_error at the maxval (byte 25).
    auto over_limit = [](auto load) {
        try {
            load();
        } catch (const fastread::parse_error& e) {
            return e.code() == make_error_code(fastread::errc::over_limit) && e.offset() == 25;
        }
        return false;
    };
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "huge.pgm", header);
    CHECK(capped([&] { return over_limit([&] { fastread::pnm::load(dir / "huge.pgm"); }); }) == 0);
    CHECK(capped([&] {
              return over_limit([&] {
                  fastread_test::pipe_feeder pipe(header);
                  fastread::read_source r(pipe.read_fd(), 7);
                  fastread::pnm::load(r);
              });
          }) == 0);
    CHECK(capped([&] {
              return over_limit([&] {
                  fastread_test::pipe_feeder pipe(header);
                  fastread::read_source r(pipe.read_fd(), 7);
                  fastread::pnm::row_reader<std::uint8_t> rows(r);
                  rows.next_image();
              });
          }) == 0);
    CHECK(capped([&] {
              return over_limit([&] {
                  std::vector<std::uint8_t> dst(16);
                  fastread::pnm::load_into(dir / "huge.pgm", std::span(dst), 16);
              });
          }) == 0);
    // 4 MB declared, a service's limit of 1 MiB: refused at the maxval (byte 13).
    const std::string small = std::string("P5 2000 2000 255\n") + "\x01\x02";
    fastread::load_options service;
    service.max_bytes = std::uint64_t{1} << 20;
    auto refused = [&](auto load) {
        try {
            load();
        } catch (const fastread::parse_error& e) {
            return e.code() == make_error_code(fastread::errc::over_limit) && e.offset() == 13;
        }
        return false;
    };
    fastread_test::write_file(dir / "small.pgm", small);
    CHECK(capped([&] {
              return refused([&] { fastread::pnm::load(dir / "small.pgm", service); });
          }) == 0);
    CHECK(capped([&] {
              return refused([&] {
                  fastread_test::pipe_feeder pipe(small);
                  fastread::read_source r(pipe.read_fd(), 7);
                  fastread::pnm::load(r, service);
              });
          }) == 0);
}

namespace {

// Bytes the main arena and the mmapped chunks of malloc hold now (glibc's mallinfo2; the
// test's own thread allocates from the main arena).
std::size_t heap_in_use() {
    const struct mallinfo2 mi = ::mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

} // namespace

TEST_CASE("pnm::row_reader reads a 1 GiB PGM from a pipe holding under 1 MiB of heap",
          "[memory][pnm]") {
    // 32768 x 32768 samples; raster byte o is ((o mod 2^20) * 7) mod 256, so that row k's
    // sample k mod 32768 is (7 k) mod 256.
    constexpr std::uint32_t side = 32768;
    const std::string header = "P5\n32768 32768\n255\n";
    std::vector<char> block(std::size_t{1} << 20);
    for (std::size_t i = 0; i < block.size(); ++i) {
        block[i] = static_cast<char>((i * 7) & 255);
    }
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::thread writer([&, out = fds[1]] {
        auto write_all = [out](const char* p, std::size_t n) {
            while (n > 0) {
                const ssize_t w = ::write(out, p, n);
                if (w <= 0) {
                    return false;
                }
                p += w;
                n -= static_cast<std::size_t>(w);
            }
            return true;
        };
        bool ok = write_all(header.data(), header.size());
        for (int k = 0; ok && k < 1024; ++k) {
            ok = write_all(block.data(), block.size());
        }
        ::close(out);
    });
    const std::size_t before = heap_in_use();
    std::size_t peak = before;
    std::uint64_t rows_read = 0, wrong = 0;
    {
        fastread::read_source source(fds[0]);
        fastread::pnm::row_reader<std::uint8_t> rows(source);
        const std::optional<fastread::pnm::header> h = rows.next_image();
        REQUIRE(h);
        CHECK(h->width == side);
        for (std::span<const std::uint8_t> row : rows) {
            wrong += row[rows_read % side] != ((rows_read * 7) & 255);
            ++rows_read;
            peak = std::max(peak, heap_in_use());
        }
        CHECK_FALSE(rows.next_image());
    }
    writer.join();
    ::close(fds[0]);
    CHECK(rows_read == side);
    CHECK(wrong == 0);
    CHECK(peak - before < (std::size_t{1} << 20));
}

TEST_CASE("csv::rows reads 1 GiB of CSV from a pipe holding under 8 MiB of heap", "[memory][csv]") {
    // A block of whole records, with quoted fields holding delimiters, doubled quotes and
    // line ends, written 1024 times; every record's fields are checked.
    std::string block;
    std::uint64_t block_rows = 0;
    while (block.size() < (std::size_t{1} << 20) - 100) {
        block += std::to_string(block_rows) + ",\"text, \"\"quoted\"\"\nover two lines\"," +
                 std::to_string(block_rows * 3) + "\n";
        ++block_rows;
    }
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::thread writer([&, out = fds[1]] {
        auto write_all = [out](const char* p, std::size_t n) {
            while (n > 0) {
                const ssize_t w = ::write(out, p, n);
                if (w <= 0) {
                    return false;
                }
                p += w;
                n -= static_cast<std::size_t>(w);
            }
            return true;
        };
        bool ok = write_all("id,text,value\n", 14);
        for (int k = 0; ok && k < 1024; ++k) {
            ok = write_all(block.data(), block.size());
        }
        ::close(out);
    });
    const std::size_t before = heap_in_use();
    std::size_t peak = before;
    std::uint64_t rows_read = 0, wrong = 0;
    {
        fastread::read_source source(fds[0]);
        for (const fastread::csv::row& row : fastread::csv::rows(source)) {
            const std::uint64_t i = rows_read % block_rows;
            wrong += row.size() != 3 || row[0] != std::to_string(i) ||
                     row[1] != "text, \"quoted\"\nover two lines" ||
                     row[2] != std::to_string(i * 3);
            if (++rows_read % 4096 == 0) {
                peak = std::max(peak, heap_in_use());
            }
        }
    }
    writer.join();
    ::close(fds[0]);
    CHECK(rows_read == block_rows * 1024);
    CHECK(wrong == 0);
    CHECK(peak - before < (std::size_t{8} << 20));
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
