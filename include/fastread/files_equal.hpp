#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_FILES_EQUAL_HPP)
#define FASTREAD_FILES_EQUAL_HPP

/// @file
/// Whether two files hold the same bytes: `fastread::files_equal`, with the programs of the
/// compare article ("Comparing two files", the article list in docs/) kept as methods.

#include "detail/config.hpp"
#include "detail/policy.hpp"
#include "io.hpp"
#include "result.hpp"

#include <cstddef>
#include <filesystem>

namespace fastread {

/// How files_equal reads the two files. (The compare article's `getc` programs and its
/// compare-with-extra-read are fastread-bench's baselines, not methods of the library:
/// bench/baselines/compare_methods.hpp.)
enum class compare_method {
    /// The default: `block` with blocks of detail::block_bytes, except for two big regular
    /// files that are in the page cache (detail/policy.hpp's `read_ahead_from` and
    /// `resident_percent`; docs/defaults.md lists their values), which are each read by a
    /// helper thread a few blocks ahead of the comparison where the call may use two threads or
    /// more
    /// (`compare_options::threads`), and except where `compare_options::io` asks to map:
    /// then both files are compared through guarded maps. A file that changes size during
    /// the call gives `false` (or, if it cannot be read any more, std::system_error), never
    /// SIGBUS. (find_duplicates never maps.)
    automatic,
    /// `read(2)` of `block_size` bytes from each file in turn, then `memcmp`.
    block,
    /// `memcmp` over read-only maps of the two files (mmap_source: not guarded). A file
    /// truncated by another process during the comparison raises SIGBUS, which ends the
    /// process unless the program handles it; `automatic` never does.
    mmap,
};

/// Options of files_equal.
struct compare_options {
    /// How the files are read and compared (compare_method); `automatic` chooses.
    compare_method method = compare_method::automatic;
    /// Bytes per read for `block`; 0 reads each file whole (one
    /// buffer of the file's size per file). `automatic` ignores it.
    std::size_t block_size = detail::block_bytes;
    /// `automatic` only: read (the default, `process_setting`, reads unless `FASTREAD_IO=map`) or
    /// map the files (fastread/io.hpp).
    io_mode io = io_mode::process_setting;
    /// `automatic` only: the most threads the call uses, the calling thread included (1: no
    /// helper thread); 0: the process setting (fastread/threads.hpp).
    unsigned threads = 0;
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

/// `files_equal` without exceptions: whether the files hold the same bytes, or the `error`
/// the throwing form reports (the errno, naming the path). Never throws but
/// `std::bad_alloc`.
///
/// ```
/// fastread::result<bool> same = fastread::try_files_equal("a", "b");
/// if (same && *same) { ... }
/// ```
result<bool> try_files_equal(const std::filesystem::path& a, const std::filesystem::path& b,
                             compare_options options = {});

} // namespace fastread

#if !FASTREAD_SEPARATE_COMPILATION
#include "files_equal/detail/compare.hpp"
#endif

#endif // FASTREAD_FILES_EQUAL_HPP
