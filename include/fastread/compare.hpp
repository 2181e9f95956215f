#ifndef FASTREAD_COMPARE_HPP
#define FASTREAD_COMPARE_HPP

/// @file
/// Comparing files and finding duplicates: `fastread::files_equal` (with the compare
/// article's programs kept as methods) and `fastread::find_duplicates` (the size, probe,
/// hash and byte-compare funnel that fdupes, jdupes and rdfind use).
///
/// Hashing uses XXH3-128 from the xxHash library (Debian `libxxhash-dev`) when its header
/// `<xxhash.h>` is found, included in its header-only mode (`XXH_INLINE_ALL`). Without it,
/// or with `FASTREAD_NO_XXHASH` defined, find_duplicates skips the hash stages and splits
/// candidates by byte comparison alone: the same groups, with more reads when many files of
/// one size share their first and last 4 KiB but differ elsewhere.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "detail/parallel.hpp"
#include "detail/posix.hpp"
#include "io.hpp"
#include "page_cache.hpp"
#include "source/mmap_source.hpp"

#if !defined(FASTREAD_NO_XXHASH) && __has_include(<xxhash.h>)
#define FASTREAD_HAVE_XXHASH 1
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>
#else
#define FASTREAD_HAVE_XXHASH 0
#endif

namespace fastread {

/// How files_equal reads the two files. The first five are the programs of the article
/// this job comes from, kept so that fastread-bench can compare them.
enum class compare_method {
    /// The default: `block` with 1 MiB blocks, or guarded maps of both files when
    /// `compare_options::io` says so for both (fastread/io.hpp: with io_mode::automatic, when
    /// both are 1 MiB or more, in the page cache, and this host measures maps faster than
    /// reading). A file that changes size during the call gives `false` (or, if it cannot
    /// be read any more, std::system_error), never SIGBUS. (find_duplicates never maps.)
    automatic,
    /// `getc` on two `FILE*`, one byte from each in turn (the article's simple-compare).
    getc,
    /// As `getc`, with `getc_unlocked` (no stream locking per byte).
    getc_unlocked,
    /// `read(2)` of `block_size` bytes from each file in turn, then `memcmp`.
    block,
    /// Reads each file once sequentially first (pre-loading the page cache), then `block`
    /// (the article's compare-with-extra-read).
    preload_then_block,
    /// `memcmp` over read-only maps of the two files (mmap_source: not guarded). A file
    /// truncated by another process during the comparison raises SIGBUS, which ends the
    /// process unless the program handles it; `automatic` never does.
    mmap,
};

/// Options of files_equal.
struct compare_options {
    compare_method method = compare_method::automatic;
    /// Bytes per read for `block` and `preload_then_block`; 0 reads each file whole (one
    /// buffer of the file's size per file). `automatic` ignores it.
    std::size_t block_size = std::size_t{1} << 20;
    /// `automatic` only: read or map (fastread/io.hpp); automatic decides for this host.
    io_mode io = io_mode::automatic;
};

/// True iff the two files hold the same bytes.
///
/// The same file (same device and inode) is equal without reading; two regular files of
/// different sizes are unequal without reading. Otherwise the files are read with
/// `options.method` until the first difference or the end. Works on pipes and other
/// unsized files too (by reading them).
/// Time O(size); memory O(block size), O(file size) for whole-file blocks.
/// @throws std::system_error naming the path if a file cannot be opened, stat'ed, mapped or
///         read.
bool files_equal(const std::filesystem::path& a, const std::filesystem::path& b,
                 compare_options options = {});

/// A file or directory that find_duplicates could not read, and why. It is skipped.
struct scan_error {
    std::filesystem::path path;
    std::error_code error; ///< the errno, as a std::error_code (generic category)
    std::string operation; ///< what failed: "open", "opendir", "stat", "read", "changed"
};

/// Where find_duplicates is, for progress displays and tests.
struct scan_progress {
    /// "walk" (`done` and `total` count the files found, when it ends); "compare" (sets of
    /// candidates of one size read, hashed when needed and compared byte for byte; `done`
    /// and `total` count sets). Files are first read in "compare".
    std::string_view stage;
    std::uint64_t done = 0;  ///< files or sets finished in this stage
    std::uint64_t total = 0; ///< files or sets this stage looks at
};

/// Options of find_duplicates. Names and defaults follow FDUPES.
struct duplicate_options {
    bool recursive = false;       ///< descend into subdirectories (fdupes -r)
    bool follow_symlinks = false; ///< follow symbolic links to files and directories (-s)
    /// Count several hard links to one inode as duplicates of each other (-H). Off: they
    /// are one file, reported once (under the first path found).
    bool hardlinks_are_duplicates = false;
    bool include_empty = true;           ///< empty files are duplicates of each other (off: -n)
    bool include_hidden = true;          ///< look at names starting with '.' (off: -A)
    std::uint64_t min_size = 0;          ///< ignore files smaller than this many bytes (-G)
    std::uint64_t max_size = UINT64_MAX; ///< ignore files larger than this (-L)
    /// Threads that walk wide directory levels and compare sets of candidates at once.
    /// 0: 8 per CPU (`std::thread::hardware_concurrency`, at most 64) for walking; for
    /// comparing, one per CPU, joined by the rest as soon as a read has to wait for the
    /// device (`preadv2` with `RWF_NOWAIT` tells), since from the page cache more threads
    /// than CPUs only add switching. Threads waiting on the device help on SSDs and
    /// network or virtual disks (more reads in flight); on a rotating disk 1 avoids seeking
    /// between files.
    unsigned threads = 0;
    /// Called for every file or directory that could not be read (then skipped), and for
    /// every file that changed during the scan (then left out of the groups). May be empty.
    std::function<void(const scan_error&)> on_error;
    /// Called as the scan advances (several times per stage). May be empty.
    std::function<void(const scan_progress&)> on_progress;
};

/// Groups of identical regular files under `roots`: each group lists two or more paths
/// whose contents are equal byte for byte, sorted; the groups are sorted by their first
/// path. Files are never modified.
///
/// A root may be a directory or a file; a root given twice, or reached twice through
/// symbolic links, is counted once, and directory loops terminate. Non-regular files
/// (FIFOs, sockets, devices) are skipped. Pipeline: walk; group by size; drop sizes with
/// one file. Small files (64 KiB or less) of one size are each read whole once and compared
/// in memory (more than 8 MiB of them are first split by an XXH3-128 hash of each file).
/// Larger files of one size, up to 64, are open at once and read block by block (the last
/// 4 KiB first), the set splitting as blocks differ, so that each file is read once; more
/// are first split by an XXH3-128 hash of their first and last 4 KiB, then of the whole
/// file. Every group is confirmed by comparing bytes, so that a hash collision never
/// reports different files as equal. Open files: the comparing threads and the files each
/// holds open at once are sized from the descriptors RLIMIT_NOFILE still allows (16 kept
/// free); a set that still runs out of them (EMFILE, ENFILE: the application opened more
/// meanwhile) is compared file by file, two open at a time, so no group is lost to the
/// limit. A file whose device, inode, size or modification time differs from what the walk
/// saw when it is opened or read (replaced by a rename, changed), or that vanishes, or that
/// reads differently from its size, is reported to `on_error` and left out.
/// Time O(total size of same-size candidates); memory O(number of files) plus, per
/// comparing thread, 1 MiB and up to 8 MiB of small files' contents.
/// @throws std::bad_alloc only; I/O problems go to `options.on_error`.
std::vector<std::vector<std::filesystem::path>>
find_duplicates(std::span<const std::filesystem::path> roots, duplicate_options options = {});

// ---------------------------------------------------------------------------------------
// Implementation

namespace detail {

inline bool compare_getc(const std::filesystem::path& a, const std::filesystem::path& b,
                         bool unlocked) {
    auto open = [](const std::filesystem::path& p) {
        unique_file f(std::fopen(p.c_str(), "rb"));
        if (!f) {
            throw_system_error(errno, "fopen", p);
        }
        return f;
    };
    auto fa = open(a);
    auto fb = open(b);
    int ca = 0, cb = 0;
    if (unlocked) {
        do {
            ca = getc_unlocked(fa.get());
            cb = getc_unlocked(fb.get());
        } while (ca == cb && ca != EOF);
    } else {
        do {
            ca = std::getc(fa.get());
            cb = std::getc(fb.get());
        } while (ca == cb && ca != EOF);
    }
    if (std::ferror(fa.get()) != 0) {
        throw_system_error(EIO, "getc", a);
    }
    if (std::ferror(fb.get()) != 0) {
        throw_system_error(EIO, "getc", b);
    }
    return ca == cb;
}

// Reads both descriptors `block` bytes at a time in turn and compares.
inline bool compare_blocks(int fa, int fb, std::size_t block, const std::filesystem::path& a,
                           const std::filesystem::path& b) {
    std::unique_ptr<char[]> ba(new char[block]);
    std::unique_ptr<char[]> bb(new char[block]);
    for (;;) {
        const std::size_t na = read_full(fa, ba.get(), block, a);
        const std::size_t nb = read_full(fb, bb.get(), block, b);
        if (na != nb || std::memcmp(ba.get(), bb.get(), na) != 0) {
            return false;
        }
        if (na < block) {
            return true;
        }
    }
}

inline bool compare_maps(int fa, int fb) {
    mmap_source ma(fa);
    mmap_source mb(fb);
    const std::span<const char> x = ma.bytes(), y = mb.bytes();
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size()) == 0;
}

} // namespace detail

