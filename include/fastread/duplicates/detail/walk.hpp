#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_WALK_HPP)
#define FASTREAD_DUPLICATES_DETAIL_WALK_HPP

/// @file
/// The duplicate finder's walk: roots and directories read level by level (wide levels on
/// several threads), the candidate files kept with what `stat` said of them.

#include "../../detail/parallel.hpp"
#include "../../detail/posix.hpp"
#include "../options.hpp"
#include "dir.hpp"
#include "files.hpp"
#include "process.hpp"
#include "thread_team.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
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

namespace fastread::detail {

/// Walks the roots into `files_` (candidates) and `dirs_` (their directories); reports what
/// it cannot read to the options' on_error.
class duplicate_walk : protected duplicate_limits {
  public:
    explicit duplicate_walk(const duplicate_options& options) : opt_(options) {}

  protected:
    void error(const std::string& path, int err, const char* operation) {
        if (opt_.on_error) {
            opt_.on_error(duplicate_error{
                path_of(path), std::error_code(err, std::generic_category()), operation});
        }
    }

    void progress(std::string_view stage, std::uint64_t done, std::uint64_t total) {
        if (opt_.on_progress) {
            opt_.on_progress(duplicate_progress{stage, done, total});
        }
    }

    void add_root(const std::filesystem::path& root) {
        path_facts st;
        // A root named explicitly is followed even if it is a symbolic link.
        const std::string root_string = string_of(root);
        const auto index = static_cast<std::uint32_t>(root_paths_.size());
        root_paths_.push_back(root_string);
        root_devices_.push_back(0);
        if (const int err = stat_path(root_string, true, st); err != 0) {
            error(root_string, err, "stat");
            return;
        }
        root_devices_.back() = st.info.device;
        if (st.info.directory) {
            pending_.push_back({root_string, st.info.device, st.info.inode, index});
            return;
        }
        if (!st.info.regular) {
            return;
        }
        const std::string parent =
            root.parent_path().empty() ? std::string(".") : string_of(root.parent_path());
        path_facts ps;
        if (const int err = stat_path(parent, true, ps); err != 0) {
            error(parent, err, "stat");
            return;
        }
        const std::string name = string_of(root.filename());
        if (excluded(name, name, false)) {
            return;
        }
        dirs_.push_back(parent);
        add_file(files_, root_string, st.info, ps.info.device, ps.info.inode, name, true,
                 static_cast<std::uint32_t>(dirs_.size() - 1), index);
    }

    // The options' --exclude and --name globs: whether an entry named `name`, at `relative`
    // under its root, is left out (a pattern with a '/' is matched against `relative`, else
    // against `name`). Directories are left out by `exclude` only.
    bool excluded(const std::string& name, const std::string& relative, bool directory) const {
        auto matches = [&](const std::string& glob) {
            return glob_match(glob, glob.find('/') != std::string::npos ? relative : name);
        };
        if (std::any_of(opt_.exclude.begin(), opt_.exclude.end(), matches)) {
            return true;
        }
        return !directory && !opt_.names.empty() &&
               std::none_of(opt_.names.begin(), opt_.names.end(), matches);
    }

    // `path` (which starts with its root's path, as the walk builds it) relative to the root.
    std::string relative_to_root(const std::string& path, std::uint32_t root) const {
        const std::string& r = root_paths_[root];
        if (path.size() <= r.size()) {
            return {};
        }
        return path.substr(ends_with_separator(r) ? r.size() : r.size() + 1);
    }

    // Appends the file to `out` unless the options exclude it or it was already given as a
    // root. Called from several walking threads at once when `root` is false (then it
    // only reads paths_seen_).
    template <class Files>
    void add_file(Files& out, std::string path, const file_info& info, std::uint64_t parent_dev,
                  std::uint64_t parent_ino, std::string name, bool root, std::uint32_t dir,
                  std::uint32_t root_index, bool via_link = false) {
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
        out.push_back(dup_file{std::move(path), info, dir, name_at, root_index, info.links > 1,
                               via_link || root});
    }

    struct dir_entry {
        std::string path;
        std::uint64_t device;
        std::uint64_t inode;
        std::uint32_t root; // index of the root it was reached from
    };

    // What reading some directories found; `files[i].dir` indexes `dirs`.
    struct walk_out {
        std::vector<dup_file> files;
        std::vector<std::string> dirs;
        std::vector<dir_entry> subdirs;
        std::vector<duplicate_error> errors;
    };

    unsigned thread_count() const {
        // Default: 8 per CPU. The threads mostly wait for the device
        // (docs/benchmarks/, "Compare and duplicates"). A count set by the call,
        // set_max_threads or FASTREAD_THREADS is a limit.
        const std::optional<unsigned> limit = detail::explicit_thread_limit();
        const unsigned n = limit ? *limit : 8 * detail::cpu_count();
        return std::min(n, 64u);
    }

