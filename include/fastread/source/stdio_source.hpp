#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_STDIO_SOURCE_HPP)
#define FASTREAD_SOURCE_STDIO_SOURCE_HPP

/// @file
/// `stdio_source`: `fread` of chunks from a `FILE*` (stdin, pipes, or a file it opens).

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>

#include "../detail/policy.hpp"
#include "../detail/posix.hpp"
#include "../detail/stdio.hpp"
#include "../result.hpp"
#include "byte_source.hpp"

namespace fastread {

/// Streams a C `FILE*` with `fread` into one reused buffer of `chunk_size` bytes.
///
/// Works on stdin and pipes. A borrowed `FILE*` is never closed; reading starts at its
/// current position and honours what stdio has already buffered. From a regular file each
/// chunk is full (but the last). From anything else (a pipe, a terminal, a socket), with
/// glibc, next() returns as soon as some bytes are there, as read(2) does, instead of
/// waiting for a whole chunk: what stdio holds buffered first, then one read(2) of the
/// descriptor, so that `tail -f log | prog` sees each line when it arrives. On Windows it
/// gives what stdio gives: from a `FILE*` in text mode (stdin is, until
/// `_setmode(_fileno(stdin), _O_BINARY)`) CR LF arrives as LF and a Ctrl-Z ends the input.
class stdio_source {
  public:
    /// 64 KiB chunks (detail::default_chunk_bytes, which says why).
    static constexpr std::size_t default_chunk_size = detail::default_chunk_bytes;

    /// Reads from `file` (borrowed: never closed). Throws `std::invalid_argument` if `file`
    /// is null or `chunk_size` is 0 (`try_open` returns the same errors).
    explicit stdio_source(std::FILE* file, std::size_t chunk_size = default_chunk_size)
        : stdio_source(detail::value_or_throw(try_open(file, chunk_size))) {}

    /// Opens `path` with `fopen(path, "rb")` and closes it on destruction. Throws
    /// `std::system_error` naming the path if it cannot be opened.
    explicit stdio_source(const std::filesystem::path& path,
                          std::size_t chunk_size = default_chunk_size)
        : stdio_source(detail::value_or_throw(try_open(path, chunk_size))) {}

    /// Reads from `file` (borrowed) without throwing: the source, or the error
    /// (`errc::invalid_argument` for a null `file` or a `chunk_size` of 0, fstat's errno).
    static result<stdio_source> try_open(std::FILE* file,
                                         std::size_t chunk_size = default_chunk_size) {
        if (file == nullptr || chunk_size == 0) {
            return detail::invalid_argument_value(
                "fastread::stdio_source: needs a FILE* and a chunk_size of at least 1");
        }
        stdio_source source;
        source.file_ = file;
        source.chunk_size_ = chunk_size;
        if (fastread::error e = source.init(); e.code()) {
            return e;
        }
        return source;
    }

    /// Opens `path` with `fopen(path, "rb")` without throwing: the source, or the error
    /// (fopen's errno naming the path; `errc::invalid_argument` for a `chunk_size` of 0).
    static result<stdio_source> try_open(const std::filesystem::path& path,
                                         std::size_t chunk_size = default_chunk_size) {
        stdio_source source;
        source.owned_.reset(detail::open_stream(path, "rb"));
        source.path_ = path;
        if (!source.owned_) {
            return detail::os_error(errno, "fopen", path);
        }
        if (chunk_size == 0) {
            return detail::invalid_argument_value(
                "fastread::stdio_source: chunk_size must be at least 1");
        }
        source.file_ = source.owned_.get();
        source.chunk_size_ = chunk_size;
        if (fastread::error e = source.init(); e.code()) {
            return e;
        }
        return source;
    }

    ///@{
    /// Moves the source (its buffer and the `FILE*` it owns); not copyable.
    stdio_source(stdio_source&&) noexcept = default;
    stdio_source& operator=(stdio_source&&) noexcept = default;
    ///@}

    /// The next chunk (up to `chunk_size` bytes); empty at end of input. Valid until the
    /// next call. Throws `std::system_error` on a read error.
    std::span<const char> next() {
        const std::span<const char> chunk = try_next();
        detail::throw_if(error_);
        return chunk;
    }