inline bool files_equal(const std::filesystem::path& a, const std::filesystem::path& b,
                        compare_options options) {
    detail::unique_fd fa = detail::open_read_only(a);
    detail::unique_fd fb = detail::open_read_only(b);
    const detail::file_info ia = detail::stat_fd(fa.get(), a);
    const detail::file_info ib = detail::stat_fd(fb.get(), b);
    if (ia.device == ib.device && ia.inode == ib.inode) {
        return true;
    }
    const bool sized = ia.regular && ib.regular && ia.size > 0 && ib.size > 0;
    if (ia.regular && ib.regular && ia.size != ib.size) {
        // A /proc file reports size 0 whatever it holds: only trust sizes of 1 byte or more.
        if (sized) {
            return false;
        }
    }
    compare_method method = options.method;
    std::size_t block = options.block_size;
    if (method == compare_method::automatic) {
        // Reading 1 MiB blocks in turn matches reading the files one after the other from
        // the disk, and from the page cache it is what a host with expensive maps wants;
        // where maps are cheaper (io_costs), memcmp over two maps skips both copies.
        if (sized && detail::map_wanted(options.io, fa.get(), ia.size, detail::map_threshold) &&
            detail::map_wanted(options.io, fb.get(), ib.size, detail::map_threshold)) {
            // Both maps have the size fstat gave before (equal here); a file that shrinks
            // meanwhile reads as zeros past its new end (the guards) and is caught below.
            const detail::file_map ma = detail::guarded_map(fa.get(), ia.size);
            const detail::file_map mb = detail::guarded_map(fb.get(), ib.size);
            if (ma && mb && ma.size() == mb.size()) {
                const bool same = std::memcmp(ma.data(), mb.data(), ma.size()) == 0;
                const bool changed = ma.lost() >= 0 || mb.lost() >= 0 ||
                                     detail::stat_fd(fa.get(), a).size != ia.size ||
                                     detail::stat_fd(fb.get(), b).size != ib.size;
                return same && !changed;
            }
        }
        method = compare_method::block;
        block = std::size_t{1} << 20;
    }
    if (method == compare_method::mmap && !sized) {
        method = compare_method::block; // an empty or unsized file cannot be mapped
        block = std::size_t{1} << 20;
    }
    if (block == 0) {
        // Whole-file blocks: one read per file, sized from fstat (+1 to see the end).
        block = sized ? static_cast<std::size_t>(ia.size) + 1 : std::size_t{1} << 20;
    }
    switch (method) {
    case compare_method::getc:
    case compare_method::getc_unlocked:
        return detail::compare_getc(a, b, method == compare_method::getc_unlocked);
    case compare_method::preload_then_block:
        // Only a regular file has pages to load: a pipe would be drained.
        if (ia.regular) {
            page_cache::preload(a);
        }
        if (ib.regular) {
            page_cache::preload(b);
        }
        return detail::compare_blocks(fa.get(), fb.get(), block, a, b);
    case compare_method::mmap:
        return detail::compare_maps(fa.get(), fb.get());
    case compare_method::automatic:
    case compare_method::block:
        break;
    }
    return detail::compare_blocks(fa.get(), fb.get(), block, a, b);
}

namespace detail {

// Lets the reading threads tell their team when a read had to wait for the device, so that
// the team adds threads only for data that is not in the page cache (cached, threads beyond
// one per CPU only add switching). While `probing`, reads try RWF_NOWAIT first.
struct read_gauge {
    std::atomic<bool> probing{false};
    std::function<void()> on_wait; // called once, by the first read that had to wait

