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
#include <cstring>
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
          masks_fn_(byte_set_masks_for(level)), masks3_fn_(byte_masks3_for(level)), quote_(d.quote),
          escape_(d.escape) {}

    /// Scans [base, end) from now on (masks of an earlier buffer are dropped).
    void reset(const char* base, const char* end) noexcept {
        base_ = base;
        end_ = end;
        blocks_ = static_cast<std::size_t>(end - base) / 64;
        last_ = (static_cast<std::size_t>(end - base) + 63) / 64;
        first_ = 0;
        count_ = 0;
        block_ = SIZE_MAX;
        inside_count_ = 0;
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

    /// The bits of block `b` (< blocks()) that matter inside a quoted field: its quotes, and
    /// its line ends (LFs, and CRs not followed by an LF; a CR that is the buffer's last byte
    /// counts as one). Made for a window of blocks when first asked; for a dialect that
    /// quotes and has no escape byte (has_inside()).
    struct inside_bits {
        std::uint64_t quotes, line_ends;
    };
    bool has_inside() const noexcept { return quote_ != 0 && escape_ == 0; }
    [[gnu::always_inline]] inside_bits inside(std::size_t b) noexcept {
        if (b - inside_first_ >= inside_count_) [[unlikely]] {
            fill_inside(b);
        }
        const std::size_t i = b - inside_first_;
        return {quotes_[i], line_ends_[i]};
    }

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

    // The inside bits of the window of blocks from b (the window fill(b) would make).
    void fill_inside(std::size_t b) noexcept {
        inside_first_ = b;
        const char c[3] = {quote_, '\n', '\r'};
        std::uint64_t cr[window];
        std::uint64_t* const out[3] = {quotes_, line_ends_, cr};
        const char* const p = base_ + 64 * b;
        if (b < blocks_) {
            inside_count_ = std::min(window, blocks_ - b);
            masks3_fn_(p, inside_count_, c, out);
        } else { // the last, partial block
            inside_count_ = 1;
            const std::size_t n = static_cast<std::size_t>(end_ - base_) - 64 * b;
            for (int k = 0; k < 3; ++k) {
                out[k][0] = byte_set_mask_tail(p, n, byte_set::of(c[k], 0, 0, 0, 0));
            }
        }
        // Line ends: LFs, and CRs whose next byte (in the next block for bit 63) is no LF.
        for (std::size_t i = 0; i < inside_count_; ++i) {
            const char* next = p + 64 * i + 64;
            const std::uint64_t lf_after =
                (line_ends_[i] >> 1) |
                (next < end_ && *next == '\n' ? std::uint64_t{1} << 63 : std::uint64_t{0});
            line_ends_[i] |= cr[i] & ~lf_after;
        }
    }

    byte_set set_;
    byte_set_masks_fn masks_fn_;
    byte_masks3_fn masks3_fn_;
    char quote_ = 0;
    char escape_ = 0;
    const char* base_ = nullptr;
    const char* end_ = nullptr;
    std::size_t blocks_ = 0; // whole blocks
    std::size_t last_ = 0;   // blocks, the partial one included
    std::size_t first_ = 0;  // masks_[0] is block first_
    std::size_t count_ = 0;
    std::size_t block_ = SIZE_MAX; // the block of the last answer (SIZE_MAX: none)
    std::uint64_t block_mask_ = 0; // its mask, the bits before that answer cleared
    std::uint64_t masks_[window];
    std::size_t inside_first_ = 0; // inside_[k][0] is block inside_first_'s
    std::size_t inside_count_ = 0;
    std::uint64_t quotes_[window];
    std::uint64_t line_ends_[window];
};

