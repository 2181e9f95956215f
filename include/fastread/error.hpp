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
#include <exception>
#include <optional>
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
        : std::runtime_error(detail::parse_error_value(offset, reason, file, code).message()),
          offset_(offset), reason_(reason), file_(file), code_(code) {}

    /// The exception of `e`, an error in fastread's category with an offset (as the
    /// `try_` forms return for malformed input): the same code, offset, file and message.
    explicit parse_error(const fastread::error& e)
        : std::runtime_error(e.message()), offset_(e.offset().value_or(0)), reason_(reason_of(e)),
          file_(e.path()), code_(static_cast<errc>(e.code().value())), line_(e.line()),
          column_(e.column()) {}

    /// Byte offset in the input at which the problem was found.
    std::uint64_t offset() const noexcept { return offset_; }
    /// The reason alone, without file name and offset.
    const std::string& reason() const noexcept { return reason_; }
    /// The input's file name; empty when the input had none.
    const std::string& file() const noexcept { return file_; }
    /// The kind of malformation, in fastread's error category.
    std::error_code code() const noexcept { return make_error_code(code_); }
    /// Line (1-based) where the problem was found, in text read by lines
    /// (fastread::numbers); empty for other inputs.
    const std::optional<std::uint64_t>& line() const noexcept { return line_; }
    /// Column (the token's 1-based index on its line) where the problem was found, in text
    /// read by lines (fastread::numbers); empty for other inputs.
    const std::optional<std::uint64_t>& column() const noexcept { return column_; }
    /// The same report as a value: code(), offset(), file(), line(), column() and what().
    fastread::error error() const { return {code(), what(), file_, offset_, line_, column_}; }

  private:
    // The message without its "<file>: byte <offset>: " head.
    static std::string reason_of(const fastread::error& e) {
        const std::string& m = e.message();
        const std::string marker = "byte " + std::to_string(e.offset().value_or(0)) + ": ";
        const std::size_t at = m.find(marker);
        return at == std::string::npos ? m : m.substr(at + marker.size());
    }

    std::uint64_t offset_ = 0;
    std::string reason_;
    std::string file_;
    errc code_ = errc::malformed_input;
    std::optional<std::uint64_t> line_;
    std::optional<std::uint64_t> column_;
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

[[noreturn]] inline void throw_error(const fastread::error& e) {
    const std::error_code& code = e.code();
    if (code.category() == error_category()) {
        if (code == errc::invalid_argument) {
            raise_as<std::invalid_argument>(e, e.message());
        }
        if (code == errc::out_of_range) {
            raise_as<std::out_of_range>(e, e.message());
        }
        raise_as<parse_error>(e, e);
    }
    // std::system_error appends ": <the code's text>" to its what(): the message has it.
    std::string what = e.message();
    const std::string text = ": " + code.message();
    if (what.size() >= text.size() &&
        what.compare(what.size() - text.size(), text.size(), text) == 0) {
        what.resize(what.size() - text.size());
    }
    raise_as<std::system_error>(e, code, what);
}

/// Throws update_error(cause, applied): `cause`'s code and message, `applied` updates in
/// the file.
[[noreturn]] inline void throw_update_error(const std::system_error& cause, std::size_t applied) {
    raise_as<update_error>(fastread::error(cause.code(), cause.what()), cause, applied);
}

/// Throws update_error(code, what, applied).
[[noreturn]] inline void throw_update_error(std::error_code code, const std::string& what,
                                            std::size_t applied) {
    raise_as<update_error>(fastread::error(code, what + ": " + code.message()), code, what,
                           applied);
}

/// An update batch's failure as a value: the error, and how many updates are known to be
/// in the file (update_error::applied()). Empty (false) when there was none.
struct update_failure {
    fastread::error err;     ///< what failed
    std::size_t applied = 0; ///< updates known to be in the file
    /// Whether there was a failure.
    explicit operator bool() const noexcept { return static_cast<bool>(err.code()); }
};

/// The failure of errno `errno_value` in `operation` on `path` with `applied` updates in the
/// file: the message update_error gives it (`<operation> <path> (<applied> updates
/// applied): <strerror>`).
inline update_failure update_failure_of(int errno_value, const char* operation,
                                        const std::string& path, std::size_t applied) {
    const std::error_code code(errno_value, std::generic_category());
    return {fastread::error(code,
                            std::string(operation) + " " + path + " (" + std::to_string(applied) +
                                " updates applied): " + code.message(),
                            path),
            applied};
}

/// Throws the update_error of `f`: its code, message and applied count.
[[noreturn]] inline void throw_update_failure(const update_failure& f) {
    std::string what = f.err.message();
    const std::string text = ": " + f.err.code().message();
    if (what.size() >= text.size() &&
        what.compare(what.size() - text.size(), text.size(), text) == 0) {
        what.resize(what.size() - text.size());
    }
    raise_as<update_error>(f.err, f.err.code(), what, f.applied);
}

/// Throws `e` with the exception being handled nested in it (std::throw_with_nested), as
/// update_at reports an exception of fn; without exceptions (where none can be handled),
/// reports `e` through the error handler, then aborts.
[[noreturn]] inline void throw_nested(const update_error& e) {
#if FASTREAD_EXCEPTIONS
    std::throw_with_nested(e);
#else
    current_handler()(fastread::error(e.code(), e.what()));
    std::abort();
#endif
}

/// Throws update_error(err) for `operation` on `path` with `applied` updates in the file.
[[noreturn]] inline void throw_update_error(int err, const char* operation, const std::string& path,
                                            std::size_t applied) {
    throw_update_failure(update_failure_of(err, operation, path, applied));
}

} // namespace detail

} // namespace fastread

#endif // FASTREAD_ERROR_HPP