    void waited() {
        if (probing.exchange(false)) {
            on_wait();
        }
    }
};

// One pread(2), retried on EINTR; -1 with errno set on error. While `gauge` probes, tries
// preadv2(RWF_NOWAIT) first: when the bytes are not in the page cache (EAGAIN), or the file
// system cannot say (EOPNOTSUPP), the gauge hears of it and the read waits as usual. A
// short result is possible either way (a partly cached range, or the end of the file).
inline ssize_t pread_gauged(int fd, char* dst, std::size_t n, std::uint64_t offset,
                            read_gauge* gauge) {
    for (;;) {
        ssize_t got = 0;
        if (gauge != nullptr && gauge->probing.load(std::memory_order_relaxed)) {
            iovec part{dst, n};
            got = ::preadv2(fd, &part, 1, static_cast<off_t>(offset), RWF_NOWAIT);
            if (got < 0 && errno != EINTR) {
                gauge->waited();
                continue;
            }
        } else {
            got = sys::pread(fd, dst, n, static_cast<off_t>(offset));
        }
        if (got >= 0 || errno != EINTR) {
            return got;
        }
    }
}

// pread_gauged until `n` bytes arrived or the file ended; returns the count.
// @throws std::system_error naming `path` on a read error.
inline std::size_t pread_full_gauged(int fd, char* dst, std::size_t n, std::uint64_t offset,
                                     const std::string& path, read_gauge* gauge) {
    std::size_t done = 0;
    while (done < n) {
        const std::size_t want = std::min<std::size_t>(n - done, 0x40000000);
        const ssize_t got = pread_gauged(fd, dst + done, want, offset + done, gauge);
        if (got < 0) {
            throw_system_error(errno, "pread", path);
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    return done;
}

/// Descriptors this process may still open: RLIMIT_NOFILE's soft limit less those open now
/// (counted in /proc/self/fd; where that cannot be read, half the limit counts as used).
/// At most 2^20 (an unlimited soft limit). O(descriptors open).
inline std::size_t descriptor_room() noexcept {
    constexpr std::size_t most = std::size_t{1} << 20;
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
        limit.rlim_cur >= most) {
        return most;
    }
    const auto soft = static_cast<std::size_t>(limit.rlim_cur);
    std::size_t open = soft / 2;
    if (DIR* dir = ::opendir("/proc/self/fd")) {
        open = 0;
        while (const dirent* e = ::readdir(dir)) {
            open += e->d_name[0] != '.';
        }
        ::closedir(dir);
        open -= open > 0; // the directory's own descriptor
    }
    return soft > open ? soft - open : 0;
}

struct dup_file {
    std::string path;
    file_info info;
    std::uint32_t dir = 0;     // index of its directory's path in duplicate_finder::dirs_
    std::uint32_t name_at = 0; // where its name starts in `path`
    bool linked = false;       // st_nlink > 1: other names lead to the same inode
    bool aliased = false;      // reached through a symbolic link, or given as a root
};

struct id_hash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const noexcept {
        return std::hash<std::uint64_t>()(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
    }
};

struct path_key {
    std::uint64_t parent_device, parent_inode;
    std::string name;
    bool operator==(const path_key&) const = default;
};

struct path_key_hash {
    std::size_t operator()(const path_key& k) const noexcept {
        return std::hash<std::string>()(k.name) ^ (k.parent_inode * 0x9e3779b97f4a7c15ull) ^
               k.parent_device;
    }
};

class duplicate_finder {
  public:
    explicit duplicate_finder(const duplicate_options& options) : opt_(options) {}

    std::vector<std::vector<std::filesystem::path>>
    run(std::span<const std::filesystem::path> roots) {
        for (const std::filesystem::path& root : roots) {
            add_root(root);
        }
        walk();
        progress("walk", files_.size(), files_.size());
        return find();
    }

  private:
    static constexpr std::size_t probe_bytes = 4096;
    static constexpr std::size_t block_bytes = 64 * 1024;
    static constexpr std::uint64_t small_bytes = 64 * 1024; // read whole, once
    // Small files of one size compared in memory at once, per thread (more: compared with a
    // representative, file by file).
    static constexpr std::uint64_t batch_bytes = std::uint64_t{8} << 20;
    // Buffer of each comparing thread: blocks of every file of a set compared at once.
    static constexpr std::size_t set_bytes = std::size_t{1} << 20;
    // Largest set compared at once (open files per thread); bigger sets are hashed first.
    static constexpr std::size_t max_set = 64;
    // Descriptors kept free for the application and for the walk's directories.
    static constexpr std::size_t spare_descriptors = 16;

    void error(const std::string& path, int err, const char* operation) {
        if (opt_.on_error) {
            opt_.on_error(
                scan_error{path, std::error_code(err, std::generic_category()), operation});
        }
    }

    void progress(std::string_view stage, std::uint64_t done, std::uint64_t total) {
        if (opt_.on_progress) {
            opt_.on_progress(scan_progress{stage, done, total});
        }
    }

    // --- walk ----------------------------------------------------------------------------

    void add_root(const std::filesystem::path& root) {
        struct stat st {};
        // A root named explicitly is followed even if it is a symbolic link.
        if (::stat(root.c_str(), &st) != 0) {
            error(root.string(), errno, "stat");
            return;
        }
        if (S_ISDIR(st.st_mode)) {
            pending_.push_back({root.string(), st.st_dev, st.st_ino});
            return;
        }
        if (!S_ISREG(st.st_mode)) {
            return;
        }
        std::filesystem::path parent = root.parent_path();
        struct stat ps {};
        if (::stat(parent.empty() ? "." : parent.c_str(), &ps) != 0) {
            error(parent.string(), errno, "stat");
            return;
        }
        dirs_.push_back(parent.empty() ? std::string(".") : parent.string());
        add_file(files_, root.string(), st, ps.st_dev, ps.st_ino, root.filename().string(), true,
                 static_cast<std::uint32_t>(dirs_.size() - 1));
    }

    // Appends the file to `out` unless the options exclude it or it was already given as a
    // root. Called from several walking threads at once when `root` is false (then it
    // only reads paths_seen_).
    void add_file(std::vector<dup_file>& out, std::string path, const struct stat& st,
                  dev_t parent_dev, ino_t parent_ino, std::string name, bool root,
                  std::uint32_t dir, bool via_link = false) {
        const file_info info = info_of(st);
        if (info.size < opt_.min_size || info.size > opt_.max_size ||
            (info.size == 0 && !opt_.include_empty)) {
            return;
        }
        // The same path twice (a root file given twice, or also found in a directory walked)
        // is one file. The walk itself meets every path once (each directory is read once),
        // so only root files need remembering.
        const std::size_t name_size = name.size();
        path_key key{parent_dev, parent_ino, std::move(name)};
        if (root ? !paths_seen_.insert(std::move(key)).second
                 : !paths_seen_.empty() && paths_seen_.count(key) != 0) {
            return;
        }
        const auto name_at = static_cast<std::uint32_t>(path.size() - name_size);
        out.push_back(
            dup_file{std::move(path), info, dir, name_at, st.st_nlink > 1, via_link || root});
    }

    struct dir_entry {
        std::string path;
        dev_t device;
        ino_t inode;
    };

    // What reading some directories found; `files[i].dir` indexes `dirs`.
    struct walk_out {
        std::vector<dup_file> files;
        std::vector<std::string> dirs;
        std::vector<dir_entry> subdirs;
        std::vector<scan_error> errors;
    };

    unsigned thread_count() const {
        // Default: 8 per CPU. The threads mostly wait for the device: with 16 threads on 2
        // CPUs, fastread-bench's cold /usr/share row went from 2.82 s to 1.40 s (2 threads
        // before); the cached rows did not move.
        const unsigned n = opt_.threads != 0
                               ? opt_.threads
                               : 8 * std::max(1u, std::thread::hardware_concurrency());
        return std::min(n, 64u);
    }

    // Reads the roots, then (when recursive) their subdirectories, level by level. The
    // directories of a wide level are cut into chunks that several threads take in turn,
    // and the results are merged in chunk order, so the outcome does not depend on the
    // threads. With the default thread count a level starts with one thread per CPU
    // (directories in the page cache keep them busy; more only add switching:
    // docs/performance.md, "Compare and duplicates") and grows to
    // thread_count() as soon as a thread's reading went to the device (its block input
    // count, getrusage ru_inblock, grew); later levels then start at full size.
    void walk() {
        std::vector<dir_entry> level;
        while (!pending_.empty()) {
            level.clear();
            for (dir_entry& d : pending_) {
                if (dirs_seen_.insert({d.device, d.inode}).second) { // not given twice, no loop
                    level.push_back(std::move(d));
                }
            }
            pending_.clear();
            std::vector<walk_out> outs;
            walk_level(level, outs);
            std::size_t files = files_.size(), dirs = dirs_.size();
            for (const walk_out& out : outs) {
                files += out.files.size();
                dirs += out.dirs.size();
            }
            files_.reserve(files);
            dirs_.reserve(dirs);
            for (walk_out& out : outs) {
                report(out.errors);
                const auto base = static_cast<std::uint32_t>(dirs_.size());
                for (dup_file& f : out.files) {
                    f.dir += base;
                    files_.push_back(std::move(f));
                }
                for (std::string& d : out.dirs) {
                    dirs_.push_back(std::move(d));
                }
                for (dir_entry& d : out.subdirs) {
                    pending_.push_back(std::move(d));
                }
            }
        }
        // Hard links are one file, under its first path in sorted order, unless they count
        // as duplicates.
        if (!opt_.hardlinks_are_duplicates) {
            // Only files with several links can share an inode, unless some file was reached
            // through a symbolic link or given as a root (then any file may be its alias):
            // sort just those.
            const bool any_alias = std::any_of(files_.begin(), files_.end(),
                                               [](const dup_file& f) { return f.aliased; });
            std::vector<std::size_t> linked;
            for (std::size_t i = 0; i < files_.size(); ++i) {
                if (any_alias || files_[i].linked) {
                    linked.push_back(i);
                }
            }
            std::sort(linked.begin(), linked.end(), [&](std::size_t x, std::size_t y) {
                const dup_file& a = files_[x];
                const dup_file& b = files_[y];
                return std::tie(a.info.device, a.info.inode, a.path) <
                       std::tie(b.info.device, b.info.inode, b.path);
            });
            std::vector<bool> drop(files_.size());
            for (std::size_t k = 1; k < linked.size(); ++k) {
                const dup_file& a = files_[linked[k - 1]];
                const dup_file& b = files_[linked[k]];
                drop[linked[k]] = a.info.device == b.info.device && a.info.inode == b.info.inode;
            }
            std::size_t kept = 0;
            for (std::size_t i = 0; i < files_.size(); ++i) {
                if (!drop[i]) {
                    if (kept != i) {
                        files_[kept] = std::move(files_[i]);
                    }
                    ++kept;
                }
            }
            files_.resize(kept);
        }
    }

    // Block input operations of the calling thread so far (reads that went to the device).
    static long blocks_read() noexcept {
        rusage usage{};
        return ::getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_inblock : 0;
    }

    // A directory's names, sorted, and the open directory to stat them in.
    struct listing {
        std::unique_ptr<DIR, int (*)(DIR*)> dir{nullptr, &::closedir};
        std::vector<std::string> names;
    };

    // Names stat'ed per task: a directory with more is split into tasks for several threads.
    static constexpr std::size_t names_per_task = 512;

    // Reads the directories of one level into `outs`, in level order (a directory split
    // into several tasks gives one walk_out per task, in name order), on a team of threads
    // that take directories in turn and share the tasks of big directories (see walk). A
    // level of fewer than 64 directories starts on this thread alone and widens to one
    // thread per CPU when a big directory is split.
    void walk_level(const std::vector<dir_entry>& level, std::vector<walk_out>& outs) {
        struct task {
            std::size_t dir, part;
            std::shared_ptr<const listing> names;
        };
        std::vector<std::vector<walk_out>> parts(level.size());
        std::mutex m;
        std::vector<task> tasks; // split-off parts of big directories, not taken yet
        std::atomic<std::size_t> next{0};
        std::atomic<unsigned> reading{0}; // threads that took a directory, not yet split
        const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
        const unsigned most = thread_count();
        const bool adaptive = opt_.threads == 0 && most > cpus;
        const unsigned start = level.size() < 64                   ? 1
                               : opt_.threads != 0 || walk_waited_ ? most
                                                                   : std::min(cpus, most);
        std::function<void(unsigned)> grow_to;
        auto body = [&](unsigned) {
            long before = adaptive ? blocks_read() : 0;
            auto after_task = [&] {
                if (adaptive && !walk_waited_.load(std::memory_order_relaxed)) {
                    const long now = blocks_read();
                    if (now != before) {
                        walk_waited_ = true;
                        grow_to(most);
                    }
                    before = now;
                }
            };
            for (;;) {
                std::optional<task> t;
                {
                    const std::lock_guard<std::mutex> lock(m);
                    if (!tasks.empty()) {
                        t = std::move(tasks.back());
                        tasks.pop_back();
                    }
                }
                if (t) {
                    stat_names(level[t->dir], *t->names, t->part, parts[t->dir][t->part]);
                    after_task();
                    continue;
                }
                reading.fetch_add(1);
                const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
                if (c >= level.size()) {
                    reading.fetch_sub(1);
                    if (reading.load() == 0) {
                        const std::lock_guard<std::mutex> lock(m);
                        if (tasks.empty()) {
                            return; // nothing left, and nobody can add more
                        }
                    }
                    std::this_thread::yield(); // a directory being read may add tasks
                    continue;
                }
                auto names = std::make_shared<listing>();
                std::vector<walk_out>& out = parts[c];
                out.resize(1);
                list_dir(level[c], *names, out[0]);
                const std::size_t count = std::max<std::size_t>(
                    1, (names->names.size() + names_per_task - 1) / names_per_task);
                out.resize(count);
                if (count > 1) {
                    {
                        const std::lock_guard<std::mutex> lock(m);
                        for (std::size_t part = count - 1; part >= 1; --part) {
                            tasks.push_back(task{c, part, names});
                        }
                    }
                    grow_to(cpus);
                }
                reading.fetch_sub(1);
                stat_names(level[c], *names, 0, out[0]);
                after_task();
            }
        };
        growing_team team(start, most, body);
        grow_to = [&team](unsigned n) { team.grow_to(n); };
        team.run();
        for (std::vector<walk_out>& list : parts) {
            for (walk_out& out : list) {
                outs.push_back(std::move(out));
            }
        }
    }

    // Opens a directory and reads its names, sorted (so that which of two ways to a file is
    // kept does not depend on the file system's directory order); errors go to `out`.
    void list_dir(const dir_entry& d, listing& l, walk_out& out) const {
        l.dir.reset(::opendir(d.path.c_str()));
        if (!l.dir) {
            out.errors.push_back(
                scan_error{d.path, std::error_code(errno, std::generic_category()), "opendir"});
            return;
        }
        for (;;) {
            errno = 0;
            const dirent* e = ::readdir(l.dir.get());
            if (e == nullptr) {
                if (errno != 0) {
                    out.errors.push_back(scan_error{
                        d.path, std::error_code(errno, std::generic_category()), "readdir"});
                }
                break;
            }
            const std::string_view name(e->d_name);
            if (name == "." || name == ".." || (!opt_.include_hidden && name.front() == '.')) {
                continue;
            }
            l.names.emplace_back(name);
        }
        std::sort(l.names.begin(), l.names.end());
    }

    // Stats part `part` of a listing's names (names_per_task each) and adds what it finds
    // to `out`. Runs on several threads at once, each with its own `out`.
    void stat_names(const dir_entry& d, const listing& l, std::size_t part, walk_out& out) {
        if (!l.dir) {
            return;
        }
        const int dfd = ::dirfd(l.dir.get());
        const std::string prefix = d.path.ends_with('/') ? d.path : d.path + '/';
        const std::size_t begin = part * names_per_task;
        const std::size_t end = std::min(l.names.size(), begin + names_per_task);
        std::uint32_t dir_index = UINT32_MAX; // set by the first file
        for (std::size_t k = begin; k < end; ++k) {
            const std::string& name = l.names[k];
            struct stat st {};
            if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
                out.errors.push_back(scan_error{
                    prefix + name, std::error_code(errno, std::generic_category()), "stat"});
                continue;
            }
            const bool via_link = S_ISLNK(st.st_mode);
            if (via_link) {
                if (!opt_.follow_symlinks || ::fstatat(dfd, name.c_str(), &st, 0) != 0) {
                    continue; // not followed, or dangling
                }
            }
            if (S_ISDIR(st.st_mode)) {
                if (opt_.recursive) {
                    out.subdirs.push_back({prefix + name, st.st_dev, st.st_ino});
                }
            } else if (S_ISREG(st.st_mode)) {
                if (dir_index == UINT32_MAX) {
                    out.dirs.push_back(d.path);
                    dir_index = static_cast<std::uint32_t>(out.dirs.size() - 1);
                }
                add_file(out.files, prefix + name, st, d.device, d.inode, name, false, dir_index,
                         via_link);
            }
        }
    }

    // --- reading -------------------------------------------------------------------------

    // Still the file the walk saw: same device, inode, size and modification time.
    static bool unchanged(const dup_file& f, const struct stat& st) noexcept {
        const file_info now = info_of(st);
        return now.device == f.info.device && now.inode == f.info.inode &&
               now.size == f.info.size && now.mtime_ns == f.info.mtime_ns;
    }

    // Reports errors collected by worker threads, in order.
    void report(const std::vector<scan_error>& errors) const {
        if (opt_.on_error) {
            for (const scan_error& e : errors) {
                opt_.on_error(e);
            }
        }
    }

    // What one reading thread owns: where its errors and groups go (the current job's
    // output), and its comparison buffer (set_bytes), allocated when first needed. The
    // reading functions below are const and write only here, so threads run them at once.
    struct worker {
        std::vector<scan_error>* errors = nullptr;
        std::vector<std::vector<std::size_t>>* groups = nullptr;
        read_gauge* gauge = nullptr;
        std::unique_ptr<char[]> buffers; // set_bytes, allocated when first needed

        bool fail(const std::string& path, int err, const char* operation) {
            errors->push_back(
                scan_error{path, std::error_code(err, std::generic_category()), operation});
            return false;
        }
        char* buffer_a() {
            if (!buffers) {
                buffers.reset(new char[set_bytes]);
            }
            return buffers.get();
        }
        char* buffer_b() { return buffer_a() + block_bytes; }

        // Room for `n` bytes of small files' contents, kept between jobs.
        char* contents(std::size_t n) {
            if (n > contents_size) {
                contents_buffer.reset(new char[n]);
                contents_size = n;
            }
            return contents_buffer.get();
        }
        std::unique_ptr<char[]> contents_buffer;
        std::size_t contents_size = 0;
    };

    // Opens a candidate and checks that it is still the file the walk saw; else reports it.
    // With `out_of_descriptors`, running out of descriptors (EMFILE, ENFILE) is not
    // reported but flagged there, for the caller to retry with fewer files open.
    unique_fd open_unchanged(const dup_file& f, worker& w,
                             bool* out_of_descriptors = nullptr) const {
        const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
            if (out_of_descriptors != nullptr && (errno == EMFILE || errno == ENFILE)) {
                *out_of_descriptors = true;
                return unique_fd();
            }
            w.fail(f.path, errno, "open");
            return unique_fd();
        }
        unique_fd guard(fd);
        if (!still_same(f, fd, w)) {
            return unique_fd();
        }
        return guard;
    }

