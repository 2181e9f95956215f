#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATE_ACTIONS_HPP)
#define FASTREAD_DUPLICATE_ACTIONS_HPP

/// @file
/// Acting on duplicate files: `fastread::act_on_duplicates` hard-links, dedupes (shares the
/// extents of, on a copy-on-write file system) or deletes the duplicates that
/// `find_duplicate_files` found, keeping one file of each group, each file's state checked
/// again right before it is touched; `fastread::order_duplicates` chooses which copy is kept.

#include "detail/config.hpp"
#include "duplicates.hpp"
#include "duplicates/actions.hpp"
#include "result.hpp"

#include <filesystem>
#include <span>
#include <vector>

namespace fastread {

/// Sorts the files of each group as `order` says (stable; ties by path), the copy to keep
/// first: `duplicate_order::time` oldest modification first (fdupes -o time),
/// `duplicate_order::ctime` oldest status change first, `duplicate_order::name` by path
/// (fdupes -o name); `reverse` reverses (fdupes -i). O(files × log(files of a group)).
void order_duplicates(std::vector<std::vector<duplicate_file>>& groups, duplicate_order order,
                      bool reverse = false);

/// Acts on each group of `groups` (from find_duplicate_files over `roots`, the same roots in
/// the same order): one file is kept (the first for which `options.protect` is true, else
/// the first), and every other file that `options.protect` does not protect is hard-linked
/// to it, deduped against it, or deleted, as `options.action` says; `options.choose`, when
/// set, picks the files to keep of each group instead (an interactive prompt).
///
/// Safety, for each file acted on:
/// - Its directory is opened from its root one name at a time without following symbolic
///   links (`openat`, O_NOFOLLOW), and every call names the file relative to that
///   descriptor (`linkat`, `renameat`, `unlinkat`, `openat`), so a directory swapped for a
///   symbolic link since the scan cannot lead an action outside the tree: the file is
///   skipped. (A file reached through a symbolic link, with `follow_symlinks`, is skipped
///   the same way.)
/// - Right before acting, the file and the kept copy are lstat'ed again (`dedupe`: fstat'ed
///   once open): a device, inode, size, modification or status-change time (ns) other than
///   the scan saw, or a file that is gone or no longer regular, and the file is skipped
///   (`action_outcome::skipped`; the rest of the group too when it is the kept copy).
/// - `link`: never across devices (skipped); a file already linked to the kept copy is not
///   acted on again (no record); the new link is made under a temporary name in the file's
///   directory, then renamed over the file, so the path never disappears; if either step
///   fails, the temporary name is removed and the file is as it was.
/// - `dedupe`: FIDEDUPERANGE (Linux), which compares the bytes under the files' locks and
///   shares only equal ones (a file whose bytes changed is `skipped`, "contents differ"),
///   and leaves each file's mode, owner and times as they were. Where the file system or
///   system cannot (EOPNOTSUPP, EINVAL, EXDEV; every system but Linux) the outcome is
///   `action_outcome::unsupported` and nothing changed.
/// - `remove`: the kept copy is never deleted and is checked present and unchanged before
///   each deletion; a path given twice is one file (find_duplicate_files).
/// - `dry_run`: the same checks, no change; each record says `planned` where the real run
///   would have acted (its `done`), so the two lists of actions are the same (a dedupe dry
///   run asks the file system whether it can share extents, with a FIDEDUPERANGE of no
///   destination; only the kernel's byte comparison is left to the real run).
///
/// Each record is passed to `options.on_action` as it is made, and returned, in group order.
/// Time O(files × path depth) system calls; memory O(files of a group).
/// @throws std::bad_alloc (and what the callbacks throw); std::invalid_argument for a bad
///         process setting (`FASTREAD_IO`, `FASTREAD_THREADS`), before any file is
///         touched; system call failures are records (`failed`, with the errno), never
///         exceptions.
std::vector<action_record> act_on_duplicates(std::span<const std::filesystem::path> roots,
                                             const std::vector<std::vector<duplicate_file>>& groups,
                                             const action_options& options);

/// `act_on_duplicates` without exceptions: the records, or the error of a bad process
/// setting (`errc::invalid_argument`, before any file is touched). Never throws but
/// `std::bad_alloc` and what the callbacks throw.
result<std::vector<action_record>>
try_act_on_duplicates(std::span<const std::filesystem::path> roots,
                      const std::vector<std::vector<duplicate_file>>& groups,
                      const action_options& options);

} // namespace fastread

#if !FASTREAD_SEPARATE_COMPILATION
#include "duplicates/detail/act_on.hpp"
#endif

#endif // FASTREAD_DUPLICATE_ACTIONS_HPP
