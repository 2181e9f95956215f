#ifndef FASTREAD_DETAIL_ATOMIC_FILE_HPP
#define FASTREAD_DETAIL_ATOMIC_FILE_HPP

// Writes a file so that readers see either the old file or the whole new one, never half of
// it: a temporary file in the target's directory, fsync, rename over the target, fsync of
// the directory. Used by ppm::save and string_table::write / writer.
//
// What it replaces, and how (docs/guarantees.md):
// - a symbolic link is followed (to any depth, up to 40 links, as the kernel does): the file
//   it names is replaced, in that file's directory, and the link stays a link;
// - an existing regular file keeps its permission bits, and its owner and group where the
//   caller may set them;
// - a file with more than one hard link is refused (std::system_error, EMLINK): renaming
//   over one name would leave the others with the old data, and writing in place would not
//   be atomic;
// - anything but a regular file (a directory, FIFO, socket, device) is refused
//   (std::system_error naming it), before anything is created;
// - the temporary name is short whatever the target's name is (a prefix of it, the process
//   id and a counter), so any name the file system takes can be written.

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <process.h>
#else
#include <unistd.h>
#endif

#include "posix.hpp"
#include "rw.hpp"

namespace fastread::detail {

/// What a symbolic link chain starting at `path` finally names (relative links resolved
/// against their own directory), or `path` itself when it is not a link or does not exist.
/// On failure an empty path, with the error in `err`: ELOOP after 40 links, or naming the
/// path if lstat or readlink fails for another reason than a missing file.
inline std::filesystem::path resolve_links(std::filesystem::path path, error& err) {
#if defined(_WIN32)
    for (int hops = 0;; ++hops) { // symbolic links (not junctions) through std::filesystem
        std::error_code ec;
        const std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
        if (ec || !std::filesystem::is_symlink(st)) {
            return path; // not a link, or nothing there yet
        }
        if (hops == 40) {
            {
                err = os_error(ELOOP, "follow the symbolic links of", path);
                return {};
            }
        }
        const std::filesystem::path link = std::filesystem::read_symlink(path, ec);
        if (ec) {
            {
                err = os_error(ec.value(), "read the symbolic link", path);
                return {};
            }
        }
        path = link.is_absolute() ? link : path.parent_path() / link;
    }
#else
    for (int hops = 0;; ++hops) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) {
            if (errno == ENOENT) {
                return path; // a new file (or the missing target of a dangling link)
            }
            {
                err = os_error(errno, "lstat", path);
                return {};
            }
        }
        if (!S_ISLNK(st.st_mode)) {
            return path;
        }
        if (hops == 40) {
            {
                err = os_error(ELOOP, "follow the symbolic links of", path);
                return {};
            }
        }
        char buffer[PATH_MAX];
        const ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer);
        if (n < 0) {
            {
                err = os_error(errno, "readlink", path);
                return {};
            }
        }
        if (static_cast<std::size_t>(n) == sizeof buffer) {
            {
                err = os_error(ENAMETOOLONG, "readlink", path);
                return {};
            }
        }
        const std::filesystem::path link(std::string(buffer, static_cast<std::size_t>(n)));
        path = link.is_absolute() ? link : path.parent_path() / link;
    }
#endif
}

class atomic_file {
  public:
    /// Resolves `target` through symbolic links, checks what it names (see the file
    /// comment), and creates the temporary file next to it: mode 0666 minus the umask for a
    /// new file, else the old file's permission bits, owner and group (as far as the
    /// caller may set them). On failure `err` holds the error, naming the target: EISDIR
    /// for a directory, EINVAL for another non-regular file, EMLINK for a file with several
    /// hard links, ELOOP for a link loop, or what open(2) said; nothing is then created and
    /// write() and commit() do nothing.
    atomic_file(const std::filesystem::path& target, error& err)
        : target_(resolve_links(target, err)) {
        if (err.code()) {
            return;
        }
#if defined(_WIN32)
        // What Windows keeps of permissions is the read-only attribute: carried over.
        std::error_code ec;
        const std::filesystem::file_status st = std::filesystem::status(target_, ec);
        const bool exists = !ec && std::filesystem::exists(st);
        if (exists) {
            if (!std::filesystem::is_regular_file(st)) {
                {
                    err = os_error(
                        std::filesystem::is_directory(st) ? EISDIR : EINVAL,
                        "refuse to replace a file that is not regular with a file:", target);
                    return;
                }
            }
            // From the file's handle: the C runtime's stat (and so std::filesystem's
            // hard_link_count under MinGW) always says 1.
            win::file_facts facts;
            const std::uint64_t links =
                win::facts_of_path(target_, true, facts) == 0 ? facts.links : 1;
            if (links > 1) {
                {
                    err = os_error(EMLINK,
                                   "refuse to replace a file with " + std::to_string(links) +
                                       " hard links (the other names would keep the old data):",
                                   target);
                    return;
                }
            }
        }
        if (!create_temporary(target, err)) {
            return;
        }
        if (exists) {
            std::filesystem::permissions(temp_, st.permissions(), ec);
        }
#else
        struct stat st {};
        std::optional<struct stat> old;
        if (::stat(target_.c_str(), &st) == 0) {
            if (!S_ISREG(st.st_mode)) {
                {
                    err = os_error(S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
                                   std::string("refuse to replace ") + kind_of(st.st_mode) +
                                       " with a file:",
                                   target);
                    return;
                }
            }
            if (st.st_nlink > 1) {
                {
                    err = os_error(EMLINK,
                                   "refuse to replace a file with " + std::to_string(st.st_nlink) +
                                       " hard links (the other names would keep the old data):",
                                   target);
                    return;
                }
            }
            old = st;
        } else if (errno != ENOENT) {
            {
                err = os_error(errno, "stat", target);
                return;
            }
        }
        if (!create_temporary(target, err)) {
            return;
        }
        if (old) {
            keep_attributes(*old, target, err);
        }
#endif
    }
    /// As above, throwing the error (std::system_error).
    explicit atomic_file(const std::filesystem::path& target) : atomic_file(target, error_) {
        throw_if(error_);
    }