/// csv_closing_quote's walk over every structural byte (for a dialect with an escape).
inline const char* csv_closing_quote_walk(const char* s, const char* end, csv_cursor& cursor,
                                          char quote, char delimiter, std::uint64_t& inside,
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

/// The closing quote of a quoted field read from the cursor's blocks: `s` is the byte after
/// its opening quote, in the cursor's buffer, which ends at `end`. Delimiters and line ends
/// inside are text (the line ends, CR LF as one, added to `inside`); a doubled quote is one
/// quote of the text (`doubled` set). Null where the bytes before `end` do not hold the
/// closing quote and the byte after it, or at any other structural byte (the escape): the
/// tokenizer's to read. Only the quotes are visited one by one: the line ends between them
/// are counted a block at a time (csv_cursor::inside). O(the field's bytes / 64 + quotes).
[[gnu::always_inline]] inline const char* csv_closing_quote(const char* s, const char* end,
                                                            csv_cursor& cursor, char quote,
                                                            char delimiter, std::uint64_t& inside,
                                                            bool& doubled) noexcept {
    if (!cursor.has_inside()) [[unlikely]] {
        return csv_closing_quote_walk(s, end, cursor, quote, delimiter, inside, doubled);
    }
    const char* const base = cursor.base();
    const std::size_t blocks = cursor.blocks();
    auto off = static_cast<std::size_t>(s - base);
    for (;;) {
        const std::size_t b = off >> 6;
        if (b >= blocks) {
            return nullptr;
        }
        const csv_cursor::inside_bits bits = cursor.inside(b);
        const std::uint64_t from = ~std::uint64_t{0} << (off & 63);
        const std::uint64_t q = bits.quotes & from;
        // The line ends before the quote (or to the block's end).
        const std::uint64_t span = q != 0 ? from & (q - 1) & ~q : from;
        inside += static_cast<std::uint64_t>(count_bits(bits.line_ends & span));
        if (q == 0) {
            off = 64 * b + 64;
            continue;
        }
        const char* at = base + 64 * b + static_cast<std::size_t>(std::countr_zero(q));
        if (at + 1 >= end) {
            return nullptr;
        }
        if (at[1] != quote) {
            return at;
        }
        doubled = true;
        off = static_cast<std::size_t>(at + 2 - base);
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

/// Writes the text of a quoted field's bytes `raw` (inside its quotes) to `dst` (room for
/// raw's size): each doubled quote as one. Returns the bytes written. O(raw's bytes).
inline std::size_t csv_undouble_to(std::string_view raw, char quote, char* dst) noexcept {
    const char* p = raw.data();
    const char* const end = p + raw.size();
    char* o = dst;
    while (p != end) {
        const auto* q =
            static_cast<const char*>(std::memchr(p, quote, static_cast<std::size_t>(end - p)));
        const char* stop = q == nullptr ? end : q + 1; // through the first quote of a pair
        std::memcpy(o, p, static_cast<std::size_t>(stop - p));
        o += stop - p;
        p = q == nullptr || stop == end ? end : stop + 1; // the second one skipped
    }
    return static_cast<std::size_t>(o - dst);
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
/// without an escape, their line ends counted in `lines`), into `out` (room for `count`); the byte
/// after the record's line end, or null for any other record (empty, a comment, another field
/// count, a quote inside an unquoted field, an escape, a field over `max_bytes`, one the bytes
/// before `end` do not hold whole), which is then the tokenizer's.
[[gnu::always_inline]] inline const char* csv_fast_split(const char* p, const char* end,
                                                         csv_cursor& cursor, std::uint64_t& lines,
                                                         std::size_t count, const csv_dialect& d,
                                                         csv_raw_field* out) {
    if (p == end || *p == '\n' || *p == '\r' || (d.comment != 0 && *p == d.comment)) {
        return nullptr;
    }
    // The dialect's bytes in locals: the stores to `out` could alias `d` (a size_t).
    const char quote = d.quote, delimiter = d.delimiter;
    const std::size_t max_bytes = d.max_field_bytes;
    std::uint64_t inside = 0;
    for (std::size_t f = 0; f < count; ++f) {
        csv_raw_field& field = out[f];
        field.doubled = false;
        field.quoted = p != end && *p == quote && quote != 0;
        const char* q;
        if (field.quoted) {
            const char* s =
                csv_closing_quote(p + 1, end, cursor, quote, delimiter, inside, field.doubled);
            if (s == nullptr) {
                return nullptr;
            }
            field.raw = std::string_view(p + 1, static_cast<std::size_t>(s - p - 1));
            q = s + 1;
        } else {
            q = cursor.next(p);
            field.raw = std::string_view(p, static_cast<std::size_t>(q - p));
        }
        if (q == end || field.raw.size() > max_bytes) {
            return nullptr;
        }
        const char c = *q;
        if (f + 1 < count) {
            if (c != delimiter) {
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

/// csv_fast_split into `out`, sized to `count` fields.
inline const char* csv_fast_split(const char* p, const char* end, csv_cursor& cursor,
                                  std::uint64_t& lines, std::size_t count, const csv_dialect& d,
                                  std::vector<csv_raw_field>& out) {
    out.resize(count);
    return csv_fast_split(p, end, cursor, lines, count, d, out.data());
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
