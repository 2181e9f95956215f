#ifndef FASTREAD_DETAIL_WINDOWS_HPP
#define FASTREAD_DETAIL_WINDOWS_HPP

// The file layer's Windows implementation: the calls detail/ makes on a C runtime file
// descriptor (`int`, from _wopen), done with Win32 on the descriptor's handle
// (_get_osfhandle): positioned reads and writes with an OVERLAPPED offset (ReadFile,
// WriteFile), maps (CreateFileMappingW, MapViewOfFile), file identity and times
// (GetFileInformationByHandle(Ex)), atomic replacement (MoveFileExW with
// MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). Paths are UTF-16
// (std::filesystem::path::native()): no `A` function is called. Errors come back as errno
// values (from_win32), so the rest of detail/ reports them as on POSIX.
// Included by posix.hpp on Windows only.

#if defined(_WIN32)

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <windows.h>

namespace fastread::detail::win {

/// The errno value closest to a Win32 error code.
inline int from_win32(DWORD error) noexcept {
    switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT:
        return ENOMEM;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_INVALID_HANDLE:
        return EBADF;
    case ERROR_USER_MAPPED_FILE:
        return EBUSY;
    case ERROR_BROKEN_PIPE:
        return EPIPE;
    case ERROR_FILE_INVALID:
    case ERROR_INVALID_PARAMETER:
        return EINVAL;
    default:
        return EIO;
    }
}

/// The handle under a C runtime descriptor, or INVALID_HANDLE_VALUE (errno EBADF).
inline HANDLE handle_of(int fd) noexcept {
    const intptr_t h = _get_osfhandle(fd);
    if (h == -1) {
        errno = EBADF;
        return INVALID_HANDLE_VALUE;
    }
    return reinterpret_cast<HANDLE>(h);
}

/// Opens `path` as a C runtime descriptor, always binary (no CR-LF translation) and not
/// inherited by child processes; `flags` are the POSIX O_ flags the runtime knows. -1 with
/// errno set on failure (EISDIR for a directory, which the runtime cannot open).
inline int open(const std::filesystem::path& path, int flags, int mode = _S_IREAD | _S_IWRITE) {
    const int fd = ::_wopen(path.c_str(), flags | _O_BINARY | _O_NOINHERIT, mode);
    if (fd < 0 && errno == EACCES) {
        // The C runtime cannot open a directory and says EACCES; say what POSIX says of
        // reading one (EISDIR), so that the error names the real reason.
        const DWORD attributes = GetFileAttributesW(path.c_str());
        if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
            errno = EISDIR;
        }
    }
    return fd;
}

/// write(2) of at most 2^30 bytes.
inline long long write(int fd, const void* src, std::size_t n) noexcept {
    return ::_write(fd, src, static_cast<unsigned>(n < (1u << 30) ? n : (1u << 30)));
}

/// An OVERLAPPED structure that makes a synchronous ReadFile or WriteFile start at `offset`.
inline OVERLAPPED at_offset(std::uint64_t offset) noexcept {
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(offset);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    return at;
}

/// At most 1 GiB per call, as on POSIX here.
inline DWORD clamp_request(std::size_t n) noexcept {
    return static_cast<DWORD>(n < (std::size_t{1} << 30) ? n : (std::size_t{1} << 30));
}

/// read(2) of at most 2^30 bytes: the count, 0 at the end (of a file, or of a pipe whose
/// writer closed it), -1 with errno set. ReadFile on the descriptor's handle, not _read: a
/// descriptor the caller opened in text mode (stdin is, by default) would have _read turn
/// CRLF into LF and stop at a Ctrl-Z, and a byte source gives the bytes as they are.
inline long long read(int fd, void* dst, std::size_t n) noexcept {
    const HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        return -1;
    }
    DWORD got = 0;
    if (!ReadFile(h, dst, clamp_request(n), &got, nullptr)) {
        const DWORD error = GetLastError();
        if (error == ERROR_BROKEN_PIPE || error == ERROR_HANDLE_EOF) {
            return 0;
        }
        errno = from_win32(error);
        return -1;
    }
    return got;
}

