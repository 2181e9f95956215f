#include <fastread/files_equal.hpp>
#include <fastread/page_cache.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "test_util.hpp"

using fastread::compare_method;
using fastread::compare_options;
using fastread::files_equal;
using fastread_test::bytes_of;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;

namespace {

const compare_options every_method[] = {
    {compare_method::automatic, 0, fastread::io_mode::read},
    {compare_method::automatic, 0, fastread::io_mode::map},
    {compare_method::automatic, 0, fastread::io_mode::read, 1},
    {compare_method::block, 4096},
    {compare_method::block, std::size_t{1} << 20},
    {compare_method::block, 0},
    {compare_method::mmap, 0},
};

} // namespace

TEST_CASE("files_equal: every method agrees on equal and nearly equal files", "[compare]") {
    temp_dir dir;
    for (std::size_t size : {std::size_t{1}, std::size_t{4095}, std::size_t{4096},
                             std::size_t{4097}, (std::size_t{1} << 20) + 1, std::size_t{3} << 20}) {
        CAPTURE(size);
        const std::string a = bytes_of(size);
        write_file(dir / "a", a);
        write_file(dir / "same", a);
        for (std::size_t at : {std::size_t{0}, size / 2, size - 1}) {
            std::string b = a;
            b[at] = static_cast<char>(b[at] ^ 1);
            write_file(dir / ("differs-at-" + std::to_string(at)), b);
        }
        for (const compare_options& o : every_method) {
            CAPTURE(static_cast<int>(o.method), o.block_size, fastread::to_string(o.io));
            CHECK(files_equal(dir / "a", dir / "same", o));
            CHECK(files_equal(dir / "a", dir / "a", o));
            for (std::size_t at : {std::size_t{0}, size / 2, size - 1}) {
                CHECK_FALSE(files_equal(dir / "a", dir / ("differs-at-" + std::to_string(at)), o));
            }
        }
        fs::remove(dir / "differs-at-0");
        fs::remove(dir / ("differs-at-" + std::to_string(size / 2)));
        fs::remove(dir / ("differs-at-" + std::to_string(size - 1)));
    }
}

TEST_CASE("files_equal automatic: big cached files, differences at and around 2 MiB boundaries",
          "[compare]") {
    temp_dir dir;
    const std::size_t size =
        static_cast<std::size_t>(fastread::detail::read_ahead_from) + (std::size_t{3} << 20) + 5;
    const std::string a = bytes_of(size, 7);
    write_file(dir / "a", a);
    write_file(dir / "same", a);
    fastread::page_cache::preload(dir / "a");
    fastread::page_cache::preload(dir / "same");
    // Read ahead on helper threads, on one thread, and through maps.
    compare_options one_thread;
    one_thread.threads = 1;
    compare_options mapped;
    mapped.io = fastread::io_mode::map;
    CHECK(files_equal(dir / "a", dir / "same"));
    CHECK(files_equal(dir / "a", dir / "same", one_thread));
    CHECK(files_equal(dir / "a", dir / "same", mapped));
    const std::size_t window = fastread::detail::window_bytes;
    for (std::size_t at : {std::size_t{0}, window - 1, window, 5 * window + 17, size - 1}) {
        CAPTURE(at);
        std::string b = a;
        b[at] = static_cast<char>(b[at] ^ 0x40);
        write_file(dir / "b", b);
        fastread::page_cache::preload(dir / "b");
        CHECK_FALSE(files_equal(dir / "a", dir / "b"));
        CHECK_FALSE(files_equal(dir / "b", dir / "a"));
        CHECK_FALSE(files_equal(dir / "a", dir / "b", one_thread));
        CHECK_FALSE(files_equal(dir / "a", dir / "b", mapped));
    }
    // One byte longer: unequal by size, without reading.
    write_file(dir / "longer", a + "x");
    CHECK_FALSE(files_equal(dir / "a", dir / "longer"));
}

