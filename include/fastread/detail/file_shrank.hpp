#ifndef FASTREAD_DETAIL_FILE_SHRANK_HPP
#define FASTREAD_DETAIL_FILE_SHRANK_HPP

// What every job says when a file shrinks during a call: a std::system_error (EIO) where
// the job hands out bytes or records, a parse_error where a decoder was reading the file.

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "../error.hpp"
#include "posix.hpp"

namespace fastread::detail {

/// The one report of a file that shrank during a call that had already read (or handed
/// out) `reached` bytes of it: an EIO error naming the file, its size `now` and what was
/// reached, where known (UINT64_MAX: not known).
inline fastread::error file_shrank_error(const std::filesystem::path& path,
                                         std::uint64_t now = UINT64_MAX,
                                         std::uint64_t reached = UINT64_MAX) {
    std::string what = "read (the file shrank";
    if (now != UINT64_MAX) {
        what += " to " + std::to_string(now) + " bytes";
    }
    what += " while it was read";
    if (reached != UINT64_MAX) {
        what += "; " + std::to_string(reached) + " bytes were already read";
    }
    what += ')';
    return os_error(EIO, what, path);
}

/// file_shrank_error, thrown (std::system_error).
[[noreturn]] inline void throw_file_shrank(const std::filesystem::path& path,
                                           std::uint64_t now = UINT64_MAX,
                                           std::uint64_t reached = UINT64_MAX) {
    throw_error(file_shrank_error(path, now, reached));
}

/// "the file ends here: it shrank from A to B bytes while it was read".
inline std::string shrank_message(std::uint64_t size_at_open, std::uint64_t now) {
    return "the file ends here: it shrank from " + std::to_string(size_at_open) + " to " +
           std::to_string(now) + " bytes while it was read";
}

/// The error to report instead of `failure` (or instead of success) when the regular file
/// open on `fd`, which had `size_at_open` bytes, now ends before `reached`, the bytes the
/// parse read from it: it shrank during the call, so what was read may hold zeros where its
/// data was (a map's guard, or a read(2) racing the truncation) and the error is where the
/// data now ends. A parse that failed before that byte keeps its own error; so does a read
/// error (an error without an offset). If the size cannot be had, that error.
inline std::optional<fastread::error> shrink_error(int fd, std::uint64_t size_at_open,
                                                   std::uint64_t reached,
                                                   const std::optional<fastread::error>& failure,
                                                   const std::filesystem::path& path) {
    if (failure && !failure->offset()) {
        return std::nullopt;
    }
    fastread::error err;
    const std::uint64_t now = size_now(fd, path, err);
    if (err.code()) {
        return err;
    }
    if (now >= reached || (failure && *failure->offset() < now)) {
        return std::nullopt;
    }
    return parse_error_value(now, shrank_message(size_at_open, now), path.string(),
                             errc::input_shrank);
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_FILE_SHRANK_HPP
