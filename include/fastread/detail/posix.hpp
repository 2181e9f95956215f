#ifndef FASTREAD_DETAIL_POSIX_HPP
#define FASTREAD_DETAIL_POSIX_HPP

// RAII file descriptors and EINTR-safe system-call wrappers shared by the sources and writers.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parallel.hpp"

namespace fastread::detail {

/// Throws std::system_error(err) whose message names the operation and the path.
[[noreturn]] inline void throw_system_error(int err, std::string_view operation,
                                            const std::filesystem::path& path = {}) {
    std::string what(operation);
    if (!path.empty()) {
        what += " \"";
        what += path.string();
        what += '"';
    }
    throw std::system_error(err, std::generic_category(), what);
}

/// A move-only owner of a file descriptor; closes it on destruction.
class unique_fd {
  public:
    unique_fd() noexcept = default;
    explicit unique_fd(int fd) noexcept : fd_(fd) {}
    unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    unique_fd& operator=(unique_fd&& other) noexcept {
        if (this != &other) {
            reset(std::exchange(other.fd_, -1));
        }
        return *this;
    }
    unique_fd(const unique_fd&) = delete;
    unique_fd& operator=(const unique_fd&) = delete;
    ~unique_fd() { reset(); }

    int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) {
            // POSIX leaves the descriptor state unspecified after EINTR from close; Linux
            // always releases it, so retrying would risk closing someone else's descriptor.
            ::close(fd_);
        }
        fd_ = fd;
    }

  private:
    int fd_ = -1;
};

/// Closes a stdio stream on destruction (errors of that close are lost: call fclose on
/// `release()` where they matter).
struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using unique_file = std::unique_ptr<std::FILE, file_closer>;

/// Opens `path` read-only (O_CLOEXEC), retrying EINTR; throws std::system_error on failure.
inline unique_fd open_read_only(const std::filesystem::path& path, int extra_flags = 0) {
    for (;;) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | extra_flags);
        if (fd >= 0) {
            return unique_fd(fd);
        }
        if (errno != EINTR) {
            throw_system_error(errno, "open", path);
        }
    }
}

/// What fstat tells about an open file.
struct file_info {
    bool regular = false;   ///< S_ISREG
    bool directory = false; ///< S_ISDIR
    std::uint64_t size = 0; ///< st_size in bytes (0 for pipes; also 0 for /proc files)
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::int64_t mtime_ns = 0; ///< last modification, nanoseconds since the epoch
    std::int64_t ctime_ns = 0; ///< last status change, nanoseconds since the epoch
};

/// The file_info of a `struct stat`.
inline file_info info_of(const struct stat& st) noexcept {
    file_info info;
    info.regular = S_ISREG(st.st_mode);
    info.directory = S_ISDIR(st.st_mode);
    info.size = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    info.device = static_cast<std::uint64_t>(st.st_dev);
    info.inode = static_cast<std::uint64_t>(st.st_ino);
    info.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    info.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    return info;
}

inline file_info stat_fd(int fd, const std::filesystem::path& path = {}) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        throw_system_error(errno, "fstat", path);
    }
    return info_of(st);
}

/// One read(2), retried on EINTR. Returns the byte count (0 = end of file); throws on error.
inline std::size_t read_some(int fd, char* dst, std::size_t n,
                             const std::filesystem::path& path = {}) {
    for (;;) {
        ssize_t got = ::read(fd, dst, n);
        if (got >= 0) {
            return static_cast<std::size_t>(got);
        }
        if (errno != EINTR) {
            throw_system_error(errno, "read", path);
        }
    }
}

/// Reads until `n` bytes arrived or the file ended; returns the count (< n only at end).
inline std::size_t read_full(int fd, char* dst, std::size_t n,
                             const std::filesystem::path& path = {}) {
    std::size_t done = 0;
    while (done < n) {
        // Linux transfers at most 0x7ffff000 bytes per call; ask for no more than that.
        std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        std::size_t got = read_some(fd, dst + done, want, path);
        if (got == 0) {
            break;
        }
        done += got;
    }
    return done;
}

/// pread(2) until `n` bytes arrived from `offset` or the file ended; returns the count.
inline std::size_t pread_full(int fd, char* dst, std::size_t n, std::uint64_t offset,
                              const std::filesystem::path& path = {}) {
    std::size_t done = 0;
    while (done < n) {
        const std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        const ssize_t got = ::pread(fd, dst + done, want, static_cast<off_t>(offset + done));
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_system_error(errno, "pread", path);
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    return done;
}

/// pwrite(2) of all `n` bytes at `offset`, looping on short writes and EINTR; throws on error.
inline void pwrite_all(int fd, const char* src, std::size_t n, std::uint64_t offset,
                       const std::filesystem::path& path = {}) {
    while (n > 0) {
        const std::size_t want = n < 0x40000000 ? n : 0x40000000;
        const ssize_t put = ::pwrite(fd, src, want, static_cast<off_t>(offset));
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_system_error(errno, "pwrite", path);
        }
        src += put;
        offset += static_cast<std::uint64_t>(put);
        n -= static_cast<std::size_t>(put);
    }
}

