#ifndef FASTREAD_SOURCE_FILE_SOURCE_HPP
#define FASTREAD_SOURCE_FILE_SOURCE_HPP

/// @file
/// The file layer of the default entry points that pass over a file front to back
/// (lines(path), files_equal): a byte source that streams with read(2), hands out windows of
/// a guarded map, or, for big cached files, does either window by window as it measures.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "../detail/file_map.hpp"
#include "../detail/parallel.hpp"
#include "../detail/policy.hpp"
#include "../detail/posix.hpp"
#include "../detail/read_ahead.hpp"
#include "../io.hpp"
#include "read_source.hpp"

namespace fastread::detail {

/// The file layer of lines(path) and files_equal (plan_reading() decides how it reads): a stream of
/// read(2) into a reused buffer; a guarded read-only map handed out in windows; or, for big cached
/// files in automatic mode, both, window by window, as window_io measures.
///
/// A file that shrinks while it is read: the chunks end where the file now ends (read(2)
/// returns 0 there; the size is checked before each window). If the file now ends before
/// bytes already handed out (read(2) racing a truncation, or a mapped page touched after
/// it, can give zeros for them), next() throws std::system_error (EIO) naming the file:
/// at the end of input when streaming, at the next window otherwise.
class file_source {
  public:
    static constexpr std::size_t window = window_bytes;
    static constexpr std::size_t read_block = scan_read_block;

    /// Opens `path` and reads it as plan_reading(io, ...) says (map_threshold, adaptive_from).
    /// With `ahead`, where that plan is adaptive and the machine has two CPUs or more, the
    /// file is read instead by a helper thread a few blocks ahead of the caller
    /// (detail::read_ahead), which overlaps the copy out of the page cache with the caller's
    /// work on the block before.
    file_source(const std::filesystem::path& path, io_mode io, bool ahead = false) : path_(path) {
        unique_fd fd = open_read_only(path);
        const file_info info = stat_fd(fd.get(), path);
        const reading_plan plan =
            info.regular ? plan_reading(io, fd.get(), info.size, map_threshold, adaptive_from)
                         : reading_plan::stream;
        start(std::move(fd), info, plan, ahead);
    }

    /// Reads the file open on `fd` (fstat gave `info`) as `plan` says; a plan that maps
    /// falls back to streaming where the map cannot be made. `ahead`: as above.
    file_source(unique_fd fd, const file_info& info, reading_plan plan,
                const std::filesystem::path& path, bool ahead = false)
        : path_(path) {
        start(std::move(fd), info, plan, ahead);
    }

    /// Test seam: an adaptive pass over `path` (which must be a regular, non-empty file) with
    /// `windows` deciding.
    file_source(const std::filesystem::path& path, window_io windows) : path_(path) {
        fd_ = open_read_only(path);
        map_ = guarded_map(fd_.get(), stat_fd(fd_.get(), path).size);
        if (!map_) {
            throw_system_error(ENOMEM, "mmap", path);
        }
        windows_.emplace(windows);
        buffer_ = touched_buffer();
    }

