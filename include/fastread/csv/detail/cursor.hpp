#ifndef FASTREAD_CSV_DETAIL_CURSOR_HPP
#define FASTREAD_CSV_DETAIL_CURSOR_HPP

/// @file
/// What the record tokenizer of fastread::csv (tokenizer.hpp) works with: the dialect's
/// bytes and rules, the cursor over the structural bytes of a buffer (from the block masks
/// of scan/detail/byte_set.hpp, a window of blocks at a time), and the buffer of a record's
/// field views.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../scan/detail/byte_set.hpp"
#include "../../scan/simd_level.hpp"

namespace fastread::detail {

/// The bytes and rules of one dialect, as the tokenizer uses them.
struct csv_dialect {
    char delimiter = ',';
    char quote = '"';  ///< 0: no quoting
    char escape = 0;   ///< 0: none (doubled quotes only)
    char comment = 0;  ///< 0: none
    bool trim = false; ///< spaces (and tabs, unless the delimiter) around fields dropped
    bool strict = false;
    std::size_t max_field_bytes = std::size_t{1} << 30;
    std::size_t max_fields = std::size_t{1} << 20;
};

/// Whether `c` can be part of a number's text (digits, letters of inf, nan and exponents,
/// signs, '.', and the parentheses and underscore of nan(chars)): a dialect byte that is one
/// could continue a number past its field's end.
constexpr bool csv_number_byte(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' ||
           c == '-' || c == '.' || c == '(' || c == ')' || c == '_';
}

/// The first structural byte at or after a position of a buffer, from the masks of its
/// 64-byte blocks, computed a window of blocks at a time (16 KiB of text).
class csv_cursor {
  public:
    explicit csv_cursor(const csv_dialect& d, scan::simd_level level = scan::active_level())
        : set_(byte_set::of(d.delimiter, d.quote, '\n', '\r', d.escape)),
          masks_fn_(byte_set_masks_for(level)) {}

    /// Scans [base, end) from now on (masks of an earlier buffer are dropped).
    void reset(const char* base, const char* end) noexcept {
        base_ = base;
        end_ = end;
        blocks_ = static_cast<std::size_t>(end - base) / 64;
        last_ = (static_cast<std::size_t>(end - base) + 63) / 64;
        first_ = 0;
        count_ = 0;
        block_ = SIZE_MAX;
    }

    /// The first byte of the set at or after `p` (base <= p <= end), or end. Calls go forward:
    /// p is not before the last answer, unless rewind() was called since.
    [[gnu::always_inline]] const char* next(const char* p) noexcept {
        const auto off = static_cast<std::size_t>(p - base_);
        std::size_t b = off >> 6;
        std::uint64_t m;
        if (b == block_) [[likely]] {
            m = block_mask_;
        } else {
            if (b >= last_) {
                return end_;
            }
            m = mask(b);
        }
        m &= ~std::uint64_t{0} << (off & 63);
        while (m == 0) {
            if (++b >= last_) {
                block_ = SIZE_MAX;
                return end_;
            }
            m = mask(b);
        }
        block_ = b;
        block_mask_ = m;
        return base_ + (b << 6) + std::countr_zero(m);
    }

    /// Drops the last answer kept for the next call: next() may then be asked about bytes
    /// before it (a reader going back to a record's start).
    void rewind() noexcept { block_ = SIZE_MAX; }

    /// For a caller's own walk over the bits: the first byte of the buffer, how many blocks
    /// it has (the partial one included), and the mask of block `b` (< blocks()).
    const char* base() const noexcept { return base_; }
    std::size_t blocks() const noexcept { return last_; }
    [[gnu::always_inline]] std::uint64_t block_bits(std::size_t b) noexcept { return mask(b); }

  private:
    static constexpr std::size_t window = 256;

    [[gnu::always_inline]] std::uint64_t mask(std::size_t b) noexcept {
        if (b - first_ >= count_) [[unlikely]] {
            fill(b);
        }
        return masks_[b - first_];
    }
    void fill(std::size_t b) noexcept {
        first_ = b;
        if (b < blocks_) {
            count_ = std::min(window, blocks_ - b);
            masks_fn_(base_ + 64 * b, count_, set_, masks_);
        } else { // the last, partial block
            count_ = 1;
            masks_[0] = byte_set_mask_tail(base_ + 64 * b,
                                           static_cast<std::size_t>(end_ - base_) - 64 * b, set_);
        }
    }

