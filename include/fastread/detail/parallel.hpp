#ifndef FASTREAD_DETAIL_PARALLEL_HPP
#define FASTREAD_DETAIL_PARALLEL_HPP

// Splitting work over a few threads: contiguous slices, the first on the calling thread.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
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

/// Runs body(t) on `start` threads (t = 0 on this thread) that may be joined by more, up
/// to `most` in all, when one of them calls grow() (e.g. on learning that its reads wait
/// for the device); waits for all. If bodies throw, rethrows the exception of the
/// lowest-numbered thread after every thread has finished. A thread that cannot be
/// started is left out.
template <class Body>
class growing_team {
  public:
    growing_team(unsigned start, unsigned most, Body body)
        : start_(std::max(1u, start)), most_(std::max(start_, most)), body_(std::move(body)),
          errors_(most_) {}

    void run() {
        std::vector<std::thread> first;
        first.reserve(start_ - 1);
        for (unsigned t = 1; t < start_; ++t) {
            try {
                first.emplace_back([this, t] { call(t); });
            } catch (const std::system_error&) {
                break;
            }
        }
        call(0);
        for (std::thread& th : first) {
            th.join();
        }
        // Only the first grow() adds threads, and it returns before its caller (one of the
        // threads joined above) can finish: `extra_` no longer changes.
        for (std::thread& th : extra_) {
            th.join();
        }
        for (const std::exception_ptr& e : errors_) {
            if (e) {
                std::rethrow_exception(e);
            }
        }
    }

    /// Adds the remaining threads (first call only; later calls return at once).
    void grow() noexcept {
        if (grown_.exchange(true)) {
            return;
        }
        try {
            extra_.reserve(most_ - start_);
            for (unsigned t = start_; t < most_; ++t) {
                extra_.emplace_back([this, t] { call(t); });
            }
        } catch (...) { // std::system_error or std::bad_alloc: run with the threads there are
        }
    }

    bool grown() const noexcept { return grown_.load(std::memory_order_relaxed); }

  private:
    void call(unsigned t) noexcept {
        try {
            body_(t);
        } catch (...) {
            errors_[t] = std::current_exception();
        }
    }

    unsigned start_, most_;
    Body body_;
    std::vector<std::exception_ptr> errors_;
    std::vector<std::thread> extra_;
    std::atomic<bool> grown_{false};
};

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