    std::span<const char> next() {
        if (ahead_) {
            const std::span<const char> chunk = ahead_->next();
            handed_out_ += chunk.size();
            if (chunk.empty()) {
                // The end: as when streaming, a file that now ends before what was handed
                // out shrank during the pass (pread racing the truncation may give zeros).
                check_size(stat_fd(fd_.get(), path_).size);
            }
            return chunk;
        }
        if (reader_) {
            const std::span<const char> chunk = reader_->next();
            handed_out_ += chunk.size();
            if (chunk.empty() && read_fd_ >= 0) {
                // The end: a regular file that now ends before what was handed out shrank
                // during the pass, and read(2) racing the truncation may have returned zeros.
                check_size(stat_fd(read_fd_, path_).size);
            }
            return chunk;
        }
        if (done_) {
            return {};
        }
        const std::uint64_t index = handed_out_ / window;
        const auto begin = static_cast<std::size_t>(handed_out_);
        if (begin % window == 0 || begin >= limit_) {
            // A window starts, or the input ends: where does the file end now?
            const std::uint64_t now = stat_fd(fd_.get(), path_).size;
            check_not_lost(now);
            limit_ = now < map_.size() ? static_cast<std::size_t>(now) : map_.size();
        }
        if (limit_ <= begin) {
            done_ = true; // the end, or the file now ends before what is left
            return {};
        }
        const std::size_t window_end =
            std::min(limit_, static_cast<std::size_t>(index + 1) * window);
        if (!windows_) {
            return hand_out_map(begin, window_end);
        }
        // An adaptive pass: the chunk handed out before is settled, now that the caller is
        // done with it, and the one handed out now is timed from here to the next call.
        const auto now = std::chrono::steady_clock::now();
        settle(now);
        const window_io::use use = windows_->next(index, begin % window == 0);
        if (use != window_io::use::read) {
            // Not populated ahead (MADV_POPULATE_READ): that cost 4 % of a lines() pass over
            // faulting in as the caller reads (docs/performance.md).
            pending_ = {use, index, window_end - begin, now};
            return hand_out_map(begin, window_end);
        }
        const std::size_t want = std::min(read_block, window_end - begin);
        const std::size_t got = pread_full(fd_.get(), buffer_.get(), want, begin, path_);
        if (got == 0) { // the file now ends here (or before: then check_size throws)
            done_ = true;
            check_size(stat_fd(fd_.get(), path_).size);
            return {};
        }
        pending_ = {use, index, got, now};
        handed_out_ += got;
        return {buffer_.get(), got};
    }

    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    // What the constructors share: read ahead, map (falling back to streaming) or stream.
    void start(unique_fd fd, const file_info& info, reading_plan plan, bool ahead) {
        if (ahead && plan == reading_plan::adaptive && detail::cpu_count() >= 2) {
            fd_ = std::move(fd);
            try {
                ahead_ = std::make_unique<read_ahead>(fd_.get(), path_);
                return;
            } catch (const std::system_error&) {
                fd = std::move(fd_); // no thread now: as planned, on this thread
            }
        }
        if (plan != reading_plan::stream) {
            map_ = guarded_map(fd.get(), info.size);
            if (map_) {
                fd_ = std::move(fd);
                if (plan == reading_plan::adaptive) {
                    windows_.emplace(host_io_costs());
                    buffer_ = touched_buffer();
                } else {
                    map_.advise(detail::map_advice::sequential);
                }
                return;
            }
        }
        if (info.regular && info.size > 0) { // not /proc files: their size reads as 0
            read_fd_ = fd.get();             // owned by reader_ from here
        }
        reader_.emplace(std::move(fd), path_);
    }

    // The read buffer of an adaptive pass, its pages faulted in: else the first reads into
    // it pay a page fault per 4 KiB and the pass measures reading at 2-3x its cost.
    static std::unique_ptr<char[]> touched_buffer() {
        std::unique_ptr<char[]> buffer(new char[read_block]);
        std::memset(buffer.get(), 0, read_block);
        return buffer;
    }
    std::span<const char> hand_out_map(std::size_t begin, std::size_t end) noexcept {
        handed_out_ = end;
        return {map_.data() + begin, end - begin};
    }
    // Reports the chunk handed out last to windows_: what it cost from the call that made
    // it to `now`.
    void settle(std::chrono::steady_clock::time_point now) noexcept {
        if (pending_.bytes != 0) {
            windows_->done(pending_.use, pending_.index, pending_.bytes,
                           std::chrono::duration<double, std::nano>(now - pending_.since).count());
            pending_.bytes = 0;
        }
    }
    void check_not_lost(std::uint64_t now) const {
        if (handed_out_ == 0) {
            return;
        }
        check_size(now);
        if (map_.lost() >= 0) { // shrank, then grew back: what was handed out held zeros
            throw_system_error(EIO, "read (the file changed size while it was read)", path_);
        }
    }
    void check_size(std::uint64_t now) const {
        if (now < handed_out_) {
            throw_system_error(EIO,
                               "read (the file shrank to " + std::to_string(now) +
                                   " bytes while it was read; " + std::to_string(handed_out_) +
                                   " bytes were already handed out)",
                               path_);
        }
    }

    std::filesystem::path path_;
    unique_fd fd_;                     // kept open while mapped, to see the size change
    file_map map_;                     // empty when streaming
    std::optional<window_io> windows_; // adaptive passes: which windows map
    struct pending_chunk {
        window_io::use use = window_io::use::read;
        std::uint64_t index = 0; // its window
        std::size_t bytes = 0;   // 0: none pending
        std::chrono::steady_clock::time_point since;
    };
    pending_chunk pending_;          // adaptive passes: the chunk the caller has, not yet timed
    std::unique_ptr<char[]> buffer_; // adaptive passes: what the read windows read into
    std::uint64_t handed_out_ = 0;   // bytes handed out so far
    std::size_t limit_ = 0;          // where the file ended at the current window's start
    int read_fd_ = -1;               // the sized regular file reader_ reads, else -1
    bool done_ = false;
    std::optional<read_source> reader_;
    std::unique_ptr<read_ahead> ahead_; // last: its helper reads fd_, so it is destroyed first
};

} // namespace fastread::detail

#endif // FASTREAD_SOURCE_FILE_SOURCE_HPP
