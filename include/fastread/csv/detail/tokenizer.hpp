#ifndef FASTREAD_CSV_DETAIL_TOKENIZER_HPP
#define FASTREAD_CSV_DETAIL_TOKENIZER_HPP

/// @file
/// The record tokenizer of fastread::csv: one record (row) at a time from bytes in memory,
/// as Python's `csv` module reads them by default (its `_csv.c` reader states: start of
/// field, unquoted field, quoted field, quote in quoted field), with RFC 4180's doubled
/// quotes, an optional escape byte, and fastread's additions (blank and comment lines
/// skipped, `trim`, `strict`, limits). The state machine visits only the structural bytes:
/// csv_cursor (cursor.hpp) finds them from 64-byte block masks, so the bytes of
/// a field between them are never looked at one by one.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../result.hpp"
#include "../../scan/simd_level.hpp"
#include "cursor.hpp"

namespace fastread::detail {

/// What one call of csv_tokenizer::parse found.
enum class csv_step : unsigned char {
    record,    ///< a record: fields(), next_record()
    end,       ///< no record before the end of the input (only blank or comment lines)
    need_more, ///< the record goes on past the bytes given: call again with more
    failed,    ///< malformed input: failure()
};

/// Malformed input found by the tokenizer.
struct csv_failure {
    errc code = errc::malformed_input;
    std::string reason;
    const char* at = nullptr; ///< where in the buffer
    std::uint64_t line = 0;   ///< lines (line ends) before it, from the parse's start
    std::size_t field = 0;    ///< the field's 0-based index in its record
};

/// Reads one record at a time; see the file comment for the rules.
class csv_tokenizer {
  public:
    explicit csv_tokenizer(const csv_dialect& d, scan::simd_level level = scan::active_level())
        : d_(d), cursor_(d, level) {}

    /// The buffer that the next parse() calls read, [base, end): every call's bytes are in it.
    void reset(const char* base, const char* end) noexcept { cursor_.reset(base, end); }

    /// Reads the record that starts at or after `p` (blank and comment lines before it are
    /// skipped) up to `end`; `eof`: no byte follows `end`. On csv_step::record the fields
    /// are fields() (valid until the next call), record_start() is its first byte,
    /// next_record() the byte after its line end. lines() counts the line ends read from
    /// `p` (blank and comment lines, newlines inside quoted fields, the record's own).
    csv_step parse(const char* p, const char* end, bool eof);

    const csv_fields& fields() const noexcept { return fields_; }
    /// The structural-byte cursor over the buffer (for a caller's fast path over it).
    csv_cursor& cursor() noexcept { return cursor_; }
    const char* record_start() const noexcept { return start_; }
    const char* next_record() const noexcept { return next_; }
    std::uint64_t lines() const noexcept { return lines_; }
    /// The line ends read before record_start() (blank and comment lines).
    std::uint64_t lines_before() const noexcept { return lines_before_; }
    /// Whether the record ended at `end` with no line end (the input's last line).
    bool unterminated() const noexcept { return unterminated_; }
    const csv_failure& failure() const noexcept { return failure_; }
    /// Whether parse() records where each field starts (field_starts()): for error
    /// messages, on a second parse of a record.
    void record_starts(bool on) noexcept { record_starts_ = on; }
    const std::vector<const char*>& field_starts() const noexcept { return starts_; }

  private:
    bool is_space(char c) const noexcept { return c == ' ' || (c == '\t' && d_.delimiter != '\t'); }
    csv_step fail(errc code, std::string reason, const char* at, std::uint64_t line) {
        failure_ = {code, std::move(reason), at, line, fields_.size()};
        return csv_step::failed;
    }
    // Appends [a, b) to the scratch copy of the field being read.
    void copy(const char* a, const char* b) { scratch_.append(a, static_cast<std::size_t>(b - a)); }
    // The field [a, b): the common case inline, the others in save_slow.
    [[gnu::always_inline]] bool save(const char* a, const char* b, bool copied, std::size_t mark) {
        if (!copied && !d_.trim) [[likely]] {
            const auto size = static_cast<std::size_t>(b - a);
            fields_.push(a, size);
            return size <= d_.max_field_bytes && fields_.size() <= d_.max_fields;
        }
        return save_slow(a, b, copied, mark);
    }
    bool save_slow(const char* a, const char* b, bool copied, std::size_t mark);
    void patch_fields() {
        for (const fixup& f : fixups_) {
            fields_[f.field] = std::string_view(scratch_.data() + f.at, f.size);
        }
    }

