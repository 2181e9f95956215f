#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_LINE_READERS_HPP)
#define FASTREAD_LINE_READERS_HPP

/// @file
/// The three line readers of the line-readers article behind fastread's lines family (Wu Yongwei's
/// nvwa readers; docs/articles.md), kept as working baselines with their interfaces: a reader
/// object over a stream, `FILE*` or file, a delimiter, a strip/no-strip switch, and range-for.
///
/// | reader | technique | line type |
/// |---|---|---|
/// | `istream_line_reader` | `std::getline` | `const std::string&` |
/// | `file_line_reader` | `fgets` (newline), else `fread` blocks | `const char*`, `size()` |
/// | `mmap_line_reader` | byte scan of an `mmap` | `const std::string&` |
///
/// Unlike the originals: an empty file is 0 lines (the original mmap reader threw), and
/// `file_line_reader` keeps NUL bytes inside lines (the original measured lines with
/// `strlen`, so a line "ab", NUL, "cd" came out as "ab"). As in the originals, a carriage
/// return (CR) before the line feed is kept. `fastread::lines` is the fast way; these exist to be
/// measured against.

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <istream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "detail/posix.hpp"
#include "source/mmap_source.hpp"

namespace fastread {

/// Whether a reader's lines keep their delimiter.
enum class strip_type { strip_delimiter, no_strip_delimiter };

/// The article's `std::getline` reader: lines of `stream` (borrowed) as `std::string`.
class istream_line_reader {
  public:
    /// An input iterator over the lines, equal to std::default_sentinel_t after the last.
    class iterator {
      public:
        ///@{
        /// The std::input_iterator members: `*` the current line, `++` reads the next
        /// one, and `== std::default_sentinel` once there is none.
        using iterator_concept = std::input_iterator_tag;
        using value_type = std::string;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        const std::string& operator*() const noexcept { return line_; }
        const std::string* operator->() const noexcept { return &line_; }
        iterator& operator++() {
            next();
            return *this;
        }
        void operator++(int) { next(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
            return it.reader_ == nullptr;
        }
        ///@}

      private:
        friend class istream_line_reader;
        explicit iterator(istream_line_reader* r) : reader_(r) { next(); }
        void next() {
            std::istream& in = *reader_->stream_;
            if (!std::getline(in, line_, reader_->delimiter_)) {
                reader_ = nullptr; // nothing read: the end (an empty last line is no line)
                return;
            }
            if (reader_->strip_ == strip_type::no_strip_delimiter && !in.eof()) {
                line_ += reader_->delimiter_; // getline stopped at a delimiter, not at EOF
            }
        }
        istream_line_reader* reader_ = nullptr;
        std::string line_;
    };

    /// Reads `stream` (borrowed: it must outlive the reader) up to each `delimiter`;
    /// `strip` says whether lines keep it.
    explicit istream_line_reader(std::istream& stream, char delimiter = '\n',
                                 strip_type strip = strip_type::strip_delimiter)
        : stream_(&stream), delimiter_(delimiter), strip_(strip) {}
    ///@{
    /// The lines once, in order: begin() reads the first; end() is the sentinel.
    iterator begin() { return iterator(this); }
    std::default_sentinel_t end() const noexcept { return {}; }
    ///@}

  private:
    std::istream* stream_ = nullptr;
    char delimiter_ = '\n';
    strip_type strip_ = strip_type::strip_delimiter;
};

/// The article's stdio reader: lines of `file` (borrowed, never closed; stdin works) as
/// NUL-terminated `const char*` in a buffer that doubles from 256 bytes; `size()` on the
/// iterator gives the length, which counts NUL bytes inside the line.
class file_line_reader {
  public:
    /// An input iterator over the lines, equal to std::default_sentinel_t after the last.
    class iterator {
      public:
        ///@{
        /// The std::input_iterator members: `*` the current line, `++` reads the next
        /// one, and `== std::default_sentinel` once there is none.
        using iterator_concept = std::input_iterator_tag;
        using value_type = const char*;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        const char* operator*() const noexcept { return buffer_.data(); }
        ///@}
        /// Length of the current line in bytes.
        std::size_t size() const noexcept { return size_; }
        ///@{
        /// Reads the next line (std::input_iterator).
        iterator& operator++() {
            next();
            return *this;
        }
        void operator++(int) { next(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
            return it.reader_ == nullptr;
        }
        ///@}

      private:
        friend class file_line_reader;
        explicit iterator(file_line_reader* r) : reader_(r), buffer_(256) { next(); }
        void next() {
            if (!(reader_->delimiter_ == '\n' ? read_fgets() : read_blocks())) {
                reader_ = nullptr;
            }
        }
        // fgets up to '\n'. fgets reports no length, and strlen stops at a NUL inside the
        // line, so the buffer is pre-filled with a non-NUL byte: the last NUL in it is the
        // terminator fgets wrote.
        bool read_fgets() {
            std::FILE* f = reader_->file_;
            size_ = 0;
            for (;;) {
                char* at = buffer_.data() + size_;
                const std::size_t room = buffer_.size() - size_;
                std::memset(at, '\n', room);
                if (std::fgets(at, static_cast<int>(room), f) == nullptr) {
                    if (std::ferror(f)) {
                        detail::throw_system_error(errno != 0 ? errno : EIO, "fgets");
                    }
                    buffer_[size_] = '\0';
                    return size_ != 0; // the file ended; a partial last line is a line
                }
                const std::size_t got = static_cast<std::size_t>(
                    static_cast<const char*>(detail::find_last(at, '\0', room)) - at);
                size_ += got;
                if (got > 0 && buffer_[size_ - 1] == '\n') {
                    if (reader_->strip_ == strip_type::strip_delimiter) {
                        buffer_[--size_] = '\0';
                    }
                    return true;
                }
                if (got + 1 < room) { // no '\n' and room left: the file ended
                    return true;
                }
                buffer_.resize(buffer_.size() * 2); // the line goes on
            }
        }
        // fread blocks and copy bytes up to the delimiter (any byte but '\n').
        bool read_blocks() {
            file_line_reader& r = *reader_;
            size_ = 0;
            bool any = false;
            for (;;) {
                if (r.block_pos_ == r.block_size_) {
                    r.block_size_ = std::fread(r.block_, 1, sizeof r.block_, r.file_);
                    r.block_pos_ = 0;
                    if (r.block_size_ == 0) {
                        if (std::ferror(r.file_)) {
                            detail::throw_system_error(errno != 0 ? errno : EIO, "fread");
                        }
                        buffer_[size_] = '\0';
                        return any;
                    }
                }
                any = true;
                const char c = r.block_[r.block_pos_++];
                const bool delimiter = c == r.delimiter_;
                if (!delimiter || r.strip_ == strip_type::no_strip_delimiter) {
                    if (size_ + 1 >= buffer_.size()) {
                        buffer_.resize(buffer_.size() * 2);
                    }
                    buffer_[size_++] = c;
                }
                if (delimiter) {
                    buffer_[size_] = '\0';
                    return true;
                }
            }
        }
        file_line_reader* reader_ = nullptr;
        std::vector<char> buffer_;
        std::size_t size_ = 0;
    };

