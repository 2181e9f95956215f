#ifndef FASTREAD_DETAIL_RW_HPP
#define FASTREAD_DETAIL_RW_HPP

// Reading and writing through descriptors: whole counts, at offsets, retrying EINTR and
// short transfers; every failure a std::system_error naming the operation and the file.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "posix.hpp"

namespace fastread::detail {

/// One read(2), retried on EINTR. Returns the byte count (0 = end of file, or an error,
/// then in `err`).
inline std::size_t read_some(int fd, char* dst, std::size_t n, const std::filesystem::path& path,
                             error& err) {
    for (;;) {
        ssize_t got = sys::read(fd, dst, n);
        if (got >= 0) {
            return static_cast<std::size_t>(got);
        }
        if (errno != EINTR) {
            err = os_error(errno, "read", path);
            return 0;
        }
    }
}

/// One read(2), retried on EINTR. Returns the byte count (0 = end of file); throws on error.
inline std::size_t read_some(int fd, char* dst, std::size_t n,
                             const std::filesystem::path& path = {}) {
    error err;
    const std::size_t got = read_some(fd, dst, n, path, err);
    throw_if(err);
    return got;
}

/// Reads until `n` bytes arrived or the file ended; returns the count (< n only at the end
/// or on an error, then in `err`).
inline std::size_t read_full(int fd, char* dst, std::size_t n, const std::filesystem::path& path,
                             error& err) {
    std::size_t done = 0;
    while (done < n) {
        // Linux transfers at most 0x7ffff000 bytes per call; ask for no more than that.
        std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        std::size_t got = read_some(fd, dst + done, want, path, err);
        if (got == 0) {
            break;
        }
        done += got;
    }
    return done;
}

/// Reads until `n` bytes arrived or the file ended; returns the count (< n only at end).
/// @throws std::system_error naming `path` on a read error.
inline std::size_t read_full(int fd, char* dst, std::size_t n,
                             const std::filesystem::path& path = {}) {
    error err;
    const std::size_t got = read_full(fd, dst, n, path, err);
    throw_if(err);
    return got;
}

/// Calls `read_at(dst, want, offset)`, a pread(2)-like call (bytes read, 0 at the end of the
/// file, -1 with errno set), until `n` bytes arrived from `offset` or the file ended, at most
/// 1 GiB per call; retries EINTR. Returns the count; on any other error, the count so far
/// with the error ("pread", `path`) in `err`.
template <class ReadAt>
std::size_t read_full_at(ReadAt read_at, char* dst, std::size_t n, std::uint64_t offset,
                         const std::filesystem::path& path, error& err) {
    std::size_t done = 0;
    while (done < n) {
        const std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        const ssize_t got = read_at(dst + done, want, offset + done);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            err = os_error(errno, "pread", path);
            break;
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    return done;
}

/// read_full_at, throwing its error. @throws std::system_error ("pread", `path`).
template <class ReadAt>
std::size_t read_full_at(ReadAt read_at, char* dst, std::size_t n, std::uint64_t offset,
                         const std::filesystem::path& path) {
    error err;
    const std::size_t got = read_full_at(read_at, dst, n, offset, path, err);
    throw_if(err);
    return got;
}

/// pread(2) until `n` bytes arrived from `offset` or the file ended; returns the count
/// (short on an error, then in `err`).
inline std::size_t pread_full(int fd, char* dst, std::size_t n, std::uint64_t offset,
                              const std::filesystem::path& path, error& err) {
    return read_full_at(
        [fd](char* to, std::size_t want, std::uint64_t at) {
            return sys::pread(fd, to, want, static_cast<sys::offset_t>(at));
        },
        dst, n, offset, path, err);
}

/// pread(2) until `n` bytes arrived from `offset` or the file ended; returns the count.
/// @throws std::system_error naming `path` on a read error.
inline std::size_t pread_full(int fd, char* dst, std::size_t n, std::uint64_t offset,
                              const std::filesystem::path& path = {}) {
    error err;
    const std::size_t got = pread_full(fd, dst, n, offset, path, err);
    throw_if(err);
    return got;
}

/// pwrite(2) of all `n` bytes at `offset`, looping on short writes and EINTR; false on an
/// error, then in `err` ("pwrite", the path).
inline bool pwrite_all(int fd, const char* src, std::size_t n, std::uint64_t offset,
                       const std::filesystem::path& path, error& err) {
    while (n > 0) {
        const std::size_t want = n < 0x40000000 ? n : 0x40000000;
        const ssize_t put = sys::pwrite(fd, src, want, static_cast<sys::offset_t>(offset));
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            err = os_error(errno, "pwrite", path);
            return false;
        }
        if (put == 0) { // no progress and no error: do not loop forever
            err = os_error(EIO, "pwrite (wrote nothing)", path);
            return false;
        }
        src += put;
        offset += static_cast<std::uint64_t>(put);
        n -= static_cast<std::size_t>(put);
    }
    return true;
}

/// pwrite(2) of all `n` bytes at `offset`, looping on short writes and EINTR; throws on error.
inline void pwrite_all(int fd, const char* src, std::size_t n, std::uint64_t offset,
                       const std::filesystem::path& path = {}) {
    error err;
    pwrite_all(fd, src, n, offset, path, err);
    throw_if(err);
}

/// pwrite(2) of all `n` bytes at `offset`, looping on short writes and EINTR, without
/// throwing: returns 0, or the errno of the call that failed; `done` = bytes written.
inline int pwrite_counted(int fd, const char* src, std::size_t n, std::uint64_t offset,
                          std::size_t& done) noexcept {
    done = 0;
    while (done < n) {
        const std::size_t want = n - done < 0x40000000 ? n - done : 0x40000000;
        const ssize_t put =
            sys::pwrite(fd, src + done, want, static_cast<sys::offset_t>(offset + done));
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

/// Writes all `n` bytes, looping on short writes and EINTR; false on an error, then in
/// `err`.
inline bool write_all(int fd, const char* src, std::size_t n, const std::filesystem::path& path,
                      error& err) {
    while (n > 0) {
        std::size_t want = n < 0x40000000 ? n : 0x40000000;
        ssize_t put = sys::write(fd, src, want);
        if (put < 0) {
            if (errno == EINTR) {
                continue;
            }
            err = os_error(errno, "write", path);
            return false;
        }
        if (put == 0) { // no progress and no error: do not loop forever
            err = os_error(EIO, "write (wrote nothing)", path);
            return false;
        }
        src += put;
        n -= static_cast<std::size_t>(put);
    }
    return true;
}

/// Writes all `n` bytes, looping on short writes and EINTR; throws on error.
inline void write_all(int fd, const char* src, std::size_t n,
                      const std::filesystem::path& path = {}) {
    error err;
    write_all(fd, src, n, path, err);
    throw_if(err);
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_RW_HPP
