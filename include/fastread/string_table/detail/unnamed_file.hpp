#ifndef FASTREAD_STRING_TABLE_DETAIL_UNNAMED_FILE_HPP
#define FASTREAD_STRING_TABLE_DETAIL_UNNAMED_FILE_HPP

/// @file
/// What string_table::write builds a table in before it is linked under its name: a file
/// no path names, and a copy between descriptors inside the kernel.

#include "../../detail/platform.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/syscall.hpp"
#include "../../error.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <fcntl.h>
#if defined(_WIN32)
#include <io.h>
#include <sys/stat.h>
#else
#include <unistd.h>
#endif

namespace fastread::detail {

/// Copies up to `n` bytes of `in` from `in_offset` (advanced past them) to `out` at its
/// file position, inside the kernel (Linux's copy_file_range, retried on EINTR). Returns
/// the count; 0 at the end of `in`, on an error, or where the system has no such call:
/// the caller then copies the rest itself (read and write), which reports errors.
inline std::size_t copy_in_kernel(int in, std::uint64_t& in_offset, int out,
                                  std::size_t n) noexcept {
#if FASTREAD_LINUX_CALLS
    for (;;) {
        loff_t at = static_cast<loff_t>(in_offset);
        const ssize_t got = ::copy_file_range(in, &at, out, nullptr, n, 0);
        if (got > 0) {
            in_offset += static_cast<std::uint64_t>(got);
            return static_cast<std::size_t>(got);
        }
        if (got < 0 && errno == EINTR) {
            continue;
        }
        return 0;
    }
#else
    (void)in;
    (void)in_offset;
    (void)out;
    (void)n;
    return 0;
#endif
}

/// An open read-write file in `dir` that no path names, removed when closed: Linux's
/// O_TMPFILE where the file system has it, else a file created with a unique name
/// (`stem` and the process id) and unlinked at once.
/// @throws std::system_error naming `for_path` if neither can be made.
inline unique_fd open_unnamed_file(const std::filesystem::path& dir, std::string_view stem,
                                   const std::filesystem::path& for_path, error& err) {
#if FASTREAD_LINUX_CALLS && defined(O_TMPFILE)
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
    int fd = -1;
#endif
    if (fd < 0) {
        const std::filesystem::path name =
            dir / (std::string(stem) + "." + std::to_string(::getpid()));
#if defined(_WIN32) // an open file cannot be removed there: deleted when closed instead
        fd = sys::open(name, O_RDWR | O_CREAT | O_EXCL | _O_TEMPORARY, _S_IREAD | _S_IWRITE);
        if (fd < 0) {
            err = os_error(errno, "create a temporary file for", for_path);
            return unique_fd();
        }
#else
        fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            err = os_error(errno, "create a temporary file for", for_path);
            return unique_fd();
        }
        ::unlink(name.c_str());
#endif
    }
    return unique_fd(fd);
}

/// open_unnamed_file, throwing its error (std::system_error naming `for_path`).
inline unique_fd open_unnamed_file(const std::filesystem::path& dir, std::string_view stem,
                                   const std::filesystem::path& for_path) {
    error err;
    unique_fd fd = open_unnamed_file(dir, stem, for_path, err);
    throw_if(err);
    return fd;
}

} // namespace fastread::detail

#endif // FASTREAD_STRING_TABLE_DETAIL_UNNAMED_FILE_HPP
