#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_FREAD_SOURCE_HPP)
#define FASTREAD_SOURCE_FREAD_SOURCE_HPP

/// @file
/// `fread_source`: the whole file read with `fread` into an owned buffer ("load it all,
/// then parse").

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>

#include "../detail/posix.hpp"
#include "../detail/stdio.hpp"
#include "../sample_vector.hpp"
#include "byte_source.hpp"

namespace fastread {

/// The whole input read into memory by the constructor, with one `fread` for a regular file
/// (sized by `fstat`) and growing reads for pipes and `/proc` files; contiguous.
///
/// Works for every readable file, including pipes and empty files. Memory: the file's size
/// (plus at most a doubling while reading a file of unknown size).
class fread_source {
  public:
    /// Reads the whole file at `path`. Throws `std::system_error` naming the path if it
    /// cannot be opened or read.
    explicit fread_source(const std::filesystem::path& path) : path_(path) {
        detail::unique_file file(detail::open_stream(path, "rb"));
        if (!file) {
            detail::throw_system_error(errno, "fopen", path_);
        }
        read_all(file.get());
    }

    /// Reads everything that remains in `file` (borrowed: not closed).
    /// @throws std::invalid_argument if `file` is null; std::system_error if fstat or
    ///         fread fails; std::bad_alloc.
    explicit fread_source(std::FILE* file) {
        if (file == nullptr) {
            throw std::invalid_argument("fastread::fread_source: needs a FILE*");
        }
        read_all(file);
    }

    /// The whole input on the first call, then an empty span.
    std::span<const char> next() noexcept {
        if (done_) {
            return {};
        }
        done_ = true;
        return bytes();
    }
    /// The whole input; valid while the source lives.
    std::span<const char> bytes() const noexcept { return {buffer_.data(), buffer_.size()}; }
    /// The path the file was opened from (empty when constructed from a `FILE*`).
    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    void read_all(std::FILE* file) {
        detail::file_info info = detail::stat_fd(detail::descriptor_of(file), path_);
        // fstat's size is exact for regular files (one fread does it) and 0 for pipes and
        // /proc files; the loop below also catches a file that grew since fstat.
        std::size_t capacity = info.regular && info.size > 0 && info.size < SIZE_MAX - 1
                                   ? static_cast<std::size_t>(info.size) + 1
                                   : std::size_t{64} * 1024;
        std::size_t used = 0;
        for (;;) {
            buffer_.resize(capacity);
            std::size_t got = std::fread(buffer_.data() + used, 1, capacity - used, file);
            used += got;
            if (used < capacity) {
                if (std::ferror(file)) {
                    int err = errno != 0 ? errno : EIO;
                    detail::throw_system_error(err, "fread", path_);
                }
                break; // end of file
            }
            capacity *= 2;
        }
        buffer_.resize(used);
        buffer_.shrink_to_fit();
    }

    sample_vector<char> buffer_;
    bool done_ = false;
    std::filesystem::path path_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_FREAD_SOURCE_HPP