    atomic_file(const atomic_file&) = delete;
    atomic_file& operator=(const atomic_file&) = delete;

    /// Removes the temporary file unless commit() succeeded.
    ~atomic_file() {
        if (!committed_) {
            fd_.reset();
            std::error_code ignored;
            std::filesystem::remove(temp_, ignored);
        }
    }

    /// Appends `n` bytes; false (the error in `err`) on failure. Nothing after a failure.
    bool write(const char* data, std::size_t n, error& err) {
        return !err.code() && write_all(fd_.get(), data, n, target_, err);
    }
    /// Appends `n` bytes. @throws std::system_error naming the target.
    void write(const char* data, std::size_t n) {
        write(data, n, error_);
        throw_if(error_);
    }

    /// The temporary file's descriptor (open for writing, at its end).
    int fd() const noexcept {
        return fd_.get();
    }

    /// fsync, close, rename over the target, fsync the directory; false (the error in
    /// `err`) on failure, or when `err` already held one.
    bool commit(error& err) {
        if (err.code()) {
            return false;
        }
        if (sys::fsync(fd_.get()) != 0) {
            err = os_error(errno, "fsync", temp_);
            return false;
        }
        int fd = fd_.release();
        if (::close(fd) != 0 && errno != EINTR) {
            err = os_error(errno, "close", temp_);
            return false;
        }
        if (sys::rename(temp_, target_) != 0) {
            err = os_error(errno, "rename temporary file to", target_);
            return false;
        }
        committed_ = true;
#if !defined(_WIN32) // MoveFileExW with MOVEFILE_WRITE_THROUGH returned once it was on disk
        // Make the rename itself durable; a failure here leaves a complete file in place.
        std::filesystem::path dir = target_.parent_path();
        int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)::fsync(dfd);
            ::close(dfd);
        }
#endif
        return true;
    }
    /// fsync, close, rename over the target, fsync the directory. Throws std::system_error.
    void commit() {
        commit(error_);
        throw_if(error_);
    }

    /// The path that commit() replaces: the target with its symbolic links resolved.
    const std::filesystem::path& target() const noexcept {
        return target_;
    }

  private:
    // A temporary name that fits wherever the target's name fits: at most 32 bytes of the
    // target's name, then ".tmp.", the process id and a counter (under 64 bytes in all).
    bool create_temporary(const std::filesystem::path& requested, error& err) {
        static std::atomic<std::uint64_t> counter{0};
        const std::filesystem::path dir = target_.parent_path();
        const std::string base = target_.filename().string();
        for (int attempt = 0;; ++attempt) {
            const auto stamp = static_cast<std::uint64_t>(std::time(nullptr));
            // Appends, not "." + string: GCC 12 -O2 warns falsely on that (-Wrestrict).
            std::string name(1, '.');
            name.append(base, 0, 32);
            name += ".tmp.";
#if defined(_WIN32)
            name += std::to_string(::_getpid());
#else
            name += std::to_string(::getpid());
#endif
            name += '.';
            name += std::to_string(counter.fetch_add(1) ^ (stamp & 0xffffff));
            temp_ = dir.empty() ? std::filesystem::path(name) : dir / name;
            const int fd = sys::open(temp_, O_WRONLY | O_CREAT | O_EXCL | o_cloexec, 0666);
            if (fd >= 0) {
                fd_.reset(fd);
                return true;
            }
            if (errno == EINTR || (errno == EEXIST && attempt < 100)) {
                continue;
            }
            err = os_error(errno, "create a temporary file for", requested);
            return false;
        }
    }

    // The old file's owner and group where this process may set them (root, or a group it
    // belongs to: EPERM otherwise, and the new file keeps the caller's), then its permission
    // bits (after chown, which clears set-user-ID bits).
#if !defined(_WIN32)
    void keep_attributes(const struct stat& old, const std::filesystem::path& requested,
                         error& err) {
        if (::fchown(fd_.get(), old.st_uid, old.st_gid) != 0) {
            (void)::fchown(fd_.get(), static_cast<uid_t>(-1), old.st_gid);
        }
        if (::fchmod(fd_.get(), old.st_mode & 07777) != 0) {
            err = os_error(errno, "fchmod the temporary file for", requested);
        }
    }
#endif

    error error_; // the throwing forms' error: first, as the constructor writes it first
    std::filesystem::path target_;
    std::filesystem::path temp_;
    unique_fd fd_;
    bool committed_ = false;
};

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_ATOMIC_FILE_HPP
