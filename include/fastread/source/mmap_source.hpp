#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_MMAP_SOURCE_HPP)
#define FASTREAD_SOURCE_MMAP_SOURCE_HPP

/// @file
/// `mmap_source`: a whole regular file mapped read-only.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <utility>

#include "../detail/file_map.hpp"
#include "../detail/posix.hpp"
#include "../detail/rw.hpp"
#include "../result.hpp"
#include "byte_source.hpp"

namespace fastread {

/// A regular file mapped read-only with `mmap`, with `madvise(MADV_SEQUENTIAL)`; contiguous.
///
/// An empty file gives one empty chunk without calling `mmap`. Files that cannot be mapped
/// (pipes, sockets, terminals, directories, and `/proc` or sysfs files whose size `fstat`
/// reports as 0 although they have content) throw `std::system_error` (`ENODEV`, or
/// `EISDIR` for a directory) from the constructor; the path-taking conveniences
/// (`ppm::load(path)`) stream such files with `read_source` instead.
///
/// The descriptor is closed once the map exists. The map is not guarded: if the file shrinks
/// while it is mapped (another process truncates it, as `logrotate`'s copytruncate does),
/// touching a page past its new end raises SIGBUS, which ends the process unless the program
/// handles that signal. Map only files that are not rewritten in place (writers that
/// replace files by rename, as fastread's do, are safe), or use the path-taking entry points
/// (`lines(path)`, `ppm::load(path)`), which never die of it.
class mmap_source {
  public:
    /// Maps the file at `path`. Throws `std::system_error` naming the path if it cannot be
    /// opened, is not a regular file, or the map fails (`try_open` returns the same errors).
    explicit mmap_source(const std::filesystem::path& path)
        : mmap_source(detail::value_or_throw(try_open(path))) {}

    /// Maps the file open on `fd` (borrowed: not closed). Throws as above.
    explicit mmap_source(int fd) : mmap_source(detail::value_or_throw(try_open(fd))) {}

    /// Maps the file at `path` without throwing: the source, or the error (open's errno,
    /// EISDIR for a directory, ENODEV for a file that cannot be mapped, the map's errno).
    static result<mmap_source> try_open(const std::filesystem::path& path) {
        mmap_source source;
        source.path_ = path;
        fastread::error err;
        // O_NONBLOCK so that a FIFO with no writer is rejected instead of hanging in open().
        detail::unique_fd fd = detail::open_read_only(path, detail::o_nonblock, err);
        if (!fd) {
            return err;
        }
        if (fastread::error e = source.map(fd.get()); e.code()) {
            return e;
        }
        return source;
    }

    /// Maps the file open on `fd` (borrowed) without throwing: the source or the error.
    static result<mmap_source> try_open(int fd) {
        mmap_source source;
        if (fastread::error e = source.map(fd); e.code()) {
            return e;
        }
        return source;
    }

    /// The whole file on the first call, then an empty span.
    std::span<const char> next() noexcept {
        if (done_) {
            return {};
        }
        done_ = true;
        return bytes();
    }
    /// The whole file; valid while the source lives.
    std::span<const char> bytes() const noexcept { return map_.bytes(); }
    /// The path the file was opened from (empty when constructed from a descriptor).
    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    mmap_source() = default;

    fastread::error map(int fd) {
        fastread::error err;
        detail::file_info info = detail::stat_fd(fd, path_, err);
        if (err.code()) {
            return err;
        }
        if (info.directory) {
            return detail::os_error(EISDIR, "mmap", path_);
        }
        if (!info.regular) {
            return detail::os_error(ENODEV, "mmap (not a regular file)", path_);
        }
        if (info.size == 0) {
            // An empty file, or a /proc-style file whose size is unknown: one byte tells.
            char probe = 0;
            const std::size_t got = detail::read_some(fd, &probe, 1, path_, err);
            if (err.code()) {
                return err;
            }
            if (got != 0) {
                return detail::os_error(ENODEV, "mmap (file size unknown)", path_);
            }
            return {};
        }
        int map_error = 0;
        map_ = detail::file_map::try_map(fd, info.size, detail::file_map::access::read_only,
                                         detail::file_map::sharing::private_copy, map_error);
        if (map_error != 0) {
            return detail::os_error(map_error, "mmap", path_);
        }
        // Advice only: a failure changes nothing observable.
        map_.advise(detail::map_advice::sequential);
        return {};
    }

    detail::file_map map_;
    bool done_ = false;
    std::filesystem::path path_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_MMAP_SOURCE_HPP
