#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_RESULT_HPP)
#define FASTREAD_RESULT_HPP

/// @file
/// Errors as values: `fastread::error` (what went wrong, whole), `fastread::errc` (fastread's
/// error codes, one per kind of malformed input), `fastread::result<T>` (a value or an
/// error; C++20 has no `std::expected`) and the handler that a throwing call reports
/// through when exceptions are off (`set_error_handler`).
///
/// The non-throwing `try_` forms of the entry points return `result`s; the throwing forms
/// raise the same `error` as an exception (`parse_error` for malformed input,
/// `std::system_error` for the operating system's failures, `std::invalid_argument` for a
/// caller's mistake), so that both forms report the same code, offset and message.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

/// 1 when the translation unit is built with exceptions (throwing forms throw), 0 under
/// `-fno-exceptions` (they report through the error handler, then abort).
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define FASTREAD_EXCEPTIONS 1
#else
#define FASTREAD_EXCEPTIONS 0
#endif

namespace fastread {

/// fastread's error codes (category `fastread::error_category()`, name "fastread"): one
/// per kind of malformed input, so that a caller can tell them apart without reading the
/// message. Operating-system failures keep their errno in `std::generic_category()`.
enum class errc {
    malformed_input = 1,   ///< the input does not follow its format (no finer kind known)
    empty_input,           ///< no byte at all where a header was expected
    bad_magic,             ///< the first bytes are not the format's magic number
    unsupported_format,    ///< a valid magic number of a format this call does not read
    truncated_header,      ///< the input ends inside the header
    expected_number,       ///< a header field is not a number
    expected_whitespace,   ///< a header field is followed by something else than whitespace
    number_too_large,      ///< a header number beyond what the format allows
    zero_dimension,        ///< width or height 0
    maxval_out_of_range,   ///< maxval 0 or above 65535 (Netpbm)
    needs_16bit_samples,   ///< maxval above 255 loaded into 8-bit samples
    size_overflow,         ///< the declared size does not fit in 64 bits
    over_limit,            ///< the declared size is over a limit the caller set
    truncated_data,        ///< the input ends before the data its header declares
    sample_exceeds_maxval, ///< a sample above maxval
    invalid_data_byte,     ///< a byte that cannot appear in the data (plain raster, text)
    bad_header_line,       ///< PAM: a header line fastread cannot read
    missing_header_field,  ///< PAM: ENDHDR before a required field
    input_shrank,          ///< the file became shorter while it was read
    invalid_argument,      ///< a caller's argument breaks the call's contract
    out_of_range,          ///< a caller's index beyond what the input holds
    shape_mismatch,        ///< an image of another shape than its batch's (pnm::load_batch)
    invalid_number,        ///< numbers: a token that is not a number of the type asked for
    number_out_of_range,   ///< numbers: an integer beyond its type's range
    wrong_column_count,    ///< numbers: a line with more or fewer numbers than `columns`
    empty_field,           ///< numbers: a separator with no number before or after it
    token_too_long,        ///< numbers: a token longer than the longest number accepted
    missing_value,         ///< csv: a missing value in a column that is not std::optional
    invalid_date,          ///< csv: a field that is not an ISO 8601 date or timestamp
};

/// The category of `errc`: name "fastread", a message per code.
inline const std::error_category& error_category() noexcept {
    struct category final : std::error_category {
        const char* name() const noexcept override { return "fastread"; }
        std::string message(int code) const override {
            switch (static_cast<errc>(code)) {
            case errc::malformed_input:
                return "malformed input";
            case errc::empty_input:
                return "empty input";
            case errc::bad_magic:
                return "not the format's magic number";
            case errc::unsupported_format:
                return "a format this call does not read";
            case errc::truncated_header:
                return "truncated header";
            case errc::expected_number:
                return "a number was expected";
            case errc::expected_whitespace:
                return "whitespace was expected";
            case errc::number_too_large:
                return "number too large";
            case errc::zero_dimension:
                return "zero width or height";
            case errc::maxval_out_of_range:
                return "maxval out of range";
            case errc::needs_16bit_samples:
                return "needs 16-bit samples";
            case errc::size_overflow:
                return "declared size overflows";
            case errc::over_limit:
                return "declared size over the limit";
            case errc::truncated_data:
                return "truncated data";
            case errc::sample_exceeds_maxval:
                return "sample exceeds maxval";
            case errc::invalid_data_byte:
                return "invalid byte in the data";
            case errc::bad_header_line:
                return "bad header line";
            case errc::missing_header_field:
                return "missing header field";
            case errc::input_shrank:
                return "the input shrank while it was read";
            case errc::invalid_argument:
                return "invalid argument";
            case errc::shape_mismatch:
                return "an image of another shape than its batch's";
            case errc::out_of_range:
                return "index out of range";
            case errc::invalid_number:
                return "not a number";
            case errc::number_out_of_range:
                return "number out of range";
            case errc::wrong_column_count:
                return "wrong number of columns";
            case errc::empty_field:
                return "empty field";
            case errc::token_too_long:
                return "token too long";
            case errc::missing_value:
                return "missing value";
            case errc::invalid_date:
                return "not a date or timestamp";
            }
            return "unknown fastread error";
        }
    };
    static const category instance;
    return instance;
}

/// `errc` as a `std::error_code` in fastread's category.
inline std::error_code make_error_code(errc e) noexcept {
    return {static_cast<int>(e), error_category()};
}

} // namespace fastread

