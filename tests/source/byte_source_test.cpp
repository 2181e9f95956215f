#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

#if !defined(_WIN32)
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "test_util.hpp"

using namespace fastread;
using fastread_test::drain;
using fastread_test::temp_dir;
using fastread_test::write_file;

static_assert(byte_source<mmap_source> && contiguous_source<mmap_source>);
static_assert(byte_source<fread_source> && contiguous_source<fread_source>);
static_assert(byte_source<memory_source> && contiguous_source<memory_source>);
static_assert(byte_source<read_source> && direct_read_source<read_source> &&
              sized_source<read_source> && !contiguous_source<read_source>);
static_assert(byte_source<stdio_source> && direct_read_source<stdio_source>);
static_assert(byte_source<istream_source> && direct_read_source<istream_source>);
static_assert(!std::is_copy_constructible_v<mmap_source> &&
              std::is_move_constructible_v<mmap_source>);
static_assert(!std::is_copy_constructible_v<read_source>);

namespace {

std::string random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (char& c : s) {
        c = static_cast<char>(rng() & 0xff);
    }
    return s;
}

// What each source hands out, concatenated, for the file at `path`.
std::string via_mmap(const std::filesystem::path& p) {
    mmap_source s(p);
    return drain(s);
}
std::string via_fread(const std::filesystem::path& p) {
    fread_source s(p);
    return drain(s);
}
std::string via_read(const std::filesystem::path& p, std::size_t chunk) {
    read_source s(p, chunk);
    return drain(s);
}
std::string via_stdio(const std::filesystem::path& p, std::size_t chunk) {
    stdio_source s(p, chunk);
    return drain(s);
}
std::string via_istream(const std::filesystem::path& p, std::size_t chunk) {
    std::ifstream in(p, std::ios::binary);
    istream_source s(in, chunk);
    return drain(s);
}

} // namespace

TEST_CASE("every source delivers a file byte for byte", "[source]") {
    temp_dir dir;
    const std::size_t size = GENERATE(0, 1, 4095, 4096, 300000);
    const std::string bytes = random_bytes(size, static_cast<unsigned>(size));
    const auto path = dir / "file.bin";
    write_file(path, bytes);
    CAPTURE(size);

    CHECK(via_mmap(path) == bytes);
    CHECK(via_fread(path) == bytes);
    for (std::size_t chunk : {1, 2, 3, 7, 64, 65536}) {
        if (chunk == 1 && size > 5000) {
            continue; // one byte per system call: slow under the sanitizers, nothing new
        }
        CAPTURE(chunk);
        CHECK(via_read(path, chunk) == bytes);
        CHECK(via_stdio(path, chunk) == bytes);
        CHECK(via_istream(path, chunk) == bytes);
    }
    memory_source m(std::span<const char>(bytes.data(), bytes.size()));
    CHECK(drain(m) == bytes);
}

TEST_CASE("an empty file is one empty chunk for every source, then stays at the end", "[source]") {
    temp_dir dir;
    const auto path = dir / "empty";
    write_file(path, "");
    mmap_source m(path);
    CHECK(m.bytes().empty());
    CHECK(m.next().empty());
    CHECK(m.next().empty());
    fread_source f(path);
    CHECK(f.next().empty());
    read_source r(path);
    CHECK(r.next().empty());
    CHECK(r.next().empty());
    CHECK_FALSE(r.size_hint().has_value());
    stdio_source s(path);
    CHECK(s.next().empty());
    std::ifstream in(path, std::ios::binary);
    istream_source i(in);
    CHECK(i.next().empty());
}

TEST_CASE("contiguous sources expose the whole file once", "[source]") {
    temp_dir dir;
    const auto path = dir / "abc";
    write_file(path, "abc\n");
    mmap_source m(path);
    CHECK(std::string(m.bytes().data(), m.bytes().size()) == "abc\n");
    CHECK(m.next().size() == 4);
    CHECK(m.next().empty());
    CHECK(m.bytes().size() == 4); // still valid after the last chunk
    CHECK(m.path() == path);

    mmap_source moved(std::move(m));
    CHECK(std::string(moved.bytes().data(), moved.bytes().size()) == "abc\n");
}

