#ifndef FASTREAD_DUPLICATES_DETAIL_FILE_ACTIONS_HPP
#define FASTREAD_DUPLICATES_DETAIL_FILE_ACTIONS_HPP

/// @file
/// The system calls the duplicate actions make, relative to directory descriptors: a
/// directory opened one name at a time without following symbolic links, lstat of a name in
/// it, an open that refuses a symbolic link, linkat, renameat, unlinkat, and Linux's
/// FIDEDUPERANGE. Each returns 0 or an error number; where the system lacks one (Windows,
/// FIDEDUPERANGE outside Linux or with FASTREAD_POSIX_FALLBACKS) it returns ENOTSUP and
/// changes nothing.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "../../detail/platform.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/syscall.hpp"

#if FASTREAD_LINUX_CALLS
#include <linux/fs.h> // FIDEDUPERANGE, struct file_dedupe_range
#endif

namespace fastread::detail {

/// The error number of a file that changed since the scan (ESTALE, "stale file handle";
/// EAGAIN where the C library has no ESTALE, as MinGW's).
#if defined(ESTALE)
inline constexpr int file_changed = ESTALE;
#else
inline constexpr int file_changed = EAGAIN;
#endif

/// This process's id (temporary names).
inline long process_id() noexcept {
#if defined(_WIN32)
    return static_cast<long>(::_getpid());
#else
    return static_cast<long>(::getpid());
#endif
}

#if defined(_WIN32)
inline int open_dir_below(const std::string&, std::string_view, unique_fd&) noexcept {
    return ENOTSUP;
}
inline int stat_at(int, const std::string&, file_info&, bool&) noexcept {
    return ENOTSUP;
}
inline int open_file_at(int, const std::string&, unique_fd&) noexcept {
    return ENOTSUP;
}
inline int link_at(int, const std::string&, int, const std::string&) noexcept {
    return ENOTSUP;
}
inline int rename_at(int, const std::string&, int, const std::string&) noexcept {
    return ENOTSUP;
}
inline int unlink_at(int, const std::string&) noexcept {
    return ENOTSUP;
}
inline int stat_fd(int, file_info&) noexcept {
    return ENOTSUP;
}
#else
/// Opens the directory `root` (as named: symbolic links in it are followed, as the walk
/// followed them), then each '/'-separated name of `below` in turn with O_NOFOLLOW, so that
/// a directory swapped for a symbolic link after the walk stops the descent (ELOOP or
/// ENOTDIR) instead of leading outside the tree. 0, or the error number.
inline int open_dir_below(const std::string& root, std::string_view below,
                          unique_fd& out) noexcept {
    constexpr int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    unique_fd dir(::open(root.c_str(), flags));
    if (!dir) {
        return errno;
    }
    while (!below.empty()) {
        const std::size_t slash = below.find('/');
        const std::string name(below.substr(0, slash));
        below = slash == std::string_view::npos ? std::string_view() : below.substr(slash + 1);
        if (name.empty()) {
            continue;
        }
        unique_fd next(::openat(dir.get(), name.c_str(), flags | O_NOFOLLOW));
        if (!next) {
            return errno;
        }
        dir = std::move(next);
    }
    out = std::move(dir);
    return 0;
}

/// lstat of `name` in the directory `dir` into `out`; `link`: it is a symbolic link.
inline int stat_at(int dir, const std::string& name, file_info& out, bool& link) noexcept {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return errno;
    }
    out = info_of(st);
    link = S_ISLNK(st.st_mode);
    return 0;
}

/// fstat of an open file into `out`.
inline int stat_fd(int fd, file_info& out) noexcept {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return errno;
    }
    out = info_of(st);
    return 0;
}

