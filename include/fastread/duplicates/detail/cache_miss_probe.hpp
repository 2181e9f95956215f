#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_CACHE_MISS_PROBE_HPP)
#define FASTREAD_DUPLICATES_DETAIL_CACHE_MISS_PROBE_HPP

/// @file
/// A page-cache miss probe for the duplicate finder's reading threads: reads that say
/// whether they had to wait for the device (`preadv2` with `RWF_NOWAIT`).

#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "../../detail/syscall.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace fastread::detail {

// Lets the reading threads tell their team when a read had to wait for the device, so that
// the team adds threads only for data that is not in the page cache (cached, threads beyond
// one per CPU only add switching). While `probing`, reads try RWF_NOWAIT first.
struct cache_miss_probe {
    std::atomic<bool> probing{false};
    std::function<void()> on_miss; // called once, by the first read that had to wait

    void waited() {
        if (probing.exchange(false)) {
            on_miss();
        }
    }
};

// One pread(2), retried on EINTR; -1 with errno set on error. While `miss_probe` probes, tries
// preadv2(RWF_NOWAIT) first: when the bytes are not in the page cache (EAGAIN), or the file
// system cannot say (EOPNOTSUPP), the probe hears of it and the read waits as usual. A
// short result is possible either way (a partly cached range, or the end of the file).
// Where no read can tell (has_read_nowait false), the probe hears nothing.
inline ssize_t pread_probing(int fd, char* dst, std::size_t n, std::uint64_t offset,
                             cache_miss_probe* miss_probe) {
    for (;;) {
        ssize_t got = 0;
        if (has_read_nowait && miss_probe != nullptr &&
            miss_probe->probing.load(std::memory_order_relaxed)) {
            got = pread_nowait(fd, dst, n, offset);
            if (got < 0 && errno != EINTR) {
                miss_probe->waited();
                continue;
            }
        } else {
            got = sys::pread(fd, dst, n, static_cast<sys::offset_t>(offset));
        }
        if (got >= 0 || errno != EINTR) {
            return got;
        }
    }
}

// pread_probing until `n` bytes arrived or the file ended; returns the count, short on a
// read error, whose errno is then in `err` (else 0).
inline std::size_t pread_full_probing(int fd, char* dst, std::size_t n, std::uint64_t offset,
                                      const std::string& path, cache_miss_probe* miss_probe,
                                      int& err) {
    error e;
    const std::size_t got = read_full_at(
        [fd, miss_probe](char* to, std::size_t want, std::uint64_t at) {
            return pread_probing(fd, to, want, at, miss_probe);
        },
        dst, n, offset, path, e);
    err = e.code().value();
    return got;
}

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_CACHE_MISS_PROBE_HPP
