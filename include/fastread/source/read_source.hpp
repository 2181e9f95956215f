#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_READ_SOURCE_HPP)
#define FASTREAD_SOURCE_READ_SOURCE_HPP

/// @file
/// `read_source`: `read(2)` into one reused buffer, chunk after chunk.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>

#include "../detail/policy.hpp"
#include "../detail/posix.hpp"
#include "../detail/rw.hpp"
#include "../result.hpp"
#include "byte_source.hpp"

namespace fastread {

/// Streams a file or descriptor with `read(2)` into one reused buffer of `chunk_size` bytes.
///
/// Memory is one chunk however big the file. Works on regular files, pipes, sockets,
/// terminals and `/proc` files. One `read` per `next()`, so a chunk from a pipe may be
/// shorter than `chunk_size`. `read_into` fills a caller's buffer straight from the kernel.
class read_source {
  public:
    /// 64 KiB (detail::default_chunk_bytes, which says why).
    static constexpr std::size_t default_chunk_size = detail::default_chunk_bytes;

    /// Opens `path` for reading. Throws `std::system_error` naming the path if it cannot
    /// be opened, and `std::invalid_argument` if `chunk_size` is 0 (`try_open` returns the
    /// same errors).
    explicit read_source(const std::filesystem::path& path,
                         std::size_t chunk_size = default_chunk_size)
        : read_source(detail::value_or_throw(try_open(path, chunk_size))) {}

    /// Reads from `fd` (borrowed: never closed) from its current position. Throws as
    /// `try_open(fd, chunk_size)` reports.
    explicit read_source(int fd, std::size_t chunk_size = default_chunk_size)
        : read_source(detail::value_or_throw(try_open(fd, chunk_size))) {}

    /// Takes ownership of an open descriptor (used by the path-taking conveniences, which
    /// open a file once and then pick a source for it). @throws std::invalid_argument if
    /// `chunk_size` is 0.
    read_source(detail::unique_fd fd, const std::filesystem::path& path,
                std::size_t chunk_size = default_chunk_size)
        : read_source(detail::value_or_throw(try_adopt(std::move(fd), path, chunk_size))) {}

    /// As above, for a descriptor just opened on a regular file of `size` bytes (the
    /// caller's fstat): no second fstat and lseek for the size hint; `chunk_size` >= 1.
    read_source(detail::unique_fd fd, const std::filesystem::path& path, std::size_t chunk_size,
                std::uint64_t size)
        : owned_(std::move(fd)), fd_(owned_.get()), chunk_size_(checked(chunk_size)),
          buffer_(new char[chunk_size_]), size_hint_(size), path_(path) {}

    /// Opens `path` for reading, without throwing: the source, or the error (`open`'s errno
    /// naming the path; `errc::invalid_argument` if `chunk_size` is 0).
    static result<read_source> try_open(const std::filesystem::path& path,
                                        std::size_t chunk_size = default_chunk_size) {
        if (chunk_size == 0) {
            return chunk_size_error();
        }
        fastread::error err;
        detail::unique_fd fd = detail::open_read_only(path, 0, err);
        if (!fd) {
            return err;
        }
        return try_adopt(std::move(fd), path, chunk_size);
    }

    /// Takes ownership of `fd`, opened from `path`, without throwing: the source, or the
    /// error (`fstat`'s errno; `errc::invalid_argument` if `chunk_size` is 0).
    static result<read_source> try_adopt(detail::unique_fd fd, const std::filesystem::path& path,
                                         std::size_t chunk_size = default_chunk_size) {
        if (chunk_size == 0) {
            return chunk_size_error();
        }
        read_source source(std::move(fd), path, chunk_size, 0, nullptr);
        if (fastread::error e = source.init_size_hint(); e.code()) {
            return e;
        }
        return source;
    }

    /// Reads from `fd` (borrowed) without throwing: the source, or the error (`fstat`'s
    /// errno; `errc::invalid_argument` if `chunk_size` is 0).
    static result<read_source> try_open(int fd, std::size_t chunk_size = default_chunk_size) {
        if (chunk_size == 0) {
            return chunk_size_error();
        }
        read_source source(detail::unique_fd(), {}, chunk_size, 0, nullptr);
        source.fd_ = fd;
        if (fastread::error e = source.init_size_hint(); e.code()) {
            return e;
        }
        return source;
    }

