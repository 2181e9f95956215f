#ifndef FASTREAD_DETAIL_READ_AHEAD_HPP
#define FASTREAD_DETAIL_READ_AHEAD_HPP

// Reading a file front to back on a helper thread, a few blocks ahead of the caller: the
// copy out of the page cache (read(2)) then overlaps the caller's work on the block before,
// on another CPU, where a plain read loop does one after the other on one.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>
#if !defined(__linux__)
#include <condition_variable> // wait_counter's fallback
#include <mutex>
#endif

#include "parallel.hpp"
#include "policy.hpp"
#include "posix.hpp"
#include "rw.hpp"

namespace fastread::detail {

/// A count that one thread raises and another waits on: C++20 atomic wait and notify where
/// the standard library waits on a futex (Linux), a mutex and a condition variable
/// elsewhere: the fallback of GCC 12's libstdc++ for systems without a futex (MinGW-w64)
/// lost wake-ups, and read_ahead hung under Wine.
class wait_counter {
  public:
    std::uint64_t load() const noexcept { return value_.load(std::memory_order_acquire); }

    /// Sets the count to `v` and wakes a waiter.
    void store(std::uint64_t v) noexcept {
        change([&] { value_.store(v, std::memory_order_release); });
    }

    /// Adds `n` to the count and wakes a waiter.
    void add(std::uint64_t n) noexcept {
        change([&] { value_.fetch_add(n, std::memory_order_release); });
    }

    /// Blocks while the count is still `seen`; returns the count it found.
    std::uint64_t wait_change(std::uint64_t seen) noexcept {
#if defined(__linux__)
        value_.wait(seen, std::memory_order_acquire);
        return load();
#else
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return value_.load(std::memory_order_acquire) != seen; });
        return load();
#endif
    }

  private:
    // Changes the count with `update` and wakes the waiter (under the mutex where there is
    // no futex, so that the change cannot fall between its check and its wait).
    template <class Update>
    void change(Update update) noexcept {
#if defined(__linux__)
        update();
        value_.notify_all();
#else
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            update();
        }
        changed_.notify_all();
#endif
    }

    std::atomic<std::uint64_t> value_{0};
#if !defined(__linux__)
    std::mutex mutex_;
    std::condition_variable changed_;
#endif
};

/// Reads the file open on `fd` (borrowed: it must stay open while this object lives) from
/// offset 0 in blocks of `block` bytes with pread(2) on a helper thread, which stays at
/// most `slots` blocks ahead of the blocks handed out by next(). Single consumer: next() is
/// called from one thread. Memory: `slots` * `block` bytes.
///
/// The helper stops at the first short read (the end of the file as it is then) or error;
/// try_next() hands out what was read, then an empty span (after the helper's read error,
/// kept in error(), naming `path`). Bytes appended after the helper reached the end are
/// not read. The destructor stops the helper and joins it, whatever it was doing.
class read_ahead {
  public:
    /// Starts the helper; if it cannot be started, `start_error` is the errno (EAGAIN) and
    /// the object must be dropped. @throws std::bad_alloc.
    read_ahead(int fd, const std::filesystem::path& path, int& start_error,
               std::size_t block = read_ahead_block, unsigned slots = read_ahead_slots)
        : fd_(fd), path_(path), block_(block), slots_(slots) {
        for (slot& s : slots_) {
            s.bytes.reset(new char[block_]);
        }
        helper_ = std::make_unique<spread_thread>([this] { run(); }, cpu_spread(), 0, start_error);
        if (start_error != 0) {
            helper_.reset();
        }
    }
    read_ahead(const read_ahead&) = delete;
    read_ahead& operator=(const read_ahead&) = delete;
    ~read_ahead() {
        stop_.store(true, std::memory_order_relaxed);
        // Wakes a helper waiting for a free slot: it sees the count move, then the stop.
        released_.add(slots_.size());
        helper_.reset(); // joins
    }

    /// The next block of the file (`block` bytes, fewer at the end), valid until the next
    /// call; an empty span at the end, or when the helper's read failed (then in
    /// `error()`). Releases the block handed out before.
    std::span<const char> try_next() noexcept {
        if (taken_ > 0) {
            released_.store(taken_);
        }
        if (ended_) {
            return {};
        }
        std::uint64_t made = produced_.load();
        while (made <= taken_) {
            made = produced_.wait_change(made);
        }
        slot& s = slots_[taken_ % slots_.size()];
        ++taken_;
        if (s.error.code()) {
            ended_ = true;
            error_ = s.error;
            return {};
        }
        if (s.length < block_) {
            ended_ = true; // the helper stopped after this block
        }
        return {s.bytes.get(), s.length};
    }

    /// The helper's read error (naming the file) that ended the blocks, if any.
    const fastread::error& error() const noexcept { return error_; }

  private:
    struct slot {
        std::unique_ptr<char[]> bytes;
        std::size_t length = 0;
        fastread::error error;
    };

    void run() noexcept {
        const std::size_t count = slots_.size();
        for (std::uint64_t i = 0;; ++i) {
            std::uint64_t free_from = released_.load();
            while (i - free_from >= count && !stop_.load(std::memory_order_relaxed)) {
                free_from = released_.wait_change(free_from);
            }
            if (stop_.load(std::memory_order_relaxed)) {
                return;
            }
            slot& s = slots_[i % count];
            s.length = pread_full(fd_, s.bytes.get(), block_, i * block_, path_, s.error);
            const bool last = s.error.code() || s.length < block_;
            produced_.store(i + 1);
            if (last) {
                return;
            }
        }
    }

    int fd_;
    std::filesystem::path path_;
    std::size_t block_;
    std::vector<slot> slots_;
    wait_counter produced_; // blocks the helper has filled
    wait_counter released_; // blocks the caller is done with
    std::atomic<bool> stop_{false};
    std::uint64_t taken_ = 0; // blocks handed out (caller's side)
    bool ended_ = false;
    fastread::error error_;
    std::unique_ptr<spread_thread> helper_; // started after the rest exists; joined first
};

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_READ_AHEAD_HPP
