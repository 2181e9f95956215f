#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_IO_HPP)
#define FASTREAD_IO_HPP

/// @file
/// How fastread's entry points reach the bytes of a regular file: by reading them
/// (`read(2)` / `pread(2)` into a reused buffer, or straight into the destination), the
/// default, or by mapping them (`mmap`), when the caller asks. Which is faster depends on
/// the host (docs/defaults.md), and a file that shrinks under a map
/// is a signal, not an error. So defaults read, and a caller who wants maps asks: per call
/// (the `io` field of the job's options) or per process (the environment variable
/// `FASTREAD_IO=map`, which the default `io_mode::process_setting` defers to).
/// `fastread-bench` shows what a map buys on the user's machine: every table has a map row
/// beside the default.
///
/// Options structs are plain values: making one reads no environment variable and never
/// throws. `FASTREAD_IO` is read inside each call whose options defer to it, where a value
/// other than `read` or `map` is `errc::invalid_argument` naming the variable and its value:
/// an error value from a `try_` form, a `std::invalid_argument` from the throwing form.
///
/// An entry point asked to map guards its map: a file that shrinks during the call gives an
/// error, not SIGBUS; the guard is a process-wide SIGBUS handler, installed on the first
/// such call (detail/bus_guard.hpp). Reading never installs one. The explicit sources and
/// methods (`mmap_source`, `read_source`, `compare_method::mmap`, `access_method::pread`, ...)
/// always do what their names say.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "detail/io_mode.hpp"
#include "result.hpp"

namespace fastread {

/// Parses a `FASTREAD_IO` value: "read" or "map".
/// @throws std::invalid_argument naming the variable and the value otherwise.
inline io_mode parse_io_mode(std::string_view value) {
    io_mode mode = io_mode::read;
    detail::throw_if(detail::io_value_error(value, mode));
    return mode;
}

/// The mode `FASTREAD_IO` asks for (read at each call), or `std::nullopt` when it is unset
/// or empty. @throws std::invalid_argument if it is set to something else than
/// parse_io_mode accepts.
inline std::optional<io_mode> io_mode_from_environment() {
    const char* value = std::getenv("FASTREAD_IO");
    if (value == nullptr || *value == '\0') {
        return std::nullopt;
    }
    return parse_io_mode(value);
}

} // namespace fastread

#endif // FASTREAD_IO_HPP
