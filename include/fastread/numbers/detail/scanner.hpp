// The public header first: number_options is defined there.
#include "../../numbers.hpp"
#ifndef FASTREAD_NUMBERS_DETAIL_SCANNER_HPP
#define FASTREAD_NUMBERS_DETAIL_SCANNER_HPP

// The scanner of numbers in text: bytes classed by syntax.hpp's table, tokens converted
// where they start (convert.hpp), separators, comments, lines and columns checked between
// them; a stream driver carries a token that straddles two blocks.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "../../detail/file_signature.hpp"
#include "../../result.hpp"
#include "../../scan/byte_mask.hpp"
#include "convert.hpp"
#include "syntax.hpp"

namespace fastread::detail {

/// The longest token (a run of bytes that are not separators, blanks, line feeds or the
/// comment byte) a numbers call accepts, in bytes: a longer one is an error, so a stream
/// never buffers more than this for one token.
inline constexpr std::size_t max_number_token_bytes = std::size_t{64} << 10;

/// What stopped a scan: the kind, where (input offset), the line's index in the scanned
/// text (0: its first line), the column (1: the line's first number) and the reason.
struct number_failure {
    errc code{};
    std::uint64_t offset = 0;
    std::uint64_t line = 0;
    std::uint64_t column = 0;
    std::string reason;

