#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_ERROR_HPP)
#define FASTREAD_ERROR_HPP

/// @file
/// The exceptions fastread defines: `parse_error` for malformed input, `update_error` for a
/// batch of record updates that failed part way. Other operating-system failures are
/// reported as `std::system_error` (errno, operation and path in the message); invalid
/// arguments from the caller as `std::invalid_argument` or `std::out_of_range`.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include "result.hpp"

namespace fastread {

/// Thrown when input bytes do not follow the format being parsed.
///
/// `what()` reads `<file>: byte <offset>: <reason>`, or `byte <offset>: <reason>` when the
/// input has no file name, e.g. `image.ppm: byte 17: maxval 0 is out of range 1..65535`.
class parse_error : public std::runtime_error {
  public:
    /// @param offset byte offset in the input (from the first byte the source delivered) at
    ///               which the problem was found.
    /// @param reason what was expected or found, without the file name or offset.
    /// @param file   the input's file name, or empty when there is none (memory, pipes).
    /// @param code   the kind of malformation (`errc`).
    parse_error(std::uint64_t offset, const std::string& reason, const std::string& file = {},
                errc code = errc::malformed_input)
        : std::runtime_error((file.empty() ? std::string() : file + ": ") + "byte " +
                             std::to_string(offset) + ": " + reason),
          offset_(offset), reason_(reason), file_(file), code_(code) {}

    /// Byte offset in the input at which the problem was found.
    std::uint64_t offset() const noexcept { return offset_; }
    /// The reason alone, without file name and offset.
    const std::string& reason() const noexcept { return reason_; }
    /// The input's file name; empty when the input had none.
    const std::string& file() const noexcept { return file_; }
    /// The kind of malformation, in fastread's error category.
    std::error_code code() const noexcept { return make_error_code(code_); }
    /// The same report as a value: code(), offset(), file() and what().
    fastread::error error() const { return {code(), what(), file_, offset_}; }

  private:
    std::uint64_t offset_ = 0;
    std::string reason_;
    std::string file_;
    errc code_ = errc::malformed_input;
};

/// Thrown by update_at when a read or write fails part way: the errno, the operation and
/// the path, and how many updates are known to have reached the file.
class update_error : public std::system_error {
  public:
    /// An error `code` with the message `what` (the operation and the path), after
    /// `applied` updates reached the file.
    update_error(std::error_code code, const std::string& what, std::size_t applied)
        : std::system_error(code, what), applied_(applied) {}
    /// The error `cause` reported, with `applied` updates done: the same code and message
    /// (its operation and path, then the code's text once).
    update_error(const std::system_error& cause, std::size_t applied)
        : std::system_error(cause.code(), without_code_text(cause)), applied_(applied) {}
    /// Updates known to be in the file (in the page cache, or on disk when `durable`)
    /// when the error happened: the first `applied()` in visiting order (file order when
    /// sorted). Exact for `pread`, `mmap` and `io_uring`; for the stdio methods a lower
    /// bound, since stdio's buffer may have held some when a write failed.
    std::size_t applied() const noexcept { return applied_; }

  private:
    // cause.what() is "<operation> \"<path>\": <code's text>"; the base class appends the
    // text again, so it goes here.
    static std::string without_code_text(const std::system_error& cause) {
        std::string what = cause.what();
        const std::string text = ": " + cause.code().message();
        if (what.size() >= text.size() &&
            what.compare(what.size() - text.size(), text.size(), text) == 0) {
            what.resize(what.size() - text.size());
        }
        return what;
    }

    std::size_t applied_ = 0;
};

namespace detail {

/// Throws update_error(err) for `operation` on `path` with `applied` updates in the file.
[[noreturn]] inline void throw_update_error(int err, const char* operation,
                                            const std::filesystem::path& path,
                                            std::size_t applied) {
    throw update_error(std::error_code(err, std::generic_category()),
                       std::string(operation) + " " + path.string() + " (" +
                           std::to_string(applied) + " updates applied)",
                       applied);
}

} // namespace detail

} // namespace fastread

#endif // FASTREAD_ERROR_HPP
