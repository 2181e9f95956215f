#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_DUPLICATES_ACTIONS_HPP)
#define FASTREAD_DUPLICATES_ACTIONS_HPP

/// @file
/// What act_on_duplicates takes and reports (`duplicate_action`, `action_options`,
/// `action_record`, `duplicate_order`, `action_outcome`; fastread/duplicate_actions.hpp).

#include "options.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

namespace fastread {

/// What act_on_duplicates does to each duplicate.
enum class duplicate_action {
    link,   ///< replace it with a hard link to the kept copy (fdupes -L, jdupes -L)
    dedupe, ///< share the kept copy's extents, byte-compared by the kernel (jdupes -B)
    remove, ///< delete it (fdupes -dN)
};

/// Which copy of a group is kept (order_duplicates): the first in this order.
enum class duplicate_order {
    name,  ///< by path (fdupes -o name)
    time,  ///< oldest modification first, ties by path (fdupes -o time)
    ctime, ///< oldest status change first, ties by path (fdupes -o ctime)
};

/// How an action on one file ended.
enum class action_outcome {
    done,        ///< acted on
    planned,     ///< dry run: the real run would have acted
    skipped,     ///< not acted on: it or the kept copy changed, another device, ... (`reason`)
    unsupported, ///< the file system or system cannot (dedupe): nothing changed
    failed,      ///< a system call failed (`error`); the file is as it was
};

/// One action on one file.
struct action_record {
    duplicate_action action = duplicate_action::link;
    std::filesystem::path file; ///< the file acted on (or not)
    std::filesystem::path kept; ///< the group's kept copy
    action_outcome outcome = action_outcome::done;
    std::error_code error; ///< `failed`, `unsupported`, `skipped` by a system call: its errno
    std::string reason;    ///< `skipped`, `failed`, `unsupported`: why, in words
};

/// What act_on_duplicates does and how.
struct action_options {
    duplicate_action action = duplicate_action::link;
    /// Make the same checks and records, change nothing (records say `planned`).
    bool dry_run = false;
    /// Files never acted on, preferred as the kept copy (fastread-dupes --keep-in). May be
    /// empty.
    std::function<bool(const duplicate_file&)> protect;
    /// Chooses the files of a group to keep (true) instead of the default; a choice without
    /// any file kept skips the group. May be empty.
    std::function<std::vector<bool>(const std::vector<duplicate_file>&)> choose;
    /// Called with each record as it is made. May be empty.
    std::function<void(const action_record&)> on_action;
};

} // namespace fastread

#endif // FASTREAD_DUPLICATES_ACTIONS_HPP
