#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_ISTREAM_SOURCE_HPP)
#define FASTREAD_SOURCE_ISTREAM_SOURCE_HPP

/// @file
/// `istream_source`: `std::istream::read` of chunks, for iostream users and as a baseline.

#include <cerrno>
#include <cstddef>
#include <istream>
#include <memory>
#include <span>
#include <stdexcept>
#include <system_error>

#include "../detail/policy.hpp"
#include "../result.hpp"
#include "byte_source.hpp"

namespace fastread {

/// Streams a `std::istream` (borrowed: never closed) with `read` into one reused buffer.
///
/// Reads from the stream's current position. The end of input is the stream's end of file;
/// a stream that goes bad (`badbit`) throws `std::system_error` (`EIO`).
class istream_source {
  public:
    /// 64 KiB chunks (detail::default_chunk_bytes, which says why).
    static constexpr std::size_t default_chunk_size = detail::default_chunk_bytes;

    /// Throws `std::invalid_argument` if `chunk_size` is 0.
    explicit istream_source(std::istream& stream, std::size_t chunk_size = default_chunk_size)
        : istream_source(detail::value_or_throw(try_open(stream, chunk_size))) {}

    /// Reads from `stream` (borrowed) without throwing: the source, or the error
    /// (`errc::invalid_argument` for a `chunk_size` of 0).
    static result<istream_source> try_open(std::istream& stream,
                                           std::size_t chunk_size = default_chunk_size) {
        if (chunk_size == 0) {
            return detail::invalid_argument_value(
                "fastread::istream_source: chunk_size must be at least 1");
        }
        istream_source source;
        source.stream_ = &stream;
        source.chunk_size_ = chunk_size;
        source.buffer_.reset(new char[chunk_size]);
        return source;
    }

    ///@{
    /// Moves the source (its buffer); not copyable.
    istream_source(istream_source&&) noexcept = default;
    istream_source& operator=(istream_source&&) noexcept = default;
    ///@}

    /// The next chunk (up to `chunk_size` bytes); empty at end of input. Throws
    /// `std::system_error` (EIO) when the stream goes bad.
    std::span<const char> next() {
        const std::span<const char> chunk = try_next();
        detail::throw_if(error_);
        return chunk;
    }

    /// As `next()`, without throwing: a stream gone bad ends the input, the error (EIO)
    /// kept in `error()`.
    std::span<const char> try_next() { return {buffer_.get(), read(buffer_.get(), chunk_size_)}; }

    /// Reads the bytes after the last chunk straight into `dst`; returns how many arrived.
    /// Throws `std::system_error` (EIO) when the stream goes bad.
    std::size_t read_into(std::span<char> dst) {
        const std::size_t got = try_read_into(dst);
        detail::throw_if(error_);
        return got;
    }

    /// As `read_into`, without throwing (the error kept in `error()`).
    std::size_t try_read_into(std::span<char> dst) { return read(dst.data(), dst.size()); }

    /// The error that ended the input; no error (an empty `code()`) otherwise.
    const fastread::error& error() const noexcept { return error_; }

  private:
    istream_source() = default;

    std::size_t read(char* dst, std::size_t n) {
        if (n == 0 || !stream_->good()) {
            if (stream_->bad() && !error_.code()) {
                error_ = detail::system_error_value(EIO, "istream read");
            }
            return 0;
        }
        stream_->read(dst, static_cast<std::streamsize>(n));
        if (stream_->bad()) {
            error_ = detail::system_error_value(EIO, "istream read");
            return 0;
        }
        return static_cast<std::size_t>(stream_->gcount());
    }

    std::istream* stream_ = nullptr;
    std::size_t chunk_size_ = default_chunk_size;
    std::unique_ptr<char[]> buffer_;
    fastread::error error_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_ISTREAM_SOURCE_HPP
