#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_SCHEDULE_HPP)
#define FASTREAD_DUPLICATES_DETAIL_SCHEDULE_HPP

/// @file
/// The duplicate finder's schedule: candidates grouped by size into jobs, run on a team of
/// threads sized from the CPUs and the descriptors left, the groups gathered in order.

#include "../../detail/parallel.hpp"
#include "compare.hpp"
#include "dir.hpp"
#include "directories.hpp"
#include "process.hpp"
#include "thread_team.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
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

namespace fastread::detail {

/// Descriptors this process may still open: RLIMIT_NOFILE's soft limit less those open now
/// (counted in /proc/self/fd on Linux; where that cannot be read, half the limit counts as
/// used).
/// At most 2^20 (an unlimited soft limit). O(descriptors open).
inline std::size_t descriptor_room() noexcept {
    constexpr std::size_t most = std::size_t{1} << 20;
    const std::uint64_t limit = descriptor_limit();
    if (limit == 0 || limit >= most) {
        return most;
    }
    const auto soft = static_cast<std::size_t>(limit);
    const std::int64_t counted = open_descriptors();
    const std::size_t open = counted >= 0 ? static_cast<std::size_t>(counted) : soft / 2;
    return soft > open ? soft - open : 0;
}

/// find_duplicates: walk, group by size, compare, gather.
class duplicate_finder : protected duplicate_comparer {
  public:
    explicit duplicate_finder(const duplicate_options& options) : duplicate_comparer(options) {}

    /// The groups of paths (find_duplicates).
    std::vector<std::vector<std::filesystem::path>>
    run(std::span<const std::filesystem::path> roots) {
        search(roots);
        std::vector<std::vector<std::filesystem::path>> out;
        out.reserve(groups_.size());
        for (auto& g : groups_) {
            out.push_back(std::move(g.first));
        }
        return out;
    }

    /// The groups with what the walk saw of each file, the unique files and the duplicate
    /// directories as the options ask (find_duplicate_files).
    duplicate_report report_of(std::span<const std::filesystem::path> roots) {
        search(roots);
        duplicate_report r;
        r.groups.reserve(groups_.size());
        std::vector<bool> grouped(opt_.list_unique ? files_.size() : 0);
        for (auto& g : groups_) {
            std::vector<duplicate_file> files;
            files.reserve(g.second.size());
            for (std::size_t k = 0; k < g.second.size(); ++k) {
                files.push_back(file_of(g.second[k], std::move(g.first[k])));
                if (opt_.list_unique) {
                    grouped[g.second[k]] = true;
                }
            }
            r.groups.push_back(std::move(files));
        }
        if (opt_.list_unique) {
            for (std::size_t i = 0; i < files_.size(); ++i) {
                if (!grouped[i]) {
                    r.unique.push_back(file_of(i, path_of(files_[i].path)));
                }
            }
            std::sort(
                r.unique.begin(), r.unique.end(),
                [](const duplicate_file& a, const duplicate_file& b) { return a.path < b.path; });
        }
        if (opt_.directories) {
            std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::int64_t, id_hash> ids;
            for (std::size_t g = 0; g < r.groups.size(); ++g) {
                for (const duplicate_file& f : r.groups[g]) {
                    ids.emplace(std::pair{f.device, f.inode}, static_cast<std::int64_t>(g));
                }
            }
            directory_grouper grouper(
                std::move(ids),
                [this](const std::string& name, const std::string& rel, bool dir, std::uint32_t) {
                    return (!opt_.include_hidden && name.front() == '.') ||
                           excluded(name, rel, dir);
                },
                opt_.one_file_system);
            for (std::size_t k = 0; k < root_paths_.size(); ++k) {
                if (opt_.recursive && k >= opt_.first_recursive_root) {
                    grouper.add_root(root_paths_[k], static_cast<std::uint32_t>(k));
                }
            }
            r.directories = grouper.groups();
        }
        return r;
    }

  private:
    void search(std::span<const std::filesystem::path> roots) {
        for (const std::filesystem::path& root : roots) {
            add_root(root);
        }
        walk();
        progress("walk", files_.size(), files_.size());
        load_cache();
        find();
        save_cache();
    }

    duplicate_file file_of(std::size_t i, std::filesystem::path path) const {
        const dup_file& f = files_[i];
        return duplicate_file{std::move(path), f.root,          f.info.device,  f.info.inode,
                              f.info.size,     f.info.mtime_ns, f.info.ctime_ns};
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
        std::vector<duplicate_error> errors;
        std::vector<hash_cache_entry> learned;
    };