    // Reads the roots, then (when recursive) their subdirectories, level by level. The
    // directories of a wide level are cut into chunks that several threads take in turn,
    // and the results are merged in chunk order, so the outcome does not depend on the
    // threads. With the default thread count a level starts with one thread per CPU
    // (directories in the page cache keep them busy; more only add switching:
    // docs/benchmarks/, "Compare and duplicates") and grows to
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

    // Block input operations of the calling thread so far (reads that went to the device);
    // -1 where the system does not count them per thread (then the team never grows).
    static std::int64_t blocks_read() noexcept { return thread_blocks_read(); }

    // A directory's names, sorted, and the open directory to stat them in.
    struct listing {
        dir_reader dir;
        std::vector<std::string> names;
    };

    // Names stat'ed per task: a directory with more is split into tasks for several threads.
    static constexpr std::size_t names_per_task = 512;

    // Reads the directories of one level into `outs`, in level order (a directory split
    // into several tasks gives one walk_out per task, in name order), on a team of threads
    // that take directories in turn and share the tasks of big directories (see walk). A
    // level of fewer than 64 directories starts on this thread alone and widens to one
    // thread per CPU when a big directory is split.
    // What the threads of one level share (walk_level).
    struct level_work {
        struct task {
            std::size_t dir, part;
            std::shared_ptr<const listing> names;
        };
        explicit level_work(const std::vector<dir_entry>& dirs) : level(dirs), parts(dirs.size()) {}

        const std::vector<dir_entry>& level;
        std::vector<std::vector<walk_out>> parts; // per directory, one walk_out per task
        std::mutex m;
        std::vector<task> tasks; // split-off parts of big directories, not taken yet
        std::atomic<std::size_t> next{0};
        std::atomic<unsigned> reading{0}; // threads that took a directory, not yet split
        std::function<void(unsigned)> grow_to;

        std::optional<task> take_task() {
            const std::lock_guard<std::mutex> lock(m);
            if (tasks.empty()) {
                return std::nullopt;
            }
            task t = std::move(tasks.back());
            tasks.pop_back();
            return t;
        }
        // No directory left to take: true when no thread reading one can add tasks either.
        bool drained() {
            if (reading.load() != 0) {
                return false;
            }
            const std::lock_guard<std::mutex> lock(m);
            return tasks.empty();
        }
    };

    // Reads the directories of one level into `outs`, in level order (a directory split
    // into several tasks gives one walk_out per task, in name order), on a team of threads
    // that take directories in turn and share the tasks of big directories (see walk). A
    // level of fewer than 64 directories starts on this thread alone and widens to one
    // thread per CPU when a big directory is split.
    void walk_level(const std::vector<dir_entry>& level, std::vector<walk_out>& outs) {
        level_work work(level);
        const unsigned cpus = detail::cpu_count();
        const unsigned most = thread_count();
        const bool adaptive = opt_.threads == 0 && most > cpus;
        const unsigned start = level.size() < 64                   ? 1
                               : opt_.threads != 0 || walk_waited_ ? most
                                                                   : std::min(cpus, most);
        growing_team team(start, most,
                          [&](unsigned) { walk_level_thread(work, adaptive, cpus, most); });
        work.grow_to = [&team](unsigned n) { team.grow_to(n); };
        team.run();
        for (std::vector<walk_out>& list : work.parts) {
            for (walk_out& out : list) {
                outs.push_back(std::move(out));
            }
        }
    }

    // One thread of walk_level: split-off tasks first, else the next directory, until
    // neither is left. `adaptive`: the team grows to `most` once this thread's reading went
    // to the device (its block input count moved).
    void walk_level_thread(level_work& work, bool adaptive, unsigned cpus, unsigned most) {
        std::int64_t before = adaptive ? blocks_read() : 0;
        auto after_task = [&] {
            if (adaptive && !walk_waited_.load(std::memory_order_relaxed)) {
                const std::int64_t now = blocks_read();
                if (now != before) {
                    walk_waited_ = true;
                    work.grow_to(most);
                }
                before = now;
            }
        };
        for (;;) {
            if (std::optional<level_work::task> t = work.take_task()) {
                stat_names(work.level[t->dir], *t->names, t->part, work.parts[t->dir][t->part]);
                after_task();
                continue;
            }
            work.reading.fetch_add(1);
            const std::size_t c = work.next.fetch_add(1, std::memory_order_relaxed);
            if (c >= work.level.size()) {
                work.reading.fetch_sub(1);
                if (work.drained()) {
                    return; // nothing left, and nobody can add more
                }
                std::this_thread::yield(); // a directory being read may add tasks
                continue;
            }
            read_level_dir(work, c, cpus);
            after_task();
        }
    }