/// Writes all `n` bytes, looping on short writes and EINTR; throws on error.
inline void write_all(int fd, const char* src, std::size_t n,
                      const std::filesystem::path& path = {}) {
    while (n > 0) {
        std::size_t want = n < 0x40000000 ? n : 0x40000000;
        ssize_t put = ::write(fd, src, want);
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_system_error(errno, "write", path);
        }
        src += put;
        n -= static_cast<std::size_t>(put);
    }
}

/// True iff at least `percent` % of the pages of `[map, map + size)`, a page-aligned map of
/// a file, are in the page cache. `mincore` over slices of 4096 pages (a fixed 4 KiB
/// vector), stopping as soon as too many pages are missing; false if mincore fails.
/// Loads nothing.
inline bool mapping_resident(const void* map, std::size_t size, unsigned percent = 100) noexcept {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t pages = (size + page - 1) / page;
    const std::size_t allowed = pages - (pages * percent + 99) / 100; // missing pages allowed
    std::size_t missing = 0;
    unsigned char resident[4096];
    const auto* p = static_cast<const unsigned char*>(map);
    for (std::size_t done = 0; done < size;) {
        const std::size_t len = std::min(size - done, sizeof resident * page);
        if (::mincore(const_cast<unsigned char*>(p + done), len, resident) != 0) {
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

/// Pages of bytes `[0, size)` of the open file `fd` that are in the page cache, counted by
/// Linux's `cachestat(2)` (kernel 6.5 and later) in one call, without mapping the file
/// (fastread-bench compare, rows "residency check": two cached 256 MB files in 0.14 ms,
/// against 7.8 ms for `mincore` over their maps, which looks up every page). `std::nullopt` where
/// the kernel lacks the call (ENOSYS: not tried again) or refuses it (EPERM: like mincore since
/// Linux 5.2, recent kernels count only for files the caller owns or may write; also under a
/// seccomp filter); then use mapping_resident.
inline std::optional<std::uint64_t> cached_pages(int fd, std::uint64_t size) noexcept {
#if defined(SYS_cachestat)
    constexpr long number = SYS_cachestat;
#elif defined(__linux__) && !defined(__alpha__)
    constexpr long number = 451; // the common system-call table's number (Linux 6.5)
#else
    constexpr long number = -1; // not known here: always mincore
#endif
    static std::atomic<bool> missing{number < 0};
    if (size == 0) {
        return 0;
    }
    if (missing.load(std::memory_order_relaxed)) {
        return std::nullopt;
    }
    // The kernel's struct cachestat_range and struct cachestat (uapi/linux/mman.h), which
    // Debian 12's kernel headers predate.
    struct range {
        std::uint64_t offset, length;
    } r{0, size};
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
}

/// True iff at least `percent` % of the pages of bytes `[0, size)` of the open file `fd`,
/// mapped read-only at `map` (page-aligned), are in the page cache: cached_pages when the
/// kernel has it, else mapping_resident. Loads nothing.
inline bool file_resident(int fd, const void* map, std::size_t size,
                          unsigned percent = 100) noexcept {
    if (const std::optional<std::uint64_t> cached = cached_pages(fd, size)) {
        const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        const std::uint64_t pages = (size + page - 1) / page;
        return *cached * 100 >= pages * percent;
    }
    return mapping_resident(map, size, percent);
}

/// Removes the page-table entries of `[map, map + size)`, a page-aligned read-only map of
/// a file about to be unmapped, on `threads` threads (madvise MADV_DONTNEED; the file and
/// its page cache are untouched). munmap then has nothing left to tear down: on a big map
/// that teardown, done by one thread, costs about a third of a fast parse (measured).
/// Only for maps the caller owns: on anonymous memory MADV_DONTNEED discards the data.
inline void drop_map_entries(const void* map, std::size_t size, unsigned threads) noexcept {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t pages = (size + page - 1) / page;
    auto* base = static_cast<unsigned char*>(const_cast<void*>(map));
    try {
        in_slices(pages, threads, [&](unsigned, std::size_t first, std::size_t last) {
            if (last > first) {
                (void)::madvise(base + first * page, (last - first) * page, MADV_DONTNEED);
            }
        });
    } catch (...) {
        // No thread could be started: munmap does it all.
    }
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_POSIX_HPP