    // The hash cache (duplicate_options::cache), read before the jobs run. Unusable: reported
    // and rebuilt (corrupt, unreadable), or ignored (another hash version).
    void load_cache() {
        if (opt_.cache.empty()) {
            return;
        }
        if (!FASTREAD_HAVE_XXHASH) {
            report({duplicate_error{opt_.cache, std::error_code(ENOTSUP, std::generic_category()),
                                    "cache"}});
            return;
        }
        // Files whose times are this close to the scan could change again within one tick of
        // the file system's clock, keeping their times: their hashes are not kept.
        scan_start_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
        cache_ = std::make_unique<hash_cache>();
        cache_changed_ = true; // rewritten unless loaded as it is
        fastread::error err;
        const hash_cache::state state = cache_->load(opt_.cache, err);
        cache_changed_ = state != hash_cache::state::loaded;
        if (err.code()) {
            report({duplicate_error{opt_.cache, err.code(), "cache"}});
        } else if (state == hash_cache::state::corrupt) {
            report({duplicate_error{opt_.cache, std::error_code(EILSEQ, std::generic_category()),
                                    "cache"}});
        }
    }

    void save_cache() {
        if (!cache_) {
            return;
        }
        if (learned_ == 0 && !cache_changed_) {
            return; // nothing new: the file on disk already holds every entry
        }
        fastread::error err;
        if (!cache_->save(opt_.cache, err)) {
            report({duplicate_error{opt_.cache, err.code(), "cache"}});
        }
    }

#if FASTREAD_HAVE_XXHASH
    // Keeps what was computed of a file for the cache, unless the file changed so recently
    // that a change within one tick of the file system's clock could keep its times.
    void learn(const hash_cache_entry& e, worker& w) const {
        if (std::max(e.key.mtime_ns, e.key.ctime_ns) < scan_start_ns_ - racy_ns) {
            w.learned->push_back(e);
        }
    }

    // The probe hash (first and last 4 KiB) of a candidate: from the cache when it holds one
    // for the file's state the walk saw, else read and kept.
    bool cached_probe(const dup_file& f, digest& out, worker& w) const {
        const hash_cache_key key = cache_key_of(f.info);
        if (const hash_cache_entry* kept = cache_->find(key); kept && kept->has_probe) {
            out = kept->probe;
            return true;
        }
        if (!probe_hash(f, out, w)) {
            return false;
        }
        learn(hash_cache_entry{key, true, false, out, {}}, w);
        return true;
    }

    // The whole-file hash of a candidate: from the cache (no open, no read), else read and
    // hashed, and kept with its probe hash.
    bool cached_whole(const dup_file& f, digest& out, worker& w) const {
        const hash_cache_key key = cache_key_of(f.info);
        if (const hash_cache_entry* kept = cache_->find(key); kept && kept->has_whole) {
            out = kept->whole;
            return true;
        }
        digest probe;
        const bool ok = f.info.size <= small_bytes ? small_hash(f, out, w, &probe)
                                                   : full_hash(f, out, w, &probe);
        if (ok) {
            learn(hash_cache_entry{key, true, true, probe, out}, w);
        }
        return ok;
    }

    // A set of files whose whole-file hashes are equal, some of them perhaps taken from the
    // cache without opening the file: with `verify`, confirmed byte by byte; else each file
    // is stat'ed again, and one changed since the walk is reported and left out.
    void keep_unchanged(std::vector<std::size_t> same, worker& w) const {
        if (opt_.verify) {
            confirm(std::move(same), w);
            return;
        }
        std::vector<std::size_t> still;
        for (std::size_t i : same) {
            path_facts now;
            if (const int err = stat_path(files_[i].path, true, now); err != 0) {
                w.fail(files_[i].path, err, "stat");
            } else if (cache_key_of(now.info) != cache_key_of(files_[i].info)) {
                w.fail(files_[i].path, e_changed, "changed");
            } else {
                still.push_back(i);
            }
        }
        if (still.size() >= 2) {
            w.groups->push_back(std::move(still));
        }
    }
#endif

