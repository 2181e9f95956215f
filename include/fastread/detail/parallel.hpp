#ifndef FASTREAD_DETAIL_PARALLEL_HPP
#define FASTREAD_DETAIL_PARALLEL_HPP

// Splitting work over a few threads: contiguous slices, the first on the calling thread.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include <pthread.h>
#include <sched.h>
#if defined(_WIN32)
#include <thread>
#else
#include <unistd.h>
#endif

#include "../result.hpp"
#include "platform.hpp"
#include "thread_limit.hpp"

namespace fastread::detail {

/// Where new worker threads start: on the CPUs other than the one the creating thread runs
/// on, in turn. On some virtual machines the scheduler puts a new thread on its creator's
/// CPU and leaves it waiting there while the creator keeps working and the other CPU idles
/// (figures: docs/benchmarks/, "Compare and duplicates"). Each thread widens its
/// affinity back to the creator's whole set as soon as it runs, so it is not pinned.
/// Without Linux's affinity calls (FASTREAD_LINUX_CALLS 0) threads start anywhere.
#if FASTREAD_LINUX_CALLS
class cpu_spread {
  public:
    cpu_spread() noexcept {
        if (::sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) {
            return;
        }
        known_ = true;
        const int here = ::sched_getcpu();
        for (int cpu = 0; cpu < CPU_SETSIZE && others_ < max_cpus; ++cpu) {
            if (CPU_ISSET(cpu, &allowed_) && cpu != here) {
                other_[others_++] = cpu;
            }
        }
    }

    /// The CPU the k-th thread started (k = 0, 1, ...) should start on, or -1: anywhere.
    int cpu_for(unsigned k) const noexcept { return others_ == 0 ? -1 : other_[k % others_]; }

    /// The CPUs every thread may run on once started, or null if unknown.
    const cpu_set_t* allowed() const noexcept { return known_ ? &allowed_ : nullptr; }

  private:
    static constexpr unsigned max_cpus = 256;
    cpu_set_t allowed_{};
    bool known_ = false;
    int other_[max_cpus]{};
    unsigned others_ = 0;
};
#else
class cpu_spread {
  public:
    int cpu_for(unsigned) const noexcept { return -1; }
};
#endif

/// A joinable thread started by pthread_create on the CPU that a cpu_spread chose, then
/// free to run on any CPU its creator may use (see cpu_spread). `fn` must not throw.
/// Unlike std::thread, the destructor joins.
class spread_thread {
  public:
    /// Starts the thread; if none can be created, `err` is the errno (pthread_attr_init's
    /// or pthread_create's) and the object joins nothing.
    template <class Fn>
    spread_thread(Fn fn, const cpu_spread& spread, unsigned k, int& err) {
        std::unique_ptr<state> start = std::make_unique<task<Fn>>(std::move(fn));
        pthread_attr_t attr;
        if (err = ::pthread_attr_init(&attr); err != 0) {
            return;
        }
        const int cpu = spread.cpu_for(k);
#if FASTREAD_LINUX_CALLS
        if (const cpu_set_t* all = spread.allowed()) {
            start->widen = *all;
            start->has_widen = true;
        }
        if (cpu >= 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            (void)::pthread_attr_setaffinity_np(&attr, sizeof one, &one);
        }
#endif
        err = ::pthread_create(&id_, &attr, &run, start.get());
        if (err == EINVAL && cpu >= 0) { // that CPU went away meanwhile: start anywhere
            err = ::pthread_create(&id_, nullptr, &run, start.get());
        }
        ::pthread_attr_destroy(&attr);
        if (err != 0) {
            return;
        }
        start.release(); // now owned by the thread
        joinable_ = true;
    }
    /// @throws std::system_error if no thread can be created.
    template <class Fn>
    spread_thread(Fn fn, const cpu_spread& spread, unsigned k)
        : spread_thread(std::move(fn), spread, k, start_error_) {
        if (start_error_ != 0) {
            throw_error(system_error_value(start_error_, "pthread_create"));
        }
    }
    /// Whether the thread runs (or ran): false when it could not be created.
    bool started() const noexcept {
        return joinable_;
    }
    spread_thread(spread_thread&& other) noexcept
        : id_(other.id_), joinable_(std::exchange(other.joinable_, false)) {}
    spread_thread& operator=(spread_thread&&) = delete;
    spread_thread(const spread_thread&) = delete;
    spread_thread& operator=(const spread_thread&) = delete;
    ~spread_thread() {
        join();
    }

