#ifndef FASTREAD_DETAIL_PARALLEL_HPP
#define FASTREAD_DETAIL_PARALLEL_HPP

// Splitting work over a few threads: contiguous slices, the first on the calling thread.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace fastread::detail {

/// Runs body(t, begin, end) for `threads` contiguous slices [begin, end) of [0, n), slice 0
/// on this thread, and waits for all. If bodies throw, rethrows the exception of the
/// lowest-numbered slice after every thread has finished.
template <class Body>
void in_slices(std::size_t n, unsigned threads, Body body) {
    if (threads <= 1) {
        body(0u, std::size_t{0}, n);
        return;
    }
    std::vector<std::exception_ptr> errors(threads);
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t) {
        pool.emplace_back([&, t] {
            try {
                body(t, n * t / threads, n * (t + 1) / threads);
            } catch (...) {
                errors[t] = std::current_exception();
            }
        });
    }
    try {
        body(0u, std::size_t{0}, n / threads);
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (std::thread& th : pool) {
        th.join();
    }
    for (const std::exception_ptr& e : errors) {
        if (e) {
            std::rethrow_exception(e);
        }
    }
}

/// Threads for a batch of `n` independent items: one per CPU (at most `most`), or one for
/// a batch too small to repay starting threads.
inline unsigned threads_for(std::size_t n, std::size_t min_per_thread, unsigned most) {
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t by_size = n / (min_per_thread == 0 ? 1 : min_per_thread);
    return static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>({cpus, most, by_size})));
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_PARALLEL_HPP