    /// As `next()`, without throwing: a read error ends the input (an empty span, as every
    /// later call returns) and is kept in `error()`.
    std::span<const char> try_next() noexcept {
        if (error_.code()) {
            return {};
        }
        const std::size_t got =
            prompt_ ? read_available(buffer_.get(), chunk_size_) : read(buffer_.get(), chunk_size_);
        return {buffer_.get(), error_.code() ? 0 : got};
    }

    /// Reads the bytes after the last chunk straight into `dst` with one `fread`; returns
    /// how many arrived (fewer than `dst.size()` only at end of input). Throws
    /// `std::system_error` on a read error.
    std::size_t read_into(std::span<char> dst) {
        const std::size_t got = try_read_into(dst);
        detail::throw_if(error_);
        return got;
    }

    /// As `read_into`, without throwing: a read error ends the input and is kept in
    /// `error()`.
    std::size_t try_read_into(std::span<char> dst) noexcept {
        return error_.code() ? 0 : read(dst.data(), dst.size());
    }

    /// The read error that ended the input (`try_next`, `try_read_into`); no error (an
    /// empty `code()`) otherwise.
    const fastread::error& error() const noexcept { return error_; }

    /// Bytes still to come when the `FILE*` reads a regular file of known size.
    std::optional<std::uint64_t> size_hint() const noexcept { return size_hint_; }
    /// The path the file was opened from (empty for a borrowed `FILE*`).
    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    std::size_t read(char* dst, std::size_t n) {
        if (n == 0) {
            return 0;
        }
        // fread returns short with the error flag set when a signal handler installed
        // without SA_RESTART interrupts its read(2): clear the flag and read on, as
        // read_source does.
        std::size_t got = 0;
        for (;;) {
            errno = 0;
            got += std::fread(dst + got, 1, n - got, file_);
            if (got == n || !std::ferror(file_)) {
                return got;
            }
            const int err = errno != 0 ? errno : EIO;
            if (err != EINTR) {
                error_ = detail::os_error(err, "fread", path_);
                return got;
            }
            std::clearerr(file_);
        }
    }
    // Up to `n` bytes, waiting only while there are none: what stdio has buffered, else one
    // read(2) of the descriptor (glibc: the FILE's get area is public in struct _IO_FILE).
    std::size_t read_available(char* dst, std::size_t n) {
#if defined(__GLIBC__)
        constexpr int in_backup = 0x100; // _IO_IN_BACKUP: reading ungetc's pushback
        const std::size_t held =
            file_->_IO_read_end > file_->_IO_read_ptr
                ? static_cast<std::size_t>(file_->_IO_read_end - file_->_IO_read_ptr)
                : 0;
        if (held > 0) {
            return read(dst, held < n ? held : n); // a copy from stdio's buffer: no waiting
        }
        if ((file_->_flags & in_backup) != 0) {
            return read(dst, 1); // stdio switches back to its main buffer
        }
        for (;;) {
            const ssize_t got = detail::sys::read(fd_, dst, n);
            if (got >= 0) {
                return static_cast<std::size_t>(got); // 0: the end (a terminal's Ctrl-D too)
            }
            if (errno != EINTR) {
                error_ = detail::os_error(errno, "read", path_);
                return 0;
            }
        }
#else
        return read(dst, n);
#endif
    }
    stdio_source() = default;

    // The buffer and what fstat says; fstat's error.
    fastread::error init() {
        buffer_.reset(new char[chunk_size_]);
        const int fd = detail::descriptor_of(file_);
        if (fd < 0) {
            return {}; // fmemopen and friends have no descriptor
        }
        fastread::error err;
        detail::file_info info = detail::stat_fd(fd, path_, err);
        if (err.code()) {
            return err;
        }
        fd_ = fd;
#if defined(__GLIBC__)
        prompt_ = !info.regular;
#endif
        long at = std::ftell(file_);
        if (info.regular && info.size > 0 && at >= 0 &&
            static_cast<std::uint64_t>(at) <= info.size) {
            size_hint_ = info.size - static_cast<std::uint64_t>(at);
        }
        return {};
    }

    detail::unique_file owned_;
    std::FILE* file_ = nullptr;
    std::size_t chunk_size_ = default_chunk_size;
    std::unique_ptr<char[]> buffer_;
    std::optional<std::uint64_t> size_hint_;
    std::filesystem::path path_;
    int fd_ = -1;         // the FILE's descriptor, or -1
    bool prompt_ = false; // not a regular file: next() returns what is there
    fastread::error error_;
};

} // namespace fastread

#endif // FASTREAD_SOURCE_STDIO_SOURCE_HPP