TEST_CASE("read_into continues exactly where the last chunk ended", "[source]") {
    temp_dir dir;
    const std::string bytes = random_bytes(10000, 7);
    const auto path = dir / "f";
    write_file(path, bytes);

    read_source r(path, 100);
    auto first = r.next();
    REQUIRE(first.size() == 100);
    std::string rest(bytes.size() - 100 + 50, '\0'); // asks for 50 bytes too many
    std::size_t got = r.read_into(std::span<char>(rest.data(), rest.size()));
    CHECK(got == bytes.size() - 100);
    CHECK(rest.substr(0, got) == bytes.substr(100));
    CHECK(r.next().empty());

    stdio_source s(path, 64);
    s.next();
    std::string tail(bytes.size() - 64, '\0');
    CHECK(s.read_into(std::span<char>(tail.data(), tail.size())) == tail.size());
    CHECK(tail == bytes.substr(64));

    std::ifstream in(path, std::ios::binary);
    istream_source i(in, 10);
    i.next();
    std::string tail2(bytes.size() - 10, '\0');
    CHECK(i.read_into(std::span<char>(tail2.data(), tail2.size())) == tail2.size());
    CHECK(tail2 == bytes.substr(10));
}

TEST_CASE("size_hint is the bytes left from a regular file's current position", "[source]") {
    temp_dir dir;
    const auto path = dir / "f";
    write_file(path, std::string(1000, 'x'));
    read_source r(path);
    REQUIRE(r.size_hint().has_value());
    CHECK(*r.size_hint() == 1000);

    std::FILE* f = fastread_test::open_file(path, "rb");
    REQUIRE(f != nullptr);
    std::fseek(f, 300, SEEK_SET);
    {
        stdio_source s(f);
        REQUIRE(s.size_hint().has_value());
        CHECK(*s.size_hint() == 700);
        CHECK(drain(s) == std::string(700, 'x'));
    }
    std::fclose(f);

    fastread_test::pipe_feeder pipe("data");
    read_source p(pipe.read_fd());
    CHECK_FALSE(p.size_hint().has_value());
}

TEST_CASE("mmap_source refuses what cannot be mapped, with std::system_error", "[source]") {
    temp_dir dir;
#if !defined(_WIN32) // pipes by path (/proc/self/fd), FIFOs, /proc files
    SECTION("a pipe") {
        fastread_test::pipe_feeder pipe("P6 1 1 255\n...");
        const std::string proc_path = "/proc/self/fd/" + std::to_string(pipe.read_fd());
        try {
            mmap_source m(proc_path);
            FAIL("mapped a pipe");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::no_such_device);
            CHECK_THAT(e.what(), Catch::Contains(proc_path));
        }
        CHECK_THROWS_AS(mmap_source(pipe.read_fd()), std::system_error);
    }
    SECTION("a FIFO with no writer (must not hang)") {
        const auto fifo = dir / "fifo";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        CHECK_THROWS_AS(mmap_source(fifo), std::system_error);
    }
    SECTION("a /proc file whose size fstat does not know") {
        try {
            mmap_source m("/proc/self/status");
            FAIL("mapped a /proc file as empty");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::no_such_device);
        }
    }
#endif
    SECTION("a directory") {
        try {
            mmap_source m(dir.path());
            FAIL("mapped a directory");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::is_a_directory);
            const fastread::result<mmap_source> r = mmap_source::try_open(dir.path());
            REQUIRE_FALSE(r);
            CHECK(r.error().code() == e.code());
            CHECK(r.error().message() == e.what());
        }
    }
}

TEST_CASE("a missing file is std::system_error naming the path, from every source",
          "[source][error]") {
    temp_dir dir;
    const auto missing = dir / "missing.ppm";
    auto check = [&](auto&& make) {
        try {
            make();
            FAIL("opened a missing file");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::no_such_file_or_directory);
            CHECK_THAT(e.what(), Catch::Contains(missing.string()));
        }
    };
    check([&] { mmap_source s(missing); });
    check([&] { fread_source s(missing); });
    check([&] { read_source s(missing); });
    check([&] { stdio_source s(missing); });
}

