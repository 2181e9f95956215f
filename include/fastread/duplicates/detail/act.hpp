#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_ACT_HPP)
#define FASTREAD_DUPLICATES_DETAIL_ACT_HPP

/// @file
/// The actor behind act_on_duplicates (its options and records: duplicates/actions.hpp):
/// each file's directory opened from its root without following links, both files checked
/// again, then one of linkat + renameat, FIDEDUPERANGE, or unlinkat
/// (fastread/duplicate_actions.hpp).

#include "../actions.hpp"
#include "../options.hpp"
#include "dir.hpp"
#include "file_actions.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

namespace fastread::detail {

/// order_duplicates.
inline void order_groups(std::vector<std::vector<duplicate_file>>& groups, duplicate_order order,
                         bool reverse) {
    auto key = [order](const duplicate_file& f) {
        return order == duplicate_order::time    ? f.mtime_ns
               : order == duplicate_order::ctime ? f.ctime_ns
                                                 : std::int64_t{0};
    };
    for (std::vector<duplicate_file>& g : groups) {
        std::stable_sort(g.begin(), g.end(), [&](const duplicate_file& a, const duplicate_file& b) {
            return std::forward_as_tuple(key(a), a.path) < std::forward_as_tuple(key(b), b.path);
        });
        if (reverse) {
            std::reverse(g.begin(), g.end());
        }
    }
}

/// Acts on groups one at a time (act_on_duplicates).
class duplicate_actor {
  public:
    duplicate_actor(std::span<const std::filesystem::path> roots, const action_options& options)
        : opt_(options) {
        for (const std::filesystem::path& r : roots) {
            roots_.push_back(string_of(r));
        }
    }

    void act(const std::vector<duplicate_file>& group) {
        if (group.size() < 2) {
            return;
        }
        std::vector<bool> keep(group.size());
        if (opt_.choose) {
            keep = opt_.choose(group);
            keep.resize(group.size());
        } else {
            for (std::size_t i = 0; i < group.size(); ++i) {
                keep[i] = opt_.protect && opt_.protect(group[i]);
            }
            if (std::find(keep.begin(), keep.end(), true) == keep.end()) {
                keep[0] = true;
            }
        }
        const auto first_kept = std::find(keep.begin(), keep.end(), true);
        if (first_kept == keep.end()) {
            return; // nothing to keep: the group is left alone
        }
        const duplicate_file& kept = group[static_cast<std::size_t>(first_kept - keep.begin())];
        dirs_.clear();
        place k;
        if (!locate(kept, k)) {
            skip_group(group, keep, kept, k.err,
                       k.err == ENOTSUP ? unsupported_here
                                        : "the kept copy's directory cannot be opened");
            return;
        }
        file_info kept_now = seen(kept);
        for (std::size_t i = 0; i < group.size(); ++i) {
            if (keep[i]) {
                continue;
            }
            const duplicate_file& f = group[i];
            action_record r{opt_.action, f.path, kept.path, action_outcome::done, {}, {}};
            place p;
            if (!locate(f, p)) {
                if (p.err == ENOTSUP) {
                    r.outcome = action_outcome::unsupported;
                    r.error = std::error_code(ENOTSUP, std::generic_category());
                    r.reason = unsupported_here;
                    record(std::move(r));
                } else {
                    skipped(r, p.err, "its directory cannot be opened without following a link");
                }
                continue;
            }
            if (p.dir_device == k.dir_device && p.dir_inode == k.dir_inode && p.name == k.name) {
                continue; // one path, reached twice: no duplicate of itself
            }
            file_info k_st{}, f_st{};
            if (const int err = check(k, kept_now, k_st); err != 0) {
                skip_group(
                    std::vector<duplicate_file>(group.begin() + static_cast<long>(i), group.end()),
                    std::vector<bool>(keep.begin() + static_cast<long>(i), keep.end()), kept, err,
                    "the kept copy changed since the scan");
                return;
            }
            if (const int err = check(p, seen(f), f_st); err != 0) {
                skipped(r, err, "changed since the scan");
                continue;
            }
            const bool same_inode = f_st.device == k_st.device && f_st.inode == k_st.inode;
            switch (opt_.action) {
            case duplicate_action::link:
                if (same_inode) {
                    continue; // already linked
                }
                if (f_st.device != k_st.device) {
                    skipped(r, EXDEV, "on another device than the kept copy");
                    continue;
                }
                if (!opt_.dry_run) {
                    bool touched = false;
                    const int err = link_over(k, p, touched);
                    if (touched) {
                        // Our link changed the kept copy's link count and status-change
                        // time (also when it was removed again after a failed rename).
                        bool link = false;
                        if (stat_at(k.fd(), k.name, kept_now, link) != 0) {
                            kept_now = file_info{};
                        }
                    }
                    if (err != 0) {
                        failed(r, err, "hard link");
                        continue;
                    }
                }
                break;
            case duplicate_action::dedupe:
                if (same_inode) {
                    continue; // one file
                }
                if (!dedupe(k, p, kept_now, f, r)) {
                    continue;
                }
                break;
            case duplicate_action::remove:
                if (!opt_.dry_run) {
                    if (const int err = unlink_at(p.fd(), p.name); err != 0) {
                        failed(r, err, "delete");
                        continue;
                    }
                }
                break;
            }
            r.outcome = opt_.dry_run ? action_outcome::planned : action_outcome::done;
            record(std::move(r));
        }
    }

