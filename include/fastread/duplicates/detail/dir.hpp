#ifndef FASTREAD_DUPLICATES_DETAIL_DIR_HPP
#define FASTREAD_DUPLICATES_DETAIL_DIR_HPP

// Directories and paths as the duplicate finder and the tools walk them: UTF-8 names and
// the system's separator, stat of a name, a directory reader, the descriptor limit.

#include <cstdint>
#include <filesystem>
#include <string>

#include "../../detail/posix.hpp"

#if !defined(_WIN32)
#include <fnmatch.h>
#endif

namespace fastread::detail {

/// The separator the system's own paths use between a directory and a name ('\\' on
/// Windows, '/' elsewhere), and whether `utf8` already ends with a separator (either
/// kind on Windows).
inline constexpr char path_separator =
#if defined(_WIN32)
    '\\';
#else
    '/';
#endif
inline bool ends_with_separator(const std::string& utf8) noexcept {
#if defined(_WIN32)
    return utf8.ends_with('/') || utf8.ends_with('\\');
#else
    return utf8.ends_with('/');
#endif
}

/// Whether `text` matches the shell wildcard pattern `glob` (`*`, `?`, `[...]`; `*` also
/// matches '/'): fnmatch(3) without flags on POSIX; `*` and `?` alone on Windows.
inline bool glob_match(const std::string& glob, const std::string& text) noexcept {
#if defined(_WIN32)
    std::size_t g = 0, t = 0, star = std::string::npos, resume = 0;
    while (t < text.size()) {
        if (g < glob.size() && (glob[g] == '?' || glob[g] == text[t])) {
            ++g;
            ++t;
        } else if (g < glob.size() && glob[g] == '*') {
            star = g++;
            resume = t;
        } else if (star != std::string::npos) {
            g = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (g < glob.size() && glob[g] == '*') {
        ++g;
    }
    return g == glob.size();
#else
    return ::fnmatch(glob.c_str(), text.c_str(), 0) == 0;
#endif
}

/// The path named by a UTF-8 string, and a path's UTF-8 string: the bytes as they are on
/// POSIX, UTF-8 to and from UTF-16 on Windows (never the ANSI code page).
inline std::filesystem::path path_of(const std::string& utf8) {
#if defined(_WIN32)
    return std::filesystem::path(
        std::u8string(reinterpret_cast<const char8_t*>(utf8.data()), utf8.size()));
#else
    return std::filesystem::path(utf8);
#endif
}
inline std::string string_of(const std::filesystem::path& path) {
#if defined(_WIN32)
    const std::u8string s = path.u8string();
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
#else
    return path.string();
#endif
}

/// Opens the path `utf8` (the string as it is on POSIX, converted to UTF-16 on Windows) for
/// reading or for reading and writing, close-on-exec, never as a controlling terminal and
/// without waiting on a FIFO: the descriptor, or -1 with errno set.
inline int open_utf8(const std::string& utf8, open_mode mode) {
    const int flags =
        (mode == open_mode::read_write ? O_RDWR : O_RDONLY) | o_cloexec | o_noctty | o_nonblock;
#if defined(_WIN32)
    return sys::open(path_of(utf8), flags);
#else
    return sys::open(utf8.c_str(), flags);
#endif
}

/// What stat tells about a name: its file_info, and whether it is a symbolic link (a
/// junction too, on Windows) when asked not to follow links.
struct path_facts {
    file_info info;
    bool symlink = false;
};

/// stat (`follow`) or lstat of the path `utf8`: 0, or the error number.
inline int stat_path(const std::string& utf8, bool follow, path_facts& out) noexcept {
#if defined(_WIN32)
    win::file_facts f;
    int err = 0;
    FASTREAD_TRY {
        err = win::facts_of_path(path_of(utf8), follow, f);
    }
    FASTREAD_CATCH_ALL {
        return EINVAL; // not UTF-8
    }
    if (err != 0) {
        return err;
    }
    out.info = file_info{f.regular, f.directory, f.size,     f.device,
                         f.inode,   f.mtime_ns,  f.ctime_ns, f.links};
    out.symlink = !follow && f.reparse_point;
    return 0;
#else
    struct stat st {};
    if ((follow ? ::stat(utf8.c_str(), &st) : ::lstat(utf8.c_str(), &st)) != 0) {
        return errno;
    }
    out.info = info_of(st);
    out.symlink = S_ISLNK(st.st_mode);
    return 0;
#endif
}

/// A directory's names, one at a time (readdir; a directory iterator on Windows), and stat
/// of each relative to the directory (fstatat, which saves the kernel a path walk per
/// name). Not thread-safe for next(); stat() may run on several threads at once.
class dir_reader {
  public:
    /// Opens the directory `utf8`: 0, or the error number.
    int open(const std::string& utf8) noexcept {
#if defined(_WIN32)
        path_ = utf8;
        std::error_code ec;
        FASTREAD_TRY {
            it_ = std::filesystem::directory_iterator(path_of(utf8), ec);
        }
        FASTREAD_CATCH_ALL {
            return ENOMEM;
        }
        open_ = !ec;
        return !ec ? 0 : ec.category() == std::generic_category() ? ec.value() : EIO;
#else
        dir_.reset(::opendir(utf8.c_str()));
        return dir_ ? 0 : errno;
#endif
    }
    explicit operator bool() const noexcept {
#if defined(_WIN32)
        return open_;
#else
        return dir_ != nullptr;
#endif
    }
    /// The next name ("." and ".." skipped) into `name`: true; false at the end, with
    /// `err` 0 or the error number.
    bool next(std::string& name, int& err) {
        err = 0;
#if defined(_WIN32)
        if (it_ == std::filesystem::directory_iterator()) {
            err = pending_; // an error met moving past the last name handed out
            pending_ = 0;
            return false;
        }
        name = string_of(it_->path().filename());
        std::error_code ec;
        it_.increment(ec);
        if (ec) {
            pending_ = ec.category() == std::generic_category() ? ec.value() : EIO;
            it_ = std::filesystem::directory_iterator();
        }
        return true;
#else
        for (;;) {
            errno = 0;
            const dirent* e = ::readdir(dir_.get());
            if (e == nullptr) {
                err = errno;
                return false;
            }
            const std::string_view n(e->d_name);
            if (n != "." && n != "..") {
                name.assign(n);
                return true;
            }
        }
#endif
    }
    /// stat (`follow`) or lstat of `name` in the directory: 0, or the error number.
    int stat(const std::string& name, bool follow, path_facts& out) const noexcept {
#if defined(_WIN32)
        return stat_path(ends_with_separator(path_) ? path_ + name : path_ + path_separator + name,
                         follow, out);
#else
        struct stat st {};
        if (::fstatat(::dirfd(dir_.get()), name.c_str(), &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) !=
            0) {
            return errno;
        }
        out.info = info_of(st);
        out.symlink = S_ISLNK(st.st_mode);
        return 0;
#endif
    }

  private:
#if defined(_WIN32)
    std::string path_;
    std::filesystem::directory_iterator it_;
    int pending_ = 0; // the error that ended the listing early, reported at its end
    bool open_ = false;
#else
    std::unique_ptr<DIR, int (*)(DIR*)> dir_{nullptr, &::closedir};
#endif
};

/// The most descriptors this process may have open (RLIMIT_NOFILE's soft limit; the C
/// runtime's _getmaxstdio on Windows), or 0 when unlimited or unknown.
inline std::uint64_t descriptor_limit() noexcept {
#if defined(_WIN32)
    const int most = ::_getmaxstdio();
    return most > 0 ? static_cast<std::uint64_t>(most) : 0;
#else
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
        return 0;
    }
    return static_cast<std::uint64_t>(limit.rlim_cur);
#endif
}

/// Raises this process's descriptor limit to the most it may have (RLIMIT_NOFILE's soft
/// limit to the hard one; the C runtime's stream limit to 8192 on Windows). Never fails:
/// the limit stays where it was if it cannot be raised.
inline void raise_descriptor_limit() noexcept {
#if defined(_WIN32)
    (void)::_setmaxstdio(8192);
#else
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &limit);
    }
#endif
}

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_DIR_HPP
