#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_OPTIONS_HPP)
#define FASTREAD_DUPLICATES_OPTIONS_HPP

/// @file
/// find_duplicates' options and what it reports: `duplicate_options`, `duplicate_error`,
/// `duplicate_progress` (declared with find_duplicates in fastread/duplicates.hpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace fastread {

/// A file or directory that find_duplicates could not read, and why. It is skipped.
struct duplicate_error {
    std::filesystem::path path; ///< the file or directory, as the walk reached it
    std::error_code error;      ///< the errno, as a std::error_code (generic category)
    /// what failed: "open", "opendir", "stat", "read", "changed", or "cache" (the hash cache
    /// file could not be read or written, or was corrupt: then it is rebuilt)
    std::string operation;
};

/// A file of a duplicate group, with what the walk's `stat` saw of it (the state an action
/// checks again before it touches the file: fastread/duplicate_actions.hpp).
struct duplicate_file {
    std::filesystem::path path; ///< as the walk reached it: the root's path, then names
    std::size_t root = 0;       ///< index of the root it was reached from
    std::uint64_t device = 0;   ///< st_dev
    std::uint64_t inode = 0;    ///< st_ino
    std::uint64_t size = 0;     ///< bytes
    std::int64_t mtime_ns = 0;  ///< last modification, nanoseconds since the epoch
    std::int64_t ctime_ns = 0;  ///< last status change, nanoseconds since the epoch
};

/// What find_duplicate_files found.
struct duplicate_report {
    /// Groups of identical files, as find_duplicates' (each sorted by path, the groups by
    /// their first path), with what the walk saw of each file.
    std::vector<std::vector<duplicate_file>> groups;
    /// With duplicate_options::list_unique: the files looked at that are in no group,
    /// sorted by path.
    std::vector<duplicate_file> unique;
    /// With duplicate_options::directories: groups of two or more directories whose whole
    /// trees hold the same names, each name the same kind (file or directory), every file
    /// identical to its namesake, each group sorted, the groups by their first path. A
    /// directory holding anything else (a file of no group, a symbolic link, a device, a
    /// file left out by the size or empty-file options) is in no group; names the options
    /// leave out (hidden ones with `include_hidden` off, `exclude`) are not compared. Trees
    /// without any file are not reported, nor a directory whose parent is in a reported
    /// group.
    std::vector<std::vector<std::filesystem::path>> directories;
};

/// Where find_duplicates is, for progress displays and tests.
struct duplicate_progress {
    /// "walk" (`done` and `total` count the files found, when it ends); "compare" (sets of
    /// candidates of one size read, hashed when needed and compared byte for byte; `done`
    /// and `total` count sets). Files are first read in "compare".
    std::string_view stage;
    std::uint64_t done = 0;  ///< files or sets finished in this stage
    std::uint64_t total = 0; ///< files or sets this stage looks at
};

/// Options of find_duplicates. Names follow FDUPES; so do the defaults, except that the
/// library descends into subdirectories unless told not to (fastread-dupes, like fdupes,
/// descends only with -r).
struct duplicate_options {
    /// Descend into subdirectories (the default; fdupes -r). Off: only the files directly
    /// in each root.
    bool recursive = true;
    bool follow_symlinks = false; ///< follow symbolic links to files and directories (-s)
    /// Count several hard links to one inode as duplicates of each other (-H). Off: they
    /// are one file, reported once (under the first path found).
    bool hardlinks_are_duplicates = false;
    bool include_empty = true;           ///< empty files are duplicates of each other (off: -n)
    bool include_hidden = true;          ///< look at names starting with '.' (off: -A)
    std::uint64_t min_size = 0;          ///< ignore files smaller than this many bytes (-G)
    std::uint64_t max_size = UINT64_MAX; ///< ignore files larger than this (-L)
    /// Shell wildcard patterns (fnmatch(3): `*`, `?`, `[...]`; `*` also matches '/') of
    /// files and directories to leave out (a directory left out is not descended into). A
    /// pattern with a '/' is matched against the path under its root (`cache/ *.tmp`
    /// without the space), else against the name alone (`*.tmp`). fastread-dupes --exclude.
    std::vector<std::string> exclude;
    /// Patterns as `exclude`: when not empty, only files matching one of them are looked at
    /// (directories are descended into all the same). fastread-dupes --name.
    std::vector<std::string> names;
    /// Do not descend into a directory on another device than its root's (a mount point;
    /// find -xdev). fastread-dupes --one-file-system.
    bool one_file_system = false;
    /// With `recursive`: descend only into the roots from this index on (the roots before it
    /// are read one level). fdupes' and fastread-dupes' -R: the roots that follow it.
    std::size_t first_recursive_root = 0;
    /// Only files reached from different roots are duplicates of each other: a group is
    /// reported when its files come from two roots or more (fclones and jdupes -I).
    bool isolate = false;
    /// find_duplicate_files: also list the files that have no duplicate
    /// (duplicate_report::unique; fdupes -u, jdupes -u).
    bool list_unique = false;
    /// find_duplicate_files: also find duplicate directories (duplicate_report::directories).
    bool directories = false;
    /// Threads that walk wide directory levels and compare sets of candidates at once,
    /// the calling thread included; 1 starts no thread. 0: the process setting
    /// (fastread/threads.hpp: set_max_threads, `FASTREAD_THREADS`) as a limit, else
    /// 8 per CPU (`std::thread::hardware_concurrency`, at most 64) for walking; for
    /// comparing, one per CPU, joined by the rest as soon as a read has to wait for the
    /// device (`preadv2` with `RWF_NOWAIT` tells), since from the page cache more threads
    /// than CPUs only add switching. Threads waiting on the device help on SSDs and
    /// network or virtual disks (more reads in flight); on a rotating disk 1 avoids seeking
    /// between files.
    unsigned threads = 0;
    /// A hash cache file (empty: none). With it, the files of each size are grouped by
    /// their whole-file XXH3-128 hash (files over 64 KiB are split by a probe hash of their
    /// first and last 4 KiB first, and read whole only when it matches another's), each
    /// hash taken from the cache for every file whose device,
    /// inode, size, modification and status-change times (ns) are those it was hashed
    /// with, and else computed by reading the file and kept; the cache is then rewritten
    /// atomically (created with its directory if missing). So a re-run over an unchanged
    /// tree opens and reads no file. Groups rest on the 128-bit hash (as fclones' do)
    /// unless `verify` is set. A cache written by another hash version is ignored whole; an
    /// unreadable or corrupt one (truncated, altered) is reported to `on_error` (operation
    /// "cache") and rebuilt, never trusted. A file changed within 100 ms before the scan
    /// started is hashed but not kept (its timestamps could still repeat for other
    /// contents). Needs xxHash (FASTREAD_HAVE_XXHASH): without it the cache is reported
    /// (ENOTSUP) and not used. Format: fastread/duplicates/detail/cache.hpp.
    std::filesystem::path cache;
    /// With `cache`: confirm each group of equal hashes byte by byte (reads every file of
    /// every group), as find_duplicates always does without a cache.
    bool verify = false;
    /// Called for every file or directory that could not be read (then skipped), and for
    /// every file that changed during the scan (then left out of the groups). May be empty.
    std::function<void(const duplicate_error&)> on_error;
    /// Called as the scan advances (several times per stage). May be empty.
    std::function<void(const duplicate_progress&)> on_progress;
};

} // namespace fastread

#endif // FASTREAD_DUPLICATES_OPTIONS_HPP