/// `fastread::errc` converts to `std::error_code` (`make_error_code`).
template <>
struct std::is_error_code_enum<fastread::errc> : std::true_type {};

namespace fastread {

/// What went wrong, whole: the code, the byte offset in the input where one applies, the
/// path where there is one, and the message the throwing form's exception carries.
/// A default-constructed `error` is no error: its `code()` is empty (`!code()`).
class error {
  public:
    /// No error.
    error() = default;
    /// An error `code` with the text `message` (as the exception's `what()` reads), the
    /// input's `path` (may be empty) and the byte `offset` where the problem was found
    /// (`std::nullopt` when none applies, e.g. a file that cannot be opened).
    error(std::error_code code, std::string message, std::string path = {},
          std::optional<std::uint64_t> offset = std::nullopt)
        : code_(code), offset_(offset), path_(std::move(path)), message_(std::move(message)) {}
    /// As above, for text read by lines (fastread::numbers): also the 1-based `line` and
    /// `column` (the token's index on its line, 1 for the first) where the problem was found.
    error(std::error_code code, std::string message, std::string path,
          std::optional<std::uint64_t> offset, std::optional<std::uint64_t> line,
          std::optional<std::uint64_t> column)
        : code_(code), offset_(offset), line_(line), column_(column), path_(std::move(path)),
          message_(std::move(message)) {}

    /// The code: an `errc` in `fastread::error_category()` for malformed input (and
    /// `errc::invalid_argument` / `errc::out_of_range` for a caller's mistake), the errno in
    /// `std::generic_category()` for the operating system's failures. Empty when there was
    /// no error.
    const std::error_code& code() const noexcept { return code_; }
    /// Byte offset in the input where the problem was found, if one applies.
    const std::optional<std::uint64_t>& offset() const noexcept { return offset_; }
    /// Line (1-based) where the problem was found, in text read by lines (numbers).
    const std::optional<std::uint64_t>& line() const noexcept { return line_; }
    /// Column where the problem was found, in text read by lines: the index (1-based) of
    /// the token on its line, or of the one missing.
    const std::optional<std::uint64_t>& column() const noexcept { return column_; }
    /// The input's path; empty when the input has none (memory, a pipe) or none applies.
    const std::string& path() const noexcept { return path_; }
    /// The whole message, e.g. `photo.ppm: byte 13: sample 300 exceeds maxval 255 (row 0,
    /// column 0, green)`: the text of the throwing form's exception.
    const std::string& message() const noexcept { return message_; }

