#ifndef FASTREAD_DETAIL_INPUT_FILE_HPP
#define FASTREAD_DETAIL_INPUT_FILE_HPP

/// @file
/// The file layer: how every job that reads a file by path reads it. A call opens its input
/// once (input_file::open: the descriptor, fstat's file_info, the error naming the path),
/// plans once (a map when the caller asks, slices on threads for a big cached file, else a
/// stream: input_file::map, slice_threads, and source/detail/file_stream.hpp's stream_file
/// or file_source, which take the descriptor over), reads its slices through
/// one helper (slice_reads: each slice's reads, how far they got, their errors) and settles
/// once (input_file::shrink, slice_reads::settle: the one check of a file that shrank during
/// the call). A job supplies only what is its own: where a slice may be cut, what it does
/// with each slice's bytes, and its decoder, kernel and join.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "../error.hpp"
#include "../result.hpp"
#include "file_map.hpp"
#include "file_shrank.hpp"
#include "parallel.hpp"
#include "policy.hpp"
#include "posix.hpp"
#include "residency.hpp"
#include "rw.hpp"

namespace fastread::detail {

/// The input of one call: a file opened once, with what fstat said of it at open.
class input_file {
  public:
    /// Opens `path` read-only and fstats it: the file, or the error (open's or fstat's
    /// errno, naming the path).
    static result<input_file> open(const std::filesystem::path& path) {
        fastread::error err;
        unique_fd fd = open_read_only(path, 0, err);
        if (!fd) {
            return err;
        }
        const file_info info = stat_fd(fd.get(), path, err);
        if (err.code()) {
            return err;
        }
        return input_file(std::move(fd), info, path);
    }

    /// Opens `path` read-only for a call that reads its start and plans nothing (pnm::probe):
    /// no fstat, so info() is empty and the file is not sized(). The error names the path.
    static result<input_file> open_for_start(const std::filesystem::path& path) {
        fastread::error err;
        unique_fd fd = open_read_only(path, 0, err);
        if (!fd) {
            return err;
        }
        return input_file(std::move(fd), file_info{}, path);
    }

    /// The file already open on `fd`, which fstat described as `info` (the size the call
    /// plans with and a shrink is measured from), opened from `path`.
    static input_file adopt(unique_fd fd, const file_info& info,
                            const std::filesystem::path& path) {
        return input_file(std::move(fd), info, path);
    }

    ///@{
    /// Moves the file; not copyable.
    input_file(input_file&&) noexcept = default;
    input_file& operator=(input_file&&) noexcept = default;
    ///@}

    /// The descriptor; it stays valid after stream() or release() as long as what took it.
    int fd() const noexcept { return raw_; }
    /// What fstat said at open.
    const file_info& info() const noexcept { return info_; }
    /// The size in bytes at open (0 for a pipe or a /proc file).
    std::uint64_t size() const noexcept { return info_.size; }
    /// A regular file with bytes: what can be mapped, read in slices and checked for a shrink
    /// (a /proc file says 0 bytes and must be streamed).
    bool sized() const noexcept { return info_.regular && info_.size > 0; }
    /// The path it was opened from.
    const std::filesystem::path& path() const noexcept { return path_; }

    /// Whether resident_percent of the file is in the page cache; asked of the kernel once.
    bool cached() {
        if (!cached_) {
            cached_ = file_resident(raw_, info_.size, resident_percent);
        }
        return *cached_;
    }

    /// How many threads read the file in slices: threads_for(`work` units, `per_thread`,
    /// most_cpu_threads) when the file is sized, `from` bytes or more and cached; else 1.
    /// The page cache is asked only when more than one thread would do.
    unsigned slice_threads(std::uint64_t work, std::uint64_t per_thread, std::uint64_t from = 0) {
        if (!sized() || info_.size < from) {
            return 1;
        }
        const unsigned threads = threads_for(
            static_cast<std::size_t>(work), static_cast<std::size_t>(per_thread), most_cpu_threads);
        return threads > 1 && cached() ? threads : 1;
    }

    /// A guarded map of the whole file, advised sequential; empty when the file is not sized
    /// or cannot be mapped (the caller then streams it).
    file_map map() const {
        file_map m;
        if (sized()) {
            m = guarded_map(raw_, info_.size);
            if (m) {
                m.advise(map_advice::sequential);
            }
        }
        return m;
    }

    /// The first min(size(), `bytes`) bytes (fewer if the file shrank), read with one
    /// pread(2) at the first call and kept: a header parsed before the slices are planned.
    /// Empty after a read error (the stream that follows reports it).
    std::span<const char> head(std::size_t bytes) {
        if (!head_) {
            const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(info_.size, bytes));
            head_.reset(new char[want == 0 ? 1 : want]);
            fastread::error err;
            head_size_ = pread_full(raw_, head_.get(), want, 0, path_, err);
            if (err.code()) {
                head_size_ = 0;
            }
        }
        return {head_.get(), head_size_};
    }

    /// Hands the descriptor over (to a stream, stream_file, or a file_source); fd() stays
    /// its number as long as what took it keeps it open.
    unique_fd release() noexcept { return std::move(fd_); }

    /// The shrink check that settles a call which read the file up to `reached` (UINT64_MAX:
    /// a gap or a lost page was seen): shrink_error, for this file and its size at open.
    std::optional<fastread::error> shrink(std::uint64_t reached,
                                          const std::optional<fastread::error>& failure) const {
        return shrink_error(raw_, info_.size, reached, failure, path_);
    }

    /// A decode's outcome, settled: the shrink error if the file now ends before `reached`
    /// (shrink()), else `r`. A result that is whole by itself (`whole`: a plain image that
    /// parsed, see settle_watched) is returned without asking the size.
    template <class T>
    result<T> settle(result<T>&& r, std::uint64_t reached, bool whole = false) const {
        if (r && whole) {
            return std::move(r);
        }
        std::optional<fastread::error> failure;
        if (!r) {
            failure = r.error();
        }
        if (std::optional<fastread::error> shrank = shrink(reached, failure)) {
            return std::move(*shrank);
        }
        return std::move(r);
    }

  private:
    input_file(unique_fd fd, const file_info& info, const std::filesystem::path& path)
        : fd_(std::move(fd)), raw_(fd_.get()), info_(info), path_(path) {}

    unique_fd fd_;
    int raw_ = -1;
    file_info info_;
    std::filesystem::path path_;
    std::optional<bool> cached_;
    std::unique_ptr<char[]> head_;
    std::size_t head_size_ = 0;
};

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

#endif // FASTREAD_DETAIL_INPUT_FILE_HPP