    csv_dialect d_;
    csv_cursor cursor_;
    csv_fields fields_;
    struct fixup {
        std::size_t field, at, size; // a field copied to scratch_ (at, size)
    };
    std::vector<fixup> fixups_;
    std::string scratch_;
    const char* start_ = nullptr;
    const char* next_ = nullptr;
    std::uint64_t lines_ = 0;
    std::uint64_t lines_before_ = 0;
    bool unterminated_ = false;
    bool record_starts_ = false;
    std::vector<const char*> starts_;
    csv_failure failure_;
};

// ---------------------------------------------------------------------------------------
// Implementation

// The field [a, b) (or, when `copied`, scratch_ from `mark` with [a, b) appended), trimmed.
inline bool csv_tokenizer::save_slow(const char* a, const char* b, bool copied, std::size_t mark) {
    if (copied) {
        copy(a, b);
        std::size_t size = scratch_.size() - mark;
        if (d_.trim) {
            while (size > 0 && is_space(scratch_[mark + size - 1])) {
                --size;
            }
        }
        fixups_.push_back({fields_.size(), mark, size});
        fields_.push(nullptr, 0); // patched when the record is complete (scratch_ may move)
        if (size > d_.max_field_bytes) {
            return false;
        }
    } else {
        if (d_.trim) {
            while (b > a && is_space(b[-1])) {
                --b;
            }
        }
        fields_.push(a, static_cast<std::size_t>(b - a));
    }
    return fields_.back().size() <= d_.max_field_bytes && fields_.size() <= d_.max_fields;
}

inline csv_step csv_tokenizer::parse(const char* p, const char* end, bool eof) {
    fields_.clear();
    fixups_.clear();
    scratch_.clear();
    lines_ = 0;
    unterminated_ = false;
    const char q = d_.quote;
    const char e = d_.escape;
    const char delim = d_.delimiter;
    // Blank and comment lines.
    for (;;) {
        if (p == end) {
            return eof ? csv_step::end : csv_step::need_more;
        }
        const char c = *p;
        if (c == '\n') {
            ++p;
            ++lines_;
        } else if (c == '\r') {
            if (p + 1 == end && !eof) {
                return csv_step::need_more;
            }
            p += p + 1 != end && p[1] == '\n' ? 2 : 1;
            ++lines_;
        } else if (d_.comment != 0 && c == d_.comment) {
            const char* nl = p;
            while (nl != end && *nl != '\n' && *nl != '\r') {
                ++nl;
            }
            if (nl == end) {
                if (!eof) {
                    return csv_step::need_more;
                }
                p = end;
            } else {
                p = nl;
            }
        } else {
            break;
        }
    }
    start_ = p;
    lines_before_ = lines_;
    auto too_big = [&](const char* at) {
        return fields_.size() > d_.max_fields
                   ? fail(errc::over_limit,
                          "a row of more than " + std::to_string(d_.max_fields) +
                              " fields (csv::options::max_fields)",
                          at, lines_)
                   : fail(errc::over_limit,
                          "a field of more than " + std::to_string(d_.max_field_bytes) +
                              " bytes (csv::options::max_field_bytes)",
                          at, lines_);
    };
    starts_.clear();
    if (!d_.trim && !record_starts_ && p != end) [[likely]] {
        // The common run: unquoted fields, each ended by the delimiter, the record by LF or
        // CR LF, straight from the bits of the block masks. Anything else (a quote, an
        // escape, a limit, the end of the bytes given) is left to the field loop below,
        // from the start of the field it is in: a field that starts with a quote has that
        // quote as its first structural byte, so it stops the run there.
        const char* const base = cursor_.base();
        const std::size_t blocks = cursor_.blocks();
        const auto off = static_cast<std::size_t>(p - base);
        std::size_t b = off >> 6;
        std::uint64_t m = cursor_.block_bits(b) & (~std::uint64_t{0} << (off & 63));
        const std::size_t max_bytes = d_.max_field_bytes;
        std::size_t n = fields_.size();
        std::string_view* out = fields_.data();
        std::size_t room = std::min(fields_.capacity(), d_.max_fields);
        for (;;) {
            while (m == 0) {
                if (++b >= blocks) {
                    fields_.set_size(n);
                    goto general;
                }
                m = cursor_.block_bits(b);
            }
            const char* s = base + (b << 6) + std::countr_zero(m);
            m &= m - 1;
            const char c = *s;
            const auto size = static_cast<std::size_t>(s - p);
            if (n == room || size > max_bytes) [[unlikely]] {
                fields_.set_size(n);
                if (n == fields_.capacity() && n < d_.max_fields && size <= max_bytes) {
                    fields_.grow();
                    out = fields_.data();
                    room = std::min(fields_.capacity(), d_.max_fields);
                } else {
                    break;
                }
            }
            if (c == delim) {
                out[n++] = std::string_view(p, size);
                p = s + 1;
                continue;
            }
            if (c == '\n' || (c == '\r' && s + 1 != end && s[1] == '\n')) {
                out[n++] = std::string_view(p, size);
                fields_.set_size(n);
                next_ = s + (c == '\n' ? 1 : 2);
                ++lines_;
                return csv_step::record;
            }
            fields_.set_size(n);
            break;
        }
    }
general:
    for (;;) { // one field a turn
        if (d_.trim) {
            while (p != end && is_space(*p)) {
                ++p;
            }
        }
        if (record_starts_) [[unlikely]] {
            starts_.push_back(p);
        }
        const char* seg = p;
        const std::size_t mark = scratch_.size();
        bool copied = false;
        if (p == end) {
            if (!eof) {
                return csv_step::need_more;
            }
            if (!save(p, p, false, mark)) {
                return too_big(p);
            }
            unterminated_ = true;
            next_ = p;
            patch_fields();
            return csv_step::record;
        }
        if (*p == q && q != 0) {
            // A quoted field: to its closing quote.
            const char* open = p;
            const std::uint64_t open_line = lines_;
            seg = ++p;
            for (;;) {
                const char* s = cursor_.next(p);
                if (s == end) {
                    if (!eof) {
                        if (static_cast<std::size_t>(end - open) > d_.max_field_bytes) {
                            return too_big(open);
                        }
                        return csv_step::need_more;
                    }
                    return fail(errc::malformed_input,
                                "the quoted field opened here (line " +
                                    std::to_string(open_line + 1) +
                                    " of the read) has no closing quote",
                                open, open_line);
                }
                const char c = *s;
                if (c == '\n') {
                    ++lines_;
                    p = s + 1;
                } else if (c == '\r') {
                    if (s + 1 == end && !eof) {
                        return csv_step::need_more;
                    }
                    lines_ += s + 1 == end || s[1] != '\n';
                    p = s + 1;
                } else if (c == q) {
                    if (s + 1 == end && !eof) {
                        return csv_step::need_more;
                    }
                    if (s + 1 != end && s[1] == q) { // a doubled quote: one quote
                        copy(seg, s + 1);
                        copied = true;
                        p = seg = s + 2;
                        continue;
                    }
                    // The closing quote.
                    const char* after = s + 1;
                    const char* t = after;
                    if (d_.trim) {
                        while (t != end && is_space(*t)) {
                            ++t;
                        }
                    }
                    if (t == end && !eof) {
                        return csv_step::need_more;
                    }
                    if (t == end || *t == delim || *t == '\n' || *t == '\r') {
                        if (!save(seg, s, copied, mark)) {
                            return too_big(open);
                        }
                        p = t;
                        goto field_end;
                    }
                    if (d_.strict) {
                        return fail(
                            errc::malformed_input,
                            "text after the closing quote of a field (csv::options::strict)", after,
                            lines_);
                    }
                    // Python's csv: the rest of the field is read as unquoted text.
                    copy(seg, s);
                    copied = true;
                    p = seg = after;
                    goto unquoted;
                } else if (c == e && e != 0) {
                    if (s + 1 == end) {
                        if (!eof) {
                            return csv_step::need_more;
                        }
                        return fail(errc::malformed_input, "the input ends after an escape byte", s,
                                    lines_);
                    }
                    copy(seg, s);
                    copied = true;
                    lines_ += s[1] == '\n' || (s[1] == '\r' && (s + 2 == end || s[2] != '\n'));
                    p = s + 2;
                    seg = s + 1;
                } else { // the delimiter: part of the field
                    p = s + 1;
                }
            }
        }
    unquoted:
        for (;;) {
            const char* s = cursor_.next(p);
            if (s == end) {
                if (!eof) {
                    if (static_cast<std::size_t>(end - seg) > d_.max_field_bytes) {
                        return too_big(seg);
                    }
                    return csv_step::need_more;
                }
                if (!save(seg, end, copied, mark)) {
                    return too_big(seg);
                }
                unterminated_ = true;
                next_ = end;
                patch_fields();
                return csv_step::record;
            }
            const char c = *s;
            if (c == delim || c == '\n' || c == '\r') {
                if (!save(seg, s, copied, mark)) {
                    return too_big(seg);
                }
                p = s;
                goto field_end;
            }
            if (c == q) {
                if (d_.strict) {
                    return fail(errc::malformed_input,
                                "a quote inside an unquoted field (csv::options::strict)", s,
                                lines_);
                }
                p = s + 1; // Python's csv: a quote there is text
            } else {       // the escape byte: the next byte is text
                if (s + 1 == end) {
                    if (!eof) {
                        return csv_step::need_more;
                    }
                    return fail(errc::malformed_input, "the input ends after an escape byte", s,
                                lines_);
                }
                copy(seg, s);
                copied = true;
                lines_ += s[1] == '\n' || (s[1] == '\r' && (s + 2 == end || s[2] != '\n'));
                p = s + 2;
                seg = s + 1;
            }
        }
    field_end:
        // p is at the delimiter, a line end or the end of the input.
        if (p == end) {
            unterminated_ = true;
            next_ = end;
            patch_fields();
            return csv_step::record;
        }
        if (*p == delim) {
            ++p;
            continue;
        }
        if (*p == '\r') {
            if (p + 1 == end && !eof) {
                return csv_step::need_more;
            }
            p += p + 1 != end && p[1] == '\n' ? 2 : 1;
        } else {
            ++p;
        }
        ++lines_;
        next_ = p;
        patch_fields();
        return csv_step::record;
    }
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_TOKENIZER_HPP