  private:
    std::error_code code_;
    std::optional<std::uint64_t> offset_;
    std::optional<std::uint64_t> line_;
    std::optional<std::uint64_t> column_;
    std::string path_;
    std::string message_;
};

/// What a throwing call does with an `error` when the translation unit is built without
/// exceptions: called with the error, then the process aborts. The default prints the
/// message to stderr.
using error_handler = void (*)(const error&) noexcept;

namespace detail {

inline void print_error(const error& e) noexcept {
    std::fprintf(stderr, "fastread: %s\n", e.message().c_str());
}

inline error_handler& handler_slot() noexcept {
    static error_handler slot = &print_error;
    return slot;
}

// The slot is read and written atomically (GCC and Clang builtins; elsewhere plainly, so
// there: set the handler before other threads use fastread). <atomic> is not included for
// one pointer: it would double the preprocessed size of error.hpp.
inline error_handler exchange_handler(error_handler h) noexcept {
#if defined(__GNUC__)
    return __atomic_exchange_n(&handler_slot(), h, __ATOMIC_ACQ_REL);
#else
    const error_handler old = handler_slot();
    handler_slot() = h;
    return old;
#endif
}

inline error_handler current_handler() noexcept {
#if defined(__GNUC__)
    return __atomic_load_n(&handler_slot(), __ATOMIC_ACQUIRE);
#else
    return handler_slot();
#endif
}

} // namespace detail

/// Sets the handler that throwing calls report through when exceptions are off (see
/// `error_handler`); returns the previous one. `nullptr` restores the default. The handler
/// must not return normally into fastread: when it returns, the process aborts.
inline error_handler set_error_handler(error_handler handler) noexcept {
    return detail::exchange_handler(handler != nullptr ? handler : &detail::print_error);
}

namespace detail {

/// Reports `e` the way a throwing call does: as an exception when exceptions are on
/// (`raise_as`, the exception type the caller's contract names), else through the error
/// handler, then `std::abort()`.
template <class Exception, class... Args>
[[noreturn]] void raise_as([[maybe_unused]] const error& e, [[maybe_unused]] Args&&... args) {
#if FASTREAD_EXCEPTIONS
    throw Exception(std::forward<Args>(args)...);
#else
    current_handler()(e);
    std::abort();
#endif
}

/// Reports `e` as the throwing forms do (defined in error.hpp, which this header includes
/// at its end): `parse_error` for malformed input, `std::invalid_argument` /
/// `std::out_of_range` for a caller's mistake, `std::system_error` for the operating
/// system's failures; without exceptions, through the error handler, then `std::abort()`.
[[noreturn]] inline void throw_error(const error& e);

/// The error of errno `err` in `operation` on `path` (may be empty): code `err` in
/// `std::generic_category()`, message `<operation> "<path>": <strerror>`, as
/// `std::system_error` words it.
inline error system_error_value(int err, std::string_view operation, const std::string& path = {}) {
    std::string what(operation);
    if (!path.empty()) {
        what += " \"";
        what += path;
        what += '"';
    }
    std::error_code code(err, std::generic_category());
    what += ": ";
    what += code.message();
    return {code, std::move(what), path};
}

/// The error of malformed input found at byte `offset` of the input named `file` (may be
/// empty): code `code`, message `<file>: byte <offset>: <reason>` (`byte <offset>: <reason>`
/// without a file), as `parse_error` words it.
inline error parse_error_value(std::uint64_t offset, std::string_view reason,
                               const std::string& file = {}, errc code = errc::malformed_input) {
    std::string what = file.empty() ? std::string() : file + ": ";
    what += "byte ";
    what += std::to_string(offset);
    what += ": ";
    what += reason;
    return {make_error_code(code), std::move(what), file, offset};
}

/// The error of the caller's mistake described by `message` (`errc::invalid_argument`).
inline error invalid_argument_value(std::string message) {
    return {make_error_code(errc::invalid_argument), std::move(message)};
}

} // namespace detail

/// A `T` or the `error` that prevented it (C++20 has no `std::expected`).
///
/// `if (r)` tests for a value; `*r` and `r->` reach it (a precondition: there is one);
/// `value()` returns it or reports the error as a throwing call does; `error()` is the
/// error (no error when there is a value).
template <class T>
class result {
  public:
    /// A value.
    result(T value) : value_(std::move(value)) {}
    /// An error (its code must not be empty).
    result(fastread::error e) : error_(std::move(e)) {}

    /// Whether there is a value.
    explicit operator bool() const noexcept { return value_.has_value(); }
    /// Whether there is a value.
    bool has_value() const noexcept { return value_.has_value(); }

