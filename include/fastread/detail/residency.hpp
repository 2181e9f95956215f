#ifndef FASTREAD_DETAIL_RESIDENCY_HPP
#define FASTREAD_DETAIL_RESIDENCY_HPP

// The file layer's residency module: how much of a file is in the page cache, from
// Linux's cachestat(2) where the kernel has it and lets the caller ask, else from mincore
// over a read-only map (mapping loads nothing).

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>

#if !defined(_WIN32)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "file_map.hpp"
#include "platform.hpp"

#if FASTREAD_LINUX_CALLS
#include <sys/syscall.h>
#endif

namespace fastread::detail {

/// Pages of bytes `[offset, offset + size)` of the open file `fd` that are in the page cache,
/// counted by Linux's `cachestat(2)` (kernel 6.5 and later) in one call, without mapping the file
/// (far cheaper than `mincore` over a map, which looks up every page:
/// docs/benchmarks/, "Reading the tables"). `std::nullopt` where the kernel lacks
/// the call (ENOSYS: not tried again) or refuses it (EPERM: like mincore since Linux 5.2, recent
/// kernels count only for files the caller owns or may write; also under a seccomp filter); then
/// use mapping_resident.
inline std::optional<std::uint64_t> cached_pages(int fd, std::uint64_t size,
                                                 std::uint64_t offset = 0) noexcept {
    if (size == 0) {
        return 0;
    }
#if FASTREAD_LINUX_CALLS
#if defined(SYS_cachestat)
    constexpr long number = SYS_cachestat;
#elif !defined(__alpha__)
    constexpr long number = 451; // the common system-call table's number (Linux 6.5)
#else
    constexpr long number = -1; // not known here: always mincore
#endif
    static std::atomic<bool> missing{number < 0};
    if (missing.load(std::memory_order_relaxed)) {
        return std::nullopt;
    }
    // The kernel's struct cachestat_range and struct cachestat (uapi/linux/mman.h), which
    // Debian 12's kernel headers predate.
    struct range {
        std::uint64_t offset, length;
    } r{offset, size};
    struct counts {
        std::uint64_t cache, dirty, writeback, evicted, recently_evicted;
    } c{};
    if (::syscall(number, fd, &r, &c, 0u) != 0) {
        if (errno == ENOSYS) {
            missing.store(true, std::memory_order_relaxed);
        }
        return std::nullopt;
    }
    return c.cache;
#else
    (void)fd;
    (void)offset;
    return std::nullopt; // not Linux: always mincore
#endif
}

/// mincore(2) into `vec` (a byte per page of [addr, addr + len)): its vector is `unsigned char*`
/// on Linux and `char*` on macOS and the BSDs, its address `void*` or `const void*`.
template <class Address, class Byte>
int call_mincore(int (*fn)(Address*, std::size_t, Byte*), const void* addr, std::size_t len,
                 unsigned char* vec) noexcept {
    return fn(const_cast<void*>(addr), len, reinterpret_cast<Byte*>(vec));
}
/// -1 with errno ENOSYS where there is no mincore (Windows: residency is then unknown and
/// default paths read).
inline int mincore_of(const void* addr, std::size_t len, unsigned char* vec) noexcept {
#if defined(_WIN32)
    (void)addr;
    (void)len;
    (void)vec;
    errno = ENOSYS;
    return -1;
#else
    return call_mincore(&::mincore, addr, len, vec);
#endif
}

/// True iff at least `percent` % of the pages of `[map, map + size)`, a page-aligned map of
/// a file, are in the page cache. `mincore` over slices of 4096 pages (a fixed 4 KiB
/// vector), stopping as soon as too many pages are missing; false if mincore fails.
/// Loads nothing.
inline bool mapping_resident(const void* map, std::size_t size, unsigned percent = 100) noexcept {
    const std::size_t page = page_size();
    const std::size_t pages = (size + page - 1) / page;
    const std::size_t allowed = pages - (pages * percent + 99) / 100; // missing pages allowed
    std::size_t missing = 0;
    unsigned char resident[4096];
    const auto* p = static_cast<const unsigned char*>(map);
    for (std::size_t done = 0; done < size;) {
        const std::size_t len = std::min(size - done, sizeof resident * page);
        if (mincore_of(p + done, len, resident) != 0) {
            return false;
        }
        for (std::size_t i = 0; i < (len + page - 1) / page; ++i) {
            missing += (resident[i] & 1u) == 0;
        }
        if (missing > allowed) {
            return false;
        }
        done += len;
    }
    return true;
}

/// True iff at least `percent` % of the pages of bytes `[0, size)` of the open file `fd`
/// are in the page cache: cached_pages when the kernel answers, else mapping_resident over
/// a read-only map made for the question (false if it cannot be made). Loads nothing.
/// Over files of more than 2 MiB, cachestat counts 16 evenly spread ranges of 128 KiB (the
/// first and the last included) instead of the whole file: it walks the page cache page by
/// page where the file sits in small folios, 94 us for a 16 MB file on the KVM host (a
/// tenth of loading it), against about 6 us for the samples.
inline bool file_resident(int fd, std::uint64_t size, unsigned percent = 100) noexcept {
    if (size == 0) {
        return true;
    }
    const std::uint64_t page = page_size();
    constexpr std::uint64_t sample_ranges = 16, sample_bytes = std::uint64_t{128} << 10;
    if (size > sample_ranges * sample_bytes) {
        std::uint64_t cached_sum = 0, pages_sum = 0;
        bool answered = true;
        for (std::uint64_t i = 0; i < sample_ranges && answered; ++i) {
            const std::uint64_t at = (size - sample_bytes) * i / (sample_ranges - 1) / page * page;
            const std::uint64_t len = std::min(sample_bytes, size - at);
            const std::optional<std::uint64_t> cached = cached_pages(fd, len, at);
            answered = cached.has_value();
            if (answered) {
                const std::uint64_t pages = (len + page - 1) / page;
                cached_sum += std::min(*cached, pages);
                pages_sum += pages;
            }
        }
        if (answered) {
            return cached_sum * 100 >= pages_sum * percent;
        }
    }
    const std::uint64_t pages = (size + page - 1) / page;
    if (const std::optional<std::uint64_t> cached = cached_pages(fd, size)) {
        return std::min(*cached, pages) * 100 >= pages * percent;
    }
    int err = 0;
    const file_map map =
        file_map::try_map(fd, size, file_map::access::read_only, file_map::sharing::shared, err);
    return err == 0 && mapping_resident(map.data(), map.size(), percent);
}

/// The fraction, 0 to 1, of the pages holding the bytes at `offsets` (byte offsets into
/// the open file `fd`, at most a few dozen: one call each) that are in the page cache:
/// cachestat of each page, else mincore over a read-only map made for the question (0 if
/// it cannot be made). 1 for no offsets. Loads nothing.
template <class Offsets>
double resident_share(int fd, std::uint64_t file_size, const Offsets& offsets) noexcept {
    std::size_t count = 0, resident = 0;
    const std::uint64_t page = page_size();
    file_map map; // made at the first offset cachestat does not answer for
    bool map_tried = false;
    for (const std::uint64_t at : offsets) {
        ++count;
        const std::uint64_t first = at / page * page;
        if (const std::optional<std::uint64_t> cached = cached_pages(fd, page, first)) {
            resident += *cached != 0;
            continue;
        }
        if (!map_tried) {
            map_tried = true;
            int err = 0;
            map = file_map::try_map(fd, file_size, file_map::access::read_only,
                                    file_map::sharing::shared, err);
        }
        unsigned char in_core = 0;
        if (first < map.size() && mincore_of(map.data() + first, 1, &in_core) == 0 &&
            (in_core & 1u) != 0) {
            ++resident;
        }
    }
    return count == 0 ? 1.0 : static_cast<double>(resident) / static_cast<double>(count);
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_RESIDENCY_HPP
