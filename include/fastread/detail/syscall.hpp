#ifndef FASTREAD_DETAIL_SYSCALL_HPP
#define FASTREAD_DETAIL_SYSCALL_HPP

/// @file
/// The system calls whose failures detail/ handles (read, pread, write, pwrite, fsync,
/// rename, open for writing, and mmap of a file), and getrusage, whose fault counts steer
/// the record windows, in one place, so that tests can make each fail at a chosen call or
/// answer as they need. Built with FASTREAD_SYSCALL_HOOKS defined (fastread's test suite is, in
/// every file), each goes through a replaceable function pointer in sys::hooks(); otherwise each is
/// the plain call, inlined. A program must not mix the two in one binary.

#include <cstddef>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio> // rename

namespace fastread::detail::sys {

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
#endif

} // namespace fastread::detail::sys

#endif // FASTREAD_DETAIL_SYSCALL_HPP