    // Lists directory `c` of the level, splits a big one into tasks for the other threads
    // (widening the team to one per CPU), and stats the first part of its names.
    void read_level_dir(level_work& work, std::size_t c, unsigned cpus) {
        auto names = std::make_shared<listing>();
        std::vector<walk_out>& out = work.parts[c];
        out.resize(1);
        list_dir(work.level[c], *names, out[0]);
        const std::size_t count =
            std::max<std::size_t>(1, (names->names.size() + names_per_task - 1) / names_per_task);
        out.resize(count);
        if (count > 1) {
            {
                const std::lock_guard<std::mutex> lock(work.m);
                for (std::size_t part = count - 1; part >= 1; --part) {
                    work.tasks.push_back(level_work::task{c, part, names});
                }
            }
            work.grow_to(cpus);
        }
        work.reading.fetch_sub(1);
        stat_names(work.level[c], *names, 0, out[0]);
    }

    // Opens a directory and reads its names, sorted (so that which of two ways to a file is
    // kept does not depend on the file system's directory order); errors go to `out`.
    void list_dir(const dir_entry& d, listing& l, walk_out& out) const {
        if (const int err = l.dir.open(d.path); err != 0) {
            out.errors.push_back(duplicate_error{
                path_of(d.path), std::error_code(err, std::generic_category()), "opendir"});
            return;
        }
        std::string name;
        for (int err = 0;;) {
            if (!l.dir.next(name, err)) {
                if (err != 0) {
                    out.errors.push_back(duplicate_error{
                        path_of(d.path), std::error_code(err, std::generic_category()), "readdir"});
                }
                break;
            }
            if (!opt_.include_hidden && name.front() == '.') {
                continue;
            }
            l.names.push_back(name);
        }
        std::sort(l.names.begin(), l.names.end());
    }

    // Stats part `part` of a listing's names (names_per_task each) and adds what it finds
    // to `out`. Runs on several threads at once, each with its own `out`.
    void stat_names(const dir_entry& d, const listing& l, std::size_t part, walk_out& out) {
        if (!l.dir) {
            return;
        }
        const std::string prefix = ends_with_separator(d.path) ? d.path : d.path + path_separator;
        const std::size_t begin = part * names_per_task;
        const std::size_t end = std::min(l.names.size(), begin + names_per_task);
        std::uint32_t dir_index = UINT32_MAX; // set by the first file
        for (std::size_t k = begin; k < end; ++k) {
            const std::string& name = l.names[k];
            path_facts st;
            if (const int err = l.dir.stat(name, false, st); err != 0) {
                out.errors.push_back(duplicate_error{
                    path_of(prefix + name), std::error_code(err, std::generic_category()), "stat"});
                continue;
            }
            const bool via_link = st.symlink;
            if (via_link) {
                if (!opt_.follow_symlinks || l.dir.stat(name, true, st) != 0) {
                    continue; // not followed, or dangling
                }
            }
            if (!opt_.exclude.empty() || (!opt_.names.empty() && !st.info.directory)) {
                if (excluded(name, relative_to_root(prefix + name, d.root), st.info.directory)) {
                    continue;
                }
            }
            if (st.info.directory) {
                if (opt_.recursive && d.root >= opt_.first_recursive_root &&
                    (!opt_.one_file_system || st.info.device == root_devices_[d.root])) {
                    out.subdirs.push_back({prefix + name, st.info.device, st.info.inode, d.root});
                }
            } else if (st.info.regular) {
                if (dir_index == UINT32_MAX) {
                    out.dirs.push_back(d.path);
                    dir_index = static_cast<std::uint32_t>(out.dirs.size() - 1);
                }
                add_file(out.files, prefix + name, st.info, d.device, d.inode, name, false,
                         dir_index, d.root, via_link);
            }
        }
    }

    // Reports errors collected by worker threads, in order.
    void report(const std::vector<duplicate_error>& errors) const {
        if (opt_.on_error) {
            for (const duplicate_error& e : errors) {
                opt_.on_error(e);
            }
        }
    }

    const duplicate_options& opt_;
    // The candidates, in walk order. A deque: appending a level's files never moves (nor
    // keeps a second copy of) those found before.
    std::deque<dup_file> files_;
    std::vector<dir_entry> pending_;
    std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, id_hash> dirs_seen_;
    std::unordered_set<path_key, path_key_hash> paths_seen_;
    std::atomic<bool> walk_waited_{false};    // the walk read directories from the device
    std::vector<std::string> dirs_;           // directories holding files_, by dup_file::dir
    std::vector<std::string> root_paths_;     // the roots as given, by dup_file::root
    std::vector<std::uint64_t> root_devices_; // the device of each root (0: not found)
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_WALK_HPP
