#ifndef FASTREAD_DETAIL_BUS_GUARD_HPP
#define FASTREAD_DETAIL_BUS_GUARD_HPP

// A SIGBUS guard for fastread's own file maps. Linux raises SIGBUS when a thread
// touches a page of a file map that lies past the file's current end (the file was
// truncated after it was mapped). While a map is registered here, such a fault does not
// kill the process: the handler replaces the map from the faulting page to its end with
// zero-filled anonymous pages, records where, and returns, so that the faulting load runs
// again and reads zeros. The reader then asks lost() and turns the loss into an error.
// A SIGBUS anywhere else goes to the handler that was installed before (or, if there was
// none, ends the process as it would have without fastread). A program that installs its
// own SIGBUS handler later gets it chained too: each new guard checks that the handler is
// still fastread's and puts it back in front if not. No longjmp: the parsers'
// stack frames are never skipped. Prior art: libtorrent's guard over its disk maps.

#if defined(_WIN32)

#include <cstddef>
#include <cstdint>

namespace fastread::detail {

// Windows refuses to shrink a file while a view of it is mapped (ERROR_USER_MAPPED_FILE),
// so a map never loses pages to a truncation there and needs no guard: a guard is always
// active and never reports a loss. (A view of a file on a network share can still fault
// with EXCEPTION_IN_PAGE_ERROR when the share goes away; that is not caught.)
class bus_guard {
  public:
    bus_guard() noexcept = default;
    bus_guard(const void* begin, std::size_t size, bool = false) noexcept
        : active_(begin != nullptr && size != 0) {}
    bool active() const noexcept { return active_; }
    std::int64_t lost() const noexcept { return -1; }
    void release() noexcept { active_ = false; }

  private:
    bool active_ = false;
};

} // namespace fastread::detail

#else

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

namespace fastread::detail {

/// Registered regions, looked up by the handler without locks (a fixed array of atomics).
struct bus_guard_table {
    static constexpr std::size_t slots = 256; ///< guarded maps that may exist at once
    struct region {
        std::atomic<std::uintptr_t> begin{0}; ///< 0: free slot
        std::atomic<std::uintptr_t> end{0};
        std::atomic<std::uintptr_t> lost{0}; ///< first address replaced by zeros, or 0
        std::atomic<bool> writable{false};   ///< the replacement pages take stores too
    };
    region regions[slots];
    struct sigaction previous {};
    std::uintptr_t page_mask = ~std::uintptr_t{4095};
};

inline bus_guard_table& bus_guards() noexcept {
    static bus_guard_table table;
    return table;
}

inline void on_bus_error(int sig, siginfo_t* info, void* context) noexcept {
    const int saved_errno = errno;
    bus_guard_table& t = bus_guards();
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    if (info->si_code == BUS_ADRERR) {
        for (bus_guard_table::region& r : t.regions) {
            const std::uintptr_t b = r.begin.load(std::memory_order_acquire);
            if (b == 0 || addr < b || addr >= r.end.load(std::memory_order_acquire)) {
                continue;
            }
            const std::uintptr_t page = addr & t.page_mask;
            const std::uintptr_t end = r.end.load(std::memory_order_acquire);
            const int prot =
                r.writable.load(std::memory_order_acquire) ? PROT_READ | PROT_WRITE : PROT_READ;
            void* p = ::mmap(reinterpret_cast<void*>(page), end - page, prot,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (p != MAP_FAILED) {
                std::uintptr_t seen = r.lost.load(std::memory_order_relaxed);
                while ((seen == 0 || page < seen) &&
                       !r.lost.compare_exchange_weak(seen, page, std::memory_order_release)) {
                }
                errno = saved_errno;
                return;
            }
            break; // no memory for the zero pages: treat it as a foreign fault
        }
    }
    const struct sigaction& prev = t.previous;
    if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
        prev.sa_sigaction(sig, info, context);
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN &&
               prev.sa_handler != nullptr) {
        prev.sa_handler(sig);
    } else {
        // No earlier handler: the default action, as if fastread had installed none. A
        // fault repeats when the handler returns; a signal sent by kill is raised again
        // (blocked until this handler returns).
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        ::sigaction(sig, &dfl, nullptr);
        if (info->si_code <= 0) {
            ::raise(sig);
        }
    }
    errno = saved_errno;
}

/// Makes sure the handler is the one installed for SIGBUS, installing it (again) when it
/// is not: at the first guard, and after a program replaced it with its own, which the
/// guard then chains to. One sigaction call to look; false if installing failed (then
/// nothing is guarded).
inline bool install_bus_guard() noexcept {
    static pthread_mutex_t installing = PTHREAD_MUTEX_INITIALIZER;
    struct unlock {
        pthread_mutex_t* m;
        ~unlock() { ::pthread_mutex_unlock(m); }
    };
    ::pthread_mutex_lock(&installing);
    const unlock locked{&installing};
    struct sigaction current {};
    if (::sigaction(SIGBUS, nullptr, &current) != 0) {
        return false;
    }
    if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &on_bus_error) {
        return true;
    }
    bus_guard_table& t = bus_guards();
    const long page = ::sysconf(_SC_PAGESIZE);
    t.page_mask = ~static_cast<std::uintptr_t>(page > 0 ? page - 1 : 4095);
    struct sigaction sa {};
    sa.sa_sigaction = &on_bus_error;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigaction previous {};
    if (::sigaction(SIGBUS, &sa, &previous) != 0) {
        return false;
    }
    t.previous = previous;
    return true;
}

