#include <fastread/page_cache.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <system_error>

#include "test_util.hpp"

using fastread_test::on_memory_file_system;

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
