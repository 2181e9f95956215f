#ifndef FASTREAD_DETAIL_POSIX_HPP
#define FASTREAD_DETAIL_POSIX_HPP

// RAII file descriptors and EINTR-safe system-call wrappers shared by the sources and writers.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <io.h>
#else
#include <dirent.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>
#endif

#include "../result.hpp"
#include "platform.hpp"
#include "syscall.hpp"

namespace fastread::detail {

/// The size of a memory page in bytes (sysconf(_SC_PAGESIZE), asked once).
inline std::size_t page_size() noexcept {
    static const std::size_t page = [] {
#if defined(_WIN32)
        return win::page_size();
#else
        const long p = ::sysconf(_SC_PAGESIZE);
        return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
#endif
    }();
    return page;
}

/// The machine's physical memory in bytes (sysconf's pages times the page size; Windows'
/// GlobalMemoryStatusEx), asked once; UINT64_MAX when the system does not say.
inline std::uint64_t physical_memory_bytes() noexcept {
    static const std::uint64_t bytes = [] {
#if defined(_WIN32)
        MEMORYSTATUSEX status{};
        status.dwLength = sizeof status;
        return GlobalMemoryStatusEx(&status) ? std::uint64_t{status.ullTotalPhys} : UINT64_MAX;
#else
        const long pages = ::sysconf(_SC_PHYS_PAGES);
        return pages > 0 ? static_cast<std::uint64_t>(pages) * page_size() : UINT64_MAX;
#endif
    }();
    return bytes;
}

/// O_CLOEXEC where the system has it (Windows descriptors are opened not inheritable).
#if defined(O_CLOEXEC)
inline constexpr int o_cloexec = O_CLOEXEC;
#else
inline constexpr int o_cloexec = 0;
#endif

/// The error of errno `err` in `operation` on `path`, as a value (system_error_value).
inline error os_error(int err, std::string_view operation, const std::filesystem::path& path = {}) {
    return system_error_value(err, operation, path.string());
}

/// Reports errno `err` in `operation` on `path` as throwing calls do (std::system_error
/// whose message names the operation and the path).
[[noreturn]] inline void throw_system_error(int err, std::string_view operation,
                                            const std::filesystem::path& path = {}) {
    throw_error(os_error(err, operation, path));
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

/// Access patterns a descriptor's reads will follow, for the kernel's read-ahead.
enum class file_advice { normal, random, sequential };

/// posix_fadvise(fd, 0, 0, advice) over the whole file: advice, so failure is ignored, and
/// nothing where the system has no posix_fadvise (macOS).
inline void advise(int fd, file_advice advice) noexcept {
#if defined(POSIX_FADV_NORMAL)
    (void)::posix_fadvise(fd, 0, 0,
                          advice == file_advice::random       ? POSIX_FADV_RANDOM
                          : advice == file_advice::sequential ? POSIX_FADV_SEQUENTIAL
                                                              : POSIX_FADV_NORMAL);
#else
    (void)fd;
    (void)advice;
#endif
}

/// True where pread_nowait can tell bytes in the page cache from bytes that would wait for
/// the device (Linux's preadv2 with RWF_NOWAIT).
#if FASTREAD_LINUX_CALLS && defined(RWF_NOWAIT)
inline constexpr bool has_read_nowait = true;
#else
inline constexpr bool has_read_nowait = false;
#endif

/// One read of up to `n` bytes at `offset` of `fd` into `dst` that does not wait for the
/// device: the count read (short or 0 where the page cache holds only part), or -1 with
/// errno EAGAIN when the bytes are not in the page cache, EOPNOTSUPP when the file system
/// cannot say, ENOTSUP where has_read_nowait is false, or another read error.
inline ssize_t pread_nowait(int fd, char* dst, std::size_t n, std::uint64_t offset) noexcept {
#if FASTREAD_LINUX_CALLS && defined(RWF_NOWAIT)
    iovec part{dst, n};
    return ::preadv2(fd, &part, 1, static_cast<off_t>(offset), RWF_NOWAIT);
#else
    (void)fd;
    (void)dst;
    (void)n;
    (void)offset;
    errno = ENOTSUP;
    return -1;
#endif
}

/// True where advise_drop_cached can ask (posix_fadvise with POSIX_FADV_DONTNEED).
#if defined(POSIX_FADV_DONTNEED)
inline constexpr bool has_drop_cached = true;
#else
inline constexpr bool has_drop_cached = false;
#endif

/// Advises the kernel to drop the page-cache pages of `fd` (posix_fadvise DONTNEED over the
/// whole file): 0, or the error number; ENOTSUP where the system has no posix_fadvise.
inline int advise_drop_cached(int fd) noexcept {
#if defined(POSIX_FADV_DONTNEED)
    return ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
#else
    (void)fd;
    return ENOTSUP;
#endif
}

/// Writes the data of the file open on `fd` to its device (fdatasync; fsync where the system
/// has no fdatasync): 0, or the error number.
inline int sync_data(int fd) noexcept {
#if defined(_WIN32)
    return win::fsync(fd) == 0 ? 0 : errno;
#elif defined(__APPLE__)
    return ::fsync(fd) == 0 ? 0 : errno;
#else
    return ::fdatasync(fd) == 0 ? 0 : errno;
#endif
}

/// Sets the size of the file open for writing on `fd` to `size` bytes (ftruncate): 0, or
/// the error number.
inline int resize_file(int fd, std::uint64_t size) noexcept {
#if defined(_WIN32)
    return ::_chsize_s(fd, static_cast<long long>(size));
#else
    return ::ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
#endif
}

/// A new descriptor of the same open file as `fd` (close-on-exec), sharing its offset;
/// an empty unique_fd with errno set if none can be made.
inline unique_fd duplicate_fd(int fd) noexcept {
#if defined(_WIN32)
    return unique_fd(::_dup(fd));
#else
    return unique_fd(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
#endif
}

/// The file offset of `fd` (where its next read starts), or -1 where it has none (a pipe).
inline std::int64_t file_offset(int fd) noexcept {
#if defined(_WIN32)
    return ::_lseeki64(fd, 0, SEEK_CUR);
#else
    return static_cast<std::int64_t>(::lseek(fd, 0, SEEK_CUR));
#endif
}

/// Moves `fd`'s file offset to `offset` (from the start); false if it cannot (errno set).
inline bool seek_to(int fd, std::uint64_t offset) noexcept {
#if defined(_WIN32)
    return ::_lseeki64(fd, static_cast<long long>(offset), SEEK_SET) >= 0;
#else
    return ::lseek(fd, static_cast<off_t>(offset), SEEK_SET) >= 0;
#endif
}

/// The last byte equal to `c` in [p, p + n), or null: memrchr where the C library has it
/// (glibc, the BSDs), else a loop from the end.
inline const void* find_last(const void* p, char c, std::size_t n) noexcept {
#if defined(__GLIBC__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
    return ::memrchr(p, c, n);
#else
    const auto* b = static_cast<const char*>(p);
    for (std::size_t i = n; i-- > 0;) {
        if (b[i] == c) {
            return b + i;
        }
    }
    return nullptr;
#endif
}

/// How open_regular opens a file.
enum class open_mode { read_only, read_write };

/// The error a file that changed while it was read is reported with: ESTALE where the
/// system has it, else EAGAIN (Windows; read it again).
#if defined(ESTALE)
inline constexpr int e_changed = ESTALE;
#else
inline constexpr int e_changed = EAGAIN;
#endif

/// O_NOCTTY where the system has it (a terminal opened is never made the controlling one).
#if defined(O_NOCTTY)
inline constexpr int o_noctty = O_NOCTTY;
#else
inline constexpr int o_noctty = 0;
#endif

/// O_NONBLOCK where the system has it (a FIFO without a writer then fails to open instead
/// of blocking; Windows has no such files to open).
#if defined(O_NONBLOCK)
inline constexpr int o_nonblock = O_NONBLOCK;
#else
inline constexpr int o_nonblock = 0;
#endif

/// Opens `path` read-only (O_CLOEXEC | `extra_flags`), retrying EINTR; on failure an empty
/// descriptor, with the error ("open", the path) in `err`.
inline unique_fd open_read_only(const std::filesystem::path& path, int extra_flags, error& err) {
    for (;;) {
        int fd = sys::open(path, O_RDONLY | o_cloexec | extra_flags);
        if (fd >= 0) {
            return unique_fd(fd);
        }
        if (errno != EINTR) {
            err = os_error(errno, "open", path);
            return unique_fd();
        }
    }
}

/// Opens `path` read-only (O_CLOEXEC), retrying EINTR; throws std::system_error on failure.
inline unique_fd open_read_only(const std::filesystem::path& path, int extra_flags = 0) {
    error err;
    unique_fd fd = open_read_only(path, extra_flags, err);
    throw_if(err);
    return fd;
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
    std::uint64_t links = 1;   ///< hard links to the file (st_nlink)
};

#if !defined(_WIN32)
/// The file_info of a `struct stat`.
inline file_info info_of(const struct stat& st) noexcept {
    file_info info;
    info.regular = S_ISREG(st.st_mode);
    info.directory = S_ISDIR(st.st_mode);
    info.size = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    info.device = static_cast<std::uint64_t>(st.st_dev);
    info.inode = static_cast<std::uint64_t>(st.st_ino);
    info.links = static_cast<std::uint64_t>(st.st_nlink);
#if defined(__APPLE__) // Darwin names the POSIX.1-2008 timespec fields differently
    const timespec &mtime = st.st_mtimespec, &ctime = st.st_ctimespec;
#else
    const timespec &mtime = st.st_mtim, &ctime = st.st_ctim;
#endif
    info.mtime_ns = static_cast<std::int64_t>(mtime.tv_sec) * 1000000000 + mtime.tv_nsec;
    info.ctime_ns = static_cast<std::int64_t>(ctime.tv_sec) * 1000000000 + ctime.tv_nsec;
    return info;
}

#endif

/// fstat of `fd` (opened from `path`); on failure a default file_info, with the error
/// in `err`.
inline file_info stat_fd(int fd, const std::filesystem::path& path, error& err) {
#if defined(_WIN32)
    win::file_facts f;
    if (!win::facts_of(fd, f)) {
        err = os_error(errno, "GetFileInformationByHandle", path);
        return {};
    }
    file_info info;
    info.regular = f.regular;
    info.directory = f.directory;
    info.size = f.size;
    info.device = f.device;
    info.inode = f.inode;
    info.mtime_ns = f.mtime_ns;
    info.ctime_ns = f.ctime_ns;
    info.links = f.links;
    return info;
#else
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        err = os_error(errno, "fstat", path);
        return {};
    }
    return info_of(st);
#endif
}

/// fstat of `fd` (opened from `path`). @throws std::system_error naming `path` on failure.
inline file_info stat_fd(int fd, const std::filesystem::path& path = {}) {
    error err;
    const file_info info = stat_fd(fd, path, err);
    throw_if(err);
    return info;
}

/// True iff `stream` writes to a terminal (isatty of its descriptor).
inline bool is_terminal(std::FILE* stream) noexcept {
#if defined(_WIN32)
    return ::_isatty(::_fileno(stream)) != 0;
#else
    return ::isatty(::fileno(stream)) == 1;
#endif
}

/// The size of the regular file open on `fd` now, from lseek(SEEK_END), which moves the
/// file offset to the end: for a last check after reading (a read racing a truncation can
/// return zeros), where fstat costs 2.7x as much (275 against 103 ns on the KVM host, a
/// sixth of a small P6's load). Falls back to fstat where lseek fails.
/// On failure of both, 0 with the error in `err`.
inline std::uint64_t size_now(int fd, const std::filesystem::path& path, error& err) {
#if defined(_WIN32)
    const std::int64_t end = ::_lseeki64(fd, 0, SEEK_END);
#else
    const off_t end = ::lseek(fd, 0, SEEK_END);
#endif
    return end >= 0 ? static_cast<std::uint64_t>(end) : stat_fd(fd, path, err).size;
}

/// size_now, throwing its error. @throws std::system_error naming `path` if fstat fails.
inline std::uint64_t size_now(int fd, const std::filesystem::path& path = {}) {
    error err;
    const std::uint64_t size = size_now(fd, path, err);
    throw_if(err);
    return size;
}

#if defined(_WIN32)
inline unique_fd open_regular(const std::filesystem::path& path, std::string_view operation,
                              open_mode mode, error& err, file_info* info_out = nullptr) {
    unique_fd fd(sys::open(path, mode == open_mode::read_write ? O_RDWR : O_RDONLY));
    if (!fd) {
        if (errno == EISDIR) { // win::open refuses a directory: the message POSIX gives
            err = os_error(EISDIR,
                           std::string(operation) + ": not a regular file (a directory):", path);
        } else {
            err = os_error(errno, std::string(operation) + ": open", path);
        }
        return unique_fd();
    }
    const file_info info = stat_fd(fd.get(), path, err);
    if (err.code()) {
        return unique_fd();
    }
    if (!info.regular) {
        err = os_error(info.directory ? EISDIR : EINVAL,
                       std::string(operation) + ": not a regular file:", path);
        return unique_fd();
    }
    if (info_out != nullptr) {
        *info_out = info;
    }
    return fd;
}
#else
/// "a directory", "a FIFO", ... for an error message about a non-regular file.
inline const char* kind_of(mode_t mode) noexcept {
    return S_ISDIR(mode) ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode) ? "a character device"
           : S_ISBLK(mode) ? "a block device"
                           : "not a regular file";
}

/// Opens `path` (O_CLOEXEC | `flags`, retrying EINTR) for an `operation` that only makes
/// sense on a regular file (records, the page cache): with O_NONBLOCK, so that a FIFO
/// without a writer does not block the open, which is cleared again once the file is
/// known to be regular. On failure an empty descriptor, with the error in `err` (naming
/// `operation` and the path): what open(2) said, EISDIR for a directory, EINVAL for any
/// other file that is not regular (FIFO, socket, device), which is never read. What fstat
/// said of the file goes to `info_out` when given.
inline unique_fd open_regular(const std::filesystem::path& path, std::string_view operation,
                              open_mode mode, error& err, file_info* info_out = nullptr) {
    const int flags = mode == open_mode::read_write ? O_RDWR : O_RDONLY;
    unique_fd fd;
    for (;;) {
        const int raw = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK);
        if (raw >= 0) {
            fd.reset(raw);
            break;
        }
        if (errno != EINTR) {
            err = os_error(errno, std::string(operation) + ": open", path);
            return unique_fd();
        }
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
        err = os_error(errno, std::string(operation) + ": fstat", path);
        return unique_fd();
    }
    if (!S_ISREG(st.st_mode)) {
        err = os_error(
            S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
            std::string(operation) + ": not a regular file (" + kind_of(st.st_mode) + "):", path);
        return unique_fd();
    }
    const int fl = ::fcntl(fd.get(), F_GETFL);
    if (fl >= 0) {
        (void)::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK);
    }
    if (info_out != nullptr) {
        *info_out = info_of(st);
    }
    return fd;
}

#endif // _WIN32

/// open_regular, reporting its error as throwing calls do.
inline unique_fd open_regular(const std::filesystem::path& path, std::string_view operation,
                              open_mode mode = open_mode::read_only) {
    error err;
    unique_fd fd = open_regular(path, operation, mode, err);
    throw_if(err);
    return fd;
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_POSIX_HPP
