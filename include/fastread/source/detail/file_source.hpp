#ifndef FASTREAD_SOURCE_DETAIL_FILE_SOURCE_HPP
#define FASTREAD_SOURCE_DETAIL_FILE_SOURCE_HPP

/// @file
/// The file layer of the entry points that pass over a file front to back (lines(path),
/// files_equal): a byte source that streams with read(2) (by default), reads ahead on a
/// helper thread (big cached files), or hands out windows of a guarded map (when asked).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>

#include "../../detail/file_map.hpp"
#include "../../detail/file_shrank.hpp"
#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/read_ahead.hpp"
#include "../../detail/residency.hpp"
#include "../../io.hpp"
#include "../read_source.hpp"

namespace fastread::detail {

/// How a file_source reads a regular file.
enum class reading_plan {
    stream, ///< read(2) through a buffer, front to back
    ahead,  ///< pread(2) on a helper thread, a few blocks ahead of the caller
    map,    ///< a guarded map, handed out in windows
};

/// The plan for the regular file of `size` bytes open on `fd`: `io_mode::map` maps (a
/// non-empty file); else, with `ahead`, a file of read_ahead_from bytes or more that is
/// (resident_percent) in the page cache is read ahead when the call may use two threads or
/// more (threads.hpp); anything else streams.
inline reading_plan plan_reading(io_mode io, int fd, std::uint64_t size, bool ahead) {
    if (io == io_mode::map) {
        return size > 0 ? reading_plan::map : reading_plan::stream;
    }
    if (ahead && size >= read_ahead_from && usable_threads() >= 2 &&
        file_resident(fd, size, resident_percent)) {
        return reading_plan::ahead;
    }
    return reading_plan::stream;
}

/// The file layer of lines(path) and files_equal (plan_reading() decides how it reads).
///
/// A file that shrinks while it is read: the chunks end where the file now ends (read(2)
/// returns 0 there; the size is checked before each mapped window). If the file now ends
/// before bytes already handed out (read(2) racing a truncation, or a mapped page touched
/// after it, can give zeros for them), next() throws std::system_error (EIO) naming the
/// file: at the end of input when reading, at the next window when mapped.
class file_source {
  public:
    static constexpr std::size_t window = window_bytes;

    /// Opens `path` and reads it as plan_reading(io, ..., ahead) says.
    file_source(const std::filesystem::path& path, io_mode io, bool ahead = false) : path_(path) {
        unique_fd fd = open_read_only(path);
        const file_info info = stat_fd(fd.get(), path);
        const reading_plan plan =
            info.regular ? plan_reading(io, fd.get(), info.size, ahead) : reading_plan::stream;
        start(std::move(fd), info, plan);
    }

    /// Reads the file open on `fd` (fstat gave `info`) as `plan` says; a plan that maps
    /// falls back to streaming where the map cannot be made, one that reads ahead where no
    /// thread can be started.
    file_source(unique_fd fd, const file_info& info, reading_plan plan,
                const std::filesystem::path& path)
        : path_(path) {
        start(std::move(fd), info, plan);
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
        handed_out_ = window_end;
        return {map_.data() + begin, window_end - begin};
    }

    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    // What the constructors share: read ahead, map (falling back to streaming) or stream.
    void start(unique_fd fd, const file_info& info, reading_plan plan) {
        if (plan == reading_plan::ahead) {
            fd_ = std::move(fd);
            try {
                ahead_ = std::make_unique<read_ahead>(fd_.get(), path_);
                return;
            } catch (const std::system_error&) {
                fd = std::move(fd_); // no thread now: stream on this thread
            }
        }
        if (plan == reading_plan::map) {
            map_ = guarded_map(fd.get(), info.size);
            if (map_) {
                fd_ = std::move(fd);
                map_.advise(detail::map_advice::sequential);
                return;
            }
        }
        if (info.regular && info.size > 0) { // not /proc files: their size reads as 0
            read_fd_ = fd.get();             // owned by reader_ from here
        }
        reader_.emplace(std::move(fd), path_);
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
            throw_file_shrank(path_, now, handed_out_);
        }
    }

    std::filesystem::path path_;
    unique_fd fd_;                 // kept open while mapped or read ahead
    file_map map_;                 // empty unless mapped
    std::uint64_t handed_out_ = 0; // bytes handed out so far
    std::size_t limit_ = 0;        // where the file ended at the current window's start
    int read_fd_ = -1;             // the sized regular file reader_ reads, else -1
    bool done_ = false;
    std::optional<read_source> reader_;
    std::unique_ptr<read_ahead> ahead_; // last: its helper reads fd_, so it is destroyed first
};

} // namespace fastread::detail

#endif // FASTREAD_SOURCE_DETAIL_FILE_SOURCE_HPP