    std::vector<action_record> take_records() { return std::move(records_); }

  private:
    // A file's directory, opened, and its name in it.
    struct place {
        std::shared_ptr<unique_fd> dir;
        std::string name;
        std::uint64_t dir_device = 0, dir_inode = 0;
        int err = 0;
        int fd() const { return dir ? dir->get() : -1; }
    };

    // What the scan saw of `f`, as file_info.
    static file_info seen(const duplicate_file& f) {
        file_info i;
        i.regular = true;
        i.size = f.size;
        i.device = f.device;
        i.inode = f.inode;
        i.mtime_ns = f.mtime_ns;
        i.ctime_ns = f.ctime_ns;
        return i;
    }

    // Opens `f`'s directory from its root (descriptors shared within the group).
    bool locate(const duplicate_file& f, place& out) {
        const std::string path = string_of(f.path);
        if (f.root >= roots_.size()) {
            out.err = EINVAL;
            return false;
        }
        const std::string& root = roots_[f.root];
        std::string top, below;
        if (path == root) { // a root file: its directory as named
            const std::filesystem::path parent = f.path.parent_path();
            top = parent.empty() ? std::string(".") : string_of(parent);
            out.name = string_of(f.path.filename());
        } else if (path.compare(0, root.size(), root) == 0) {
            const std::size_t from = ends_with_separator(root) ? root.size() : root.size() + 1;
            const std::string rel = path.substr(from);
            const std::size_t slash = rel.rfind(path_separator);
            top = root;
            below = slash == std::string::npos ? std::string() : rel.substr(0, slash);
            out.name = slash == std::string::npos ? rel : rel.substr(slash + 1);
        } else {
            out.err = EINVAL;
            return false;
        }
        const std::string key = top + '\0' + below;
        auto it = dirs_.find(key);
        if (it == dirs_.end()) {
            auto fd = std::make_shared<unique_fd>();
            if (const int err = open_dir_below(top, below, *fd); err != 0) {
                out.err = err;
                return false;
            }
            it = dirs_.emplace(key, std::move(fd)).first;
        }
        out.dir = it->second;
        file_info d{};
        if (const int err = stat_fd(out.fd(), d); err != 0) {
            out.err = err;
            return false;
        }
        out.dir_device = d.device;
        out.dir_inode = d.inode;
        return true;
    }

    // lstat of the file at `p` now, against what the scan saw (`then`): 0, or file_changed
    // (changed, not regular, a link) or the error of lstat.
    static int check(const place& p, const file_info& then, file_info& now) {
        bool link = false;
        if (const int err = stat_at(p.fd(), p.name, now, link); err != 0) {
            return err;
        }
        return same_state(now, then) && !link ? 0 : file_changed;
    }

