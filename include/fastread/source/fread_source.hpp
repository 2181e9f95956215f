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
#include "../result.hpp"
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
    explicit fread_source(const std::filesystem::path& path)
        : fread_source(detail::value_or_throw(try_open(path))) {}

    /// Reads everything that remains in `file` (borrowed: not closed).
    /// @throws std::invalid_argument if `file` is null; std::system_error if fstat or
    ///         fread fails; std::bad_alloc.
    explicit fread_source(std::FILE* file) : fread_source(detail::value_or_throw(try_open(file))) {}

    /// Reads the whole file at `path` without throwing: the source, or the error (fopen's,
    /// fstat's or fread's errno, naming the path). Never throws but `std::bad_alloc`.
    static result<fread_source> try_open(const std::filesystem::path& path) {
        fread_source source;
        source.path_ = path;
        detail::unique_file file(detail::open_stream(path, "rb"));
        if (!file) {
            return detail::os_error(errno, "fopen", path);
        }
        if (fastread::error e = source.read_all(file.get()); e.code()) {
            return e;
        }
        return source;
    }

    /// Reads everything that remains in `file` without throwing: the source, or the error
    /// (`errc::invalid_argument` for a null `file`, fstat's or fread's errno).
    static result<fread_source> try_open(std::FILE* file) {
        if (file == nullptr) {
            return detail::invalid_argument_value("fastread::fread_source: needs a FILE*");
        }
        fread_source source;
        if (fastread::error e = source.read_all(file); e.code()) {
            return e;
        }
        return source;
    }

    ///@{
    /// Moves the source (its buffer); not copyable.
    fread_source(fread_source&&) noexcept = default;
    fread_source& operator=(fread_source&&) noexcept = default;
    ///@}

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
    fread_source() = default;

    fastread::error read_all(std::FILE* file) {
        fastread::error err;
        detail::file_info info = detail::stat_fd(detail::descriptor_of(file), path_, err);
        if (err.code()) {
            return err;
        }
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
                    return detail::os_error(errno != 0 ? errno : EIO, "fread", path_);
                }
                break; // end of file
            }
            capacity *= 2;
        }
        buffer_.resize(used);
        buffer_.shrink_to_fit();
        return {};
    }

    sample_vector<char> buffer_;
    bool done_ = false;
    std::filesystem::path path_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_FREAD_SOURCE_HPP
