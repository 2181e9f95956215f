#include <fastread/detail/read_ahead.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <system_error>

#include <fcntl.h>

#include "test_util.hpp"

using fastread::detail::open_read_only;
using fastread::detail::read_ahead;
using fastread::detail::unique_fd;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

// Every block read_ahead hands out for `path`, joined; checks that the end stays the end.
std::string read_all(const std::filesystem::path& path, std::size_t block, unsigned slots,
                     std::size_t* blocks = nullptr) {
    unique_fd fd = open_read_only(path);
    int start_error = 0;
    read_ahead ahead(fd.get(), path, start_error, block, slots);
    REQUIRE(start_error == 0);
    std::string out;
    std::size_t n = 0;
    for (std::span<const char> b = ahead.try_next(); !b.empty(); b = ahead.try_next()) {
        CHECK(b.size() <= block);
        out.append(b.data(), b.size());
        ++n;
    }
    CHECK(ahead.try_next().empty());
    CHECK(ahead.try_next().empty());
    if (blocks != nullptr) {
        *blocks = n;
    }
    return out;
}

} // namespace

TEST_CASE("read_ahead hands out the file in order, block by block, whatever its size",
          "[read_ahead]") {
    temp_dir dir;
    const auto path = dir / "file.bin";
    constexpr std::size_t block = 4096;
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, block - 1, block, block + 1,
                             3 * block + 5, 40 * block + 1}) {
        std::string bytes(size, '\0');
        for (std::size_t i = 0; i < size; ++i) {
            bytes[i] = static_cast<char>(i * 131 + i / 4096);
        }
        write_file(path, bytes);
        for (unsigned slots : {1u, 2u, 4u}) {
            CAPTURE(size, slots);
            std::size_t blocks = 0;
            CHECK(read_all(path, block, slots, &blocks) == bytes);
            CHECK(blocks == (size + block - 1) / block);
        }
    }
}

TEST_CASE("read_ahead stops its helper when destroyed before the end", "[read_ahead]") {
    // The helper is waiting for a free slot (two slots, a hundred blocks): the destructor
    // must wake it and join it, with no block taken, one, or a few.
    temp_dir dir;
    const auto path = dir / "file.bin";
    write_file(path, std::string(100 * 4096, 'x'));
    unique_fd fd = open_read_only(path);
    for (int taken : {0, 1, 3}) {
        CAPTURE(taken);
        int start_error = 0;
        read_ahead ahead(fd.get(), path, start_error, 4096, 2);
        REQUIRE(start_error == 0);
        for (int i = 0; i < taken; ++i) {
            CHECK(ahead.try_next().size() == 4096);
        }
    }
}

#if !defined(_WIN32) // a directory opened as a descriptor (O_DIRECTORY)
TEST_CASE("read_ahead hands on its helper's read error, naming the file", "[read_ahead][error]") {
    // pread(2) of a directory fails (EISDIR): try_next() ends the blocks, error() keeps it.
    temp_dir dir;
    unique_fd fd(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(fd.get() >= 0);
    int start_error = 0;
    read_ahead ahead(fd.get(), dir.path(), start_error, 4096, 2);
    REQUIRE(start_error == 0);
    CHECK(ahead.try_next().empty());
    CHECK(ahead.error().code() == std::error_code(EISDIR, std::generic_category()));
    CHECK(ahead.error().message() ==
          "pread \"" + dir.path().string() + "\": " + std::generic_category().message(EISDIR));
    CHECK(ahead.try_next().empty()); // ended
    CHECK(ahead.error().code().value() == EISDIR);
}
#endif
