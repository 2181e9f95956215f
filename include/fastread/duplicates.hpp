#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_HPP)
#define FASTREAD_DUPLICATES_HPP

/// @file
/// Finding duplicate files: `fastread::find_duplicates`, the size, probe, hash and
/// byte-compare funnel that fdupes, jdupes and rdfind use.
///
/// Hashing uses XXH3-128 from the xxHash library (Debian `libxxhash-dev`) when its header
/// `<xxhash.h>` is found, included in its header-only mode (`XXH_INLINE_ALL`). Without it,
/// or with `FASTREAD_NO_XXHASH` defined, find_duplicates skips the hash stages and splits
/// candidates by byte comparison alone: the same groups, with more reads when many files of
/// one size share their first and last 4 KiB but differ elsewhere.

#include "detail/config.hpp"
#include "duplicates/options.hpp"
#include "result.hpp"

#include <filesystem>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

namespace fastread {

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
/// reads differently from its size, is reported to `on_error` and left out. With
/// `options.cache` the candidates of each size are grouped by their whole-file hash instead
/// (those over 64 KiB split by their probe hash first), each hash from the cache where it
/// holds the file's current state (see duplicate_options::cache).
/// Time O(total size of same-size candidates); memory O(number of files) plus, per
/// comparing thread, 1 MiB and up to 8 MiB of small files' contents.
/// @throws std::bad_alloc; std::invalid_argument if `FASTREAD_THREADS` is set to something
///         else than a count (fastread/threads.hpp); I/O problems go to `options.on_error`.
std::vector<std::vector<std::filesystem::path>>
find_duplicates(std::span<const std::filesystem::path> roots, duplicate_options options = {});

/// `find_duplicates` without exceptions: the groups, or the `error` the throwing form reports
/// (`errc::invalid_argument` for a `FASTREAD_THREADS` that is not a count). I/O problems
/// with the files go to `options.on_error`, as with the throwing form: they leave a file
/// out, they do not end the search. Never throws but `std::bad_alloc` (and what
/// `options.on_error` or `options.on_progress` throw).
result<std::vector<std::vector<std::filesystem::path>>>
try_find_duplicates(std::span<const std::filesystem::path> roots, duplicate_options options = {});

/// try_find_duplicates under one root (as find_duplicates(root)).
inline result<std::vector<std::vector<std::filesystem::path>>>
try_find_duplicates(const std::filesystem::path& root, duplicate_options options = {}) {
    return try_find_duplicates(std::span<const std::filesystem::path>(&root, 1),
                               std::move(options));
}

/// find_duplicates with more to tell: each file of each group with the root it was reached
/// from and what `stat` said of it when the walk found it (device, inode, size, times: what
/// an action checks again before touching it, fastread/duplicate_actions.hpp), and, as
/// `options` asks, the files without a duplicate (`list_unique`) and the duplicate
/// directories (`directories`: each tree under the recursed roots is listed again, its
/// entries lstat'ed, O(directories + entries) time and memory). Groups, walk, filters and
/// errors as find_duplicates.
/// @throws as find_duplicates.
duplicate_report find_duplicate_files(std::span<const std::filesystem::path> roots,
                                      duplicate_options options = {});

/// `find_duplicate_files` without exceptions: the report, or the error the throwing form
/// reports (a bad process setting, `errc::invalid_argument`). I/O problems with the files
/// go to `options.on_error`. Never throws but `std::bad_alloc` (and what the callbacks
/// throw).
result<duplicate_report> try_find_duplicate_files(std::span<const std::filesystem::path> roots,
                                                  duplicate_options options = {});

/// find_duplicates over roots written in place: `find_duplicates({"photos", "backup"})`.
/// As the span form above.
inline std::vector<std::vector<std::filesystem::path>>
find_duplicates(std::initializer_list<std::filesystem::path> roots,
                duplicate_options options = {}) {
    return find_duplicates(std::span<const std::filesystem::path>(roots.begin(), roots.size()),
                           std::move(options));
}

/// find_duplicates under one root: `find_duplicates("photos")` finds the groups of equal
/// files in `photos` and (unless `options.recursive` is off) its subdirectories. As the
/// span form above.
inline std::vector<std::vector<std::filesystem::path>>
find_duplicates(const std::filesystem::path& root, duplicate_options options = {}) {
    return find_duplicates(std::span<const std::filesystem::path>(&root, 1), std::move(options));
}

} // namespace fastread

#if !FASTREAD_SEPARATE_COMPILATION
#include "duplicates/detail/find.hpp"
#endif

#endif // FASTREAD_DUPLICATES_HPP