    bool still_same(const dup_file& f, int fd, worker& w) const {
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            return w.fail(f.path, errno, "stat");
        }
        if (!unchanged(f, st)) {
            return w.fail(f.path, ESTALE, "changed");
        }
        return true;
    }

    // Reads a small file whole into `dst` (room for size + 1 bytes) with one open and, in
    // the usual case, one pread of size + 1 bytes: a regular file that returns exactly its
    // size is at its end, so neither a second read nor an fstat is needed (the bytes
    // compared are the bytes read; a file that grew or shrank since the walk is reported as
    // changed). False, with the reason reported, if it cannot be read or changed size.
    bool load_whole(const dup_file& f, char* dst, worker& w) const {
        const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
            return w.fail(f.path, errno, "open");
        }
        unique_fd guard(fd);
        const auto size = static_cast<std::size_t>(f.info.size);
        const ssize_t first = pread_gauged(fd, dst, size + 1, 0, w.gauge); // +1: see growth
        if (first < 0) {
            return w.fail(f.path, errno, "read");
        }
        auto got = static_cast<std::size_t>(first);
        if (got != 0 && got < size) { // a short read before the expected end: keep reading
            try {
                got += pread_full_gauged(fd, dst + got, size + 1 - got, got, f.path, w.gauge);
            } catch (const std::system_error& e) {
                return w.fail(f.path, e.code().value(), "read");
            }
        }
        if (got != size) {
            return w.fail(f.path, ESTALE, "changed");
        }
        // The file opened is the one the walk saw (a rename or a new link since would put
        // another file's bytes under its name), and it was not modified while read.
        return still_same(f, fd, w);
    }

