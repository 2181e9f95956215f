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
/// with each slice's bytes, and its decoder, kernel and join. A call that plans slices
/// includes input_plan.hpp (the page cache and threads); one that only opens (records, a
/// string table's view) needs this header alone.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "../error.hpp"
#include "../result.hpp"
#include "file_map.hpp"
#include "file_shrank.hpp"
#include "policy.hpp"
#include "posix.hpp"
#include "rw.hpp"

namespace fastread::detail {

/// The input of one call: a file opened once, with what fstat said of it at open.
class input_file {
  public:
    /// Opens `path` read-only (O_CLOEXEC | `extra_flags`: o_nonblock for a call that must
    /// not wait on a FIFO's writer) and fstats it: the file, or the error (open's or fstat's
    /// errno, naming the path).
    static result<input_file> open(const std::filesystem::path& path, int extra_flags = 0) {
        fastread::error err;
        unique_fd fd = open_read_only(path, extra_flags, err);
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

    /// Opens `path` for an `operation` that only reads or writes a regular file (read_at,
    /// update_at): read-only, or read-write for open_mode::read_write; a FIFO is not waited
    /// on, and anything but a regular file is an error (open_regular in detail/posix.hpp:
    /// EISDIR, EINVAL, or open's errno, naming `operation` and the path).
    static result<input_file> open_regular(const std::filesystem::path& path,
                                           std::string_view operation, open_mode mode) {
        fastread::error err;
        file_info info;
        unique_fd fd = detail::open_regular(path, operation, mode, err, &info);
        if (!fd) {
            return err;
        }
        return input_file(std::move(fd), info, path);
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
    /// Defined in input_plan.hpp, with what a plan needs (the page cache, the threads).
    bool cached();

    /// How many threads read the file in slices: threads_for(`work` units, `per_thread`,
    /// most_cpu_threads) when the file is sized, `from` bytes or more and cached; else 1.
    /// The page cache is asked only when more than one thread would do. Defined in
    /// input_plan.hpp.
    unsigned slice_threads(std::uint64_t work, std::uint64_t per_thread, std::uint64_t from = 0);

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

    /// The head's bytes if head() read them (empty otherwise): what a stream of the file
    /// hands out first instead of reading them again (stream_file).
    std::span<const char> head_read() const noexcept {
        return head_ ? std::span<const char>(head_.get(), head_size_) : std::span<const char>();
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

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_INPUT_FILE_HPP
