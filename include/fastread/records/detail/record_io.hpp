#ifndef FASTREAD_RECORDS_DETAIL_RECORD_IO_HPP
#define FASTREAD_RECORDS_DETAIL_RECORD_IO_HPP

/// @file
/// How the records' requests reach the file: the request rules for cached and cold
/// batches, the residency sample that tells them apart, the in-buffer update of a
/// request, and the io_uring loop that keeps many requests in flight (read_at and
/// update_at, fastread/records.hpp).

#include "../../detail/file_map.hpp"
#include "../../detail/posix.hpp"
#include "record_layout.hpp"
#include "record_plan.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "../../detail/platform.hpp" // FASTREAD_HAVE_LIBURING is 0 without Linux's calls

#ifndef FASTREAD_HAVE_LIBURING
#define FASTREAD_HAVE_LIBURING 0
#endif
#if FASTREAD_HAVE_LIBURING
#include <liburing.h>
#endif

namespace fastread::detail {

/// True if this build has liburing and the kernel gives it a ring (probed once; false
/// when io_uring is disabled, e.g. `kernel.io_uring_disabled`, or filtered by seccomp).
inline bool uring_usable() noexcept {
#if FASTREAD_HAVE_LIBURING
    static const bool usable = [] {
        io_uring ring;
        if (io_uring_queue_init(4, &ring, 0) != 0) {
            return false;
        }
        io_uring_queue_exit(&ring);
        return true;
    }();
    return usable;
#else
    return false;
#endif
}

// Requests for a cold batch: pages, joined across gaps of up to 16 KiB, at most 256 KiB.
// A request costs about what moving 10-20 KiB does on an SSD with many requests in
// flight (docs/benchmarks/, "Records at random positions").
inline block_rules cold_rules() noexcept {
    return {page_size(), 16384, 256 * 1024};
}
// Reads in flight on an io_uring: past 256 the disk gains nothing
// (docs/benchmarks/).
inline constexpr unsigned uring_depth = 256;
// Requests for pread on cached pages: a page each, joined when adjacent, at most 64 KiB.
inline block_rules pread_rules() noexcept {
    return {page_size(), 0, 64 * 1024};
}

/// Byte offsets of up to 64 of the visited records, spread over the batch: the sample
/// whose pages' residency decides whether a batch is cached.
inline std::vector<std::uint64_t> residency_sample(const std::vector<record_ref>& refs,
                                                   std::size_t record_size) {
    const std::size_t samples = std::min<std::size_t>(64, refs.size());
    std::vector<std::uint64_t> offsets(samples);
    for (std::size_t s = 0; s < samples; ++s) {
        offsets[s] = refs[s * refs.size() / samples].index * record_size;
    }
    return offsets;
}

/// Applies `fn` to the records (of `layout`) of `request` held in `buffer` (the request's
/// bytes), in visiting order; returns the changed byte range [lo, hi) of the buffer (lo ==
/// hi: none).
template <class Layout>
std::pair<std::size_t, std::size_t>
apply_in_buffer(Layout layout, char* buffer, const block_request& request,
                const std::vector<record_ref>& refs, const record_update& fn) {
    std::size_t lo = SIZE_MAX, hi = 0;
    typename Layout::scratch before(layout);
    for (std::size_t k = request.first; k < request.last; ++k) {
        const auto at = static_cast<std::size_t>(refs[k].index * layout.size() - request.offset);
        if (update_record(layout, fn, buffer + at, before.data())) {
            lo = std::min(lo, at);
            hi = std::max(hi, at + layout.size());
        }
    }
    return lo == SIZE_MAX ? std::pair<std::size_t, std::size_t>{0, 0}
                          : std::pair<std::size_t, std::size_t>{lo, hi};
}

#if FASTREAD_HAVE_LIBURING
/// An io_uring of `depth` entries; torn down on destruction.
class uring {
  public:
    /// The ring, or `err` = the errno of io_uring_queue_init (then nothing to tear down).
    uring(unsigned depth, int& err) {
        const int rc = io_uring_queue_init(depth, &ring_, 0);
        err = rc != 0 ? -rc : 0;
        made_ = rc == 0;
    }
    uring(const uring&) = delete;
    uring& operator=(const uring&) = delete;
    ~uring() {
        if (made_) {
            io_uring_queue_exit(&ring_);
        }
    }
    io_uring* get() noexcept { return &ring_; }

