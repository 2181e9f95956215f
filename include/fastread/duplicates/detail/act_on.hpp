// The public header first: it includes this one at its end, after what this one uses.
#include "../../duplicate_actions.hpp"
#ifndef FASTREAD_DUPLICATES_DETAIL_ACT_ON_HPP
#define FASTREAD_DUPLICATES_DETAIL_ACT_ON_HPP

/// @file
/// act_on_duplicates' and order_duplicates' definitions: header-only (included by
/// duplicate_actions.hpp), or compiled once in src/fastread.cpp for fastread::compiled
/// (FASTREAD_SEPARATE_COMPILATION).

#include "../../detail/call_setup.hpp"
#include "act.hpp"

#include <filesystem>
#include <span>
#include <vector>

namespace fastread {

FASTREAD_COMPILED_INLINE void order_duplicates(std::vector<std::vector<duplicate_file>>& groups,
                                               duplicate_order order, bool reverse) {
    detail::order_groups(groups, order, reverse);
}

FASTREAD_COMPILED_INLINE result<std::vector<action_record>>
try_act_on_duplicates(std::span<const std::filesystem::path> roots,
                      const std::vector<std::vector<duplicate_file>>& groups,
                      const action_options& options) {
    if (error e = detail::process_setting_error(); e.code()) {
        return e;
    }
    detail::duplicate_actor actor(roots, options);
    for (const std::vector<duplicate_file>& group : groups) {
        actor.act(group);
    }
    return actor.take_records();
}

FASTREAD_COMPILED_INLINE std::vector<action_record>
act_on_duplicates(std::span<const std::filesystem::path> roots,
                  const std::vector<std::vector<duplicate_file>>& groups,
                  const action_options& options) {
    return detail::value_or_throw(try_act_on_duplicates(roots, groups, options));
}

} // namespace fastread

#endif // FASTREAD_DUPLICATES_DETAIL_ACT_ON_HPP