    /// Reads `file` (borrowed, never closed) up to each `delimiter`; `strip` says whether
    /// lines keep it. Throws std::invalid_argument for a null `file`.
    explicit file_line_reader(std::FILE* file, char delimiter = '\n',
                              strip_type strip = strip_type::strip_delimiter)
        : file_(file), delimiter_(delimiter), strip_(strip) {
        if (file == nullptr) {
            detail::throw_error(
                detail::invalid_argument_value("fastread::file_line_reader: null FILE*"));
        }
    }
    ///@{
    /// The lines once, in order: begin() reads the first; end() is the sentinel.
    iterator begin() { return iterator(this); }
    std::default_sentinel_t end() const noexcept { return {}; }
    ///@}

  private:
    std::FILE* file_ = nullptr;
    char delimiter_ = '\n';
    strip_type strip_ = strip_type::strip_delimiter;
    char block_[256] = {};
    std::size_t block_pos_ = 0;
    std::size_t block_size_ = 0;
};

/// The article's mmap reader: lines of the regular file at `path` as `std::string`, found
/// by a byte-by-byte scan of a map. Cannot read pipes or stdin (std::system_error).
class mmap_line_reader {
  public:
    /// An input iterator over the lines, equal to std::default_sentinel_t after the last.
    class iterator {
      public:
        ///@{
        /// The std::input_iterator members: `*` the current line, `++` reads the next
        /// one, and `== std::default_sentinel` once there is none.
        using iterator_concept = std::input_iterator_tag;
        using value_type = std::string;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        const std::string& operator*() const noexcept { return line_; }
        const std::string* operator->() const noexcept { return &line_; }
        iterator& operator++() {
            next();
            return *this;
        }
        void operator++(int) { next(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept {
            return it.reader_ == nullptr;
        }
        ///@}

      private:
        friend class mmap_line_reader;
        explicit iterator(mmap_line_reader* r) : reader_(r) { next(); }
        void next() {
            const std::span<const char> all = reader_->map_.bytes();
            if (pos_ == all.size()) {
                reader_ = nullptr;
                return;
            }
            std::size_t i = pos_;
            while (i < all.size() && all[i] != reader_->delimiter_) {
                ++i;
            }
            const bool found = i < all.size();
            const std::size_t end =
                found && reader_->strip_ == strip_type::no_strip_delimiter ? i + 1 : i;
            line_.assign(all.data() + pos_, end - pos_);
            pos_ = found ? i + 1 : i;
        }
        mmap_line_reader* reader_ = nullptr;
        std::size_t pos_ = 0;
        std::string line_;
    };

    /// Maps the regular file at `path` and reads it up to each `delimiter`; `strip` says
    /// whether lines keep it. Throws std::system_error naming the file where it cannot be
    /// opened or mapped.
    explicit mmap_line_reader(const std::filesystem::path& path, char delimiter = '\n',
                              strip_type strip = strip_type::strip_delimiter)
        : map_(path), delimiter_(delimiter), strip_(strip) {}
    ///@{
    /// The lines once, in order: begin() reads the first; end() is the sentinel.
    iterator begin() { return iterator(this); }
    std::default_sentinel_t end() const noexcept { return {}; }
    ///@}

  private:
    mmap_source map_;
    char delimiter_ = '\n';
    strip_type strip_ = strip_type::strip_delimiter;
};

} // namespace fastread

#endif // FASTREAD_LINE_READERS_HPP
