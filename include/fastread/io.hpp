#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_IO_HPP)
#define FASTREAD_IO_HPP

/// @file
/// How fastread's entry points reach the bytes of a regular file: by reading them
/// (`read(2)` / `pread(2)` into a reused buffer, or straight into the destination), the
/// default, or by mapping them (`mmap`), when the caller asks. Which is faster depends on
/// the host: a cached pass through a map ran 2x faster than reading on one virtual machine
/// and 3-5x slower on another (docs/benchmarks/notes-2026-11.md, "Reading or mapping"), and a file
/// that shrinks under a map is a signal, not an error. So defaults read, and a caller who wants
/// maps asks: per call (the `io` field of the job's options) or per process (the environment
/// variable `FASTREAD_IO=map`, which sets that field's default). `fastread-bench` shows
/// what a map buys on the user's machine: every table has a map row beside the default.
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

#include "result.hpp"

namespace fastread {

/// How an entry point reaches a regular file.
enum class io_mode {
    /// `read(2)` / `pread(2)`: never faults, works on every kind of file. The default.
    read,
    /// A read-only `mmap`, guarded so that a file that shrinks gives an error instead of
    /// SIGBUS; falls back to `read` where the file cannot be mapped (pipes, sysfs, an
    /// address-space limit) or no guard can be set.
    map,
};

/// "read" or "map".
constexpr std::string_view to_string(io_mode m) noexcept {
    return m == io_mode::map ? "map" : "read";
}

/// Parses a `FASTREAD_IO` value: "read" or "map".
/// @throws std::invalid_argument naming the variable and the value otherwise.
inline io_mode parse_io_mode(std::string_view value) {
    if (value == "read") {
        return io_mode::read;
    }
    if (value == "map") {
        return io_mode::map;
    }
    detail::throw_error(detail::invalid_argument_value("FASTREAD_IO=" + std::string(value) +
                                                       ": expected read or map"));
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

/// The default of every options struct's `io` field: `FASTREAD_IO` when set, else
/// `io_mode::read`. Read when the options are made.
/// @throws std::invalid_argument as io_mode_from_environment.
inline io_mode default_io_mode() {
    return io_mode_from_environment().value_or(io_mode::read);
}

} // namespace fastread

#endif // FASTREAD_IO_HPP