    /// The value (precondition: there is one).
    T& operator*() & noexcept { return *value_; }
    /// The value (precondition: there is one).
    const T& operator*() const& noexcept { return *value_; }
    /// The value, moved out (precondition: there is one).
    T&& operator*() && noexcept { return std::move(*value_); }
    /// The value's members (precondition: there is one).
    T* operator->() noexcept { return &*value_; }
    /// The value's members (precondition: there is one).
    const T* operator->() const noexcept { return &*value_; }

    /// The value; without one, the error is reported as the throwing form of the call
    /// reports it (`parse_error`, `std::system_error`, `std::invalid_argument`, or without
    /// exceptions the error handler).
    /// @throws parse_error, std::system_error or std::invalid_argument when there is none.
    T& value() & {
        if (!*this) {
            detail::throw_error(error());
        }
        return **this;
    }
    /// @throws parse_error, std::system_error or std::invalid_argument when there is none.
    const T& value() const& {
        if (!*this) {
            detail::throw_error(error());
        }
        return **this;
    }
    /// The value, moved out; @throws as `value()` when there is none.
    T&& value() && {
        if (!*this) {
            detail::throw_error(error());
        }
        return std::move(**this);
    }

    /// The error; no error (an empty `code()`) when there is a value.
    const fastread::error& error() const noexcept { return error_; }

  private:
    std::optional<T> value_;
    fastread::error error_; // empty with a value
};

/// The outcome of an operation without a value: success, or its error.
template <>
class result<void> {
  public:
    /// Success.
    result() = default;
    /// An error (its code must not be empty).
    result(fastread::error e) : error_(std::move(e)) {}

    /// Whether the operation succeeded.
    explicit operator bool() const noexcept { return !error_.code(); }
    /// Whether the operation succeeded.
    bool has_value() const noexcept { return !error_.code(); }
    /// Nothing on success; else the error is reported as a throwing call reports it.
    void value() const {
        if (error_.code()) {
            detail::throw_error(error_);
        }
    }
    /// The error; no error (an empty `code()`) on success.
    const fastread::error& error() const noexcept { return error_; }

  private:
    fastread::error error_;
};

namespace detail {
/// The value of `r`, or its error reported as throwing calls report it (`throw_error`):
/// how a throwing form is written on top of its `try_` form.
template <class T>
T value_or_throw(result<T>&& r) {
    if (!r) {
        throw_error(r.error());
    }
    return std::move(*r);
}
inline void value_or_throw(result<void>&& r) {
    if (!r) {
        throw_error(r.error());
    }
}
/// Reports `err` as throwing calls do when it holds an error; else nothing.
inline void throw_if(const error& err) {
    if (err.code()) {
        throw_error(err);
    }
}
} // namespace detail

} // namespace fastread

namespace fastread::detail {
/// What a FASTREAD_CATCH_AS names without exceptions: never reached (no exception can
/// arrive), so any object of the type will do.
template <class Exception>
const Exception& unreachable_exception() {
    static const Exception e{std::error_code(), std::string()};
    return e;
}
} // namespace fastread::detail

/// `try` where exceptions are on; `if (true)` without them (no exception can then arrive:
/// a throwing form reports through the error handler, then aborts).
#if FASTREAD_EXCEPTIONS
#define FASTREAD_TRY try
/// `catch (...)` where exceptions are on; `else if (false)` without them.
#define FASTREAD_CATCH_ALL catch (...)
/// `catch (const Exception& name)` where exceptions are on; without them a branch never
/// taken that declares `name` (Exception: std::system_error or a class built like it).
#define FASTREAD_CATCH_AS(Exception, name) catch (const Exception& name)
/// `throw;` where exceptions are on; `std::abort()` without them (never reached).
#define FASTREAD_RETHROW throw
#else
#define FASTREAD_TRY if (true)
#define FASTREAD_CATCH_ALL else if (false)
#define FASTREAD_CATCH_AS(Exception, name)                                                         \
    else if (const Exception& name = ::fastread::detail::unreachable_exception<Exception>();       \
             ((void)name, false))
#define FASTREAD_RETHROW std::abort()
#endif

#endif // FASTREAD_RESULT_HPP

// throw_error's definition needs parse_error.
#include "error.hpp"