    static bool same_state(const file_info& a, const file_info& b) {
        return a.regular && a.device == b.device && a.inode == b.inode && a.size == b.size &&
               a.mtime_ns == b.mtime_ns && a.ctime_ns == b.ctime_ns;
    }

    // linkat under a temporary name in p's directory, then renameat over p's name.
    // `touched`: the kept copy got (and may have lost again) a link.
    int link_over(const place& k, const place& p, bool& touched) {
        std::string temp;
        int err = EEXIST;
        for (unsigned attempt = 0; attempt < 100 && err == EEXIST; ++attempt) {
            temp = ".fastread-dupes." + std::to_string(process_id()) + '.' +
                   std::to_string(++temp_counter_) + ".tmp";
            err = link_at(k.fd(), k.name, p.fd(), temp);
        }
        if (err != 0) {
            return err;
        }
        touched = true;
        if (const int e = rename_at(p.fd(), temp, p.fd(), p.name); e != 0) {
            unlink_at(p.fd(), temp);
            return e;
        }
        return 0;
    }

    // FIDEDUPERANGE of f against the kept copy, each opened without following links and
    // checked by fstat. False: recorded as not done.
    bool dedupe(const place& k, const place& p, const file_info& kept_now, const duplicate_file& f,
                action_record& r) {
        unique_fd kfd, ffd;
        file_info ks{}, fs{};
        if (const int err = open_file_at(k.fd(), k.name, kfd); err != 0) {
            skipped(r, err, "the kept copy cannot be opened");
            return false;
        }
        if (const int err = open_file_at(p.fd(), p.name, ffd); err != 0) {
            skipped(r, err, "cannot be opened");
            return false;
        }
        if (stat_fd(kfd.get(), ks) != 0 || !same_state(ks, kept_now) ||
            stat_fd(ffd.get(), fs) != 0 || !same_state(fs, seen(f))) {
            skipped(r, file_changed, "changed since the scan");
            return false;
        }
        if (fs.device != ks.device) {
            skipped(r, EXDEV, "on another device than the kept copy");
            return false;
        }
        bool differs = false;
        if (const int err = opt_.dry_run ? dedupe_supported(kfd.get())
                                         : dedupe_range(kfd.get(), ffd.get(), fs.size, differs);
            err != 0) {
            r.outcome = err == ENOTSUP ? action_outcome::unsupported : action_outcome::failed;
            r.error = std::error_code(err, std::generic_category());
            r.reason =
                err == ENOTSUP ? "the file system cannot share extents (FIDEDUPERANGE)" : "dedupe";
            record(std::move(r));
            return false;
        }
        if (differs) {
            skipped(r, 0, "contents differ from the kept copy's (the kernel compared them)");
            return false;
        }
        return true;
    }

    void skipped(action_record& r, int err, const char* why) {
        r.outcome = action_outcome::skipped;
        r.error = std::error_code(err, std::generic_category());
        r.reason = why;
        record(std::move(r));
    }
    void failed(action_record& r, int err, const char* what) {
        r.outcome = action_outcome::failed;
        r.error = std::error_code(err, std::generic_category());
        r.reason = what;
        record(std::move(r));
    }
    void skip_group(const std::vector<duplicate_file>& files, const std::vector<bool>& keep,
                    const duplicate_file& kept, int err, const char* why) {
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (!keep[i]) {
                action_record r{opt_.action, files[i].path, kept.path, action_outcome::done, {},
                                {}};
                r.outcome = err == ENOTSUP ? action_outcome::unsupported : action_outcome::skipped;
                r.error = std::error_code(err, std::generic_category());
                r.reason = why;
                record(std::move(r));
            }
        }
    }

    // Where the system has no directory descriptors to act through (Windows).
    static constexpr const char* unsupported_here =
        "actions need directory descriptors (openat, linkat), which this system lacks";
    void record(action_record r) {
        if (opt_.on_action) {
            opt_.on_action(r);
        }
        records_.push_back(std::move(r));
    }

    const action_options& opt_;
    std::vector<std::string> roots_;
    std::map<std::string, std::shared_ptr<unique_fd>> dirs_; // this group's directories
    std::vector<action_record> records_;
    unsigned temp_counter_ = 0;
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_ACT_HPP
