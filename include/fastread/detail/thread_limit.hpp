#ifndef FASTREAD_DETAIL_THREAD_LIMIT_HPP
#define FASTREAD_DETAIL_THREAD_LIMIT_HPP

// The one thread knob: how many threads a call of fastread may use, the calling thread
// included. The process setting (fastread::set_max_threads, else the environment variable
// FASTREAD_THREADS, else the CPU count) and, within one call, its options' `threads` field.
// Every place that starts a thread (in_slices, growing_team, read_ahead, the duplicate
// finder) asks thread_limit(); with 1 no thread is started.

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

#include "../result.hpp"

namespace fastread::detail {

/// What fastread::set_max_threads stored; 0: not set.
inline std::atomic<unsigned>& thread_setting() noexcept {
    static std::atomic<unsigned> setting{0};
    return setting;
}

/// The error of a `FASTREAD_THREADS` value that is not a count (a decimal integer of 1 or
/// more): errc::invalid_argument naming the variable and the value; else none, with the
/// count in `n`.
inline error thread_count_error(const char* value, unsigned& n) {
    n = 0;
    const char* end = value + std::strlen(value);
    const auto [at, ec] = std::from_chars(value, end, n);
    if (ec != std::errc() || at != end || n == 0) {
        return invalid_argument_value(std::string("FASTREAD_THREADS=") + value +
                                      ": expected a whole number of threads, 1 or more");
    }
    return {};
}

/// A `FASTREAD_THREADS` value as a count: a decimal integer of 1 or more.
/// @throws std::invalid_argument naming the variable and the value otherwise.
inline unsigned parse_thread_count(const char* value) {
    unsigned n = 0;
    throw_if(thread_count_error(value, n));
    return n;
}

/// The error of the process's thread setting (a `FASTREAD_THREADS` that is not a count, when
/// set_max_threads did not set one), or none: what the try_ forms that may start threads
/// check first, so that the setting is reported as a value.
inline error thread_setting_error() {
    if (thread_setting().load(std::memory_order_relaxed) != 0) {
        return {};
    }
    const char* value = std::getenv("FASTREAD_THREADS");
    if (value == nullptr || *value == '\0') {
        return {};
    }
    unsigned n = 0;
    return thread_count_error(value, n);
}

/// The count the process asked for (set_max_threads, else `FASTREAD_THREADS`, read at each
/// call), or std::nullopt when neither is set.
/// @throws std::invalid_argument for a `FASTREAD_THREADS` that is not a count.
inline std::optional<unsigned> process_thread_setting() {
    if (const unsigned n = thread_setting().load(std::memory_order_relaxed); n != 0) {
        return n;
    }
    const char* value = std::getenv("FASTREAD_THREADS");
    if (value == nullptr || *value == '\0') {
        return std::nullopt;
    }
    return parse_thread_count(value);
}

/// The limit of the call running on this thread (thread_scope), 0 outside one.
inline unsigned& call_thread_limit() noexcept {
    static thread_local unsigned limit = 0;
    return limit;
}

/// The limit an explicit setting puts on this call: the call's `threads` option if it gave
/// one, else the process setting, else std::nullopt (the job's own default applies: one
/// thread per CPU for work on the CPU, more for the duplicate finder's waits on a device).
inline std::optional<unsigned> explicit_thread_limit() {
    if (const unsigned n = call_thread_limit(); n != 0) {
        return n;
    }
    return process_thread_setting();
}

/// Sets the limit of one call for its duration, on the calling thread (the threads it
/// starts are bounded by the count they are given): `threads` from the call's options
/// (0: the process setting). Scopes nest; the innermost one that gave a count wins.
class thread_scope {
  public:
    explicit thread_scope(unsigned threads) noexcept : saved_(call_thread_limit()) {
        if (threads != 0) {
            call_thread_limit() = threads;
        }
    }
    thread_scope(const thread_scope&) = delete;
    thread_scope& operator=(const thread_scope&) = delete;
    ~thread_scope() { call_thread_limit() = saved_; }

  private:
    unsigned saved_;
};

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_THREAD_LIMIT_HPP
