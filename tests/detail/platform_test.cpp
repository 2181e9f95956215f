// detail/platform.hpp: Linux's calls where FASTREAD_LINUX_CALLS is 1, else (macOS, the BSDs,
// or the `posix` preset on Linux) their POSIX fallbacks, which must answer the same
// questions the same way where they can and say "unknown" where they cannot.

#include <fastread/detail/file_map.hpp>
#include <fastread/detail/platform.hpp>
#include <fastread/detail/posix.hpp>
#include <fastread/detail/residency.hpp>
#include <fastread/duplicates/detail/process.hpp>
#include <fastread/io.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/records/detail/record_io.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

#if defined(__linux__) && !(defined(FASTREAD_POSIX_FALLBACKS) && FASTREAD_POSIX_FALLBACKS)
constexpr bool linux_calls_expected = true;
#else
constexpr bool linux_calls_expected = false;
#endif

// A 3 MiB file just written and read through once (so its pages are cached), open.
struct preloaded_file {
    static constexpr std::size_t bytes = std::size_t{3} << 20;
    fastread_test::temp_dir dir;
    std::filesystem::path path = dir / "f";
    fastread::detail::unique_fd fd;
    preloaded_file() {
        fastread_test::write_file(path, std::string(bytes, 'x'));
        fastread::page_cache::preload(path);
        fd = fastread::detail::open_read_only(path);
    }
};

} // namespace

#if defined(_WIN32)
TEST_CASE("platform: on Windows what cannot be asked is reported unknown, never guessed",
          "[platform]") {
    CHECK_FALSE(FASTREAD_LINUX_CALLS);
    const preloaded_file file;
    const std::size_t bytes = file.bytes;
    const std::filesystem::path& path = file.path;
    const fastread::detail::unique_fd& fd = file.fd;
    CHECK_FALSE(fastread::detail::cached_pages(fd.get(), bytes).has_value());
    CHECK_FALSE(fastread::detail::file_resident(fd.get(), bytes));
    const fastread::detail::file_map map(fd.get(), bytes,
                                         fastread::detail::file_map::access::read_only,
                                         fastread::detail::file_map::sharing::shared, path);
    unsigned char resident = 0;
    CHECK(fastread::detail::mincore_of(map.data(), map.size(), &resident) == -1);
    CHECK(errno == ENOSYS);
    CHECK(fastread::detail::thread_minor_faults() == -1);
    CHECK_FALSE(fastread::detail::uring_usable());
}
#else
TEST_CASE("platform: Linux calls only where FASTREAD_LINUX_CALLS says, else the POSIX fallbacks",
          "[platform]") {
    CHECK(static_cast<bool>(FASTREAD_LINUX_CALLS) == linux_calls_expected);
    const preloaded_file file;
    const std::size_t bytes = file.bytes;
    const std::filesystem::path& path = file.path;
    const fastread::detail::unique_fd& fd = file.fd;

    // Either way: the residency of a file just read is known and whole, and mincore sees
    // every page of a map.
    CHECK(fastread::page_cache::resident_fraction(path) == 1.0);
    CHECK(fastread::detail::file_resident(fd.get(), bytes));
    const std::vector<std::uint64_t> offsets{0, bytes / 2, bytes - 1};
    CHECK(fastread::detail::resident_share(fd.get(), bytes, offsets) == 1.0);
    const fastread::detail::file_map map(fd.get(), bytes,
                                         fastread::detail::file_map::access::read_only,
                                         fastread::detail::file_map::sharing::shared, path);
    const std::size_t pages =
        (bytes + fastread::detail::page_size() - 1) / fastread::detail::page_size();
    std::vector<unsigned char> resident(pages, 0);
    REQUIRE(fastread::detail::mincore_of(map.data(), map.size(), resident.data()) == 0);
    CHECK(std::count_if(resident.begin(), resident.end(), [](unsigned char r) {
              return (r & 1u) != 0;
          }) == static_cast<std::ptrdiff_t>(pages));

    if (!FASTREAD_LINUX_CALLS) {
        // What the fallbacks cannot know, they report as unknown, never as a guess.
        CHECK_FALSE(fastread::detail::cached_pages(fd.get(), bytes).has_value());
        CHECK(fastread::detail::thread_minor_faults() == -1);
        CHECK_FALSE(fastread::detail::uring_usable());
    } else {
        CHECK(fastread::detail::thread_minor_faults() >= 0);
    }
}
#endif
