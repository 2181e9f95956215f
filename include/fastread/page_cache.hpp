#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PAGE_CACHE_HPP)
#define FASTREAD_PAGE_CACHE_HPP

/// @file
/// `fastread::page_cache`: see, drop and fill the kernel's page cache for one file, without
/// root (no `echo 3 > /proc/sys/vm/drop_caches`). Used for cold/warm measurements and to
/// preload a file before a pass that would otherwise wait on the disk.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "detail/file_map.hpp"
#include "detail/policy.hpp"
#include "detail/posix.hpp"
#include "detail/residency.hpp"
#include "detail/rw.hpp"

namespace fastread::page_cache {

/// Asks the kernel to drop the file's pages from the page cache: `fdatasync` (dirty pages
/// cannot be dropped), then `posix_fadvise(POSIX_FADV_DONTNEED)` over the whole file.
///
/// Advice, not a command: pages mapped by a process, and every page of a tmpfs or ramfs file
/// (whose only copy is the page cache), stay resident. Check with resident_fraction().
/// @throws std::system_error naming the path if the file cannot be opened or advised, or
///         is not a regular file (EISDIR, EINVAL: a FIFO is never waited on); ENOTSUP
///         where the system has no posix_fadvise (macOS, Windows).
void evict(const std::filesystem::path& path);

/// Loads the whole file into the page cache by reading it sequentially (1 MiB `read`s into a
/// scratch buffer), so that a following pass finds every page resident. One
/// `POSIX_FADV_WILLNEED` or `readahead(2)` call is not enough: the kernel caps it at its
/// read-ahead window (`read_ahead_kb`, 8 MiB on the VMs of docs/benchmarks/). Time
/// O(file size); memory 1 MiB.
/// @throws std::system_error naming the path if the file cannot be opened or read, or is
///         not a regular file (EISDIR, EINVAL: a FIFO is neither waited on nor drained).
void preload(const std::filesystem::path& path);

/// Fraction of the file's pages resident in the page cache, 0.0 to 1.0, from Linux's
/// `cachestat(2)` (kernel 6.5 and later), else from `mincore` over a read-only map of the
/// file (mapping does not load pages). An empty file gives 1.0: nothing of it is missing.
/// Time O(pages).
/// @throws std::system_error naming the path if the file cannot be opened, or (without
///         cachestat) mapped, or is not a regular file (EISDIR, EINVAL); ENOSYS on Windows,
///         which cannot tell which pages of a file it caches.
double resident_fraction(const std::filesystem::path& path);

// ---------------------------------------------------------------------------------------
// Implementation

inline void evict(const std::filesystem::path& path) {
    detail::unique_fd fd = detail::open_regular(path, "page_cache::evict");
    if (!detail::has_drop_cached) {
        detail::throw_system_error(ENOTSUP,
                                   "page_cache::evict: this system cannot be asked to drop", path);
    }
    // Linux allows fdatasync on a read-only descriptor; it flushes dirty pages so that
    // DONTNEED can drop them. EINVAL: the file system has nothing to sync (e.g. /proc).
    if (const int err = detail::sync_data(fd.get()); err != 0 && err != EINVAL && err != EROFS) {
        detail::throw_system_error(err, "fdatasync", path);
    }
    if (const int err = detail::advise_drop_cached(fd.get()); err != 0) {
        detail::throw_system_error(err, "posix_fadvise(POSIX_FADV_DONTNEED)", path);
    }
}

} // namespace fastread::page_cache

namespace fastread::detail {
/// page_cache::preload, its error (naming the path) in `err`.
inline void preload_file(const std::filesystem::path& path, error& err) {
    unique_fd fd = open_regular(path, "page_cache::preload", open_mode::read_only, err);
    if (!fd) {
        return;
    }
    // Also widens the kernel's read-ahead for this descriptor (advice; failure is harmless).
    advise(fd.get(), file_advice::sequential);
    constexpr std::size_t block = block_bytes;
    std::unique_ptr<char[]> buffer(new char[block]);
    while (read_some(fd.get(), buffer.get(), block, path, err) != 0) {
    }
}
} // namespace fastread::detail

namespace fastread::page_cache {

inline void preload(const std::filesystem::path& path) {
    error err;
    detail::preload_file(path, err);
    detail::throw_if(err);
}

inline double resident_fraction(const std::filesystem::path& path) {
    detail::unique_fd fd = detail::open_regular(path, "page_cache::resident_fraction");
    detail::file_info info = detail::stat_fd(fd.get(), path);
    if (info.size == 0) {
        return 1.0;
    }
    const std::uint64_t page = detail::page_size();
    const std::uint64_t pages = (info.size + page - 1) / page;
    if (const std::optional<std::uint64_t> cached = detail::cached_pages(fd.get(), info.size)) {
        return static_cast<double>(std::min<std::uint64_t>(*cached, pages)) /
               static_cast<double>(pages);
    }
    const detail::file_map map(fd.get(), info.size, detail::file_map::access::read_only,
                               detail::file_map::sharing::shared, path);
    std::vector<unsigned char> resident(static_cast<std::size_t>(pages));
    if (detail::mincore_of(map.data(), map.size(), resident.data()) != 0) {
        detail::throw_system_error(errno, "mincore", path);
    }
    std::size_t count = 0;
    for (unsigned char r : resident) {
        count += r & 1u;
    }
    return static_cast<double>(count) / static_cast<double>(pages);
}

} // namespace fastread::page_cache

#endif // FASTREAD_PAGE_CACHE_HPP