/// Keeps a handle's file pointer where it was for the life of the object: a ReadFile or
/// WriteFile at an OVERLAPPED offset on a synchronous handle moves the pointer to the end
/// of what it transferred, where POSIX pread and pwrite leave the offset alone, and callers
/// do mix them on one descriptor (ppm::load(path) peeks at a file's head with pread, then
/// reads it in sequence). Concurrent positioned calls on one descriptor restore the same
/// position; a sequential read racing them on another thread is not supported.
class file_pointer_kept {
  public:
    explicit file_pointer_kept(HANDLE h) noexcept : h_(h) {
        LARGE_INTEGER zero{};
        kept_ = SetFilePointerEx(h_, zero, &at_, FILE_CURRENT) != 0;
    }
    ~file_pointer_kept() {
        if (kept_) {
            SetFilePointerEx(h_, at_, nullptr, FILE_BEGIN);
        }
    }
    file_pointer_kept(const file_pointer_kept&) = delete;
    file_pointer_kept& operator=(const file_pointer_kept&) = delete;

  private:
    HANDLE h_;
    LARGE_INTEGER at_{};
    bool kept_ = false;
};

/// pread(2): ReadFile at `offset` through an OVERLAPPED structure, the file pointer kept
/// where it was (file_pointer_kept). 0 at or past the end of the file.
inline long long pread(int fd, void* dst, std::size_t n, std::uint64_t offset) noexcept {
    const HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        return -1;
    }
    const file_pointer_kept kept(h);
    OVERLAPPED at = at_offset(offset);
    DWORD got = 0;
    if (!ReadFile(h, dst, clamp_request(n), &got, &at)) {
        const DWORD error = GetLastError();
        if (error == ERROR_HANDLE_EOF) {
            return 0;
        }
        errno = from_win32(error);
        return -1;
    }
    return got;
}

/// pwrite(2): WriteFile at `offset` through an OVERLAPPED structure, the file pointer kept
/// where it was (file_pointer_kept).
inline long long pwrite(int fd, const void* src, std::size_t n, std::uint64_t offset) noexcept {
    const HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        return -1;
    }
    const file_pointer_kept kept(h);
    OVERLAPPED at = at_offset(offset);
    DWORD put = 0;
    if (!WriteFile(h, src, clamp_request(n), &put, &at)) {
        errno = from_win32(GetLastError());
        return -1;
    }
    return put;
}

/// fsync(2): FlushFileBuffers. 0, or -1 with errno set.
inline int fsync(int fd) noexcept {
    const HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        return -1;
    }
    if (!FlushFileBuffers(h)) {
        errno = from_win32(GetLastError());
        return -1;
    }
    return 0;
}

/// rename(2) over an existing file, atomically on NTFS: MoveFileExW with
/// MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH (the move is on disk when it
/// returns). 0, or -1 with errno set.
inline int rename(const std::filesystem::path& from, const std::filesystem::path& to) noexcept {
    if (!MoveFileExW(from.c_str(), to.c_str(),
                     MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        errno = from_win32(GetLastError());
        return -1;
    }
    return 0;
}

/// A view of the first `size` bytes (size > 0) of the file open on `fd`: read-only or
/// read-write, shared with the file or a private copy-on-write one (CreateFileMappingW,
/// MapViewOfFile). The mapping object is closed at once: the view keeps it. Null with errno
/// set on failure.
inline void* map(int fd, std::uint64_t size, bool writable, bool shared) noexcept {
    const HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        return nullptr;
    }
    const DWORD protect = !writable ? PAGE_READONLY : shared ? PAGE_READWRITE : PAGE_WRITECOPY;
    const HANDLE mapping = CreateFileMappingW(h, nullptr, protect, static_cast<DWORD>(size >> 32),
                                              static_cast<DWORD>(size), nullptr);
    if (mapping == nullptr) {
        errno = from_win32(GetLastError());
        return nullptr;
    }
    const DWORD access = !writable ? FILE_MAP_READ : shared ? FILE_MAP_WRITE : FILE_MAP_COPY;
    void* view = MapViewOfFile(mapping, access, 0, 0, static_cast<SIZE_T>(size));
    const DWORD error = GetLastError();
    CloseHandle(mapping);
    if (view == nullptr) {
        errno = from_win32(error);
    }
    return view;
}