    void run_job(const job& j, worker& w) const {
#if FASTREAD_HAVE_XXHASH
        if (cache_ && j.kind != job_kind::empty) {
            // Big files split by the probe hash first, then every set grouped by the
            // whole-file hash (each cached, or computed and kept); confirmed byte by byte
            // only with `verify`.
            std::vector<std::vector<std::size_t>> parts;
            if (j.kind == job_kind::candidates) {
                parts = split_by(
                    j.files, [&](const dup_file& f, digest& d) { return cached_probe(f, d, w); });
            } else {
                parts.push_back(j.files);
            }
            for (const std::vector<std::size_t>& part : parts) {
                for (auto& same : split_by(
                         part, [&](const dup_file&f, digest&d) { return cached_whole(f, d, w); })) {
                    keep_unchanged(std::move(same), w);
                }
            }
            return;
        }
#endif
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
        cache_miss_probe miss_probe;
        progress("compare", 0, total);
        auto body = [&](unsigned t) {
            worker w;
            w.miss_probe = &miss_probe;
            for (std::size_t n; (n = next.fetch_add(1, std::memory_order_relaxed)) < total;) {
                const std::size_t k = order[n];
                w.errors = &outs[k].errors;
                w.groups = &outs[k].groups;
                w.learned = &outs[k].learned;
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
        const unsigned cpus = detail::cpu_count();
        const bool adaptive = opt_.threads == 0 && most > cpus;
        growing_team team(adaptive ? cpus : most, most, body);
        if (adaptive) {
            miss_probe.on_miss = [&team] { team.grow(); };
            miss_probe.probing = true;
        }
        team.run();
        progress("compare", total, total);
        if (cache_) {
            std::size_t learned = 0;
            for (const job_out& out : outs) {
                learned += out.learned.size();
            }
            cache_->reserve(cache_->size() + learned);
        }
        for (job_out& out : outs) {
            report(out.errors);
            for (const auto& g : out.groups) {
                emit(g);
            }
            for (const hash_cache_entry& e : out.learned) {
                cache_->add(e);
            }
            learned_ += out.learned.size();
        }
    }

    // Keeps a group (with `isolate`, only one whose files come from two roots or more),
    // its paths sorted.
    void emit(const std::vector<std::size_t>& group) {
        if (opt_.isolate && std::all_of(group.begin(), group.end(), [&](std::size_t i) {
                return files_[i].root == files_[group.front()].root;
            })) {
            return;
        }
        std::vector<std::pair<std::filesystem::path, std::size_t>> sorted;
        sorted.reserve(group.size());
        for (std::size_t i : group) {
            sorted.emplace_back(path_of(files_[i].path), i);
        }
        std::sort(sorted.begin(), sorted.end());
        std::pair<std::vector<std::filesystem::path>, std::vector<std::size_t>> g;
        for (auto& [path, i] : sorted) {
            g.first.push_back(std::move(path));
            g.second.push_back(i);
        }
        groups_.push_back(std::move(g));
    }

    void find() {
        // Group by size (ties in walk order, which is deterministic); drop sizes with one
        // file. Sorted as (size, index) pairs: contiguous keys, no lookups in files_.
        std::vector<std::pair<std::uint64_t, std::size_t>> order(files_.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = {files_[i].info.size, i};
        }
        std::sort(order.begin(), order.end());
        std::vector<job> jobs;
        for (std::size_t k = 0; k < order.size();) {
            std::size_t e = k + 1;
            const std::uint64_t size = order[k].first;
            while (e < order.size() && order[e].first == size) {
                ++e;
            }
            if (e - k >= 2) {
                job j{size == 0             ? job_kind::empty
                      : size <= small_bytes ? job_kind::small
                                            : job_kind::candidates,
                      {}};
                j.files.reserve(e - k);
                for (std::size_t m = k; m < e; ++m) {
                    j.files.push_back(order[m].second);
                }
                jobs.push_back(std::move(j));
            }
            k = e;
        }
        run_jobs(jobs);
        std::sort(groups_.begin(), groups_.end());
    }

    // The groups: their paths, sorted, and the files_ index of each.
    std::vector<std::pair<std::vector<std::filesystem::path>, std::vector<std::size_t>>> groups_;
    static constexpr std::int64_t racy_ns = 100'000'000; // 100 ms
    std::unique_ptr<hash_cache> cache_;
    std::int64_t scan_start_ns_ = 0;
    std::size_t learned_ = 0;
    bool cache_changed_ = false;
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_SCHEDULE_HPP