/// One guarded region: registered on construction (when a slot and the handler are
/// available: check active()), released on destruction, which must come before the
/// region is unmapped. A writable region's replacement pages take stores too (they go
/// nowhere): its owner must treat lost() as "stores from there on may not be in the file",
/// and guard writable maps only where a write fault cannot come from a full disk
/// (overwrites_in_place), since that would be papered over the same way.
class bus_guard {
  public:
    bus_guard() noexcept = default;
    bus_guard(const void* begin, std::size_t size, bool writable = false) noexcept {
        if (size == 0 || !install_bus_guard()) {
            return;
        }
        const auto b = reinterpret_cast<std::uintptr_t>(begin);
        for (bus_guard_table::region& r : bus_guards().regions) {
            std::uintptr_t expected = 0;
            if (r.begin.compare_exchange_strong(expected, UINTPTR_MAX, std::memory_order_acq_rel)) {
                // Claimed (UINTPTR_MAX matches no address); publish the bounds.
                r.lost.store(0, std::memory_order_relaxed);
                r.writable.store(writable, std::memory_order_relaxed);
                r.end.store(b + size, std::memory_order_release);
                r.begin.store(b, std::memory_order_release);
                region_ = &r;
                return;
            }
        }
    }
    bus_guard(bus_guard&& other) noexcept : region_(other.region_) { other.region_ = nullptr; }
    bus_guard& operator=(bus_guard&& other) noexcept {
        if (this != &other) {
            release();
            region_ = other.region_;
            other.region_ = nullptr;
        }
        return *this;
    }
    bus_guard(const bus_guard&) = delete;
    bus_guard& operator=(const bus_guard&) = delete;
    ~bus_guard() { release(); }

    /// True when faults in the region are caught.
    bool active() const noexcept { return region_ != nullptr; }

    /// Offset from the region's start of the first byte replaced by zeros after a fault,
    /// or -1 if nothing was lost.
    std::int64_t lost() const noexcept {
        if (region_ == nullptr) {
            return -1;
        }
        const std::uintptr_t at = region_->lost.load(std::memory_order_acquire);
        return at == 0
                   ? -1
                   : static_cast<std::int64_t>(at - region_->begin.load(std::memory_order_relaxed));
    }

    void release() noexcept {
        if (region_ != nullptr) {
            region_->end.store(0, std::memory_order_release);
            region_->begin.store(0, std::memory_order_release);
            region_ = nullptr;
        }
    }

  private:
    bus_guard_table::region* region_ = nullptr;
};

} // namespace fastread::detail

#endif // _WIN32

#endif // FASTREAD_DETAIL_BUS_GUARD_HPP