/// Opens `name` in `dir` for reading, refusing a symbolic link (ELOOP) and never waiting on
/// a FIFO or taking a terminal.
inline int open_file_at(int dir, const std::string& name, unique_fd& out) noexcept {
    out.reset(
        ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    return out ? 0 : errno;
}

/// A new name `to` in `to_dir` for the file `from` in `from_dir` (linkat, no link followed).
inline int link_at(int from_dir, const std::string& from, int to_dir,
                   const std::string& to) noexcept {
    return sys::linkat(from_dir, from.c_str(), to_dir, to.c_str(), 0) == 0 ? 0 : errno;
}

/// renameat: `from` in `from_dir` replaces `to` in `to_dir` atomically.
inline int rename_at(int from_dir, const std::string& from, int to_dir,
                     const std::string& to) noexcept {
    return sys::renameat(from_dir, from.c_str(), to_dir, to.c_str()) == 0 ? 0 : errno;
}

/// unlinkat of the file `name` in `dir`.
inline int unlink_at(int dir, const std::string& name) noexcept {
    return sys::unlinkat(dir, name.c_str(), 0) == 0 ? 0 : errno;
}
#endif

/// Whether the file system of the file on `src` can share extents: FIDEDUPERANGE with no
/// destination, which the kernel answers (EOPNOTSUPP where the file system has no remap
/// operation) without touching anything. 0, ENOTSUP, or another error number. A dry run
/// asks this, so that it reports what the real run would (an XFS made without reflink=1
/// says yes here and no to the real call).
inline int dedupe_supported([[maybe_unused]] int src) noexcept {
#if FASTREAD_LINUX_CALLS && defined(FIDEDUPERANGE)
    // A request with no destination (the struct ends in a flexible array: raw storage).
    alignas(file_dedupe_range) unsigned char none[sizeof(file_dedupe_range)] = {};
    if (sys::ioctl(src, FIDEDUPERANGE, none) != 0) {
        const int err = errno;
        return err == EOPNOTSUPP || err == EINVAL || err == ENOTTY ? ENOTSUP : err;
    }
    return 0;
#else
    return ENOTSUP;
#endif
}

/// Makes the `size` bytes of the file on `dst` share the extents of those of `src`, where
/// the kernel finds them equal (Linux FIDEDUPERANGE, which compares the bytes under the
/// files' locks, in pieces of at most 16 MiB, as the kernel may do less per call). 0: all
/// shared (`differs` false), or some piece differed (`differs` true: nothing more is
/// shared; the pieces before it are, with the same bytes). ENOTSUP (also for the
/// file system's EOPNOTSUPP, EINVAL, EXDEV): not supported here, nothing changed.
inline int dedupe_range([[maybe_unused]] int src, [[maybe_unused]] int dst,
                        [[maybe_unused]] std::uint64_t size, bool& differs) noexcept {
    differs = false;
#if FASTREAD_LINUX_CALLS && defined(FIDEDUPERANGE)
    // The request with one destination (file_dedupe_range ends in a flexible array).
    alignas(file_dedupe_range) unsigned char
        buffer[sizeof(file_dedupe_range) + sizeof(file_dedupe_range_info)];
    constexpr std::uint64_t piece = std::uint64_t{16} << 20;
    for (std::uint64_t at = 0; at < size;) {
        std::memset(buffer, 0, sizeof buffer);
        auto* range = reinterpret_cast<file_dedupe_range*>(buffer);
        range->src_offset = at;
        range->src_length = std::min(piece, size - at);
        range->dest_count = 1;
        file_dedupe_range_info& info = range->info[0];
        info.dest_fd = dst;
        info.dest_offset = at;
        if (sys::ioctl(src, FIDEDUPERANGE, range) != 0) {
            const int err = errno;
            return err == EOPNOTSUPP || err == EINVAL || err == EXDEV || err == ENOTTY ? ENOTSUP
                                                                                       : err;
        }
        if (info.status == FILE_DEDUPE_RANGE_DIFFERS) {
            differs = true;
            return 0;
        }
        if (info.status < 0) {
            const int err = -info.status;
            return err == EOPNOTSUPP || err == EINVAL ? ENOTSUP : err;
        }
        if (info.bytes_deduped == 0) {
            return EIO; // no progress: never loop forever
        }
        at += info.bytes_deduped;
    }
    return 0;
#else
    return ENOTSUP;
#endif
}

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_FILE_ACTIONS_HPP
