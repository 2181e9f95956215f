#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_COMPARE_HPP)
#define FASTREAD_DUPLICATES_DETAIL_COMPARE_HPP

/// @file
/// The duplicate finder's comparisons: sets of candidates of one size split into sets of
/// equal files, block by block, by a representative, or in memory (small files).

#include "read.hpp"

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

namespace fastread::detail {

/// Splits sets of same-size candidates into sets of equal files.
class duplicate_comparer : protected duplicate_reader {
  public:
    using duplicate_reader::duplicate_reader;

  protected:
    // Compares two candidates in blocks of up to 64 KiB. A file that cannot be read, or that
    // changed since the walk or while being compared (the bytes read may then mix two versions), is
    // reported and left out.
    verdict same_bytes(const dup_file& a, const dup_file& b, worker& w) const {
        unique_fd fa = open_unchanged(a, w);
        if (!fa) {
            return verdict::first_left_out;
        }
        unique_fd fb = open_unchanged(b, w);
        if (!fb) {
            return verdict::second_left_out;
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
                return verdict::first_left_out;
            }
            if (!read_part(b, fb.get(), buf_b, probe_bytes, size - probe_bytes, m, w)) {
                return verdict::second_left_out;
            }
            equal = n == m && std::memcmp(buf_a, buf_b, n) == 0;
        }
        // Then from the start, in blocks that grow from 16 KiB to 64 KiB, so that files that
        // differ early cost little.
        std::size_t block = 16 * 1024;
        for (std::uint64_t off = 0; off < size && equal;) {
            std::size_t n = 0, m = 0;
            if (!read_part(a, fa.get(), buf_a, block, off, n, w)) {
                return verdict::first_left_out;
            }
            if (!read_part(b, fb.get(), buf_b, block, off, m, w)) {
                return verdict::second_left_out;
            }
            equal = n == m && n != 0 && std::memcmp(buf_a, buf_b, n) == 0;
            off += n;
            block = std::min(2 * block, block_bytes);
        }
        if (!still_same(a, fa.get(), w)) {
            return verdict::first_left_out;
        }
        if (!still_same(b, fb.get(), w)) {
            return verdict::second_left_out;
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
        std::vector<set_member> members;
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
                members.push_back(set_member{i, std::move(fd)});
            }
        }
        const std::uint64_t size = files_[group[0]].info.size;
        const std::size_t stride =
            std::min(block_bytes, set_bytes / std::max<std::size_t>(members.size(), 1));
        char* const buffer = w.buffer_a();
        // Sets of positions in `members`, each equal so far.
        std::vector<std::vector<std::size_t>> sets(1);
        for (std::size_t k = 0; k < members.size(); ++k) {
            sets[0].push_back(k);
        }
        if (size > 2 * probe_bytes) {
            split_sets(sets, members, buffer, stride, size - probe_bytes, probe_bytes, w);
        }
        std::size_t block = 16 * 1024;
        for (std::uint64_t off = 0; off < size && !sets.empty();) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block, size - off));
            split_sets(sets, members, buffer, stride, off, n, w);
            off += n;
            block = std::min(2 * block, stride);
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

    // A file of compare_set's set, open.
    struct set_member {
        std::size_t file;
        unique_fd fd;
    };

    // Reads [offset, offset + n) of every member still in a set of two or more (position k
    // of a set into buffer + k * stride) and splits the sets by what was read; a file that
    // cannot be read or ends early is dropped (and reported).
    void split_sets(std::vector<std::vector<std::size_t>>& sets, std::vector<set_member>& members,
                    char* buffer, std::size_t stride, std::uint64_t offset, std::size_t n,
                    worker& w) const {
        std::vector<std::vector<std::size_t>> next;
        for (const std::vector<std::size_t>& set : sets) {
            std::vector<std::size_t> read; // positions in `set`
            for (std::size_t pos = 0; pos < set.size(); ++pos) {
                set_member& m = members[set[pos]];
                std::size_t got = 0;
                if (!read_part(files_[m.file], m.fd.get(), buffer + pos * stride, n, offset, got,
                               w)) {
                    continue;
                }
                if (got != n) {
                    w.fail(files_[m.file].path, e_changed, "changed");
                    continue;
                }
                read.push_back(pos);
            }
            for (const std::vector<std::size_t>& part :
                 partition_by_contents(buffer, stride, read, n)) {
                if (part.size() >= 2) {
                    next.emplace_back();
                    for (std::size_t pos : part) {
                        next.back().push_back(set[pos]);
                    }
                }
            }
        }
        sets = std::move(next);
    }

    // Groups `positions` by the `n` bytes at buffer + position * stride, in first-seen order.
    static std::vector<std::vector<std::size_t>>
    partition_by_contents(const char* buffer, std::size_t stride,
                          const std::vector<std::size_t>& positions, std::size_t n) {
        std::vector<std::vector<std::size_t>> parts;
        for (std::size_t pos : positions) {
            const char* block = buffer + pos * stride;
            auto same = std::find_if(parts.begin(), parts.end(), [&](const auto& part) {
                return std::memcmp(buffer + part[0] * stride, block, n) == 0;
            });
            if (same == parts.end()) {
                parts.push_back({pos});
            } else {
                same->push_back(pos);
            }
        }
        return parts;
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
                case verdict::second_left_out:
                    break;
                case verdict::first_left_out:
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
    std::size_t set_limit_ = max_set; // largest set compared at once (run_jobs sizes it)
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_COMPARE_HPP
