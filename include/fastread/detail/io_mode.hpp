#ifndef FASTREAD_DETAIL_IO_MODE_HPP
#define FASTREAD_DETAIL_IO_MODE_HPP

// fastread::io_mode (documented with fastread/io.hpp, which users include) and the reading of
// FASTREAD_IO inside a call: here, below the call setup (detail/call_setup.hpp) that every
// entry point uses.

#include <cstdlib>
#include <string>
#include <string_view>

#include "../result.hpp"

namespace fastread {

/// How an entry point reaches a regular file.
enum class io_mode {
    /// The process setting, the default of every options struct: `FASTREAD_IO` when it is
    /// set and not empty (read inside the call), else `read`.
    process_setting,
    /// `read(2)` / `pread(2)`: never faults, works on every kind of file.
    read,
    /// A read-only `mmap`, guarded so that a file that shrinks gives an error instead of
    /// SIGBUS; falls back to `read` where the file cannot be mapped (pipes, sysfs, an
    /// address-space limit) or no guard can be set.
    map,
};

/// "process setting", "read" or "map".
constexpr std::string_view to_string(io_mode m) noexcept {
    switch (m) {
    case io_mode::map:
        return "map";
    case io_mode::read:
        return "read";
    case io_mode::process_setting:
        break;
    }
    return "process setting";
}

namespace detail {

/// The error of a `FASTREAD_IO` value other than "read" or "map" (errc::invalid_argument
/// naming the variable and the value), or none with the mode in `mode`.
inline error io_value_error(std::string_view value, io_mode& mode) {
    if (value == "read") {
        mode = io_mode::read;
        return {};
    }
    if (value == "map") {
        mode = io_mode::map;
        return {};
    }
    return invalid_argument_value("FASTREAD_IO=" + std::string(value) + ": expected read or map");
}

/// What `io` means in this call: `io` itself unless it is io_mode::process_setting, else
/// `FASTREAD_IO` read now (unset or empty: io_mode::read). A bad `FASTREAD_IO` is its error,
/// with `io` left as it was.
inline error resolve_io(io_mode& io) {
    if (io != io_mode::process_setting) {
        return {};
    }
    const char* value = std::getenv("FASTREAD_IO");
    if (value == nullptr || *value == '\0') {
        io = io_mode::read;
        return {};
    }
    return io_value_error(value, io);
}

} // namespace detail

} // namespace fastread

#endif // FASTREAD_DETAIL_IO_MODE_HPP