    void join() noexcept {
        if (joinable_) {
            ::pthread_join(id_, nullptr);
            joinable_ = false;
        }
    }

  private:
    struct state {
        virtual ~state() = default;
        virtual void run() noexcept = 0;
#if FASTREAD_LINUX_CALLS
        cpu_set_t widen{};
        bool has_widen = false;
#endif
    };
    template <class Fn>
    struct task final : state {
        explicit task(Fn f) : fn(std::move(f)) {}
        void run() noexcept override { fn(); }
        Fn fn;
    };

    static void* run(void* arg) noexcept {
        const std::unique_ptr<state> start(static_cast<state*>(arg));
#if FASTREAD_LINUX_CALLS
        if (start->has_widen) {
            (void)::pthread_setaffinity_np(::pthread_self(), sizeof start->widen, &start->widen);
        }
#endif
        start->run(); // noexcept: an exception here terminates, as with std::thread
        return nullptr;
    }

    pthread_t id_{};
    bool joinable_ = false;
    int start_error_ = 0; // the throwing constructor's
};

/// Runs body(t, begin, end) for `threads` contiguous slices [begin, end) of [0, n), slice 0
/// on this thread, and waits for all. A slice whose thread cannot be created (EAGAIN: a
/// process, user or container limit on threads) runs on this thread after slice 0, so the
/// work is done either way. If bodies throw, rethrows the exception of the lowest-numbered
/// slice after every slice has finished.
template <class Body>
void in_slices(std::size_t n, unsigned threads, Body body) {
    if (const std::optional<unsigned> limit = explicit_thread_limit()) {
        threads = std::min(threads, *limit); // the thread knob (thread_limit.hpp)
    }
    if (threads <= 1) {
        body(0u, std::size_t{0}, n);
        return;
    }
    std::vector<std::exception_ptr> errors(threads); // std::bad_alloc, a caller's body's
    auto run = [&](unsigned t) {
        FASTREAD_TRY {
            body(t, n * t / threads, n * (t + 1) / threads);
        }
        FASTREAD_CATCH_ALL {
            errors[t] = std::current_exception();
        }
    };
    std::vector<spread_thread> pool;
    pool.reserve(threads - 1);
    const cpu_spread spread;
    unsigned started = 1; // slices 1 .. started - 1 have a thread
    for (; started < threads; ++started) {
        int err = 0;
        pool.emplace_back([&run, t = started] { run(t); }, spread, started - 1, err);
        if (err != 0) {
            pool.pop_back();
            break; // no more threads now: the rest run here
        }
    }
    run(0);
    for (unsigned t = started; t < threads; ++t) {
        run(t);
    }
    for (spread_thread& th : pool) {
        th.join();
    }
    for (const std::exception_ptr& e : errors) {
        if (e) {
            std::rethrow_exception(e);
        }
    }
}

/// CPUs online (at least 1), asked once per process: glibc answers by reading
/// /sys/devices/system/cpu/online (open, read, close), which cost a tenth of ppm::load's
/// time for a 2 MB P6 when asked on every call.
inline unsigned cpu_count() noexcept {
    static const unsigned cpus = [] {
#if defined(_WIN32)
        return std::max(1u, std::thread::hardware_concurrency());
#else
        const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? static_cast<unsigned>(n) : 1u;
#endif
    }();
    return cpus;
}

/// The threads a call may use for work on the CPU: the thread knob's limit where one is
/// set (thread_limit.hpp), else one per CPU.
inline unsigned usable_threads() {
    return explicit_thread_limit().value_or(cpu_count());
}

/// Threads for a batch of `n` independent items: one per usable thread (at most `most`),
/// or one for a batch too small to repay starting threads.
inline unsigned threads_for(std::size_t n, std::size_t min_per_thread, unsigned most) {
    const std::size_t by_size = n / (min_per_thread == 0 ? 1 : min_per_thread);
    if (by_size <= 1) {
        return 1;
    }
    return static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>({usable_threads(), most, by_size})));
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_PARALLEL_HPP
