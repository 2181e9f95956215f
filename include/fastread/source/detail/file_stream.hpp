#ifndef FASTREAD_SOURCE_DETAIL_FILE_STREAM_HPP
#define FASTREAD_SOURCE_DETAIL_FILE_STREAM_HPP

/// @file
/// The file layer's stream (detail/input_file.hpp): an opened input read front to back with
/// read(2), for the decoders that read a file once from its start (the image loads, numbers
/// on one thread). The head the plan read (input_file::head) is handed out first, not read
/// again.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <utility>

#include "../../detail/input_file.hpp"
#include "../../detail/posix.hpp"
#include "../../error.hpp"
#include "../../result.hpp"
#include "../read_source.hpp"

namespace fastread::detail {

/// A byte source over an input_file from its start: the bytes of its head, when the plan
/// read one, then the rest with read(2) from where the head ended (a read_source). Models
/// reporting_source, direct_read_source and sized_source as read_source does. The head's
/// bytes belong to the input_file, which must outlive the stream.
class file_stream {
  public:
    file_stream(read_source rest, std::span<const char> head) noexcept
        : rest_(std::move(rest)), head_(head), head_size_(head.size()) {}

    /// The head's bytes (once), then the rest's chunks; throws as read_source::next.
    std::span<const char> next() {
        if (!head_.empty()) {
            return std::exchange(head_, {});
        }
        return rest_.next();
    }
    /// As next(), a read error ending the input (error()).
    std::span<const char> try_next() noexcept {
        if (!head_.empty()) {
            return std::exchange(head_, {});
        }
        return rest_.try_next();
    }
    /// The bytes after the last chunk into `dst` (what is left of the head first).
    std::size_t read_into(std::span<char> dst) {
        const std::size_t from_head = take_head(dst);
        return from_head + rest_.read_into(dst.subspan(from_head));
    }
    /// As read_into(), a read error ending the input (error()).
    std::size_t try_read_into(std::span<char> dst) noexcept {
        const std::size_t from_head = take_head(dst);
        return from_head + rest_.try_read_into(dst.subspan(from_head));
    }
    /// The read error that ended the input, or none.
    const fastread::error& error() const noexcept { return rest_.error(); }
    /// The bytes the file had at open (the head's and the rest's).
    std::optional<std::uint64_t> size_hint() const noexcept {
        const std::optional<std::uint64_t> rest = rest_.size_hint();
        return rest ? std::optional<std::uint64_t>(*rest + head_size_) : std::nullopt;
    }
    /// The file's path.
    const std::filesystem::path& path() const noexcept { return rest_.path(); }
    /// Bytes of the file handed out or read so far, the head's included.
    std::uint64_t consumed() const noexcept { return head_size_ + rest_.consumed(); }

  private:
    std::size_t take_head(std::span<char> dst) noexcept {
        const std::size_t n = std::min(dst.size(), head_.size());
        if (n > 0) {
            std::memcpy(dst.data(), head_.data(), n);
            head_ = head_.subspan(n);
        }
        return n;
    }

    read_source rest_;
    std::span<const char> head_;
    std::size_t head_size_;
};

/// Hands `file`'s descriptor to a stream of `chunk`-byte reads from the start, the head
/// first when it was read (then read(2) goes on after it): sized by the fstat of open (no
/// second fstat) when the file is sized(), else adopted (a pipe, a /proc file; an fstat
/// error then). `file.fd()` stays valid as long as the stream lives.
inline result<file_stream> stream_file(input_file& file,
                                       std::size_t chunk = read_source::default_chunk_size) {
    if (!file.sized()) {
        result<read_source> adopted = read_source::try_adopt(file.release(), file.path(), chunk);
        if (!adopted) {
            return adopted.error();
        }
        return file_stream(std::move(*adopted), {});
    }
    std::span<const char> head = file.head_read();
    if (!head.empty() && !seek_to(file.fd(), head.size())) {
        head = {}; // read it again rather than fail: the offset is still 0
    }
    const std::uint64_t rest = file.size() - std::min<std::uint64_t>(file.size(), head.size());
    return file_stream(read_source(file.release(), file.path(), chunk, rest), head);
}

} // namespace fastread::detail

#endif // FASTREAD_SOURCE_DETAIL_FILE_STREAM_HPP
