#ifndef FASTREAD_DETAIL_PLATFORM_HPP
#define FASTREAD_DETAIL_PLATFORM_HPP

// Which system interfaces fastread uses. Linux-only calls (cachestat, preadv2 with
// RWF_NOWAIT, O_TMPFILE, copy_file_range, CPU affinity, RUSAGE_THREAD, /proc, io_uring) are used
// where FASTREAD_LINUX_CALLS is 1: on Linux, unless FASTREAD_POSIX_FALLBACKS is defined to 1.
// Elsewhere (macOS, the BSDs) and with that macro, each has a POSIX fallback: the `posix` CMake
// preset builds the test suite with it, so the fallbacks run on Linux too (scripts/test --all).

#if defined(__linux__) && !(defined(FASTREAD_POSIX_FALLBACKS) && FASTREAD_POSIX_FALLBACKS)
#define FASTREAD_LINUX_CALLS 1
#else
#define FASTREAD_LINUX_CALLS 0
#endif

#if !FASTREAD_LINUX_CALLS
#undef FASTREAD_HAVE_LIBURING
#define FASTREAD_HAVE_LIBURING 0 // io_uring is Linux's
#endif

#endif // FASTREAD_DETAIL_PLATFORM_HPP
