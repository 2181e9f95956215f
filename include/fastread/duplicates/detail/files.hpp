#include "../../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_DETAIL_FILES_HPP)
#define FASTREAD_DUPLICATES_DETAIL_FILES_HPP

/// @file
/// What the duplicate finder knows of a candidate file, the keys that make a directory or a
/// root path count once, and the limits the finder works within.

#include "../../detail/posix.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace fastread::detail {

/// A candidate file: its path and what `stat` said of it when the walk found it.
struct dup_file {
    std::string path;
    file_info info;
    std::uint32_t dir = 0;     // index of its directory's path in duplicate_walk::dirs_
    std::uint32_t name_at = 0; // where its name starts in `path`
    std::uint32_t root = 0;    // index of the root it was reached from
    bool linked = false;       // st_nlink > 1: other names lead to the same inode
    bool aliased = false;      // reached through a symbolic link, or given as a root
};

/// Hash of a (device, inode) pair: the directories walked, each once.
struct id_hash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const noexcept {
        return std::hash<std::uint64_t>()(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
    }
};

/// A root file by its directory's (device, inode) and its name: a root given twice counts once.
struct path_key {
    std::uint64_t parent_device, parent_inode;
    std::string name;
    bool operator==(const path_key&) const = default;
};

/// Hash of a path_key.
struct path_key_hash {
    std::size_t operator()(const path_key& k) const noexcept {
        return std::hash<std::string>()(k.name) ^ (k.parent_inode * 0x9e3779b97f4a7c15ull) ^
               k.parent_device;
    }
};

/// The duplicate finder's sizes and limits (docs/benchmarks/, "Compare and
/// duplicates").
struct duplicate_limits {
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
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_FILES_HPP