#if FASTREAD_HAVE_XXHASH
    using digest = std::pair<std::uint64_t, std::uint64_t>;

    // XXH3-128 of the first and last 4 KiB (the whole file when it is 8 KiB or less).
    bool probe_hash(const dup_file& f, digest& out, worker& w) const {
        unique_fd fd = open_unchanged(f, w);
        if (!fd) {
            return false;
        }
        char buf[2 * probe_bytes];
        const std::uint64_t size = f.info.size;
        std::size_t n = 0;
        try {
            if (size <= 2 * probe_bytes) {
                n = pread_full_gauged(fd.get(), buf, static_cast<std::size_t>(size), 0, f.path,
                                      w.gauge);
            } else {
                n = pread_full_gauged(fd.get(), buf, probe_bytes, 0, f.path, w.gauge);
                n += pread_full_gauged(fd.get(), buf + n, probe_bytes, size - probe_bytes, f.path,
                                       w.gauge);
            }
        } catch (const std::system_error& e) {
            return w.fail(f.path, e.code().value(), "read");
        }
        const XXH128_hash_t h = XXH3_128bits(buf, n);
        out = {h.low64, h.high64};
        return true;
    }

    // XXH3-128 of a small file, read whole.
    bool small_hash(const dup_file& f, digest& out, worker& w) const {
        char* const dst = w.contents(static_cast<std::size_t>(f.info.size) + 1);
        if (!load_whole(f, dst, w)) {
            return false;
        }
        const XXH128_hash_t h = XXH3_128bits(dst, static_cast<std::size_t>(f.info.size));
        out = {h.low64, h.high64};
        return true;
    }

    // XXH3-128 of the whole file, read in 64 KiB blocks.
    bool full_hash(const dup_file& f, digest& out, worker& w) const {
        unique_fd fd = open_unchanged(f, w);
        if (!fd) {
            return false;
        }
        (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
        XXH3_state_t state;
        XXH3_128bits_reset(&state);
        try {
            for (std::uint64_t offset = 0;; offset += block_bytes) {
                const std::size_t n =
                    pread_full_gauged(fd.get(), w.buffer_a(), block_bytes, offset, f.path, w.gauge);
                XXH3_128bits_update(&state, w.buffer_a(), n);
                if (n < block_bytes) {
                    break;
                }
            }
        } catch (const std::system_error& e) {
            return w.fail(f.path, e.code().value(), "read");
        }
        const XXH128_hash_t h = XXH3_128bits_digest(&state);
        out = {h.low64, h.high64};
        return true;
    }

    // Splits `group` (indices into files_) by `hash`; files that fail drop out.
    template <class Hash>
    std::vector<std::vector<std::size_t>> split_by(const std::vector<std::size_t>& group,
                                                   Hash hash) const {
        std::vector<std::pair<digest, std::size_t>> keyed;
        keyed.reserve(group.size());
        for (std::size_t i : group) {
            digest d;
            if (hash(files_[i], d)) {
                keyed.emplace_back(d, i);
            }
        }
        std::sort(keyed.begin(), keyed.end());
        std::vector<std::vector<std::size_t>> out;
        for (std::size_t k = 0; k < keyed.size();) {
            std::size_t e = k + 1;
            while (e < keyed.size() && keyed[e].first == keyed[k].first) {
                ++e;
            }
            if (e - k >= 2) {
                out.emplace_back();
                for (std::size_t j = k; j < e; ++j) {
                    out.back().push_back(keyed[j].second);
                }
            }
            k = e;
        }
        return out;
    }
#endif

    enum class verdict { equal, different, first_lost, second_lost };

    // pread of up to `n` bytes at `offset`; false (reported) on an I/O error.
    static bool read_part(const dup_file& f, int fd, char* dst, std::size_t n, std::uint64_t offset,
                          std::size_t& got, worker& w) {
        try {
            got = pread_full_gauged(fd, dst, n, offset, f.path, w.gauge);
            return true;
        } catch (const std::system_error& e) {
            return w.fail(f.path, e.code().value(), "read");
        }
    }

    // Compares two candidates in blocks of up to 64 KiB. A file that cannot be read, or that
    // changed since the walk or while being compared (the bytes read may then mix two versions), is
    // reported and "lost".
    verdict same_bytes(const dup_file& a, const dup_file& b, worker& w) const {
        unique_fd fa = open_unchanged(a, w);
        if (!fa) {
            return verdict::first_lost;
        }
        unique_fd fb = open_unchanged(b, w);
        if (!fb) {
            return verdict::second_lost;
        }
        if (a.info.device == b.info.device && a.info.inode == b.info.inode) {
            return verdict::equal; // hard links, counted as duplicates
        }
        bool equal = true;
        char* const buf_a = w.buffer_a();
        char* const buf_b = w.buffer_b();
        // The last 4 KiB first: near-duplicates (a changed last byte, an appended counter)
        // differ there, and then nothing else is read.
        const std::uint64_t size = a.info.size;
        if (size > 2 * probe_bytes) {
            std::size_t n = 0, m = 0;
            if (!read_part(a, fa.get(), buf_a, probe_bytes, size - probe_bytes, n, w)) {
                return verdict::first_lost;
            }
            if (!read_part(b, fb.get(), buf_b, probe_bytes, size - probe_bytes, m, w)) {
                return verdict::second_lost;
            }
            equal = n == m && std::memcmp(buf_a, buf_b, n) == 0;
        }
        // Then from the start, in blocks that grow from 16 KiB to 64 KiB, so that files that
        // differ early cost little.
        std::size_t block = 16 * 1024;
        for (std::uint64_t off = 0; off < size && equal;) {
            std::size_t n = 0, m = 0;
            if (!read_part(a, fa.get(), buf_a, block, off, n, w)) {
                return verdict::first_lost;
            }
            if (!read_part(b, fb.get(), buf_b, block, off, m, w)) {
                return verdict::second_lost;
            }
            equal = n == m && n != 0 && std::memcmp(buf_a, buf_b, n) == 0;
            off += n;
            block = std::min(2 * block, block_bytes);
        }
        if (!still_same(a, fa.get(), w)) {
            return verdict::first_lost;
        }
        if (!still_same(b, fb.get(), w)) {
            return verdict::second_lost;
        }
        return equal ? verdict::equal : verdict::different;
    }

    // Splits `group` (two to max_set files of one size) into sets of equal files, reading
    // every file once: all are open at once, and the same block of each is read and
    // sorted into the sets that are still equal so far; a set of one is dropped. The last
    // 4 KiB first (near-duplicates differ there), then from the start in blocks growing
    // from 16 KiB to set_bytes / files (at most 64 KiB). Memory: set_bytes per thread;
    // comparisons: at most (sets so far) memcmp per file and block.
    void compare_set(const std::vector<std::size_t>& group, worker& w) const {
        struct member {
            std::size_t file;
            unique_fd fd;
        };
        std::vector<member> members;
        bool out_of_descriptors = false;
        for (std::size_t i : group) {
            unique_fd fd = open_unchanged(files_[i], w, &out_of_descriptors);
            if (out_of_descriptors) {
                // The application holds more descriptors than set_limit_ allowed for: compare
                // file by file instead (two open at a time), losing no file.
                members.clear();
                confirm(group, w);
                return;
            }
            if (fd) {
                members.push_back(member{i, std::move(fd)});
            }
        }
        const std::uint64_t size = files_[group[0]].info.size;
        const std::size_t most =
            std::min(block_bytes, set_bytes / std::max<std::size_t>(members.size(), 1));
        char* const buffer = w.buffer_a();
        // Sets of positions in `members`, each equal so far.
        std::vector<std::vector<std::size_t>> sets(1);
        for (std::size_t k = 0; k < members.size(); ++k) {
            sets[0].push_back(k);
        }
        // Reads [offset, offset + n) of every file still in a set of two or more and splits
        // the sets by what was read; a file that cannot be read or ends early is dropped.
        auto step = [&](std::uint64_t offset, std::size_t n) {
            std::vector<std::vector<std::size_t>> next;
            for (const std::vector<std::size_t>& set : sets) {
                std::vector<std::size_t> read;
                for (std::size_t pos = 0; pos < set.size(); ++pos) {
                    member& m = members[set[pos]];
                    char* const dst = buffer + pos * most;
                    std::size_t got = 0;
                    if (!read_part(files_[m.file], m.fd.get(), dst, n, offset, got, w)) {
                        continue;
                    }
                    if (got != n) {
                        w.fail(files_[m.file].path, ESTALE, "changed");
                        continue;
                    }
                    read.push_back(pos);
                }
                // Partition `read` (positions in `set`) by buffer contents.
                std::vector<std::vector<std::size_t>> parts; // positions in `set`
                for (std::size_t pos : read) {
                    const char* block = buffer + pos * most;
                    auto same = std::find_if(parts.begin(), parts.end(), [&](const auto& part) {
                        return std::memcmp(buffer + part[0] * most, block, n) == 0;
                    });
                    if (same == parts.end()) {
                        parts.push_back({pos});
                    } else {
                        same->push_back(pos);
                    }
                }
                for (const auto& part : parts) {
                    if (part.size() >= 2) {
                        next.emplace_back();
                        for (std::size_t pos : part) {
                            next.back().push_back(set[pos]);
                        }
                    }
                }
            }
            sets = std::move(next);
        };
        if (size > 2 * probe_bytes) {
            step(size - probe_bytes, probe_bytes);
        }
        std::size_t block = 16 * 1024;
        for (std::uint64_t off = 0; off < size && !sets.empty();) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block, size - off));
            step(off, n);
            off += n;
            block = std::min(2 * block, most);
        }
        for (const std::vector<std::size_t>& set : sets) {
            std::vector<std::size_t> same;
            for (std::size_t k : set) {
                if (still_same(files_[members[k].file], members[k].fd.get(), w)) {
                    same.push_back(members[k].file);
                }
            }
            if (same.size() >= 2) {
                w.groups->push_back(std::move(same));
            }
        }
    }

    // Splits `group` into sets of equal files by comparing bytes with a representative.
    void confirm(std::vector<std::size_t> group, worker& w) const {
        while (group.size() >= 2) {
            const std::size_t rep = group[0];
            std::vector<std::size_t> same{rep}, rest;
            bool rep_lost = false;
            for (std::size_t k = 1; k < group.size(); ++k) {
                if (rep_lost) {
                    rest.push_back(group[k]);
                    continue;
                }
                switch (same_bytes(files_[rep], files_[group[k]], w)) {
                case verdict::equal:
                    same.push_back(group[k]);
                    break;
                case verdict::different:
                    rest.push_back(group[k]);
                    break;
                case verdict::second_lost:
                    break;
                case verdict::first_lost:
                    // Compare the others again among themselves, without the representative.
                    rep_lost = true;
                    rest.insert(rest.end(), same.begin() + 1, same.end());
                    rest.push_back(group[k]);
                    break;
                }
            }
            if (!rep_lost && same.size() >= 2) {
                w.groups->push_back(std::move(same));
            }
            group = std::move(rest);
        }
    }

    // Splits small files of one size into sets of equal files: each read whole once (in
    // directory and inode order, near disk order when they come from the disk) into the
    // worker's memory, and the contents sorted, which puts equal files next to each other.
    // Memory: (size + 1) * files bytes.
    void group_by_content(const std::vector<std::size_t>& group, worker& w) const {
        const auto size = static_cast<std::size_t>(files_[group[0]].info.size);
        const std::size_t stride = size + 1;
        char* const base = w.contents(stride * group.size());
        std::vector<std::size_t> order(group.size()); // positions in `group`, in reading order
        for (std::size_t k = 0; k < order.size(); ++k) {
            order[k] = k;
        }
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
            const dup_file& a = files_[group[x]];
            const dup_file& b = files_[group[y]];
            return std::tie(a.dir, a.info.inode) < std::tie(b.dir, b.info.inode);
        });
        std::vector<std::size_t> read; // positions in `group` read successfully
        for (std::size_t k : order) {
            if (load_whole(files_[group[k]], base + k * stride, w)) {
                read.push_back(k);
            }
        }
        auto content = [&](std::size_t k) { return std::string_view(base + k * stride, size); };
        std::sort(read.begin(), read.end(),
                  [&](std::size_t x, std::size_t y) { return content(x) < content(y); });
        for (std::size_t k = 0; k < read.size();) {
            std::size_t e = k + 1;
            while (e < read.size() && content(read[e]) == content(read[k])) {
                ++e;
            }
            if (e - k >= 2) {
                std::vector<std::size_t> same;
                for (std::size_t j = k; j < e; ++j) {
                    same.push_back(group[read[j]]);
                }
                w.groups->push_back(std::move(same));
            }
            k = e;
        }
    }

    // A set of candidates (indices into files_, all of one size) and what to do with it.
    enum class job_kind {
        empty,      // empty files: equal to each other while they stay empty
        small,      // small files: read whole and compared in memory
        candidates, // probe hash, whole-file hash, then compare bytes
    };
    struct job {
        job_kind kind;
        std::vector<std::size_t> files;
    };
    struct job_out {
        std::vector<std::vector<std::size_t>> groups;
        std::vector<scan_error> errors;
    };

    void run_job(const job& j, worker& w) const {
        switch (j.kind) {
        case job_kind::empty: {
            std::vector<std::size_t> still;
            for (std::size_t i : j.files) {
                if (open_unchanged(files_[i], w)) {
                    still.push_back(i);
                }
            }
            if (still.size() >= 2) {
                w.groups->push_back(std::move(still));
            }
            return;
        }
        case job_kind::small: {
            // All at once in memory when that is small (each file read once). Else split by
            // a whole-file hash first, then each set of equal hashes the same way (or file by
            // file against a representative when even that set is big).
            const std::uint64_t size = files_[j.files[0]].info.size;
            if ((size + 1) * j.files.size() <= batch_bytes) {
                group_by_content(j.files, w);
                return;
            }
#if FASTREAD_HAVE_XXHASH
            for (auto& same : split_by(
                     j.files, [&](const dup_file&f, digest&d) { return small_hash(f, d, w); })) {
                if ((size + 1) * same.size() <= batch_bytes) {
                    group_by_content(same, w);
                } else {
                    confirm(std::move(same), w);
                }
            }
#else
            confirm(j.files, w);
#endif
            return;
        }
        case job_kind::candidates:
            // Up to max_set files: compared all at once, each read once (hashing first would
            // read them all and then compare anyway).
            if (j.files.size() <= set_limit_) {
                compare_set(j.files, w);
                return;
            }
#if FASTREAD_HAVE_XXHASH
            // More: split by a probe hash (first and last 4 KiB), then by a whole-file hash
            // what is still too big to compare at once.
            for (auto& part : split_by(
                     j.files, [&](const dup_file&f, digest&d) { return probe_hash(f, d, w); })) {
                if (part.size() <= set_limit_) {
                    compare_set(part, w);
                    continue;
                }
                for (auto& same : split_by(
                         part, [&](const dup_file&f, digest&d) { return full_hash(f, d, w); })) {
                    confirm(std::move(same), w);
                }
            }
#else
            confirm(j.files, w);
#endif
            return;
        }
    }

    // Runs the jobs on several threads, each taking the next job when done with one,
    // biggest jobs first (so that no big one is left for the end); this thread is one of
    // them and reports progress between its jobs. Errors and groups are reported in job
    // order, so the result does not depend on timing. With the default thread count the
    // team starts with one thread per CPU and grows to thread_count() when a read has to
    // wait for the device.
    void run_jobs(const std::vector<job>& jobs) {
        const std::size_t total = jobs.size();
        std::vector<job_out> outs(total);
        std::vector<std::size_t> order(total);
        std::vector<std::uint64_t> cost(total);
        for (std::size_t k = 0; k < total; ++k) {
            order[k] = k;
            // Bytes to read, plus the open and close of each file (worth about 16 KiB of
            // copying from the page cache).
            cost[k] = (files_[jobs[k].files[0]].info.size + 16384) * jobs[k].files.size();
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t x, std::size_t y) { return cost[x] > cost[y]; });
        std::atomic<std::size_t> next{0}, done{0};
        read_gauge gauge;
        progress("compare", 0, total);
        auto body = [&](unsigned t) {
            worker w;
            w.gauge = &gauge;
            for (std::size_t n; (n = next.fetch_add(1, std::memory_order_relaxed)) < total;) {
                const std::size_t k = order[n];
                w.errors = &outs[k].errors;
                w.groups = &outs[k].groups;
                run_job(jobs[k], w);
                const std::size_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
                if (t == 0) {
                    progress("compare", finished, total);
                }
            }
        };
        // Each comparing thread holds up to set_limit_ files open at once. Size both from
        // the descriptors the process may still open (RLIMIT_NOFILE), so that a set does not
        // run out of them (EMFILE) and lose files: at least 4 per thread, 2 per set.
        const std::size_t room = descriptor_room();
        const std::size_t usable = room > spare_descriptors ? room - spare_descriptors : 0;
        const auto most = static_cast<unsigned>(std::max<std::size_t>(
            1, std::min<std::size_t>({std::size_t{thread_count()}, total, usable / 4})));
        set_limit_ = std::clamp<std::size_t>(usable / most, 2, max_set);
        const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
        const bool adaptive = opt_.threads == 0 && most > cpus;
        growing_team team(adaptive ? cpus : most, most, body);
        if (adaptive) {
            gauge.on_wait = [&team] { team.grow(); };
            gauge.probing = true;
        }
        team.run();
        progress("compare", total, total);
        for (job_out& out : outs) {
            report(out.errors);
            for (const auto& g : out.groups) {
                emit(g);
            }
        }
    }

    void emit(const std::vector<std::size_t>& group) {
        std::vector<std::filesystem::path> paths;
        paths.reserve(group.size());
        for (std::size_t i : group) {
            paths.emplace_back(files_[i].path);
        }
        std::sort(paths.begin(), paths.end());
        groups_.push_back(std::move(paths));
    }

    std::vector<std::vector<std::filesystem::path>> find() {
        // Group by size (ties in walk order, which is deterministic); drop sizes with one
        // file.
        std::vector<std::size_t> order(files_.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
            return files_[x].info.size != files_[y].info.size
                       ? files_[x].info.size < files_[y].info.size
                       : x < y;
        });
        std::vector<job> jobs;
        for (std::size_t k = 0; k < order.size();) {
            std::size_t e = k + 1;
            const std::uint64_t size = files_[order[k]].info.size;
            while (e < order.size() && files_[order[e]].info.size == size) {
                ++e;
            }
            if (e - k >= 2) {
                const auto first = order.begin() + static_cast<std::ptrdiff_t>(k);
                const auto last = order.begin() + static_cast<std::ptrdiff_t>(e);
                if (size == 0) {
                    jobs.push_back(job{job_kind::empty, {first, last}});
                } else if (size <= small_bytes) {
                    jobs.push_back(job{job_kind::small, {first, last}});
                } else {
                    jobs.push_back(job{job_kind::candidates, {first, last}});
                }
            }
            k = e;
        }
        run_jobs(jobs);
        std::sort(groups_.begin(), groups_.end());
        return std::move(groups_);
    }
    const duplicate_options& opt_;
    std::size_t set_limit_ = max_set; // largest set compared at once (run_jobs sizes it)
    std::vector<dup_file> files_;
    std::vector<dir_entry> pending_;
    std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, id_hash> dirs_seen_;
    std::unordered_set<path_key, path_key_hash> paths_seen_;
    std::atomic<bool> walk_waited_{false}; // the walk read directories from the device
    std::vector<std::string> dirs_;        // directories holding files_, by dup_file::dir
    std::vector<std::vector<std::filesystem::path>> groups_;
};

} // namespace detail

inline std::vector<std::vector<std::filesystem::path>>
find_duplicates(std::span<const std::filesystem::path> roots, duplicate_options options) {
    return detail::duplicate_finder(options).run(roots);
}

} // namespace fastread

#endif // FASTREAD_COMPARE_HPP
