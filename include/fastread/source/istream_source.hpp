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
        : stream_(&stream), chunk_size_(chunk_size) {
        if (chunk_size == 0) {
            throw std::invalid_argument("fastread::istream_source: chunk_size must be at least 1");
        }
        buffer_.reset(new char[chunk_size_]);
    }

    /// The next chunk (up to `chunk_size` bytes); empty at end of input.
    std::span<const char> next() { return {buffer_.get(), read(buffer_.get(), chunk_size_)}; }

    /// Reads the bytes after the last chunk straight into `dst`; returns how many arrived.
    std::size_t read_into(std::span<char> dst) { return read(dst.data(), dst.size()); }

  private:
    std::size_t read(char* dst, std::size_t n) {
        if (n == 0 || !stream_->good()) {
            if (stream_->bad()) {
                throw std::system_error(EIO, std::generic_category(), "istream read");
            }
            return 0;
        }
        stream_->read(dst, static_cast<std::streamsize>(n));
        if (stream_->bad()) {
            throw std::system_error(EIO, std::generic_category(), "istream read");
        }
        return static_cast<std::size_t>(stream_->gcount());
    }

    std::istream* stream_ = nullptr;
    std::size_t chunk_size_ = default_chunk_size;
    std::unique_ptr<char[]> buffer_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_ISTREAM_SOURCE_HPP