/// Unmaps a view made by map().
inline void unmap(void* view) noexcept {
    if (view != nullptr) {
        UnmapViewOfFile(view);
    }
}

/// The system's page size (GetSystemInfo).
inline std::size_t page_size() noexcept {
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwPageSize;
}

/// Nanoseconds since 1970-01-01 of a FILETIME-like count of 100 ns since 1601-01-01.
inline std::int64_t unix_ns(std::int64_t filetime) noexcept {
    constexpr std::int64_t from_1601 = 116444736000000000; // 100 ns units to 1970
    return (filetime - from_1601) * 100;
}

/// What detail::file_info holds, for the file open on `fd`: regular (a disk file that is
/// not a directory), its size, the volume serial number and file index as device and inode,
/// last write and change times. False with errno set on failure.
struct file_facts {
    bool regular = false;
    bool directory = false;
    bool reparse_point = false; ///< a symbolic link or junction (opened without following)
    std::uint64_t size = 0;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t links = 1;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;
};
inline bool facts_of_handle(HANDLE h, file_facts& out) noexcept {
    out = {};
    if (GetFileType(h) != FILE_TYPE_DISK) {
        return true; // a pipe or a console: not regular, no size
    }
    BY_HANDLE_FILE_INFORMATION info;
    if (!GetFileInformationByHandle(h, &info)) {
        errno = from_win32(GetLastError());
        return false;
    }
    out.directory = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    out.reparse_point = (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
    out.regular = !out.directory && !out.reparse_point;
    out.links = info.nNumberOfLinks;
    out.size = (std::uint64_t{info.nFileSizeHigh} << 32) | info.nFileSizeLow;
    out.device = info.dwVolumeSerialNumber;
    out.inode = (std::uint64_t{info.nFileIndexHigh} << 32) | info.nFileIndexLow;
    FILE_BASIC_INFO basic;
    if (GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof basic)) {
        out.mtime_ns = unix_ns(basic.LastWriteTime.QuadPart);
        out.ctime_ns = unix_ns(basic.ChangeTime.QuadPart);
    } else {
        const std::int64_t write = (std::int64_t{info.ftLastWriteTime.dwHighDateTime} << 32) |
                                   info.ftLastWriteTime.dwLowDateTime;
        out.mtime_ns = out.ctime_ns = unix_ns(write);
    }
    return true;
}
inline bool facts_of(int fd, file_facts& out) noexcept {
    const HANDLE h = handle_of(fd);
    return h != INVALID_HANDLE_VALUE && facts_of_handle(h, out);
}

/// file_facts of `path`: the file a link leads to (`follow`), or the link itself. 0, or
/// the errno value.
inline int facts_of_path(const std::filesystem::path& path, bool follow, file_facts& out) noexcept {
    const HANDLE h =
        CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                    FILE_FLAG_BACKUP_SEMANTICS | // directories too
                        (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT),
                    nullptr);
    if (h == INVALID_HANDLE_VALUE) {
        return from_win32(GetLastError());
    }
    const bool ok = facts_of_handle(h, out);
    const int err = ok ? 0 : errno;
    CloseHandle(h);
    return err;
}

} // namespace fastread::detail::win

#endif // _WIN32

#endif // FASTREAD_DETAIL_WINDOWS_HPP