  private:
    io_uring ring_{};
    bool made_ = false;
};

/// run_on_uring's state: the ring, a buffer and a slot per request in flight, and the first
/// failure.
template <class OnRead, class OnWritten, class OnError>
class uring_batch {
  public:
    uring_batch(int fd, const std::vector<block_request>& requests, unsigned depth, OnRead& on_read,
                OnWritten& on_written)
        : fd_(fd), requests_(requests), on_read_(on_read), on_written_(on_written),
          slot_bytes_(largest_request(requests)), buffers_(new char[slot_bytes_ * depth]),
          slots_(depth), ring_(depth, init_error_) {
        for (unsigned s = depth; s-- > 0;) {
            free_slots_.push_back(s);
        }
    }

    /// Runs every request; the first failure (a ring that cannot be made, one that refuses
    /// work, a read or write that failed) goes to on_error(errno, operation) at the end.
    void run(OnError& on_error) {
        if (init_error_ != 0) {
            on_error(init_error_, "io_uring_queue_init");
            return;
        }
        while ((!stopping() && next_ < requests_.size()) || in_flight_ > 0) {
            start_requests();
            const int rc = io_uring_submit_and_wait(ring_.get(), 1);
            if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
                // The ring refuses work: what is in flight cannot be waited for either (the
                // ring's teardown, before the buffers go, cancels it).
                failed_ = -rc;
                failed_operation_ = "io_uring_submit_and_wait";
                break;
            }
            io_uring_cqe* cqe = nullptr;
            unsigned head = 0, seen = 0;
            io_uring_for_each_cqe(ring_.get(), head, cqe) {
                ++seen;
                const auto s = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
                if (slots_[s].writing) {
                    write_done(s, cqe->res);
                } else {
                    read_done(s, cqe->res);
                }
            }
            io_uring_cq_advance(ring_.get(), seen);
        }
        if (thrown_) {
            std::rethrow_exception(thrown_);
        }
        if (failed_ != 0) {
            on_error(failed_, failed_operation_);
        }
    }

  private:
    struct slot {
        std::size_t request = 0;
        std::size_t done = 0;       // bytes read (or written) so far
        std::size_t lo = 0, hi = 0; // the range being written back
        bool writing = false;
    };

    bool stopping() const noexcept { return failed_ != 0 || thrown_ != nullptr; }

    void fail(int err, const char* operation) noexcept {
        if (failed_ == 0 && !thrown_) {
            failed_ = err;
            failed_operation_ = operation;
        }
    }

    char* buffer(unsigned s) const noexcept { return buffers_.get() + s * slot_bytes_; }

    // Queues slot s's read (or write) of what is left of it.
    void prep(unsigned s) {
        io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
        const slot& sl = slots_[s];
        const block_request& r = requests_[sl.request];
        if (sl.writing) {
            io_uring_prep_write(sqe, fd_, buffer(s) + sl.lo + sl.done,
                                static_cast<unsigned>(sl.hi - sl.lo - sl.done),
                                r.offset + sl.lo + sl.done);
        } else {
            io_uring_prep_read(sqe, fd_, buffer(s) + sl.done,
                               static_cast<unsigned>(r.length - sl.done), r.offset + sl.done);
        }
        io_uring_sqe_set_data64(sqe, s);
    }

    void release(unsigned s) noexcept {
        free_slots_.push_back(s);
        --in_flight_;
    }

    // Starts reading the next requests into the free slots, unless stopping.
    void start_requests() {
        while (!stopping() && !free_slots_.empty() && next_ < requests_.size()) {
            const unsigned s = free_slots_.back();
            free_slots_.pop_back();
            slots_[s] = slot{next_++, 0, 0, 0, false};
            prep(s);
            ++in_flight_;
        }
    }

