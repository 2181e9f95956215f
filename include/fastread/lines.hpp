#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_LINES_HPP)
#define FASTREAD_LINES_HPP

/// @file
/// `fastread::lines`: the lines of a file, of stdin or of any byte source, as a range of
/// `std::string_view`.
///
/// ```
/// for (std::string_view line : fastread::lines("app.log")) { ... }
/// auto errors = std::ranges::count_if(fastread::lines(stdin),
///                                     [](std::string_view l) { return l.starts_with("E"); });
/// ```

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "detail/chunk_cursor.hpp"
#include "detail/config.hpp"
#include "error.hpp"
#include "io.hpp"
#include "lines/detail/path_source.hpp"
#include "result.hpp"
#include "scan/byte_mask.hpp"
#include "source/byte_source.hpp"

namespace fastread {

/// How input is split into lines.
struct line_options {
    /// The byte that ends a line; any byte, NUL included.
    char delimiter = '\n';
    /// true: each line ends with its delimiter (the last line only if the input ends with
    /// one), so that the concatenation of all lines is the input, byte for byte.
    bool keep_delimiter = false;
    /// With delimiter line feed (LF) and !keep_delimiter: a carriage return (CR) right
    /// before the LF is dropped too ("a" CR LF yields "a"). A CR anywhere else, or at the end
    /// of the input, is kept.
    bool strip_cr = true;
    /// 0: lines of any length (the buffer grows). Else the longest line accepted, in bytes
    /// as handed out without its delimiter (a CR that strip_cr drops does not count); a
    /// longer one throws parse_error instead of being split.
    std::size_t max_line_length = 0;
    /// lines(path) only: read (the default, `process_setting`, reads unless `FASTREAD_IO=map`) or
    /// map the file (fastread/io.hpp).
    io_mode io = io_mode::process_setting;
    /// lines(path) only: the most threads the call uses, the calling thread included (1: no
    /// helper thread); 0: the process setting (fastread/threads.hpp).
    unsigned threads = 0;
};

/// A single-pass range of the lines of a byte source: `begin()` reads the first line, each
/// increment the next. Lines are `std::string_view`s without their delimiter (unless
/// `keep_delimiter`): "" gives no line, "\n" one empty line, "a\nb\n" and "a\nb" two lines.
///
/// Lifetime: a line points into the source's current chunk (zero copy) or, when it straddles
/// chunks, into the range's own buffer; either way it is valid until the next increment.
/// Copy what must live longer. The range owns its source when made by `lines(path)` or
/// `lines(FILE*)`, else borrows it.
/// @throws parse_error (offset of the first byte past the limit) for a line longer than
///         `max_line_length`; what the source throws (std::system_error) on I/O errors.
namespace detail {
struct line_range_access;
} // namespace detail

template <byte_source Source>
class line_range {
  public:
    /// An input iterator over the lines, equal to std::default_sentinel_t after the last.
    class iterator {
      public:
        ///@{
        /// The std::input_iterator members: `*` the current line (valid until the next
        /// `++`), `++` finds the next one, and `== std::default_sentinel` once there is none.
        using iterator_concept = std::input_iterator_tag;
        using value_type = std::string_view;
        using difference_type = std::ptrdiff_t;

        iterator() = default;
        std::string_view operator*() const noexcept { return range_->line_; }
        iterator& operator++() {
            if (!range_->next_line()) {
                line_range* r = std::exchange(range_, nullptr);
                r->exhausted_ = true;
                r->raise_unless_reporting();
            }
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
            return it.range_ == nullptr;
        }
        ///@}

      private:
        friend class line_range;
        explicit iterator(line_range* range) noexcept : range_(range) {}
        line_range* range_ = nullptr;
    };

