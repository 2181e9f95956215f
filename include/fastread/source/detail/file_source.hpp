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
#include "../../detail/input_file.hpp"
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
    /// @throws std::system_error naming the path if it cannot be opened.
    file_source(const std::filesystem::path& path, io_mode io, bool ahead = false)
        : file_source(value_or_throw(try_open(path, io, ahead))) {}

    /// Opens `path` and reads it as plan_reading(io, ..., ahead) says: the source, or the
    /// error (open's or fstat's errno, naming the path).
    static result<file_source> try_open(const std::filesystem::path& path, io_mode io,
                                        bool ahead = false) {
        result<input_file> file = input_file::open(path);
        if (!file) {
            return file.error();
        }
        return try_adopt(std::move(*file), io, ahead);
    }

    /// Reads `file` (the file layer's, opened once by the caller) as plan_reading(io, ...,
    /// ahead) says: the source, or the error of a stream that cannot start.
    static result<file_source> try_adopt(input_file&& file, io_mode io, bool ahead = false) {
        const reading_plan plan = file.info().regular
                                      ? plan_reading(io, file.fd(), file.size(), ahead)
                                      : reading_plan::stream;
        return try_adopt(std::move(file), plan);
    }

    /// Reads `file` as `plan` says (a plan the caller made for it with plan_reading).
    static result<file_source> try_adopt(input_file&& file, reading_plan plan) {
        const file_info info = file.info();
        file_source source(file.path());
        if (fastread::error e = source.start(file.release(), info, plan); e.code()) {
            return e;
        }
        return source;
    }

    /// Reads the file open on `fd` (fstat gave `info`) as `plan` says; a plan that maps
    /// falls back to streaming where the map cannot be made, one that reads ahead where no
    /// thread can be started. @throws std::system_error if fstat fails (a stream of a file
    /// that is not regular).
    file_source(unique_fd fd, const file_info& info, reading_plan plan,
                const std::filesystem::path& path)
        : path_(path) {
        throw_if(start(std::move(fd), info, plan));
    }

    ///@{
    /// Moves the source; not copyable.
    file_source(file_source&&) noexcept = default;
    file_source& operator=(file_source&&) noexcept = default;
    ///@}

    /// The next chunk; empty at the end. @throws std::system_error naming the file on a
    /// read error, or if the file shrank below what was handed out.
    std::span<const char> next() {
        const std::span<const char> chunk = try_next();
        throw_if(error_);
        return chunk;
    }

    /// As next(), without throwing: an error ends the input and is kept in error().
    std::span<const char> try_next() noexcept {
        if (error_.code()) {
            return {};
        }
        if (ahead_) {
            const std::span<const char> chunk = ahead_->try_next();
            handed_out_ += chunk.size();
            if (chunk.empty()) {
                if (ahead_->error().code()) {
                    error_ = ahead_->error();
                    return {};
                }
                // The end: as when streaming, a file that now ends before what was handed
                // out shrank during the pass (pread racing the truncation may give zeros).
                check_size(stat_fd(fd_.get(), path_, error_).size);
            }
            return chunk;
        }
        if (reader_) {
            const std::span<const char> chunk = reader_->try_next();
            handed_out_ += chunk.size();
            if (chunk.empty()) {
                if (reader_->error().code()) {
                    error_ = reader_->error();
                    return {};
                }
                if (read_fd_ >= 0) {
                    // The end: a regular file that now ends before what was handed out
                    // shrank during the pass, and read(2) racing the truncation may have
                    // returned zeros.
                    check_size(stat_fd(read_fd_, path_, error_).size);
                }
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
            const std::uint64_t now = stat_fd(fd_.get(), path_, error_).size;
            if (error_.code() || !check_not_lost(now)) {
                done_ = true;
                return {};
            }
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

    /// The error that ended the input (a read error, a shrink below what was handed out);
    /// no error otherwise.
    const fastread::error& error() const noexcept { return error_; }

    const std::filesystem::path& path() const noexcept { return path_; }

  private:
    explicit file_source(const std::filesystem::path& path) : path_(path) {}

    // What the constructors share: read ahead, map (falling back to streaming) or stream.
    fastread::error start(unique_fd fd, const file_info& info, reading_plan plan) {
        if (plan == reading_plan::ahead) {
            fd_ = std::move(fd);
            int start_error = 0;
            ahead_ = std::make_unique<read_ahead>(fd_.get(), path_, start_error);
            if (start_error == 0) {
                return {};
            }
            ahead_.reset();
            fd = std::move(fd_); // no thread now: stream on this thread
        }
        if (plan == reading_plan::map) {
            map_ = guarded_map(fd.get(), info.size);
            if (map_) {
                fd_ = std::move(fd);
                map_.advise(detail::map_advice::sequential);
                return {};
            }
        }
        if (info.regular && info.size > 0) { // not /proc files: their size reads as 0
            read_fd_ = fd.get();             // owned by reader_ from here
            reader_.emplace(std::move(fd), path_, read_source::default_chunk_size, info.size);
            return {};
        }
        result<read_source> r = read_source::try_adopt(std::move(fd), path_);
        if (!r) {
            return r.error();
        }
        reader_.emplace(std::move(*r));
        return {};
    }
    // False (the error in error_) when the file now ends before what was handed out.
    bool check_not_lost(std::uint64_t now) noexcept {
        if (handed_out_ == 0) {
            return true;
        }
        if (!check_size(now)) {
            return false;
        }
        if (map_.lost() >= 0) { // shrank, then grew back: what was handed out held zeros
            error_ = os_error(EIO, "read (the file changed size while it was read)", path_);
            return false;
        }
        return true;
    }
    bool check_size(std::uint64_t now) noexcept {
        if (!error_.code() && now < handed_out_) {
            error_ = file_shrank_error(path_, now, handed_out_);
        }
        return !error_.code();
    }

    std::filesystem::path path_;
    unique_fd fd_;                 // kept open while mapped or read ahead
    file_map map_;                 // empty unless mapped
    std::uint64_t handed_out_ = 0; // bytes handed out so far
    std::size_t limit_ = 0;        // where the file ended at the current window's start
    int read_fd_ = -1;             // the sized regular file reader_ reads, else -1
    bool done_ = false;
    std::optional<read_source> reader_;
    fastread::error error_;
    std::unique_ptr<read_ahead> ahead_; // last: its helper reads fd_, so it is destroyed first
};

} // namespace fastread::detail

#endif // FASTREAD_SOURCE_DETAIL_FILE_SOURCE_HPP