TEST_CASE("files_equal: sizes, empty files, the same inode, and errors", "[compare]") {
    temp_dir dir;
    write_file(dir / "empty1", "");
    write_file(dir / "empty2", "");
    write_file(dir / "abc", "abc");
    write_file(dir / "abcd", "abcd");
    fs::create_hard_link(dir / "abc", dir / "abc-link");
    for (const compare_options& o : every_method) {
        CAPTURE(static_cast<int>(o.method));
        CHECK(files_equal(dir / "empty1", dir / "empty2", o));
        CHECK_FALSE(files_equal(dir / "empty1", dir / "abc", o));
        CHECK_FALSE(files_equal(dir / "abc", dir / "abcd", o)); // a prefix is not equal
        CHECK(files_equal(dir / "abc", dir / "abc-link", o));
        try {
            files_equal(dir / "abc", dir / "missing", o);
            FAIL("no exception for a missing file");
        } catch (const std::system_error& e) {
            CHECK(e.code() == std::errc::no_such_file_or_directory);
            CHECK(std::string(e.what()).find((dir / "missing").string()) != std::string::npos);
            // The try_ form: the same error as a value.
            const fastread::result<bool> r =
                fastread::try_files_equal(dir / "abc", dir / "missing", o);
            REQUIRE_FALSE(r);
            CHECK(r.error().code() == e.code());
            CHECK(r.error().message() == e.what());
            CHECK_FALSE(r.error().offset());
        }
        const fastread::result<bool> same =
            fastread::try_files_equal(dir / "abc", dir / "abc-link", o);
        REQUIRE(same);
        CHECK(*same);
        const fastread::result<bool> prefix =
            fastread::try_files_equal(dir / "abc", dir / "abcd", o);
        REQUIRE(prefix);
        CHECK_FALSE(*prefix);
    }
    // A directory cannot be read as a file: an error naming it, whatever the method.
    fs::create_directory(dir / "sub");
    CHECK_THROWS_AS(files_equal(dir / "abc", dir / "sub"), std::system_error);
    const fastread::result<bool> dir_result = fastread::try_files_equal(dir / "abc", dir / "sub");
    REQUIRE_FALSE(dir_result);
    CHECK(dir_result.error().code() == std::errc::is_a_directory);
    CHECK_THAT(dir_result.error().message(), Catch::Contains((dir / "sub").string()));
}

// POSIX only: truncate(2) racing the comparison (Windows refuses to shrink a mapped file),
// and pipes by path (/proc/self/fd).
#if !defined(_WIN32)
TEST_CASE("files_equal: a file truncated during the comparison is unequal, never SIGBUS",
          "[compare][error]") {
    temp_dir dir;
    const std::string bytes = bytes_of(std::size_t{24} << 20);
    for (fastread::io_mode io : {fastread::io_mode::read, fastread::io_mode::map}) {
        CAPTURE(fastread::to_string(io));
        int unequal = 0;
        // Rounds until the cut landed inside a call (at least 6, at most 120): how long a
        // truncate takes on ext4 (journal, writeback, other tests syncing) is not the test's
        // to choose; a round that cut in time ends the loop.
        for (int round = 0; round < 120 && (round < 6 || unequal == 0); ++round) {
            write_file(dir / "a", bytes);
            write_file(dir / "b", bytes);
            fastread_test::sync_file(dir / "b");
            // The cutter runs before the call starts (round 0 cuts at once, so the race is
            // hit however fast the call is), then later in each round.
            std::atomic<bool> ready{false}, go{false};
            std::thread cutter([&, round] {
                ready = true;
                while (!go.load()) {
                }
                if (round % 6 > 0) {
                    std::this_thread::sleep_for(std::chrono::microseconds(400 * (round % 6)));
                }
                (void)fastread_test::resize_file(dir / "b", 1 << 20); // no Catch2 off this thread
            });
            while (!ready.load()) {
            }
            go = true;
            compare_options o;
            o.io = io;
            const bool same = files_equal(dir / "a", dir / "b", o);
            cutter.join();
            // Equal only if the whole comparison ran before the cut; b is now shorter.
            unequal += !same;
        }
        CHECK(unequal > 0);
        CHECK_FALSE(files_equal(dir / "a", dir / "b"));
    }
}

#endif
