// The public header first: it includes this one at its end, after what this one uses.
#include "../../lines.hpp"
#ifndef FASTREAD_LINES_DETAIL_PATH_HPP
#define FASTREAD_LINES_DETAIL_PATH_HPP

/// @file
/// lines(path) and try_lines(path), and path_source's members: header-only (included by
/// lines.hpp), or compiled once in src/fastread.cpp for fastread::compiled
/// (FASTREAD_SEPARATE_COMPILATION). The file is opened by the file layer
/// (detail/input_file.hpp) through file_source.

#include <filesystem>
#include <memory>
#include <span>
#include <utility>

#include "../../detail/call_setup.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../source/detail/file_source.hpp"
#include "path_source.hpp"

namespace fastread {

namespace detail {

FASTREAD_COMPILED_INLINE path_source::path_source(file_source&& source)
    : file_(std::make_unique<file_source>(std::move(source))) {}
FASTREAD_COMPILED_INLINE path_source::path_source(path_source&&) noexcept = default;
FASTREAD_COMPILED_INLINE path_source& path_source::operator=(path_source&&) noexcept = default;
FASTREAD_COMPILED_INLINE path_source::~path_source() = default;

FASTREAD_COMPILED_INLINE std::span<const char> path_source::next() {
    return file_->next();
}
FASTREAD_COMPILED_INLINE std::span<const char> path_source::try_next() noexcept {
    return file_->try_next();
}
FASTREAD_COMPILED_INLINE const fastread::error& path_source::error() const noexcept {
    return file_->error();
}
FASTREAD_COMPILED_INLINE const std::filesystem::path& path_source::path() const noexcept {
    return file_->path();
}

} // namespace detail

FASTREAD_COMPILED_INLINE line_range<detail::path_source> lines(const std::filesystem::path& path,
                                                               line_options options) {
    options = detail::settle_call_or_throw(options);
    const detail::thread_scope threads(options.threads);
    return line_range<detail::path_source>(
        std::make_unique<detail::path_source>(detail::file_source(path, options.io, true)),
        options);
}

FASTREAD_COMPILED_INLINE result<line_range<detail::path_source>>
try_lines(const std::filesystem::path& path, line_options options) {
    const result<line_options> settled = detail::settle_call(options);
    if (!settled) {
        return settled.error();
    }
    options = *settled;
    const detail::thread_scope threads(options.threads);
    result<detail::file_source> source = detail::file_source::try_open(path, options.io, true);
    if (!source) {
        return source.error();
    }
    return detail::line_range_access::reporting(line_range<detail::path_source>(
        std::make_unique<detail::path_source>(std::move(*source)), options));
}

} // namespace fastread

#endif // FASTREAD_LINES_DETAIL_PATH_HPP
