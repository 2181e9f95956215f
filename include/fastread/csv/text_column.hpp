#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_CSV_TEXT_COLUMN_HPP)
#define FASTREAD_CSV_TEXT_COLUMN_HPP

/// @file
/// `fastread::csv::text` and `csv::text_column`: a text column stored flat, what
/// csv::columns (fastread/csv.hpp, which includes this header) returns for csv::text.

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../detail/huge_pages.hpp"
#include "../result.hpp"

namespace fastread::csv {

/// The column type that asks csv::columns for a text column stored flat: a text_column
/// (all fields in one buffer) where std::string gives one allocation per field.
struct text {};

/// A column of text fields stored flat (as Arrow's and polars' string columns): the bytes
/// of every field one after another in one buffer, and where each ends. What csv::columns
/// returns for a column of type csv::text: no allocation per field, so a big text column
/// costs a few reallocations, not one `new` per row. Fields are std::string_view into
/// the buffer: valid while the column lives and is not changed (a move keeps them valid).
class text_column {
  public:
    using value_type = std::string_view;
    using size_type = std::size_t;

    /// A random-access iterator over the fields (each a std::string_view, by value).
    class iterator {
      public:
        using iterator_category = std::random_access_iterator_tag;
        using iterator_concept = std::random_access_iterator_tag;
        using value_type = std::string_view;
        using difference_type = std::ptrdiff_t;
        using reference = std::string_view;
        using pointer = void;
        iterator() = default;
        std::string_view operator*() const noexcept { return (*c_)[i_]; }
        std::string_view operator[](difference_type n) const noexcept {
            return (*c_)[i_ + static_cast<std::size_t>(n)];
        }
        iterator& operator++() noexcept { return ++i_, *this; }
        iterator operator++(int) noexcept { return {c_, i_++}; }
        iterator& operator--() noexcept { return --i_, *this; }
        iterator operator--(int) noexcept { return {c_, i_--}; }
        iterator& operator+=(difference_type n) noexcept {
            return i_ += static_cast<std::size_t>(n), *this;
        }
        iterator& operator-=(difference_type n) noexcept {
            return i_ -= static_cast<std::size_t>(n), *this;
        }
        friend iterator operator+(iterator a, difference_type n) noexcept { return a += n; }
        friend iterator operator+(difference_type n, iterator a) noexcept { return a += n; }
        friend iterator operator-(iterator a, difference_type n) noexcept { return a -= n; }
        friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
            return static_cast<difference_type>(a.i_ - b.i_);
        }
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.i_ == b.i_;
        }
        friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
            return a.i_ <=> b.i_;
        }

      private:
        friend class text_column;
        iterator(const text_column* c, std::size_t i) noexcept : c_(c), i_(i) {}
        const text_column* c_ = nullptr;
        std::size_t i_ = 0;
    };
    using const_iterator = iterator;

    /// The number of fields.
    std::size_t size() const noexcept { return ends_.size(); }
    bool empty() const noexcept { return ends_.empty(); }
    /// Field `i` (< size()), O(1).
    std::string_view operator[](std::size_t i) const noexcept {
        const std::size_t start = i == 0 ? 0 : ends_[i - 1];
        return {bytes_.get() + start, ends_[i] - start};
    }
    /// Field `i`. @throws std::out_of_range when i >= size().
    std::string_view at(std::size_t i) const {
        if (i >= size()) {
            detail::throw_error(fastread::error(make_error_code(errc::out_of_range),
                                                "csv::text_column::at: field " + std::to_string(i) +
                                                    " of " + std::to_string(size())));
        }
        return (*this)[i];
    }
    iterator begin() const noexcept { return {this, 0}; }
    iterator end() const noexcept { return {this, size()}; }
    /// Every field's bytes, one after another (size: the fields' total length in bytes).
    std::string_view bytes() const noexcept { return {bytes_.get(), size_}; }

    /// Appends `field` (its bytes copied). Amortized O(field size).
    void push_back(std::string_view field) {
        if (capacity_ - size_ < field.size()) [[unlikely]] {
            grow(field.size());
        }
        if (!field.empty()) {
            std::memcpy(bytes_.get() + size_, field.data(), field.size());
        }
        size_ += field.size();
        ends_.push_back(size_);
    }
    /// Appends a field of at most `max` bytes written in place: `write(dst)` writes its bytes
    /// to `dst` (room for `max`) and returns how many it wrote (<= max), as
    /// std::string::resize_and_overwrite. Returns the field. Amortized O(max).
    template <class Write>
    std::string_view push_back_written(std::size_t max, Write&& write) {
        if (capacity_ - size_ < max) [[unlikely]] {
            grow(max);
        }
        char* const dst = bytes_.get() + size_;
        const std::size_t n = max == 0 ? 0 : static_cast<std::size_t>(write(dst));
        size_ += n;
        ends_.push_back(size_);
        return {dst, n};
    }
    /// The last field (the column not empty).
    std::string_view back() const noexcept { return (*this)[size() - 1]; }
    /// Removes the last field (the column not empty); views of the others stay valid. O(1).
    void pop_back() noexcept {
        ends_.pop_back();
        size_ = ends_.empty() ? 0 : ends_.back();
    }
    /// Appends every field of `other`, in order. O(other's bytes and fields).
    void append(const text_column& other) {
        const std::size_t base = size_;
        if (capacity_ - size_ < other.size_) {
            grow(other.size_);
        }
        if (other.size_ != 0) {
            std::memcpy(bytes_.get() + size_, other.bytes_.get(), other.size_);
        }
        size_ += other.size_;
        ends_.reserve(ends_.size() + other.ends_.size());
        for (std::size_t i = 0; i < other.ends_.size(); ++i) {
            ends_.push_back(base + other.ends_[i]);
        }
    }
    /// Room for `fields` fields of `bytes` bytes in all, so that pushes do not reallocate.
    void reserve(std::size_t fields, std::size_t bytes) {
        ends_.reserve(fields);
        if (bytes > capacity_) {
            reallocate(bytes);
        }
    }
    void clear() noexcept {
        size_ = 0;
        ends_.clear();
    }
    text_column() = default;
    /// A move leaves `o` empty; views of its fields stay valid (the bytes do not move).
    text_column(text_column&& o) noexcept
        : bytes_(std::move(o.bytes_)), size_(std::exchange(o.size_, 0)),
          capacity_(std::exchange(o.capacity_, 0)), ends_(std::move(o.ends_)) {}
    text_column& operator=(text_column&& o) noexcept {
        bytes_ = std::move(o.bytes_);
        size_ = std::exchange(o.size_, 0);
        capacity_ = std::exchange(o.capacity_, 0);
        ends_ = std::move(o.ends_);
        return *this;
    }
    text_column(const text_column& o) : ends_(o.ends_) {
        reserve(0, o.size_);
        if (o.size_ != 0) {
            std::memcpy(bytes_.get(), o.bytes_.get(), o.size_);
        }
        size_ = o.size_;
    }
    text_column& operator=(const text_column& o) {
        if (this != &o) {
            text_column copy(o);
            *this = std::move(copy);
        }
        return *this;
    }
    ~text_column() = default;

    /// Same fields, in the same order.
    friend bool operator==(const text_column& a, const text_column& b) noexcept {
        return a.ends_.size() == b.ends_.size() &&
               std::equal(a.ends_.begin(), a.ends_.end(), b.ends_.begin()) &&
               a.bytes() == b.bytes();
    }

  private:
    void grow(std::size_t more) {
        reallocate(std::max(size_ + more, capacity_ < 64 ? std::size_t{64} : 2 * capacity_));
    }
    void reallocate(std::size_t capacity) {
        std::unique_ptr<char[]> bytes(new char[capacity]);
        detail::advise_huge_pages(bytes.get(), capacity);
        if (size_ != 0) {
            std::memcpy(bytes.get(), bytes_.get(), size_);
        }
        bytes_ = std::move(bytes);
        capacity_ = capacity;
    }

    std::unique_ptr<char[]> bytes_; // [0, size_) used, capacity_ allocated
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    // Where each field ends, in a buffer whose push is inlined (std::vector's push_back, in
    // csv::read's loop over a batch of text fields, was not: a call per field).
    class end_offsets {
      public:
        end_offsets() = default;
        end_offsets(end_offsets&& o) noexcept
            : p_(std::move(o.p_)), n_(std::exchange(o.n_, 0)), cap_(std::exchange(o.cap_, 0)) {}
        end_offsets& operator=(end_offsets&& o) noexcept {
            p_ = std::move(o.p_);
            n_ = std::exchange(o.n_, 0);
            cap_ = std::exchange(o.cap_, 0);
            return *this;
        }
        end_offsets(const end_offsets& o) {
            reserve(o.n_);
            std::copy(o.begin(), o.end(), p_.get());
            n_ = o.n_;
        }
        end_offsets& operator=(const end_offsets&) = delete;
        ~end_offsets() = default;

        std::size_t size() const noexcept { return n_; }
        bool empty() const noexcept { return n_ == 0; }
        std::size_t operator[](std::size_t i) const noexcept { return p_[i]; }
        std::size_t back() const noexcept { return p_[n_ - 1]; }
        const std::size_t* begin() const noexcept { return p_.get(); }
        const std::size_t* end() const noexcept { return p_.get() + n_; }
        [[gnu::always_inline]] void push_back(std::size_t e) {
            if (n_ == cap_) [[unlikely]] {
                reserve(cap_ < 16 ? 16 : 2 * cap_);
            }
            p_[n_++] = e;
        }
        void pop_back() noexcept { --n_; }
        void clear() noexcept { n_ = 0; }
        /// Room for `k` in all (no smaller), advised to take huge pages when big.
        void reserve(std::size_t k) {
            if (k <= cap_) {
                return;
            }
            std::unique_ptr<std::size_t[]> p(new std::size_t[k]);
            detail::advise_huge_pages(p.get(), k * sizeof(std::size_t));
            std::copy(begin(), end(), p.get());
            p_ = std::move(p);
            cap_ = k;
        }

      private:
        std::unique_ptr<std::size_t[]> p_; // [0, n_) used, cap_ allocated
        std::size_t n_ = 0;
        std::size_t cap_ = 0;
    };

    end_offsets ends_; // field i: [ends_[i - 1] (0 for the first), ends_[i])
};

/// What csv::columns returns for a column of type T: std::vector<T>, or a text_column for
/// csv::text.
template <class T>
using column_of = std::conditional_t<std::is_same_v<T, text>, text_column, std::vector<T>>;

} // namespace fastread::csv

#endif // FASTREAD_CSV_TEXT_COLUMN_HPP
