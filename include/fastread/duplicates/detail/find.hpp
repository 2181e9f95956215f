// The public header first: it includes this one at its end, after what this one uses.
#include "../../duplicates.hpp"
#ifndef FASTREAD_DUPLICATES_DETAIL_FIND_HPP
#define FASTREAD_DUPLICATES_DETAIL_FIND_HPP

/// @file
/// find_duplicates' and find_duplicate_files' definitions: header-only (included by
/// duplicates.hpp), or compiled once in src/fastread.cpp for fastread::compiled
/// (FASTREAD_SEPARATE_COMPILATION).

#include "../../detail/call_setup.hpp"
#include "schedule.hpp"

#include <filesystem>
#include <span>
#include <utility>
#include <vector>

namespace fastread {

namespace detail {
/// The call setup of the duplicate finder (detail/call_setup.hpp): the error of a process
/// setting `options` defer to, or none. Checks the options' copyable part only (the
/// callbacks are not copied).
inline error settled_duplicate_options(const duplicate_options& options) {
    struct settings {
        unsigned threads;
    };
    const result<settings> settled = settle_call(settings{options.threads});
    return settled ? error() : settled.error();
}
} // namespace detail

FASTREAD_COMPILED_INLINE result<std::vector<std::vector<std::filesystem::path>>>
try_find_duplicates(std::span<const std::filesystem::path> roots, duplicate_options options) {
    if (error e = detail::settled_duplicate_options(options); e.code()) {
        return e;
    }
    const detail::thread_scope threads(options.threads);
    return detail::duplicate_finder(options).run(roots);
}

FASTREAD_COMPILED_INLINE std::vector<std::vector<std::filesystem::path>>
find_duplicates(std::span<const std::filesystem::path> roots, duplicate_options options) {
    return detail::value_or_throw(try_find_duplicates(roots, std::move(options)));
}

FASTREAD_COMPILED_INLINE result<duplicate_report>
try_find_duplicate_files(std::span<const std::filesystem::path> roots, duplicate_options options) {
    if (error e = detail::settled_duplicate_options(options); e.code()) {
        return e;
    }
    const detail::thread_scope threads(options.threads);
    return detail::duplicate_finder(options).report_of(roots);
}

FASTREAD_COMPILED_INLINE duplicate_report
find_duplicate_files(std::span<const std::filesystem::path> roots, duplicate_options options) {
    return detail::value_or_throw(try_find_duplicate_files(roots, std::move(options)));
}

} // namespace fastread

#endif // FASTREAD_DUPLICATES_DETAIL_FIND_HPP
