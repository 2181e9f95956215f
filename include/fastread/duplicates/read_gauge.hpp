#ifndef FASTREAD_DUPLICATES_READ_GAUGE_HPP
#define FASTREAD_DUPLICATES_READ_GAUGE_HPP

/// @file
/// A page-cache miss probe for the duplicate finder's reading threads: reads that say
/// whether they had to wait for the device (`preadv2` with `RWF_NOWAIT`).

#include "../detail/posix.hpp"
#include "../detail/syscall.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <sys/types.h>
#include <sys/uio.h>

namespace fastread::detail {

// Lets the reading threads tell their team when a read had to wait for the device, so that
// the team adds threads only for data that is not in the page cache (cached, threads beyond
// one per CPU only add switching). While `probing`, reads try RWF_NOWAIT first.
struct read_gauge {
    std::atomic<bool> probing{false};
    std::function<void()> on_wait; // called once, by the first read that had to wait

    void waited() {
        if (probing.exchange(false)) {
            on_wait();
        }
    }
};

// One pread(2), retried on EINTR; -1 with errno set on error. While `gauge` probes, tries
// preadv2(RWF_NOWAIT) first: when the bytes are not in the page cache (EAGAIN), or the file
// system cannot say (EOPNOTSUPP), the gauge hears of it and the read waits as usual. A
// short result is possible either way (a partly cached range, or the end of the file).
inline ssize_t pread_gauged(int fd, char* dst, std::size_t n, std::uint64_t offset,
                            read_gauge* gauge) {
    for (;;) {
        ssize_t got = 0;
        if (gauge != nullptr && gauge->probing.load(std::memory_order_relaxed)) {
            iovec part{dst, n};
            got = ::preadv2(fd, &part, 1, static_cast<off_t>(offset), RWF_NOWAIT);
            if (got < 0 && errno != EINTR) {
                gauge->waited();
                continue;
            }
        } else {
            got = sys::pread(fd, dst, n, static_cast<off_t>(offset));
        }
        if (got >= 0 || errno != EINTR) {
            return got;
        }
    }
}

// pread_gauged until `n` bytes arrived or the file ended; returns the count.
// @throws std::system_error naming `path` on a read error.
inline std::size_t pread_full_gauged(int fd, char* dst, std::size_t n, std::uint64_t offset,
                                     const std::string& path, read_gauge* gauge) {
    std::size_t done = 0;
    while (done < n) {
        const std::size_t want = std::min<std::size_t>(n - done, 0x40000000);
        const ssize_t got = pread_gauged(fd, dst + done, want, offset + done, gauge);
        if (got < 0) {
            throw_system_error(errno, "pread", path);
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    return done;
}
} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_READ_GAUGE_HPP
