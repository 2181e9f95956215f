#ifndef FASTREAD_DETAIL_POSIX_HPP
#define FASTREAD_DETAIL_POSIX_HPP

// RAII file descriptors and EINTR-safe system-call wrappers shared by the sources and writers.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syscall.hpp"

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

/// Minor page faults the calling thread has taken so far (getrusage RUSAGE_THREAD,
/// ru_minflt), or -1 where the system does not count them per thread.
inline std::int64_t thread_minor_faults() noexcept {
#ifdef RUSAGE_THREAD
    rusage usage{};
    return sys::getrusage(RUSAGE_THREAD, &usage) == 0 ? static_cast<std::int64_t>(usage.ru_minflt)
                                                      : -1;
#else
    return -1;
#endif
}

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

/// The size of the regular file open on `fd` now, from lseek(SEEK_END), which moves the
/// file offset to the end: for a last check after reading (a read racing a truncation can
/// return zeros), where fstat costs 2.7x as much (275 against 103 ns on the KVM host, a
/// sixth of a small P6's load). Falls back to fstat where lseek fails.
/// @throws std::system_error naming `path` if fstat fails too.
inline std::uint64_t size_now(int fd, const std::filesystem::path& path = {}) {
    const off_t end = ::lseek(fd, 0, SEEK_END);
    return end >= 0 ? static_cast<std::uint64_t>(end) : stat_fd(fd, path).size;
}

/// "a directory", "a FIFO", ... for an error message about a non-regular file.
inline const char* kind_of(mode_t mode) noexcept {
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a regular file";
}

/// Opens `path` (O_CLOEXEC | `flags`, retrying EINTR) for an `operation` that only makes
/// sense on a regular file (records, the page cache): with O_NONBLOCK, so that a FIFO
/// without a writer does not block the open, which is cleared again once the file is
/// known to be regular.
/// @throws std::system_error naming `operation` and the path: what open(2) said, EISDIR
///         for a directory, EINVAL for any other file that is not regular (FIFO, socket,
///         device), which is never read.
inline unique_fd open_regular(const std::filesystem::path& path, std::string_view operation,
                              int flags = O_RDONLY) {
    unique_fd fd;
    for (;;) {
        const int raw = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK);
        if (raw >= 0) {
            fd.reset(raw);
            break;
        }
        if (errno != EINTR) {
            throw_system_error(errno, std::string(operation) + ": open", path);
        }
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
        throw_system_error(errno, std::string(operation) + ": fstat", path);
    }
    if (!S_ISREG(st.st_mode)) {
        throw_system_error(
            S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
            std::string(operation) + ": not a regular file (" + kind_of(st.st_mode) + "):", path);
    }
    const int fl = ::fcntl(fd.get(), F_GETFL);
    if (fl >= 0) {
        (void)::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

/// One read(2), retried on EINTR. Returns the byte count (0 = end of file); throws on error.
inline std::size_t read_some(int fd, char* dst, std::size_t n,
                             const std::filesystem::path& path = {}) {
    for (;;) {
        ssize_t got = sys::read(fd, dst, n);
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

/// Calls `read_at(dst, want, offset)`, a pread(2)-like call (bytes read, 0 at the end of the
/// file, -1 with errno set), until `n` bytes arrived from `offset` or the file ended, at most
/// 1 GiB per call; retries EINTR. Returns the count. @throws std::system_error ("pread",
/// `path`) on any other error.
template <class ReadAt>
std::size_t read_full_at(ReadAt read_at, char* dst, std::size_t n, std::uint64_t offset,
                         const std::filesystem::path& path) {
    std::size_t done = 0;
    while (done < n) {
        const std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        const ssize_t got = read_at(dst + done, want, offset + done);
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

/// pread(2) until `n` bytes arrived from `offset` or the file ended; returns the count.
/// @throws std::system_error naming `path` on a read error.
inline std::size_t pread_full(int fd, char* dst, std::size_t n, std::uint64_t offset,
                              const std::filesystem::path& path = {}) {
    return read_full_at(
        [fd](char* to, std::size_t want, std::uint64_t at) {
            return sys::pread(fd, to, want, static_cast<off_t>(at));
        },
        dst, n, offset, path);
}

/// pwrite(2) of all `n` bytes at `offset`, looping on short writes and EINTR; throws on error.
inline void pwrite_all(int fd, const char* src, std::size_t n, std::uint64_t offset,
                       const std::filesystem::path& path = {}) {
    while (n > 0) {
        const std::size_t want = n < 0x40000000 ? n : 0x40000000;
        const ssize_t put = sys::pwrite(fd, src, want, static_cast<off_t>(offset));
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_system_error(errno, "pwrite", path);
        }
        if (put == 0) { // no progress and no error: do not loop forever
            throw_system_error(EIO, "pwrite (wrote nothing)", path);
        }
        src += put;
        offset += static_cast<std::uint64_t>(put);
        n -= static_cast<std::size_t>(put);
    }
}

/// pwrite(2) of all `n` bytes at `offset`, looping on short writes and EINTR, without
/// throwing: returns 0, or the errno of the call that failed; `done` = bytes written.
inline int pwrite_counted(int fd, const char* src, std::size_t n, std::uint64_t offset,
                          std::size_t& done) noexcept {
    done = 0;
    while (done < n) {
        const std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        const ssize_t put = sys::pwrite(fd, src + done, want, static_cast<off_t>(offset + done));
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        if (put == 0) {
            return EIO;
        }
        done += static_cast<std::size_t>(put);
    }
    return 0;
}

/// Writes all `n` bytes, looping on short writes and EINTR; throws on error.
inline void write_all(int fd, const char* src, std::size_t n,
                      const std::filesystem::path& path = {}) {
    while (n > 0) {
        std::size_t want = n < 0x40000000 ? n : 0x40000000;
        ssize_t put = sys::write(fd, src, want);
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_system_error(errno, "write", path);
        }
        if (put == 0) { // no progress and no error: do not loop forever
            throw_system_error(EIO, "write (wrote nothing)", path);
        }
        src += put;
        n -= static_cast<std::size_t>(put);
    }
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_POSIX_HPP
