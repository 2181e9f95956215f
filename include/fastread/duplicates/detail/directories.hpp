#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_DIRECTORIES_HPP)
#define FASTREAD_DUPLICATES_DETAIL_DIRECTORIES_HPP

/// @file
/// Duplicate directories (duplicate_options::directories): each directory tree under the
/// roots named by the sorted list of its entries, every file by its duplicate group, every
/// subdirectory by its own name; directories of one name are duplicates.

#include "dir.hpp"
#include "files.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fastread::detail {

/// Reads the trees under the directory roots again (names and lstat only) and groups the
/// directories whose trees are equal. Memory O(directories + entries of one directory).
class directory_grouper {
  public:
    /// `group_of` maps a file's (device, inode) to its duplicate group; `skip(name,
    /// relative, is_directory, root)` says which names the walk left out by name.
    directory_grouper(
        std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::int64_t, id_hash> group_of,
        std::function<bool(const std::string&, const std::string&, bool, std::uint32_t)> skip,
        bool one_file_system)
        : group_of_(std::move(group_of)), skip_(std::move(skip)), one_fs_(one_file_system) {}

    /// Adds the tree under the root directory `path` (root index `root`).
    void add_root(const std::string& path, std::uint32_t root) {
        path_facts st;
        if (stat_path(path, true, st) != 0 || !st.info.directory) {
            return;
        }
        if (!seen_.insert({st.info.device, st.info.inode}).second) {
            return; // given twice
        }
        visit(path, std::string(), st.info.device, root, SIZE_MAX);
    }

    /// The groups: sorted, the groups by their first path; a directory under a directory of
    /// another group is left out, unless it would leave its group with one member (then the
    /// first of the others stays, to say what it duplicates).
    std::vector<std::vector<std::filesystem::path>> groups() const {
        std::unordered_map<std::int64_t, std::size_t> count;
        for (const node& n : nodes_) {
            if (n.id >= 0 && n.has_file) {
                ++count[n.id];
            }
        }
        auto duplicated = [&](const node& n) {
            if (n.id < 0 || !n.has_file) {
                return false;
            }
            const auto it = count.find(n.id);
            return it != count.end() && it->second >= 2;
        };
        // Pre-order: a directory's parent comes before it.
        std::vector<bool> covered(nodes_.size()); // some ancestor is duplicated
        std::map<std::int64_t, std::pair<std::vector<std::filesystem::path>,
                                         std::vector<std::filesystem::path>>>
            by_id; // uncovered members, covered members
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            const node& n = nodes_[i];
            if (n.parent != SIZE_MAX) {
                covered[i] = covered[n.parent] || duplicated(nodes_[n.parent]);
            }
            if (duplicated(n)) {
                (covered[i] ? by_id[n.id].second : by_id[n.id].first).push_back(path_of(n.path));
            }
        }
        std::vector<std::vector<std::filesystem::path>> out;
        for (auto& [id, members] : by_id) {
            auto& [free, inside] = members;
            if (free.empty()) {
                continue;
            }
            std::sort(free.begin(), free.end());
            if (free.size() == 1) {
                std::sort(inside.begin(), inside.end());
                free.push_back(inside.front());
                std::sort(free.begin(), free.end());
            }
            out.push_back(std::move(free));
        }
        std::sort(out.begin(), out.end());
        return out;
    }

  private:
    struct node {
        std::string path;
        std::size_t parent;
        std::int64_t id = -1; // the tree's name; negative: unlike any other
        bool has_file = false;
    };

    // Names the tree under `path` (relative to its root: `relative`); returns its node.
    std::size_t visit(const std::string& path, const std::string& relative, std::uint64_t device,
                      std::uint32_t root, std::size_t parent) {
        const std::size_t self = nodes_.size();
        nodes_.push_back(node{path, parent});
        dir_reader dir;
        bool unlike = dir.open(path) != 0;
        std::vector<std::string> names;
        std::string name;
        for (int err = 0; !unlike && dir.next(name, err);) {
            names.push_back(name);
        }
        std::sort(names.begin(), names.end());
        std::vector<std::pair<std::string, std::int64_t>> entries;
        bool has_file = false;
        const std::string prefix = ends_with_separator(path) ? path : path + path_separator;
        // Every subdirectory is visited, also after something made this one unlike any
        // other: duplicates may lie below.
        for (const std::string& n : names) {
            const std::string rel = relative.empty() ? n : relative + '/' + n;
            path_facts st;
            if (dir.stat(n, false, st) != 0 || st.symlink) {
                unlike = true;
            } else if (st.info.directory) {
                if (skip_(n, rel, true, root)) {
                    continue;
                }
                if ((one_fs_ && st.info.device != device) ||
                    !seen_.insert({st.info.device, st.info.inode}).second) {
                    unlike = true;
                    continue;
                }
                const std::size_t child = visit(prefix + n, rel, device, root, self);
                entries.emplace_back(n + '/', nodes_[child].id);
                has_file = has_file || nodes_[child].has_file;
            } else if (st.info.regular) {
                if (skip_(n, rel, false, root)) {
                    continue;
                }
                const auto it = group_of_.find({st.info.device, st.info.inode});
                if (it == group_of_.end()) {
                    unlike = true;
                } else {
                    entries.emplace_back(n, it->second);
                    has_file = true;
                }
            } else {
                unlike = true;
            }
        }
        for (const auto& e : entries) {
            unlike = unlike || e.second < 0;
        }
        std::int64_t id = -1;
        if (!unlike) {
            id = ids_.emplace(std::move(entries), static_cast<std::int64_t>(ids_.size()))
                     .first->second;
        }
        nodes_[self].id = id;
        nodes_[self].has_file = has_file;
        return self;
    }

    std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::int64_t, id_hash> group_of_;
    std::function<bool(const std::string&, const std::string&, bool, std::uint32_t)> skip_;
    bool one_fs_;
    std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, id_hash> seen_;
    std::map<std::vector<std::pair<std::string, std::int64_t>>, std::int64_t> ids_;
    std::vector<node> nodes_; // pre-order
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_DIRECTORIES_HPP
