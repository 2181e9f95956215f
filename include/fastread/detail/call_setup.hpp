#ifndef FASTREAD_DETAIL_CALL_SETUP_HPP
#define FASTREAD_DETAIL_CALL_SETUP_HPP

// The one call-setup step of every entry point that reads or writes a file: the process
// settings its options defer to are read here, inside the call, never when an options struct
// is made. `io == io_mode::process_setting` reads FASTREAD_IO and `threads == 0` (or options
// without a `threads` field) checks FASTREAD_THREADS; a bad value is errc::invalid_argument
// naming the variable and its value, returned before anything is opened. The throwing forms
// are written on the try_ forms, so they throw the same std::invalid_argument.

#include "../result.hpp"
#include "io_mode.hpp"
#include "thread_limit.hpp"

namespace fastread::detail {

/// Options of an entry point that has none (a probe, a save, a string table's open): what
/// it defers to is the process setting of both variables.
struct no_options {};

/// `options` with `io` resolved to io_mode::read or io_mode::map (where the struct has an
/// `io` field), or the error of a process setting the options defer to. Reads `FASTREAD_IO`
/// and `FASTREAD_THREADS` once each; never throws but std::bad_alloc (the message).
template <class Options>
result<Options> settle_call(Options options) {
    bool threads_deferred = true;
    if constexpr (requires { options.threads; }) {
        threads_deferred = options.threads == 0;
    }
    if (threads_deferred) {
        if (error e = thread_setting_error(); e.code()) {
            return e;
        }
    }
    if constexpr (requires { options.io; }) {
        if (error e = resolve_io(options.io); e.code()) {
            return e;
        }
    } else {
        io_mode io = io_mode::process_setting;
        if (error e = resolve_io(io); e.code()) {
            return e;
        }
    }
    return options;
}

/// settle_call for a throwing form that is not written on its try_ form: the settled
/// options. @throws std::invalid_argument for a bad process setting the options defer to.
template <class Options>
Options settle_call_or_throw(const Options& options) {
    return value_or_throw(settle_call(options));
}

/// settle_call for an entry point without options: the error of a bad process setting, or
/// none.
inline error process_setting_error() {
    result<no_options> settled = settle_call(no_options{});
    return settled ? error() : settled.error();
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_CALL_SETUP_HPP