    explicit operator bool() const noexcept { return code != errc{}; }
};

/// `"text"` for a message: at most 40 bytes of [p, end), printable ASCII as itself (`"` and
/// `\\` included), other bytes as \xNN.
inline std::string quoted_token(const char* p, const char* end) {
    std::string out = "\"";
    const std::size_t n = static_cast<std::size_t>(end - p);
    for (std::size_t i = 0; i < n && i < 40; ++i) {
        const auto c = static_cast<unsigned char>(p[i]);
        if (c < 0x20 || c >= 0x7f) {
            static constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    out += n > 40 ? "\"... (" + std::to_string(n) + " bytes)" : "\"";
    return out;
}

/// The range of T for a message: "0..255", "-2147483648..2147483647".
template <class T>
std::string range_text() {
    if constexpr (std::is_floating_point_v<T>) {
        return {};
    } else if constexpr (std::is_signed_v<T>) {
        return std::to_string(static_cast<long long>(std::numeric_limits<T>::min())) + ".." +
               std::to_string(static_cast<long long>(std::numeric_limits<T>::max()));
    } else {
        return "0.." +
               std::to_string(static_cast<unsigned long long>(std::numeric_limits<T>::max()));
    }
}

/// The reason a token did not convert to T.
template <class T>
std::string token_reason(number_status st, const char* p, const char* end) {
    if (st == number_status::out_of_range) {
        return quoted_token(p, end) + " is out of range " + range_text<T>();
    }
    return quoted_token(p, end) +
           (std::is_floating_point_v<T> ? " is not a number" : " is not an integer");
}

/// The LF bytes in [p, end): whole 64-byte blocks by the byte_count kernel of the active
/// SIMD level (std::count's vector code widens every byte to 64 bits, and cost as much as
/// the decimal kernel whose lines it counted), the rest byte by byte.
inline std::uint64_t count_line_feeds(const char* p, const char* end) noexcept {
    static const scan::byte_count_fn count = scan::byte_count_for(scan::active_level());
    const auto blocks = static_cast<std::size_t>(end - p) / 64;
    std::uint64_t total = blocks != 0 ? count(p, blocks, '\n') : 0;
    for (p += 64 * blocks; p != end; ++p) {
        total += *p == '\n';
    }
    return total;
}

/// Whether a value of T holds `v` exactly (a ragged_fill for a column of T).
template <class T>
bool fill_fits(double v) noexcept {
    if constexpr (std::is_floating_point_v<T>) {
        return true;
    } else {
        const double top = std::ldexp(1.0, std::numeric_limits<T>::digits); // one past max
        const double bottom = std::is_signed_v<T> ? -top : 0.0;
        return v >= bottom && v < top && v == std::trunc(v); // NaN fails the first
    }
}

/// Scans text for numbers, handing each to `Sink`:
/// `const char* sink.put(std::size_t column, const char* p, const char* end, number_status&)`
/// converts the number at p (column: its 0-based index on its line) and returns its end;
/// `void sink.fill(column, double)` stores a short line's ragged_fill in a missing column;
/// `std::string sink.reason(column, status, p, token_end)` says why one failed.
template <class Sink>
class number_scanner {
  public:
    /// `skip`: the scan starts at the input's start and skips its header lines;
    /// `input_start`: the scan starts at offset 0 (a byte order mark there is skipped).
    number_scanner(const number_syntax& syntax, Sink& sink, bool skip = true,
                   bool input_start = true) noexcept
        : syntax_(&syntax), sink_(&sink), skip_(skip ? syntax.skip_lines : 0), bom_(input_start) {}

    /// Scans [p, end), the input from offset `base`. `end` is the end of the input or
    /// follows a byte that is not part of a token (a token never continues past it).
    /// Returns false at the first error (failure()); the numbers before it were handed out.
    bool scan(const char* p, const char* end, std::uint64_t base) {
        const char* const begin = p;
        if (done_) {
            return true;
        }
        if (bom_ && p != end) {
            bom_ = false;
            if (end - p >= 3 && std::memcmp(p, "\xef\xbb\xbf", 3) == 0) {
                p += 3; // a UTF-8 byte order mark, in a skipped line or not
            }
        }
        while (skip_ != 0) {
            const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
            if (nl == nullptr) {
                return true;
            }
            p = static_cast<const char*>(nl) + 1;
            --skip_;
            ++line_;
        }
        if (in_comment_) {
            const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
            if (nl == nullptr) {
                return true;
            }
            p = static_cast<const char*>(nl);
            in_comment_ = false;
        }
        const byte_class* const cls = syntax_->classes;
        while (p != end) {
            const byte_class c = cls[static_cast<unsigned char>(*p)];
            if (c == byte_class::token) {
                if constexpr (Sink::has_bulk) {
                    if (syntax_->bulk && bulk_wait_ == 0) {
                        const char* q = p;
                        const std::size_t n = sink_->bulk(&q, end);
                        if (n != 0) {
                            count_lines(p, q, n);
                            p = q;
                            continue;
                        }
                        bulk_wait_ = 64; // not the kernel's kind of token: try again later
                    } else if (bulk_wait_ != 0) {
                        --bulk_wait_;
                    }
                }
                if (syntax_->pads && column_ != 0 && separation_ == 0) {
                    return fail(errc::malformed_input, base + (p - begin), column_ + 1,
                                quoted_token(p, token_end(p, end)) +
                                    " follows a number without a separator");
                }
                if (syntax_->columns != 0 && column_ == syntax_->columns) {
                    return fail(errc::wrong_column_count, base + (p - begin), column_ + 1,
                                "more than " + std::to_string(syntax_->columns) +
                                    " numbers on the line");
                }
                number_status st = number_status::ok;
                const char* q =
                    syntax_->respell ? put_respelled(p, end, st) : sink_->put(column_, p, end, st);
                if (st != number_status::ok || (q != end && syntax_->is_token(*q)) ||
                    q - p > static_cast<std::ptrdiff_t>(max_number_token_bytes)) {
                    return fail_token(st, p, end, base + (p - begin));
                }
                ++column_;
                separation_ = 0;
                p = q;
            } else if (c == byte_class::blank) {
                separation_ |= 1;
                ++p;
            } else if (c == byte_class::newline) {
                const bool row = column_ != 0;
                if ((separation_ & 2) != 0 ||
                    (syntax_->columns != 0 && column_ != 0 && column_ != syntax_->columns)) {
                    if (!end_line(base + (p - begin))) { // an error, or a ragged line filled
                        return false;
                    }
                } else {
                    ++line_;
                    column_ = 0;
                    separation_ = 0;
                }
                ++p;
                if (row && syntax_->max_rows != 0 && ++rows_ == syntax_->max_rows) {
                    done_ = true; // the rows asked for are read: nothing after them is
                    return true;
                }
            } else if (c == byte_class::pad) {
                ++p;
            } else if (c == byte_class::field) {
                if (column_ == 0 || (separation_ & 2) != 0) {
                    return fail(errc::empty_field, base + (p - begin), column_ + 1,
                                "no number before the separator");
                }
                separation_ = 2;
                ++p;
            } else {
                const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
                if (nl == nullptr) {
                    in_comment_ = true;
                    return true;
                }
                p = static_cast<const char*>(nl);
            }
        }
        return true;
    }

    /// The checks at the end of the input (`end_offset`): the last line's, if it has no LF.
    bool finish(std::uint64_t end_offset) {
        if (done_ || (column_ == 0 && separation_ == 0)) {
            return true;
        }
        return end_line(end_offset, /*at_end=*/true);
    }

    /// The column (1-based) of the next number on the current line.
    std::uint64_t next_column() const noexcept { return column_ + 1; }
    /// Whether the scan read the `max_rows` lines asked for and stopped.
    bool done() const noexcept { return done_; }
    /// Line feeds scanned so far (skipped lines included).
    std::uint64_t lines() const noexcept { return line_; }
    /// The error that stopped the scan.
    const number_failure& failure() const noexcept { return failure_; }

  private:
    // After the kernel took `n` numbers from [p, q) (q: at whitespace or a token start):
    // the lines it crossed, the column of the next number.
    void count_lines(const char* p, const char* q, std::size_t n) noexcept {
        const std::uint64_t lfs = count_line_feeds(p, q);
        separation_ = 1;
        if (lfs == 0) {
            column_ += n;
            return;
        }
        line_ += lfs;
        const char* b = q;
        while (b[-1] != '\n') {
            --b; // to the start of q's line (an LF is in [p, q))
        }
        std::size_t tokens = 0;
        for (const char* c = b; c != q; ++c) {
            tokens += syntax_->is_token(*c) && (c == b || !syntax_->is_token(c[-1]));
        }
        column_ = tokens;
    }

    const char* token_end(const char* p, const char* end) const noexcept {
        while (p != end && syntax_->is_token(*p)) {
            ++p;
        }
        return p;
    }

    // The token at p converted after number_syntax::spelling maps its bytes; returns its
    // end in [p, end).
    const char* put_respelled(const char* p, const char* end, number_status& st) {
        const char* e = token_end(p, end);
        const std::size_t n = std::min(static_cast<std::size_t>(e - p), max_number_token_bytes + 1);
        respelled_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            respelled_[i] = syntax_->spelling[static_cast<unsigned char>(p[i])];
        }
        const char* q = sink_->put(column_, respelled_.data(), respelled_.data() + n, st);
        return p + (q - respelled_.data());
    }

    bool end_line(std::uint64_t offset, bool at_end = false) {
        if ((separation_ & 2) != 0) {
            return fail(errc::empty_field, offset, column_ + 1,
                        at_end ? "the input ends after a separator"
                               : "the line ends after a separator");
        }
        if (syntax_->ragged && column_ != 0 && column_ < syntax_->columns) {
            for (std::size_t c = column_; c < syntax_->columns; ++c) {
                sink_->fill(c, syntax_->fill);
            }
            column_ = syntax_->columns;
        }
        if (syntax_->columns != 0 && column_ != 0 && column_ != syntax_->columns) {
            return fail(errc::wrong_column_count, offset, column_ + 1,
                        std::to_string(column_) + (column_ == 1 ? " number" : " numbers") +
                            " on the line, " + std::to_string(syntax_->columns) + " expected");
        }
        if (!at_end) {
            ++line_;
        }
        column_ = 0;
        separation_ = 0;
        return true;
    }

    bool fail_token(number_status st, const char* p, const char* end, std::uint64_t offset) {
        const char* e = token_end(p, end);
        if (static_cast<std::size_t>(e - p) > max_number_token_bytes) {
            return fail(errc::token_too_long, offset, column_ + 1,
                        "a token longer than " + std::to_string(max_number_token_bytes) + " bytes");
        }
        std::string reason = sink_->reason(column_, st, p, e);
        if (st != number_status::out_of_range) {
            // A byte that usually separates fields, in a token: the options do not
            // separate on it.
            for (const char sep : {',', ';', '|'}) {
                if (sep != syntax_->decimal &&
                    std::memchr(p, sep, static_cast<std::size_t>(e - p)) != nullptr) {
                    reason += std::string("; the line holds '") + sep + "': set separators";
                    break;
                }
            }
        }
        return fail(st == number_status::out_of_range ? errc::number_out_of_range
                                                      : errc::invalid_number,
                    offset, column_ + 1, std::move(reason));
    }

    bool fail(errc code, std::uint64_t offset, std::uint64_t column, std::string reason) {
        failure_ = {code, offset, line_, column, std::move(reason)};
        return false;
    }

    const number_syntax* syntax_;
    Sink* sink_;
    std::size_t skip_ = 0;
    std::uint64_t line_ = 0;
    std::size_t column_ = 0;
    unsigned bulk_wait_ = 0;  // tokens to convert one by one before the kernel again
    unsigned separation_ = 0; // bit 0: a blank since the last number; bit 1: a field separator
    bool in_comment_ = false;
    bool bom_ = true;   // no byte scanned yet at the input's start
    bool done_ = false; // max_rows lines with numbers read
    std::size_t rows_ = 0;
    std::string respelled_; // put_respelled's copy of a token
    number_failure failure_;
};

/// Feeds a scanner block by block: the bytes after a block's last non-token byte (the
/// start of a token that may go on) wait for the next block.
template <class Sink>
class number_stream {
  public:
    number_stream(const number_syntax& syntax, Sink& sink, bool skip = true,
                  bool input_start = true)
        : syntax_(&syntax), scanner_(syntax, sink, skip, input_start) {}

    /// Whether the scan read the `max_rows` lines asked for: the rest is not read.
    bool done() const noexcept { return scanner_.done(); }

    /// Scans the block [b, e) at input offset `base` (blocks in input order, no gap).
    bool feed(const char* b, const char* e, std::uint64_t base) {
        if (scanner_.done()) {
            return true;
        }
        if (!carry_.empty()) {
            const char* q = b;
            while (q != e && syntax_->is_token(*q)) {
                ++q;
            }
            if (!take(b, q)) {
                return false;
            }
            if (q == e) {
                return true; // the token goes on
            }
            if (!scanner_.scan(carry_.data(), carry_.data() + carry_.size(), carry_offset_)) {
                return false;
            }
            carry_.clear();
            if (scanner_.done()) {
                return true;
            }
            base += static_cast<std::uint64_t>(q - b);
            b = q;
        }
        const char* cut = e;
        while (cut != b && syntax_->is_token(cut[-1])) {
            --cut;
        }
        if (!scanner_.scan(b, cut, base)) {
            return false;
        }
        carry_offset_ = base + static_cast<std::uint64_t>(cut - b);
        return take(cut, e);
    }

    /// The end of the input at offset `end_offset`: the waiting token, the last line.
    bool finish(std::uint64_t end_offset) {
        if (!carry_.empty()) {
            if (!scanner_.scan(carry_.data(), carry_.data() + carry_.size(), carry_offset_)) {
                return false;
            }
            carry_.clear();
        }
        return scanner_.finish(end_offset);
    }

    const number_scanner<Sink>& scanner() const noexcept { return scanner_; }
    const number_failure& failure() const noexcept {
        return failure_ ? failure_ : scanner_.failure();
    }

  private:
    bool take(const char* b, const char* e) {
        if (carry_.size() + static_cast<std::size_t>(e - b) > max_number_token_bytes) {
            failure_ = {errc::token_too_long, carry_offset_, scanner_.lines(),
                        scanner_.next_column(),
                        "a token longer than " + std::to_string(max_number_token_bytes) + " bytes"};
            return false;
        }
        carry_.append(b, e);
        return true;
    }

    const number_syntax* syntax_;
    number_scanner<Sink> scanner_;
    std::string carry_;
    std::uint64_t carry_offset_ = 0;
    number_failure failure_;
};

/// An input's first 12 bytes, to name a binary format at byte 0 whatever the chunks.
struct input_head {
    char bytes[12] = {};
    std::size_t size = 0;

    void add(const char* p, const char* e) noexcept {
        const std::size_t n = std::min(sizeof bytes - size, static_cast<std::size_t>(e - p));
        if (n != 0) {
            std::memcpy(bytes + size, p, n);
            size += n;
        }
    }
    bool full() const noexcept { return size == sizeof bytes; }
};

/// Whether `f`, a token at byte 0 that is no number, may be a binary file read as text.
inline bool at_format_signature(const number_failure& f) noexcept {
    return f.offset == 0 && (f.code == errc::invalid_number || f.code == errc::token_too_long);
}

/// Names in such an error the format whose signature (file_signature) `head` holds: "a
/// gzip-compressed file, not text: decompress it first".
inline void name_format(number_failure& f, const input_head& head) {
    if (!at_format_signature(f)) {
        return;
    }
    if (const char* format = file_signature(head.bytes, head.bytes + head.size)) {
        const bool packed =
            std::strstr(format, "compressed") != nullptr || std::strstr(format, "zip") != nullptr;
        f.code = errc::invalid_number;
        f.reason = std::string(format) + ", not text" + (packed ? ": decompress it first" : "");
    }
}

/// The error of `f` in the input named `file` (may be empty), whose line `first_line`
/// (1-based) the scanned text started at: `<file>: byte <offset>: line <l>, column <c>:
/// <reason>`.
inline error number_error(const number_failure& f, const std::string& file,
                          std::uint64_t first_line = 1) {
    const std::uint64_t line = first_line + f.line;
    error e = parse_error_value(f.offset,
                                "line " + std::to_string(line) +
                                    (f.column != 0 ? ", column " + std::to_string(f.column) : "") +
                                    ": " + f.reason,
                                file, f.code);
    return error(e.code(), e.message(), e.path(), e.offset(), line,
                 f.column != 0 ? std::optional<std::uint64_t>(f.column) : std::nullopt);
}

} // namespace fastread::detail

#endif // FASTREAD_NUMBERS_DETAIL_SCANNER_HPP