    /// Borrows `source`, which must outlive the range.
    explicit line_range(Source& source, line_options options = {})
        : source_(&source), cursor_(source), options_(options),
          keep_(options.keep_delimiter ? 1 : 0),
          strip_cr_(options.strip_cr && !options.keep_delimiter && options.delimiter == '\n'),
          find_(scan::byte_positions_for(scan::active_level())),
          positions_(new std::uint32_t[window_blocks * 64 + 8]) {}
    /// Owns `source`.
    explicit line_range(std::unique_ptr<Source> source, line_options options = {})
        : owned_(std::move(source)), source_(owned_.get()), cursor_(*owned_), options_(options),
          keep_(options.keep_delimiter ? 1 : 0),
          strip_cr_(options.strip_cr && !options.keep_delimiter && options.delimiter == '\n'),
          find_(scan::byte_positions_for(scan::active_level())),
          positions_(new std::uint32_t[window_blocks * 64 + 8]) {}

    ///@{
    /// Moves the range (and the source it owns); not copyable.
    line_range(line_range&&) noexcept = default;
    line_range& operator=(line_range&&) noexcept = default;
    ///@}

    /// Reads the first line; call once (single pass).
    iterator begin() {
        if (!started_) {
            started_ = true;
            exhausted_ = !advance();
            if (exhausted_) {
                raise_unless_reporting();
            }
        }
        return exhausted_ ? iterator() : iterator(this);
    }
    /// The sentinel that begin()'s iterator equals after the last line.
    std::default_sentinel_t end() const noexcept { return {}; }

    /// Input offset, in bytes, of the first byte of the current line.
    std::uint64_t line_offset() const noexcept { return line_offset_; }

    /// The error that ended the iteration early: a line longer than `max_line_length`
    /// (`errc::over_limit`, at the byte past the limit), or the source's read error (a
    /// `reporting_source`'s, e.g. lines(path)'s). No error (an empty `code()`) when the
    /// input ended normally or has not ended yet. A range made by `try_lines` ends its
    /// iteration on such an error and keeps it here; any other range throws it from the
    /// increment (or `begin()`) that met it, and keeps it here too.
    const fastread::error& error() const noexcept { return error_; }

  private:
    friend struct detail::line_range_access;

    void raise_unless_reporting() const {
        if (!reporting_ && error_.code()) {
            detail::throw_error(error_);
        }
    }

    static constexpr std::size_t window_blocks = 64; // 64-byte blocks scanned per call (4 KiB)

    // With the current chunk used up: the next one, not yet scanned; false at the end.
    bool fetch();
    // The next delimiter at or after cursor_.pos in the current chunk, or nullptr. The kernel
    // (scan::byte_positions: SSE2, AVX2 or AVX-512, chosen at construction) lists the
    // delimiters of a window of up to 4 KiB at a time (16 KiB of offsets: with 1 KiB windows the
    // end of each call mispredicted often enough to cost 0.02 c/B on short lines); taking the next
    // one is a load, with no call and no hard-to-predict branch per line, unlike memchr or a
    // per-block bitmask.
    const char* find_delimiter() noexcept;
    // False, with the error kept, for a line longer than the limit.
    bool check_length(std::size_t content);
    // Sets line_ to the next line; false at the end of the input.
    bool advance();

    // The common case inline: the next delimiter is already in the current block's mask.
    bool next_line() {
        if (next_ != count_ && options_.max_line_length == 0) {
            const char* nl = window_ + positions_[next_++];
            line_offset_ = cursor_.offset();
            const std::size_t content = static_cast<std::size_t>(nl - cursor_.pos);
            // Without a branch: empty lines are common (blank lines in source code) and a
            // "content != 0" branch mispredicted on 15 % of the lines of C headers (measured
            // with callgrind's branch simulation). For an empty line the byte read is the
            // delimiter itself, '\n' when strip_cr_, so never '\r'.
            const char before = nl[-static_cast<std::ptrdiff_t>(content != 0)];
            const std::size_t cr = static_cast<std::size_t>(strip_cr_ & (before == '\r'));
            line_ = std::string_view(cursor_.pos, content + keep_ - cr);
            cursor_.pos = nl + 1;
            return true;
        }
        return advance();
    }