TEST_CASE("streaming sources read /proc files and pipes", "[source]") {
#if !defined(_WIN32)
    read_source proc("/proc/self/status", 16);
    const std::string status = drain(proc);
    CHECK_THAT(status, Catch::Contains("Name:"));
    fread_source whole("/proc/self/status");
    CHECK_THAT(std::string(whole.bytes().data(), whole.bytes().size()), Catch::Contains("Name:"));
#endif

    const std::string bytes = random_bytes(200000, 3); // more than a pipe buffer holds
    {
        fastread_test::pipe_feeder pipe(bytes);
        read_source r(pipe.read_fd(), 4096);
        CHECK(drain(r) == bytes);
    }
    {
        fastread_test::pipe_feeder pipe(bytes);
        std::FILE* f = pipe.take_file();
        {
            stdio_source s(f, 1000);
            CHECK(drain(s) == bytes);
        }
        std::fclose(f);
    }
    {
        fastread_test::pipe_feeder pipe(bytes);
        std::FILE* f = pipe.take_file();
        {
            fread_source s(f);
            CHECK(std::string(s.bytes().data(), s.bytes().size()) == bytes);
        }
        std::fclose(f);
    }
}

TEST_CASE("a borrowed descriptor, FILE* or stream is never closed", "[source]") {
    temp_dir dir;
    const auto path = dir / "f";
    write_file(path, "0123456789");

    const int fd = fastread_test::open_descriptor(path);
    REQUIRE(fd >= 0);
    {
        read_source r(fd, 4);
        CHECK(std::string(r.next().data(), 4) == "0123");
    }
    CHECK(fastread_test::descriptor_open(fd));
    {
        mmap_source m(fd);
        CHECK(m.bytes().size() == 10);
    }
    CHECK(fastread_test::descriptor_open(fd));
    fastread_test::close_descriptor(fd);

    std::FILE* f = fastread_test::open_file(path, "rb");
    REQUIRE(f != nullptr);
    {
        stdio_source s(f, 3);
        CHECK(std::string(s.next().data(), 3) == "012");
    }
    CHECK(std::fgetc(f) == '3'); // still open, position after the chunk
    {
        fread_source s(f);
        CHECK(std::string(s.bytes().data(), s.bytes().size()) == "456789");
    }
    CHECK(std::fclose(f) == 0);

    std::ifstream in(path, std::ios::binary);
    {
        istream_source s(in, 5);
        s.next();
    }
    CHECK(in.is_open());
    CHECK(in.get() == '5');
}

TEST_CASE("chunk size 0 and a null FILE* are rejected", "[source][error]") {
    temp_dir dir;
    const auto path = dir / "f";
    write_file(path, "x");
    CHECK_THROWS_AS(read_source(path, 0), std::invalid_argument);
    CHECK_THROWS_AS(stdio_source(path, 0), std::invalid_argument);
    CHECK_THROWS_AS(stdio_source(static_cast<std::FILE*>(nullptr)), std::invalid_argument);
    CHECK_THROWS_AS(fread_source(static_cast<std::FILE*>(nullptr)), std::invalid_argument);
    std::istringstream in("x");
    CHECK_THROWS_AS(istream_source(in, 0), std::invalid_argument);
    // The try_open forms: errc::invalid_argument, the same message.
    auto check_try = [](const auto& r, const char* message) {
        REQUIRE_FALSE(r);
        CHECK(r.error().code() == fastread::errc::invalid_argument);
        CHECK(r.error().message() == message);
    };
    check_try(read_source::try_open(path, 0),
              "fastread::read_source: chunk_size must be at least 1");
    check_try(stdio_source::try_open(path, 0),
              "fastread::stdio_source: chunk_size must be at least 1");
    check_try(stdio_source::try_open(static_cast<std::FILE*>(nullptr)),
              "fastread::stdio_source: needs a FILE* and a chunk_size of at least 1");
    check_try(fread_source::try_open(static_cast<std::FILE*>(nullptr)),
              "fastread::fread_source: needs a FILE*");
    check_try(istream_source::try_open(in, 0),
              "fastread::istream_source: chunk_size must be at least 1");
}

TEST_CASE("a read error is std::system_error", "[source][error]") {
    temp_dir dir;
    try {
        // Reading a directory fails with EISDIR (on Windows, opening one already does).
        read_source r(dir.path().string());
        r.next();
        FAIL("read a directory");
    } catch (const std::system_error& e) {
        CHECK(e.code() == std::errc::is_a_directory);
#if !defined(_WIN32)
        // try_next: the input ends, the source keeps the same error.
        read_source r(dir.path().string());
        CHECK(r.try_next().empty());
        CHECK(r.error().code() == e.code());
        CHECK(r.error().message() == e.what());
        CHECK(r.try_next().empty());
#endif
    }
}
