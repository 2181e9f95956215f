#ifndef FASTREAD_DETAIL_INPUT_PLAN_HPP
#define FASTREAD_DETAIL_INPUT_PLAN_HPP

/// @file
/// The file layer's plan and slices (input_file.hpp): whether the file is in the page cache,
/// how many threads read it in slices, and the slices' reads (slice_reads), for the calls
/// that plan slices (lines, files_equal, numbers, the images).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "input_file.hpp"
#include "parallel.hpp"
#include "policy.hpp"
#include "residency.hpp"

namespace fastread::detail {

inline bool input_file::cached() {
    if (!cached_) {
        cached_ = file_resident(raw_, info_.size, resident_percent);
    }
    return *cached_;
}

inline unsigned input_file::slice_threads(std::uint64_t work, std::uint64_t per_thread,
                                          std::uint64_t from) {
    if (!sized() || info_.size < from) {
        return 1;
    }
    const unsigned threads = threads_for(static_cast<std::size_t>(work),
                                         static_cast<std::size_t>(per_thread), most_cpu_threads);
    return threads > 1 && cached() ? threads : 1;
}

/// The reads of `slices` slices of one input_file, each on its own thread: how far each
/// got, whether its read came up short (the file now ends before the slice did), its read
/// error; then the one settling of the call (settle()).
class slice_reads {
  public:
    slice_reads(const input_file& file, unsigned slices)
        : file_(&file), reached_(slices, 0), ended_early_(slices, 0), errors_(slices) {}

    /// Slice `t` starts at `pos` (what it reached if it reads nothing).
    void start(unsigned t, std::uint64_t pos) noexcept { reached_[t] = pos; }

    /// Reads `want` bytes at `pos` into `into` for slice `t`; false (the slice marked as
    /// ended early) when the file ends before them or on a read error.
    bool read(unsigned t, void* into, std::size_t want, std::uint64_t pos) {
        const std::size_t got =
            pread_full(file_->fd(), static_cast<char*>(into), want, pos, file_->path(), errors_[t]);
        reached_[t] = pos + got;
        ended_early_[t] = got < want;
        return got == want;
    }

    /// Reads [from, to) for slice `t` in scan_read_block blocks through a buffer of its own,
    /// handing each block to `feed(first, last, end_offset)` while it returns true. True when
    /// every byte was fed; false when `feed` stopped or the file ended early.
    template <class Feed>
    bool read_through(unsigned t, std::uint64_t from, std::uint64_t to, Feed&& feed) {
        std::unique_ptr<char[]> buffer(new char[scan_read_block]);
        reached_[t] = from;
        for (std::uint64_t pos = from; pos < to;) {
            const auto want =
                static_cast<std::size_t>(std::min<std::uint64_t>(scan_read_block, to - pos));
            const bool whole = read(t, buffer.get(), want, pos);
            const auto got = static_cast<std::size_t>(reached_[t] - pos);
            pos += got;
            if (!feed(static_cast<const char*>(buffer.get()),
                      static_cast<const char*>(buffer.get() + got), pos) ||
                !whole) {
                return false;
            }
        }
        return true;
    }

    /// The offset slice `t` read to.
    std::uint64_t reached(unsigned t) const noexcept { return reached_[t]; }
    /// Whether a read of slice `t` came up short.
    bool ended_early(unsigned t) const noexcept { return ended_early_[t] != 0; }
    /// The read error of slice `t` (empty code if none).
    const fastread::error& read_error(unsigned t) const noexcept { return errors_[t]; }

    /// The first read error of any slice, in slice order.
    std::optional<fastread::error> first_read_error() const {
        for (const fastread::error& e : errors_) {
            if (e.code()) {
                return e;
            }
        }
        return std::nullopt;
    }

    /// The furthest byte the slices read; UINT64_MAX when a slice came up short that should
    /// not have (any slice, or with `last_may_end` any but the last, whose end is where
    /// the data ends): a gap, so the file shrank whatever its size now.
    std::uint64_t furthest(bool last_may_end) const noexcept {
        std::uint64_t most = 0; // not `far`: a macro of <windows.h>
        const std::size_t n = reached_.size();
        for (std::size_t t = 0; t < n; ++t) {
            if (ended_early_[t] && !(last_may_end && t + 1 == n)) {
                return UINT64_MAX;
            }
            most = std::max(most, reached_[t]);
        }
        return most;
    }

    /// The call's outcome: the shrink error where the file now ends before the furthest byte
    /// read (input_file::shrink), else the first read error, else `failure` (the job's own);
    /// nothing when all is well.
    std::optional<fastread::error> settle(std::optional<fastread::error> failure,
                                          bool last_may_end) const {
        std::optional<fastread::error> f = first_read_error();
        if (!f) {
            f = std::move(failure);
        }
        if (std::optional<fastread::error> shrank = file_->shrink(furthest(last_may_end), f)) {
            return shrank;
        }
        return f;
    }

  private:
    const input_file* file_;
    std::vector<std::uint64_t> reached_;
    std::vector<unsigned char> ended_early_;
    std::vector<fastread::error> errors_;
};

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_INPUT_PLAN_HPP
