#ifndef FASTREAD_DETAIL_EXTENTS_HPP
#define FASTREAD_DETAIL_EXTENTS_HPP

// Whether stores into a file only overwrite blocks it already owns: what decides if a
// default path may write through a shared map, where a store that needs a new block on a
// full file system raises SIGBUS instead of returning ENOSPC.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "platform.hpp"

#if FASTREAD_LINUX_CALLS
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#endif

namespace fastread::detail {

/// True when storing into any byte of [0, size) of the file open on `fd` overwrites a
/// block the file already owns, in place: the file system writes in place (ext2/3/4 or
/// XFS, by statfs(2) f_type), and FIEMAP (Documentation/filesystems/fiemap.rst) lists
/// extents that cover every byte of [0, size) with none unwritten (fallocate), delayed
/// (dirty pages not yet given blocks), shared (reflinks: a store would copy), inline,
/// encoded or of unknown location. False otherwise, including holes, other file systems
/// (copy-on-write ones allocate on every store), and kernels or files without FIEMAP.
/// A hole punched or a reflink made by another process after the check is not seen: the
/// caller's SIGBUS guard is the last line for that race. Cost: a statfs and one FIEMAP
/// call per 64 extents (ext4 extents hold up to 128 MiB). Never throws.
inline bool overwrites_in_place(int fd, std::uint64_t size) noexcept {
#if FASTREAD_LINUX_CALLS
    struct statfs fs {};
    if (::fstatfs(fd, &fs) != 0 ||
        (fs.f_type != EXT4_SUPER_MAGIC && fs.f_type != XFS_SUPER_MAGIC)) {
        return false;
    }
    constexpr unsigned per_call = 64;
    // struct fiemap ends in a flexible array: room for per_call extents after it.
    alignas(struct fiemap) unsigned char
        room[sizeof(struct fiemap) + per_call * sizeof(struct fiemap_extent)];
    auto* const head = reinterpret_cast<struct fiemap*>(room);
    constexpr std::uint32_t refused =
        FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED |
        FIEMAP_EXTENT_DATA_ENCRYPTED | FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE |
        FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_SHARED;
    std::uint64_t covered = 0; // [0, covered) is known to be in owned, written blocks
    while (covered < size) {
        std::memset(room, 0, sizeof room);
        head->fm_start = covered;
        head->fm_length = size - covered;
        head->fm_extent_count = per_call;
        if (::ioctl(fd, FS_IOC_FIEMAP, head) != 0 || head->fm_mapped_extents == 0) {
            return false;
        }
        for (std::uint32_t i = 0; i < head->fm_mapped_extents; ++i) {
            const struct fiemap_extent& e = head->fm_extents[i];
            if ((e.fe_flags & refused) != 0 || e.fe_logical > covered) {
                return false; // a refused kind of extent, or a hole before it
            }
            if (e.fe_logical + e.fe_length > covered) {
                covered = e.fe_logical + e.fe_length;
            }
            if ((e.fe_flags & FIEMAP_EXTENT_LAST) != 0 && covered < size) {
                return false; // the file's blocks end before `size`
            }
        }
    }
    return true;
#else
    (void)fd;
    (void)size;
    return false;
#endif
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_EXTENTS_HPP