    ///@{
    /// Moves the source (its buffer and the descriptor it owns); not copyable.
    read_source(read_source&&) noexcept = default;
    read_source& operator=(read_source&&) noexcept = default;
    ///@}

    /// The next chunk (at most `chunk_size` bytes, from one `read`); empty at end of input.
    /// The chunk is valid until the next call. Throws `std::system_error` on a read error.
    std::span<const char> next() {
        std::span<const char> chunk = try_next();
        detail::throw_if(error_);
        return chunk;
    }

    /// As `next()`, without throwing: a read error ends the input (an empty span, as every
    /// later call returns) and is kept in `error()`.
    std::span<const char> try_next() noexcept {
        if (eof_) {
            return {};
        }
        std::size_t got = detail::read_some(fd_, buffer_.get(), chunk_size_, path_, error_);
        eof_ = got == 0;
        consumed_ += got;
        return {buffer_.get(), got};
    }

    /// Reads the bytes after the last chunk straight into `dst`; returns how many arrived
    /// (fewer than `dst.size()` only at end of input). Throws `std::system_error`.
    std::size_t read_into(std::span<char> dst) {
        const std::size_t got = try_read_into(dst);
        detail::throw_if(error_);
        return got;
    }

    /// As `read_into`, without throwing: a read error ends the input (the count so far) and
    /// is kept in `error()`.
    std::size_t try_read_into(std::span<char> dst) noexcept {
        if (eof_) {
            return 0;
        }
        std::size_t got = detail::read_full(fd_, dst.data(), dst.size(), path_, error_);
        eof_ = got < dst.size();
        consumed_ += got;
        return got;
    }

    /// The read error that ended the input (`try_next`, `try_read_into`); no error (an
    /// empty `code()`) otherwise.
    const fastread::error& error() const noexcept { return error_; }

    /// Total bytes this source delivers, from `fstat`, when the input is a regular file of
    /// known size; `std::nullopt` otherwise. A hint for buffer sizes only.
    std::optional<std::uint64_t> size_hint() const noexcept { return size_hint_; }
    /// The path the file was opened from (empty for a borrowed descriptor).
    const std::filesystem::path& path() const noexcept { return path_; }
    /// Bytes read from the descriptor so far (by next() and read_into()).
    std::uint64_t consumed() const noexcept { return consumed_; }
    /// The chunk size in bytes.
    std::size_t chunk_size() const noexcept { return chunk_size_; }

  private:
    read_source(detail::unique_fd fd, const std::filesystem::path& path, std::size_t chunk_size,
                int, std::nullptr_t)
        : owned_(std::move(fd)), fd_(owned_.get()), chunk_size_(chunk_size),
          buffer_(new char[chunk_size_]), path_(path) {}
    static fastread::error chunk_size_error() {
        return detail::invalid_argument_value(
            "fastread::read_source: chunk_size must be at least 1");
    }
    static std::size_t checked(std::size_t chunk_size) {
        if (chunk_size == 0) {
            detail::throw_error(chunk_size_error());
        }
        return chunk_size;
    }
    fastread::error init_size_hint() {
        fastread::error err;
        detail::file_info info = detail::stat_fd(fd_, path_, err);
        if (info.regular && info.size > 0) {
            const std::int64_t at = detail::file_offset(fd_);
            if (at >= 0 && static_cast<std::uint64_t>(at) <= info.size) {
                size_hint_ = info.size - static_cast<std::uint64_t>(at);
            }
        }
        return err;
    }

    detail::unique_fd owned_;
    int fd_ = -1;
    std::size_t chunk_size_ = default_chunk_size;
    std::unique_ptr<char[]> buffer_;
    bool eof_ = false;
    std::uint64_t consumed_ = 0;
    std::optional<std::uint64_t> size_hint_;
    std::filesystem::path path_;
    fastread::error error_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_READ_SOURCE_HPP