    // A read of slot s completed with `res`: resubmit, fail, or hand the whole request to
    // on_read and write back the range it returns.
    void read_done(unsigned s, int res) {
        slot& sl = slots_[s];
        if (stopping()) {
            release(s); // read for nothing now
        } else if (res == -EAGAIN || res == -EINTR) {
            prep(s); // again, as it was
        } else if (res <= 0) {
            fail(res < 0 ? -res : EIO, res < 0 ? "read" : "read (the file ended early)");
            release(s);
        } else if ((sl.done += static_cast<std::size_t>(res)) < requests_[sl.request].length) {
            prep(s); // a short read: the rest
        } else {
            std::pair<std::size_t, std::size_t> range{0, 0};
            FASTREAD_TRY {
                range = on_read_(sl.request, buffer(s));
            }
            FASTREAD_CATCH_ALL {
                thrown_ = std::current_exception();
                release(s);
                return;
            }
            if (range.first < range.second) {
                sl.writing = true;
                sl.done = 0;
                sl.lo = range.first;
                sl.hi = range.second;
                prep(s);
            } else {
                on_written_(sl.request);
                release(s);
            }
        }
    }

    // A write of slot s completed with `res`: finished even when stopping, so that
    // on_written counts it.
    void write_done(unsigned s, int res) {
        slot& sl = slots_[s];
        if (res == -EAGAIN || res == -EINTR) {
            prep(s);
        } else if (res <= 0) {
            fail(res < 0 ? -res : EIO, "write");
            release(s);
        } else if ((sl.done += static_cast<std::size_t>(res)) < sl.hi - sl.lo) {
            prep(s);
        } else {
            on_written_(sl.request);
            release(s);
        }
    }

    int fd_;
    const std::vector<block_request>& requests_;
    OnRead& on_read_;
    OnWritten& on_written_;
    // The buffers and slots outlive the ring (declared before it): its teardown may still
    // see requests.
    std::size_t slot_bytes_;
    std::unique_ptr<char[]> buffers_;
    std::vector<slot> slots_;
    std::vector<unsigned> free_slots_;
    int init_error_ = 0; // before ring_, which sets it
    uring ring_;
    std::size_t next_ = 0, in_flight_ = 0;
    std::exception_ptr thrown_; // on_read's exception
    int failed_ = 0;            // the first errno of a read or write
    const char* failed_operation_ = "";
};

/// Runs `requests` on an io_uring with up to `depth` in flight. Each request is read
/// whole into its slot's buffer (short reads and EAGAIN/EINTR resubmitted), then
/// `on_read(request_index, buffer)` runs; it returns the byte range of the buffer to write
/// back ([lo, hi), empty for none), which is then written; `on_written(request_index)`
/// runs when that write is complete (or at once when there is none).
///
/// A failure stops it gracefully: after a read or write fails, or on_read throws, no new
/// request starts and no further on_read runs, but the writes already started finish (and
/// on_written runs for them) and every request in flight completes before the buffers go.
/// Then on_read's exception is rethrown, or `on_error(err, operation)` (which must throw)
/// is called for the first failure, so that it sees every completed write.
/// @throws std::system_error if the ring cannot be made, or submitting to it fails.
template <class OnRead, class OnWritten, class OnError>
void run_on_uring(int fd, const std::vector<block_request>& requests, unsigned depth,
                  OnRead on_read, OnWritten on_written, OnError on_error) {
    if (requests.empty()) {
        return;
    }
    depth = static_cast<unsigned>(std::min<std::size_t>(depth, requests.size()));
    uring_batch<OnRead, OnWritten, OnError> batch(fd, requests, depth, on_read, on_written);
    batch.run(on_error);
}
#endif

} // namespace fastread::detail

#endif // FASTREAD_RECORDS_DETAIL_RECORD_IO_HPP
