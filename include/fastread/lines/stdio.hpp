// The public header first: it includes this one at its end, after what this one uses.
#include "../detail/cxx20.hpp"
#include "../lines.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_LINES_STDIO_HPP)
#define FASTREAD_LINES_STDIO_HPP

/// @file
/// The lines of a `std::FILE*` (stdin, a popen'ed pipe): `lines(file)` and `try_lines(file)`.
/// lines.hpp includes this header; in the compiled mode (FASTREAD_SEPARATE_COMPILATION),
/// where lines.hpp declares the path forms and the byte-source form only, include it for
/// these.

#include <cstdio>
#include <memory>
#include <utility>

#include "../detail/call_setup.hpp"
#include "../source/stdio_source.hpp"

namespace fastread {

/// The lines read from `file` (e.g. stdin) with `fread` of 64 KiB chunks; `file` is borrowed
/// and never closed.
/// @throws std::invalid_argument if `file` is null; std::bad_alloc; while iterating,
///         std::system_error if a read fails (stdio_source).
inline line_range<stdio_source> lines(std::FILE* file, line_options options = {}) {
    options = detail::settle_call_or_throw(options);
    return line_range<stdio_source>(std::make_unique<stdio_source>(file), options);
}

/// `lines(file)` without exceptions: the range, or the error (`errc::invalid_argument` for
/// a null `file`, fstat's errno). A read error while iterating ends the iteration and is
/// kept: `range.error()`. Never throws but `std::bad_alloc`.
inline result<line_range<stdio_source>> try_lines(std::FILE* file, line_options options = {}) {
    if (const result<line_options> settled = detail::settle_call(options); !settled) {
        return settled.error();
    }
    result<stdio_source> source = stdio_source::try_open(file);
    if (!source) {
        return source.error();
    }
    return detail::line_range_access::reporting(
        line_range<stdio_source>(std::make_unique<stdio_source>(std::move(*source)), options));
}

} // namespace fastread

#endif // FASTREAD_LINES_STDIO_HPP
