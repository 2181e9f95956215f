#ifndef FASTREAD_DUPLICATES_DETAIL_PROCESS_HPP
#define FASTREAD_DUPLICATES_DETAIL_PROCESS_HPP

// What the process and its threads have done so far: page faults, blocks read, open
// descriptors (getrusage, /proc/self/fd), for the duplicate finder and the tests.

#include <cstdint>

#include "../../detail/posix.hpp"

namespace fastread::detail {

/// Minor page faults the calling thread has taken so far (getrusage RUSAGE_THREAD,
/// ru_minflt), or -1 where the system does not count them per thread.
inline std::int64_t thread_minor_faults() noexcept {
#if FASTREAD_LINUX_CALLS && defined(RUSAGE_THREAD)
    rusage usage{};
    return sys::getrusage(RUSAGE_THREAD, &usage) == 0 ? static_cast<std::int64_t>(usage.ru_minflt)
                                                      : -1;
#else
    return -1;
#endif
}

/// Block input operations (reads that went to the device) of the calling thread so far
/// (getrusage RUSAGE_THREAD, ru_inblock), or -1 where the system does not count them per
/// thread.
inline std::int64_t thread_blocks_read() noexcept {
#if FASTREAD_LINUX_CALLS && defined(RUSAGE_THREAD)
    rusage usage{};
    return ::getrusage(RUSAGE_THREAD, &usage) == 0 ? static_cast<std::int64_t>(usage.ru_inblock)
                                                   : -1;
#else
    return -1;
#endif
}

/// Descriptors this process has open now (counted in Linux's /proc/self/fd), or -1 where
/// that cannot be counted. O(descriptors open).
inline std::int64_t open_descriptors() noexcept {
#if FASTREAD_LINUX_CALLS
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) {
        return -1;
    }
    std::int64_t open = 0;
    while (const dirent* e = ::readdir(dir)) {
        open += e->d_name[0] != '.';
    }
    ::closedir(dir);
    return open > 0 ? open - 1 : 0; // less the directory's own descriptor
#else
    return -1;
#endif
}

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_PROCESS_HPP
