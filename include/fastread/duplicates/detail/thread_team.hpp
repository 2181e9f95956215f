#ifndef FASTREAD_DUPLICATES_DETAIL_THREAD_TEAM_HPP
#define FASTREAD_DUPLICATES_DETAIL_THREAD_TEAM_HPP

// A team of threads that grows while it runs: the duplicate finder's walk and comparisons,
// which learn only as they read whether their reads wait for a device.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "../../detail/parallel.hpp"
#include "../../detail/thread_limit.hpp"

namespace fastread::detail {

/// Runs body(t) on `start` threads (t = 0 on this thread) that may be joined by more, up
/// to `most` in all, when one of them calls grow_to() or grow() (e.g. on learning that its
/// reads wait for the device); waits for all. If bodies throw, rethrows the exception of
/// the lowest-numbered thread after every thread has finished. A thread that cannot be
/// started is left out.
template <class Body>
class growing_team {
  public:
    /// `start` and `most` are capped by the thread knob's limit (thread_limit.hpp).
    growing_team(unsigned start, unsigned most, Body body)
        : start_(std::max(1u, capped(start))), most_(std::max(start_, capped(most))),
          body_(std::move(body)), errors_(most_) {
        extra_.reserve(most_ - start_); // never reallocated: run() joins while others add
    }

    void run() {
        std::vector<spread_thread> first;
        first.reserve(start_ - 1);
        for (unsigned t = 1; t < start_; ++t) {
            int err = 0;
            first.emplace_back([this, t] { call(t); }, spread_, t - 1, err);
            if (err != 0) {
                first.pop_back();
                break;
            }
        }
        call(0);
        for (spread_thread& th : first) {
            th.join();
        }
        // Added threads, in the order added; a thread adds only while it runs, and what it
        // adds comes after it, so the loop ends when every thread has been joined.
        for (std::size_t k = 0;; ++k) {
            spread_thread* th = nullptr;
            {
                const std::lock_guard<std::mutex> lock(m_);
                if (k == extra_.size()) {
                    break;
                }
                th = &extra_[k];
            }
            th->join();
        }
        for (const std::exception_ptr& e : errors_) {
            if (e) {
                std::rethrow_exception(e);
            }
        }
    }

    /// Adds threads until there are `n` (at most `most`); thread-safe.
    void grow_to(unsigned n) noexcept {
        n = std::min(n, most_);
        if (threads_.load(std::memory_order_relaxed) >= n) {
            return;
        }
        const std::lock_guard<std::mutex> lock(m_);
        while (threads_ < n) {
            const unsigned t = threads_;
            int err = 0;
            extra_.emplace_back([this, t] { call(t); }, spread_, t - 1, err);
            if (err != 0) {
                extra_.pop_back();
                threads_ = most_; // run with the threads there are
                return;
            }
            ++threads_;
        }
    }

    /// Adds the remaining threads.
    void grow() noexcept { grow_to(most_); }

    bool grown() const noexcept { return threads_.load(std::memory_order_relaxed) == most_; }

  private:
    static unsigned capped(unsigned n) {
        const std::optional<unsigned> limit = explicit_thread_limit();
        return limit ? std::min(n, *limit) : n;
    }
    void call(unsigned t) noexcept {
        FASTREAD_TRY {
            body_(t);
        }
        FASTREAD_CATCH_ALL {
            errors_[t] = std::current_exception();
        }
    }

    unsigned start_, most_;
    Body body_;
    std::vector<std::exception_ptr> errors_;
    cpu_spread spread_; // from the thread that made the team, which runs it
    std::mutex m_;
    std::vector<spread_thread> extra_;
    std::atomic<unsigned> threads_{start_};
};

} // namespace fastread::detail

#endif // FASTREAD_DUPLICATES_DETAIL_THREAD_TEAM_HPP
