#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_THREADS_HPP)
#define FASTREAD_THREADS_HPP

/// @file
/// The one thread knob. Some jobs use more than the calling thread: raw and P3 rasters of
/// big cached files read in slices (`pnm::load`, `ppm::load`, `pfm::load`, `pnm::load_into`),
/// the images of `pnm::load_batch` and the headers of `pnm::probe_batch`, `numbers`,
/// `columns`, `csv::columns`, `csv::read` and `csv::count_rows` of big cached files, `lines(path)`
/// reading ahead of the scan, `read_at` and `update_at` batches, `files_equal` of big files, the
/// duplicate finder
/// (`find_duplicates`, `find_duplicate_files`); docs/defaults.md says when. How many threads a call
/// may use, the calling thread included, is, in this order:
/// 1. the `threads` field of the call's options, when not 0;
/// 2. `set_max_threads(n)`, when called with n > 0;
/// 3. the environment variable `FASTREAD_THREADS` (a whole number, 1 or more);
/// 4. else the job's own default: one thread per CPU (at most 8) for work on the CPU, and
///    for the duplicate finder, whose threads mostly wait for a device, up to 8 per CPU.
///
/// With 1, fastread starts no thread at all. Results never depend on the setting. A
/// `FASTREAD_THREADS` that is not a whole number of 1 or more makes the entry points that
/// would read it throw std::invalid_argument naming it.

#include "detail/thread_limit.hpp"

namespace fastread {

/// Sets the process-wide limit on the threads one call of fastread uses (the calling
/// thread included); 0 returns to the default (`FASTREAD_THREADS`, else the job's own).
/// Thread-safe; takes effect at the next call.
inline void set_max_threads(unsigned n) noexcept {
    detail::thread_setting().store(n, std::memory_order_relaxed);
}

/// What set_max_threads stored, else `FASTREAD_THREADS`, else 0 (the jobs' defaults).
/// @throws std::invalid_argument if `FASTREAD_THREADS` is set to something else than a
///         whole number of 1 or more.
inline unsigned max_threads() {
    return detail::process_thread_setting().value_or(0);
}

} // namespace fastread

#endif // FASTREAD_THREADS_HPP
