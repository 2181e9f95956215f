#ifndef FASTREAD_DETAIL_STDIO_HPP
#define FASTREAD_DETAIL_STDIO_HPP

/// @file
/// stdio streams: an owner, opening a path (UTF-16 on Windows), a stream over a descriptor,
/// the descriptor under a stream, and getc without the stream's lock.

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "platform.hpp"
#include "posix.hpp"

namespace fastread::detail {

/// Closes a stdio stream on destruction (errors of that close are lost: call fclose on
/// `release()` where they matter).
struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using unique_file = std::unique_ptr<std::FILE, file_closer>;

/// std::fopen of a path (_wfopen on Windows, whose paths are UTF-16): the stream, or null
/// with errno set. `mode` is ASCII ("rb", "rb+", "wb"...).
inline std::FILE* open_stream(const std::filesystem::path& path, const char* mode) noexcept {
#if defined(_WIN32)
    const std::wstring wide(mode, mode + std::strlen(mode));
    return ::_wfopen(path.c_str(), wide.c_str());
#else
    return std::fopen(path.c_str(), mode);
#endif
}

/// getc without locking the stream: POSIX getc_unlocked, the C runtime's _getc_nolock on
/// Windows.
inline int getc_unlocked_of(std::FILE* f) noexcept {
#if defined(_WIN32)
    return _getc_nolock(f); // a macro in some runtimes
#else
    return getc_unlocked(f);
#endif
}

/// A stdio stream ("rb", "rb+", ...: `mode`) over the descriptor `fd` owns, which it takes
/// over (fdopen); an empty unique_file with errno set, and `fd` still owning it, on failure.
inline unique_file stream_over(unique_fd& fd, const char* mode) noexcept {
    unique_file f(::fdopen(fd.get(), mode));
    if (f) {
        (void)fd.release();
    }
    return f;
}

/// The descriptor under a stdio stream, or -1 for a stream without one (fmemopen).
inline int descriptor_of(std::FILE* file) noexcept {
    return ::fileno(file);
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_STDIO_HPP