    std::unique_ptr<Source> owned_;
    Source* source_ = nullptr;
    detail::chunk_cursor<Source> cursor_; // the current chunk, the input offset of its bytes
    line_options options_;
    std::size_t keep_ = 0;                       // 1 when lines keep their delimiter
    bool strip_cr_ = false;                      // strip a '\r' before a '\n' delimiter
    scan::byte_positions_fn find_ = nullptr;     // the SIMD level's kernel, chosen at construction
    std::unique_ptr<std::uint32_t[]> positions_; // delimiter offsets in the window
    const char* window_ = nullptr;               // the bytes positions_ describes
    const char* scanned_ = nullptr;              // the first byte of the chunk not yet scanned
    std::size_t count_ = 0;                      // delimiters listed in positions_
    std::size_t next_ = 0;                       // the first of them not yet handed out
    std::uint64_t line_offset_ = 0;
    std::string carry_;     // a line that straddles chunks
    std::string_view line_; // the current line
    bool started_ = false;
    bool exhausted_ = false; // the iterator has passed the last line
    bool done_ = false;
    bool reporting_ = false; // made by try_lines: errors end the iteration, kept in error_
    fastread::error error_;
};

// The slow paths of the line scan (a chunk ends, a line straddles chunks, a line is too
// long), out of the class: in the compiled mode, line_range<detail::path_source>'s are
// compiled once in the library (extern template below) and not in every translation unit.

template <byte_source Source>
bool line_range<Source>::fetch() {
    if (!cursor_.fill()) {
        if constexpr (reporting_source<Source>) {
            if (source_->error().code() && !error_.code()) {
                error_ = source_->error();
            }
        }
        return false;
    }
    scanned_ = window_ = cursor_.pos;
    count_ = next_ = 0;
    return true;
}

template <byte_source Source>
const char* line_range<Source>::find_delimiter() noexcept {
    for (;;) {
        if (next_ != count_) {
            return window_ + positions_[next_++];
        }
        const std::size_t left = static_cast<std::size_t>(cursor_.end - scanned_);
        if (left == 0) {
            return nullptr;
        }
        window_ = scanned_;
        next_ = 0;
        if (left >= 64) {
            const std::size_t blocks = std::min(left / 64, window_blocks);
            count_ = find_(window_, blocks, options_.delimiter, positions_.get());
            scanned_ += 64 * blocks;
        } else {
            count_ = scan::byte_positions_tail(window_, left, options_.delimiter, positions_.get());
            scanned_ = cursor_.end;
        }
    }
}

template <byte_source Source>
bool line_range<Source>::check_length(std::size_t content) {
    if (options_.max_line_length != 0 && content > options_.max_line_length) {
        error_ = detail::parse_error_value(line_offset_ + options_.max_line_length,
                                           "line longer than max_line_length (" +
                                               std::to_string(options_.max_line_length) + " bytes)",
                                           detail::source_name(*source_), errc::over_limit);
        done_ = true;
        line_ = {};
        return false;
    }
    return true;
}

template <byte_source Source>
bool line_range<Source>::advance() {
    if (done_) {
        line_ = {};
        return false;
    }
    carry_.clear();
    bool partial = false; // part of this line is in carry_
    for (;;) {
        if (cursor_.pos == cursor_.end && !fetch()) {
            done_ = true;
            if (!partial) {
                line_ = {};
                return false;
            }
            if (!check_length(carry_.size())) { // a last '\r' without '\n' stays: it counts
                return false;
            }
            line_ = carry_; // the last line, without a delimiter: nothing to strip
            return true;
        }
        if (!partial) {
            line_offset_ = cursor_.offset();
        }
        const char* hit = find_delimiter();
        if (hit == nullptr) {
            // A '\r' ending the chunk may be stripped (if a '\n' starts the next one):
            // not counted yet.
            const bool cr_last = strip_cr_ && cursor_.end[-1] == '\r';
            if (!check_length(carry_.size() + static_cast<std::size_t>(cursor_.end - cursor_.pos) -
                              (cr_last ? 1 : 0))) {
                return false;
            }
            carry_.append(cursor_.pos, cursor_.end);
            partial = true;
            cursor_.pos = cursor_.end;
            continue;
        }
        const char* nl = hit;
        const std::size_t content = static_cast<std::size_t>(nl - cursor_.pos);
        // The limit is on the line as handed out: without a '\r' that strip_cr drops.
        const bool cr_dropped =
            strip_cr_ && (content != 0 ? nl[-1] == '\r' : !carry_.empty() && carry_.back() == '\r');
        if (!check_length(carry_.size() + content - (cr_dropped ? 1 : 0))) {
            return false;
        }
        const std::size_t take = content + (options_.keep_delimiter ? 1 : 0);
        if (partial) {
            carry_.append(cursor_.pos, take);
            line_ = carry_;
        } else {
            line_ = std::string_view(cursor_.pos, take);
        }
        cursor_.pos = nl + 1;
        if (strip_cr_ && !line_.empty() && line_.back() == '\r') {
            line_.remove_suffix(1);
        }
        return true;
    }
}

/// The lines of the file at `path`.
///
/// The file is read (`read(2)` through a buffer of read_source's chunk size) unless
/// `options.io` asks for a map (fastread/io.hpp: a guarded map handed out in windows). A big
/// regular file that is in the page cache is read instead with `pread(2)` by a helper thread
/// a few blocks ahead of the lines handed out (detail::read_ahead), so that the copy out of
/// the page cache overlaps the scan; not where the call may use only one thread
/// (`options.threads`, fastread/threads.hpp). The sizes and the "cached" share are
/// detail/policy.hpp's (`read_ahead_from`, `resident_percent`, `read_ahead_block`,
/// `read_ahead_slots`; docs/defaults.md lists their values). Pipes, FIFOs, `/proc` and
/// sysfs files are always streamed. Time O(file size); memory O(longest line) beyond the
/// buffer (read_ahead_block x read_ahead_slots when reading ahead).
///
/// If the file shrinks while its lines are read (a log truncated by `logrotate`'s
/// copytruncate), it never dies of SIGBUS: the range gives the lines up to where the file
/// now ends, then ends; but if the file now ends before bytes the range already handed out
/// (those lines may have read as zeros), an increment throws std::system_error (EIO)
/// naming the file instead of ending (at the end of input when streaming or reading ahead,
/// at the next 2 MiB window when mapped). Bytes appended while reading are read when streamed
/// or read ahead (until the helper's first short read); a mapped pass stops at the size the
/// file had when it was opened.
/// @throws std::system_error naming the path if it cannot be opened or read.
line_range<detail::path_source> lines(const std::filesystem::path& path, line_options options = {});

namespace detail {
/// What try_lines sets in a line_range: it reports its errors through error() only.
struct line_range_access {
    template <class Source>
    static line_range<Source> reporting(line_range<Source>&& range) noexcept {
        range.reporting_ = true;
        return std::move(range);
    }
};
} // namespace detail

/// `lines(path)` without exceptions: the range, or the `error` of opening the file (the
/// errno of `open` or `fstat`, naming the path). An error while the range is iterated (a
/// read error, the file shrinking below what was handed out, a line over
/// `max_line_length`) ends the iteration and is kept: `range.error()`. Never throws but
/// `std::bad_alloc`.
///
/// ```
/// auto lines = fastread::try_lines("app.log");
/// if (!lines) { /* lines.error() */ }
/// for (std::string_view line : *lines) { ... }
/// if (lines->error().code()) { /* the read stopped early */ }
/// ```
result<line_range<detail::path_source>> try_lines(const std::filesystem::path& path,
                                                  line_options options = {});

/// The lines of any byte source (borrowed: it must outlive the range).
template <byte_source Source>
line_range<Source> lines(Source& source, line_options options = {}) {
    return line_range<Source>(source, options);
}

} // namespace fastread

#if FASTREAD_SEPARATE_COMPILATION
namespace fastread {
extern template class line_range<detail::path_source>;
} // namespace fastread
#else
#include "lines/detail/path.hpp"
#include "lines/stdio.hpp"
#endif

#endif // FASTREAD_LINES_HPP
