#ifndef FASTREAD_DETAIL_SYSCALL_HPP
#define FASTREAD_DETAIL_SYSCALL_HPP

/// @file
/// The system calls whose failures detail/ handles (read, pread, write, pwrite, fsync,
/// rename, open for writing, mmap of a file, and the duplicate actions' linkat, renameat,
/// unlinkat and ioctl), and getrusage, whose fault counts steer
/// the record windows, in one place, so that tests can make each fail at a chosen call or
/// answer as they need. Built with FASTREAD_SYSCALL_HOOKS defined (fastread's test suite is, in
/// every file), each goes through a replaceable function pointer in sys::hooks(); otherwise each is
/// the plain call, inlined. A program must not mix the two in one binary.

#include <cstddef>
#include <cstdint>
#include <filesystem>

#if defined(_WIN32)
#include <sys/types.h>

#include "windows.hpp"
#else
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio> // rename
#endif

namespace fastread::detail::sys {

#if defined(_WIN32)
/// A file offset in bytes (64 bits wherever fastread runs).
using offset_t = std::int64_t;

#ifdef FASTREAD_SYSCALL_HOOKS
#error "FASTREAD_SYSCALL_HOOKS: the hooks are POSIX calls; the Windows suite builds without them"
#endif
inline ssize_t read(int fd, void* dst, std::size_t n) {
    return static_cast<ssize_t>(win::read(fd, dst, n));
}
inline ssize_t pread(int fd, void* dst, std::size_t n, offset_t at) {
    return static_cast<ssize_t>(win::pread(fd, dst, n, static_cast<std::uint64_t>(at)));
}
inline ssize_t write(int fd, const void* src, std::size_t n) {
    return static_cast<ssize_t>(win::write(fd, src, n));
}
inline ssize_t pwrite(int fd, const void* src, std::size_t n, offset_t at) {
    return static_cast<ssize_t>(win::pwrite(fd, src, n, static_cast<std::uint64_t>(at)));
}
inline int open(const std::filesystem::path& path, int flags, int mode = 0666) {
    return win::open(path, flags, mode);
}
inline int fsync(int fd) {
    return win::fsync(fd);
}
inline int rename(const std::filesystem::path& from, const std::filesystem::path& to) {
    return win::rename(from, to);
}
/// A view of the first `n` bytes of the file on `fd` (see win::map), or null with errno.
inline void* map_file(int fd, std::size_t n, bool writable, bool shared) {
    return win::map(fd, n, writable, shared);
}
inline void unmap_file(void* p, std::size_t) {
    win::unmap(p);
}
#else
/// A file offset in bytes.
using offset_t = off_t;

#ifdef FASTREAD_SYSCALL_HOOKS
/// The functions the wrappers below call; tests replace entries and put them back.
struct hook_table {
    ssize_t (*read)(int, void*, std::size_t) = [](int fd, void* dst, std::size_t n) {
        return ::read(fd, dst, n);
    };
    ssize_t (*pread)(int, void*, std::size_t, off_t) =
        [](int fd, void* dst, std::size_t n, off_t at) { return ::pread(fd, dst, n, at); };
    ssize_t (*write)(int, const void*, std::size_t) = [](int fd, const void* src, std::size_t n) {
        return ::write(fd, src, n);
    };
    ssize_t (*pwrite)(int, const void*, std::size_t, off_t) =
        [](int fd, const void* src, std::size_t n, off_t at) { return ::pwrite(fd, src, n, at); };
    int (*open)(const char*, int, mode_t) = [](const char* path, int flags, mode_t mode) {
        return ::open(path, flags, mode);
    };
    int (*fsync)(int) = [](int fd) { return ::fsync(fd); };
    int (*rename)(const char*, const char*) = [](const char* from, const char* to) {
        return std::rename(from, to);
    };
    void* (*mmap)(void*, std::size_t, int, int, int, off_t) = [](void* at, std::size_t n, int prot,
                                                                 int flags, int fd, off_t offset) {
        return ::mmap(at, n, prot, flags, fd, offset);
    };
    int (*getrusage)(int, rusage*) = [](int who, rusage* usage) { return ::getrusage(who, usage); };
    int (*linkat)(int, const char*, int, const char*,
                  int) = [](int from_dir, const char* from, int to_dir, const char* to, int flags) {
        return ::linkat(from_dir, from, to_dir, to, flags);
    };
    int (*renameat)(int, const char*, int, const char*) = [](int from_dir, const char* from,
                                                             int to_dir, const char* to) {
        return ::renameat(from_dir, from, to_dir, to);
    };
    int (*unlinkat)(int, const char*, int) = [](int dir, const char* name, int flags) {
        return ::unlinkat(dir, name, flags);
    };
    int (*ioctl)(int, unsigned long, void*) = [](int fd, unsigned long request, void* arg) {
        return ::ioctl(fd, request, arg);
    };
};

/// The table in use (one per program).
inline hook_table& hooks() noexcept {
    static hook_table table;
    return table;
}

inline ssize_t read(int fd, void* dst, std::size_t n) {
    return hooks().read(fd, dst, n);
}
inline ssize_t pread(int fd, void* dst, std::size_t n, off_t at) {
    return hooks().pread(fd, dst, n, at);
}
inline ssize_t write(int fd, const void* src, std::size_t n) {
    return hooks().write(fd, src, n);
}
inline ssize_t pwrite(int fd, const void* src, std::size_t n, off_t at) {
    return hooks().pwrite(fd, src, n, at);
}
inline int open(const char* path, int flags, mode_t mode = 0) {
    return hooks().open(path, flags, mode);
}
inline int fsync(int fd) {
    return hooks().fsync(fd);
}
inline int rename(const char* from, const char* to) {
    return hooks().rename(from, to);
}
inline void* mmap(void* at, std::size_t n, int prot, int flags, int fd, off_t offset) {
    return hooks().mmap(at, n, prot, flags, fd, offset);
}
inline int getrusage(int who, rusage* usage) {
    return hooks().getrusage(who, usage);
}
inline int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
    return hooks().linkat(from_dir, from, to_dir, to, flags);
}
inline int renameat(int from_dir, const char* from, int to_dir, const char* to) {
    return hooks().renameat(from_dir, from, to_dir, to);
}
inline int unlinkat(int dir, const char* name, int flags) {
    return hooks().unlinkat(dir, name, flags);
}
inline int ioctl(int fd, unsigned long request, void* arg) {
    return hooks().ioctl(fd, request, arg);
}
#else
inline ssize_t read(int fd, void* dst, std::size_t n) {
    return ::read(fd, dst, n);
}
inline ssize_t pread(int fd, void* dst, std::size_t n, off_t at) {
    return ::pread(fd, dst, n, at);
}
inline ssize_t write(int fd, const void* src, std::size_t n) {
    return ::write(fd, src, n);
}
inline ssize_t pwrite(int fd, const void* src, std::size_t n, off_t at) {
    return ::pwrite(fd, src, n, at);
}
inline int open(const char* path, int flags, mode_t mode = 0) {
    return ::open(path, flags, mode);
}
inline int fsync(int fd) {
    return ::fsync(fd);
}
inline int rename(const char* from, const char* to) {
    return std::rename(from, to);
}
inline void* mmap(void* at, std::size_t n, int prot, int flags, int fd, off_t offset) {
    return ::mmap(at, n, prot, flags, fd, offset);
}
inline int getrusage(int who, rusage* usage) {
    return ::getrusage(who, usage);
}
inline int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
    return ::linkat(from_dir, from, to_dir, to, flags);
}
inline int renameat(int from_dir, const char* from, int to_dir, const char* to) {
    return ::renameat(from_dir, from, to_dir, to);
}
inline int unlinkat(int dir, const char* name, int flags) {
    return ::unlinkat(dir, name, flags);
}
inline int ioctl(int fd, unsigned long request, void* arg) {
    return ::ioctl(fd, request, arg);
}
#endif

/// open(2) and rename(2) of paths (their native, narrow form here).
inline int open(const std::filesystem::path& path, int flags, mode_t mode = 0) {
    return open(path.c_str(), flags, mode);
}
inline int rename(const std::filesystem::path& from, const std::filesystem::path& to) {
    return rename(from.c_str(), to.c_str());
}

/// A shared or private map of the first `n` bytes of the file on `fd` (mmap at offset 0,
/// readable, writable if asked), or null with errno set.
inline void* map_file(int fd, std::size_t n, bool writable, bool shared) {
    void* p = mmap(nullptr, n, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                   shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
    return p == MAP_FAILED ? nullptr : p;
}
inline void unmap_file(void* p, std::size_t n) {
    ::munmap(p, n);
}
#endif // _WIN32

} // namespace fastread::detail::sys

#endif // FASTREAD_DETAIL_SYSCALL_HPP
