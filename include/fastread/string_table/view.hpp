#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_STRING_TABLE_VIEW_HPP)
#define FASTREAD_STRING_TABLE_VIEW_HPP

/// @file
/// Reading string tables: `string_table::view`, a table mapped read-only (the format:
/// docs/string-table.md). Its opening is header-only, or compiled once in the compiled mode
/// (FASTREAD_SEPARATE_COMPILATION).

#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "../detail/config.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "detail/load.hpp"
#include "format.hpp"

namespace fastread::detail {
class file_map;
} // namespace fastread::detail

namespace fastread::string_table {

/// A table mapped read-only: string i is a std::string_view into the map, valid while the
/// view lives. Move-only; unmaps on destruction.
///
/// The map is the point (zero copies), so it is not guarded: if the file shrinks while a
/// view of it exists (rewritten in place instead of replaced by rename, as
/// string_table::write does), touching a string past the file's new end raises SIGBUS,
/// which ends the process unless the program handles that signal.
class view {
  public:
    class iterator;

    /// An empty table (no file).
    view() noexcept;
    ///@{
    /// Moves the table (its map); `other` is left empty. Not copyable.
    view(view&& other) noexcept;
    view& operator=(view&& other) noexcept;
    ///@}
    view(const view&) = delete;
    view& operator=(const view&) = delete;
    ~view();

    /// Maps `path` and checks the header and every offset in one sequential pass
    /// (offsets[0] = 0, never decreasing, offsets[count] = the data size). O(count) time,
    /// no allocation. Throws parse_error with the byte offset of the first problem (see
    /// docs/string-table.md for the rules), std::system_error if the file cannot be
    /// opened or mapped.
    static view open(const std::filesystem::path& path) {
        return detail::value_or_throw(try_open(path));
    }

    /// `open` without exceptions: the view, or the `error` `open` reports (a malformed
    /// table as `errc::malformed_input` with the byte offset of the first problem; the errno
    /// of open, fstat, pread or mmap). Never throws but `std::bad_alloc`.
    static result<view> try_open(const std::filesystem::path& path);

    /// Maps `path` and checks only the header: O(1) in the number of strings (open, fstat,
    /// a 64-byte pread, mmap; no page of the map is touched). Offsets are not checked: `at()`
    /// checks the two it uses and throws parse_error on bad ones, `operator[]` clamps them into the
    /// data area, so a corrupt table gives wrong strings or errors, never a read outside the map.
    static view open_unchecked(const std::filesystem::path& path) {
        return detail::value_or_throw(try_open_unchecked(path));
    }

    /// `open_unchecked` without exceptions: the view, or the error it reports.
    static result<view> try_open_unchecked(const std::filesystem::path& path);

    /// Strings in the table.
    std::size_t size() const noexcept { return static_cast<std::size_t>(count_); }
    /// Whether the table holds no string.
    bool empty() const noexcept { return count_ == 0; }

    /// String i (i < size(), not checked). On a table from open_unchecked with corrupt
    /// offsets, the bytes are clamped to the data area: wrong, never out of bounds.
    std::string_view operator[](std::size_t i) const noexcept {
        std::uint64_t b = offset(i), e = offset(i + 1);
        e = e < data_size_ ? e : data_size_;
        b = b < e ? b : e;
        return {reinterpret_cast<const char*>(data_) + b, static_cast<std::size_t>(e - b)};
    }

    /// String i; throws std::out_of_range if i >= size(), parse_error (the offset entry's
    /// byte position) if its offsets are out of order or past the data.
    std::string_view at(std::size_t i) const {
        if (i >= count_) {
            detail::throw_error(fastread::error(make_error_code(errc::out_of_range),
                                                "string_table::view::at: index " +
                                                    std::to_string(i) + " >= size() " +
                                                    std::to_string(count_)));
        }
        const std::uint64_t b = offset(i), e = offset(i + 1);
        if (b > e || e > data_size_) {
            detail::throw_error(detail::parse_error_value(
                offsets_at_ + 8 * (b > e ? i : i + 1),
                "offset of string " + std::to_string(b > e ? i : i + 1) +
                    (b > e ? " is after the next one" : " is past the data")));
        }
        return {reinterpret_cast<const char*>(data_) + b, static_cast<std::size_t>(e - b)};
    }

    ///@{
    /// The strings in order, as a random-access range of std::string_view.
    iterator begin() const noexcept;
    iterator end() const noexcept;
    ///@}

    /// Bytes of string data (the sum of the lengths).
    std::uint64_t data_size() const noexcept { return data_size_; }

    /// Exchanges the tables of `*this` and `other`.
    void swap(view& other) noexcept {
        std::swap(map_, other.map_);
        std::swap(offsets_, other.offsets_);
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        std::swap(data_size_, other.data_size_);
        std::swap(offsets_at_, other.offsets_at_);
        std::swap(data_at_, other.data_at_);
    }

  private:
    std::uint64_t offset(std::size_t i) const noexcept {
        return detail::load_u64(offsets_ + 8 * i);
    }

    // Checks the header bytes `h` against the file's size; sets the counts and positions.
    fastread::error check_header(const unsigned char* h, std::uint64_t file_size,
                                 const std::string& file);
    // Checks every offset in one pass (try_open).
    fastread::error check_offsets(const std::filesystem::path& path) const;

    std::unique_ptr<detail::file_map> map_; // the file, mapped (none: an empty view)
    const unsigned char* offsets_ = nullptr;
    const unsigned char* data_ = nullptr;
    std::uint64_t count_ = 0;
    std::uint64_t data_size_ = 0;
    std::uint64_t offsets_at_ = 0;
    std::uint64_t data_at_ = 0;
};

/// A random-access iterator over a view's strings (values are std::string_view).
class view::iterator {
  public:
    ///@{
    /// The std::random_access_iterator members: `*` and `[]` give the string (unchecked
    /// index, as view::operator[]), arithmetic and comparison move by whole strings.
    using iterator_category = std::random_access_iterator_tag;
    using iterator_concept = std::random_access_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using reference = std::string_view;
    using pointer = void;

    iterator() noexcept = default;
    iterator(const view* v, std::size_t i) noexcept : view_(v), i_(i) {}

    std::string_view operator*() const noexcept { return (*view_)[i_]; }
    std::string_view operator[](difference_type n) const noexcept {
        return (*view_)[static_cast<std::size_t>(static_cast<difference_type>(i_) + n)];
    }
    iterator& operator++() noexcept {
        ++i_;
        return *this;
    }
    iterator operator++(int) noexcept {
        iterator t = *this;
        ++i_;
        return t;
    }
    iterator& operator--() noexcept {
        --i_;
        return *this;
    }
    iterator operator--(int) noexcept {
        iterator t = *this;
        --i_;
        return t;
    }
    iterator& operator+=(difference_type n) noexcept {
        i_ = static_cast<std::size_t>(static_cast<difference_type>(i_) + n);
        return *this;
    }
    iterator& operator-=(difference_type n) noexcept { return *this += -n; }
    friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
    friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
    friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) noexcept { return a.i_ <=> b.i_; }
    ///@}

  private:
    const view* view_ = nullptr;
    std::size_t i_ = 0;
};

inline view::iterator view::begin() const noexcept {
    return iterator(this, 0);
}
inline view::iterator view::end() const noexcept {
    return iterator(this, size());
}

} // namespace fastread::string_table

#if !FASTREAD_SEPARATE_COMPILATION
#include "detail/view.hpp"
#endif

#endif // FASTREAD_STRING_TABLE_VIEW_HPP