    byte_set set_;
    byte_set_masks_fn masks_fn_;
    const char* base_ = nullptr;
    const char* end_ = nullptr;
    std::size_t blocks_ = 0; // whole blocks
    std::size_t last_ = 0;   // blocks, the partial one included
    std::size_t first_ = 0;  // masks_[0] is block first_
    std::size_t count_ = 0;
    std::size_t block_ = SIZE_MAX; // the block of the last answer (SIZE_MAX: none)
    std::uint64_t block_mask_ = 0; // its mask, the bits before that answer cleared
    std::uint64_t masks_[window];
};

/// The closing quote of a quoted field read from the structural cursor: `s` is the byte
/// after its opening quote. Delimiters and line ends inside are text (the line ends, CR LF
/// as one, added to `inside`); a doubled quote is one quote of the text (`doubled` set).
/// Null where the bytes before `end` do not hold the closing quote and the byte after it, or
/// at any other structural byte (the escape): the tokenizer's to read. O(the field's bytes).
[[gnu::always_inline]] inline const char* csv_closing_quote(const char* s, const char* end,
                                                            csv_cursor& cursor, char quote,
                                                            char delimiter, std::uint64_t& inside,
                                                            bool& doubled) noexcept {
    for (;;) {
        s = cursor.next(s);
        if (s == end) {
            return nullptr;
        }
        const char b = *s;
        if (b == quote) {
            if (s + 1 == end) {
                return nullptr;
            }
            if (s[1] != quote) {
                return s;
            }
            doubled = true;
            s += 2;
            continue;
        }
        if (b == '\n') {
            ++inside;
        } else if (b == '\r') {
            if (s + 1 == end) {
                return nullptr;
            }
            inside += s[1] != '\n';
        } else if (b != delimiter) {
            return nullptr; // the escape byte
        }
        ++s;
    }
}

/// The text of a quoted field's bytes `raw` (inside its quotes) that hold doubled quotes:
/// each pair as one quote, in `scratch` (cleared first). O(raw's bytes).
inline std::string_view csv_undoubled(std::string_view raw, char quote, std::string& scratch) {
    scratch.clear();
    std::size_t from = 0;
    for (std::size_t k = raw.find(quote); k != std::string_view::npos; k = raw.find(quote, from)) {
        scratch.append(raw.data() + from, k + 1 - from); // through the first quote
        from = k + 2;                                    // the second one skipped
    }
    scratch.append(raw.data() + from, raw.size() - from);
    return scratch;
}

/// A field of a record as the fast split found it: its bytes (inside its quotes, if quoted)
/// and whether they hold doubled quotes.
struct csv_raw_field {
    std::string_view raw;
    bool doubled = false;
    bool quoted = false;
};

/// The fast path of csv::read's and csv::count_rows' records: the `count` fields of the record at
/// p, split by the structural cursor exactly as the tokenizer would (unquoted fields, quoted fields
/// without an escape, their line ends counted in `lines`), into `out`; the byte after the record's
/// line end, or null for any other record (empty, a comment, another field count, a quote
/// inside an unquoted field, an escape, a field over `max_bytes`, one the bytes before `end`
/// do not hold whole), which is then the tokenizer's.
inline const char* csv_fast_split(const char* p, const char* end, csv_cursor& cursor,
                                  std::uint64_t& lines, std::size_t count, const csv_dialect& d,
                                  std::vector<csv_raw_field>& out) {
    if (p == end || *p == '\n' || *p == '\r' || (d.comment != 0 && *p == d.comment)) {
        return nullptr;
    }
    out.resize(count);
    std::uint64_t inside = 0;
    for (std::size_t f = 0; f < count; ++f) {
        csv_raw_field& field = out[f];
        field.doubled = false;
        field.quoted = p != end && *p == d.quote && d.quote != 0;
        const char* q;
        if (field.quoted) {
            const char* s =
                csv_closing_quote(p + 1, end, cursor, d.quote, d.delimiter, inside, field.doubled);
            if (s == nullptr) {
                return nullptr;
            }
            field.raw = std::string_view(p + 1, static_cast<std::size_t>(s - p - 1));
            q = s + 1;
        } else {
            q = cursor.next(p);
            field.raw = std::string_view(p, static_cast<std::size_t>(q - p));
        }
        if (q == end || field.raw.size() > d.max_field_bytes) {
            return nullptr;
        }
        const char c = *q;
        if (f + 1 < count) {
            if (c != d.delimiter) {
                return nullptr;
            }
            p = q + 1;
        } else if (c == '\n') {
            p = q + 1;
        } else if (c == '\r' && q + 1 != end) {
            p = q + (q[1] == '\n' ? 2 : 1);
        } else {
            return nullptr;
        }
    }
    lines += inside;
    return p;
}

/// The fields of a record: views, in a buffer that grows as records need (a vector whose
/// push is inlined: the tokenizer's hottest store).
class csv_fields {
  public:
    csv_fields() = default;
    csv_fields(const csv_fields& o) { *this = o; }
    csv_fields& operator=(const csv_fields& o) {
        if (this != &o) {
            size_ = 0;
            for (const std::string_view& f : o) {
                push(f.data(), f.size());
            }
        }
        return *this;
    }
    csv_fields(csv_fields&&) noexcept = default;
    csv_fields& operator=(csv_fields&&) noexcept = default;

    std::size_t size() const noexcept { return size_; }
    const std::string_view& operator[](std::size_t i) const noexcept { return data_[i]; }
    std::string_view& operator[](std::size_t i) noexcept { return data_[i]; }
    const std::string_view* begin() const noexcept { return data_.get(); }
    const std::string_view* end() const noexcept { return data_.get() + size_; }
    const std::string_view& back() const noexcept { return data_[size_ - 1]; }
    void clear() noexcept { size_ = 0; }
    /// For a loop that keeps the count in a register: the storage, its capacity, the count
    /// set back, and more room.
    std::string_view* data() noexcept { return data_.get(); }
    std::size_t capacity() const noexcept { return capacity_; }
    void set_size(std::size_t n) noexcept { size_ = n; }
    void grow() {
        const std::size_t bigger = capacity_ == 0 ? 64 : capacity_ * 2;
        std::unique_ptr<std::string_view[]> d(new std::string_view[bigger]);
        std::copy(data_.get(), data_.get() + size_, d.get());
        data_ = std::move(d);
        capacity_ = bigger;
    }
    [[gnu::always_inline]] void push(const char* p, std::size_t n) {
        if (size_ == capacity_) [[unlikely]] {
            grow();
        }
        data_[size_++] = std::string_view(p, n);
    }

  private:
    std::unique_ptr<std::string_view[]> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_CURSOR_HPP
