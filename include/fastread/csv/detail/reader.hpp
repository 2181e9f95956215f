#ifndef FASTREAD_CSV_DETAIL_READER_HPP
#define FASTREAD_CSV_DETAIL_READER_HPP

/// @file
/// The record reader of fastread::csv: records from any byte source through a bounded
/// buffer (a record longer than the buffer grows it, up to the field limits), or straight
/// from the bytes of a source that holds them all; the byte offset and physical line of
/// each record; the input's BOM and `skip_lines`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "../../result.hpp"
#include "../../source/byte_source.hpp"
#include "tokenizer.hpp"

namespace fastread::detail {

/// A byte source behind one interface (csv::rows does not depend on the source's type).
class csv_input {
  public:
    virtual ~csv_input() = default;
    /// Up to `n` bytes into `dst`; 0 only at the end of the input (or on a read error,
    /// kept in error()).
    virtual std::size_t read(char* dst, std::size_t n) = 0;
    /// All the bytes, when the source holds them in memory (nothing is copied then).
    virtual std::span<const char> whole() const noexcept { return {}; }
    virtual bool has_whole() const noexcept { return false; }
    /// A read error that ended the input, or none.
    virtual const fastread::error* read_error() const noexcept { return nullptr; }
};

/// csv_input over a borrowed byte_source.
template <class Source>
class csv_source_input final : public csv_input {
  public:
    explicit csv_source_input(Source& s) : s_(&s) {}
    std::size_t read(char* dst, std::size_t n) override {
        if constexpr (direct_read_source<Source>) {
            if (pending_.empty()) {
                if constexpr (reporting_source<Source>) {
                    return s_->try_read_into(std::span<char>(dst, n));
                } else {
                    return s_->read_into(std::span<char>(dst, n));
                }
            }
        }
        if (pending_.empty()) {
            if constexpr (reporting_source<Source>) {
                pending_ = s_->try_next();
            } else {
                pending_ = s_->next();
            }
        }
        const std::size_t k = std::min(n, pending_.size());
        if (k != 0) {
            std::memcpy(dst, pending_.data(), k);
        }
        pending_ = pending_.subspan(k);
        return k;
    }
    std::span<const char> whole() const noexcept override {
        if constexpr (contiguous_source<Source>) {
            return s_->bytes();
        } else {
            return {};
        }
    }
    bool has_whole() const noexcept override { return contiguous_source<Source>; }
    const fastread::error* read_error() const noexcept override {
        if constexpr (reporting_source<Source>) {
            return s_->error().code() ? &s_->error() : nullptr;
        } else {
            return nullptr;
        }
    }

  private:
    Source* s_;
    std::span<const char> pending_;
};

/// Records from a csv_input, one at a time.
class csv_reader {
  public:
    /// Reads `in` (borrowed), whose first byte is byte `first_offset` of the input and is
    /// the input's start (a BOM skipped there) when `input_start`. `buffer` bytes at first.
    csv_reader(const csv_dialect& d, csv_input& in, std::uint64_t first_offset = 0,
               bool input_start = true, std::size_t buffer = std::size_t{256} << 10)
        : tok_(d), in_(&in), offset_(first_offset), bom_(input_start) {
        if (in.has_whole()) {
            const std::span<const char> all = in.whole();
            base_ = pos_ = all.data();
            end_ = all.data() + all.size();
            eof_ = true;
            tok_.reset(base_, end_);
        } else {
            cap_ = std::max<std::size_t>(buffer, 64);
            own_.reset(new char[cap_]);
            base_ = pos_ = end_ = own_.get();
            tok_.reset(base_, end_);
        }
    }

    /// Skips `n` physical lines (LF, CR LF or CR ended) whatever they hold; false at the
    /// end of the input or on a read error.
    bool skip_lines(std::size_t n) {
        skip_bom();
        while (n > 0) {
            const char* p = pos_;
            while (p != end_ && *p != '\n' && *p != '\r') {
                ++p;
            }
            if (p == end_ || (*p == '\r' && p + 1 == end_ && !eof_)) {
                if (eof_) {
                    pos_ = end_;
                    return false;
                }
                refill();
                continue;
            }
            p += *p == '\r' && p + 1 != end_ && p[1] == '\n' ? 2 : 1;
            pos_ = p;
            ++line_;
            --n;
        }
        return true;
    }

    /// The next record: csv_step::record (fields(), offset(), line()), end, or failed
    /// (failure(), failure_offset(), failure_line()).
    csv_step next() {
        skip_bom();
        for (;;) {
            const csv_step step = tok_.parse(pos_, end_, eof_);
            if (step == csv_step::record) {
                record_offset_ = offset_ + static_cast<std::uint64_t>(tok_.record_start() - base_);
                record_line_ = line_ + tok_.lines_before() + 1;
                line_ += tok_.lines();
                pos_ = tok_.next_record();
                return step;
            }
            if (step == csv_step::failed) {
                failure_offset_ = offset_ + static_cast<std::uint64_t>(tok_.failure().at - base_);
                failure_line_ = line_ + tok_.failure().line + 1;
                return step;
            }
            if (step == csv_step::end) {
                pos_ = end_;
                return step;
            }
            refill();
        }
    }

    /// A caller's fast path for the next record: `read(p, end, cursor, lines)` returns the
    /// byte after the record that starts at p (ended by a line end before `end`), having
    /// added to `lines` the line ends inside its quoted fields, or null to leave it to
    /// next(). True when it took one (offset() and line() are its own then).
    template <class Read>
    [[gnu::always_inline]] bool next_fast(Read&& read) {
        if (bom_) [[unlikely]] {
            return false;
        }
        std::uint64_t inside = 0;
        const char* after = read(pos_, end_, tok_.cursor(), inside);
        if (after == nullptr) {
            tok_.cursor().rewind(); // the tokenizer reads the record from its start
            return false;
        }
        record_offset_ = offset_ + static_cast<std::uint64_t>(pos_ - base_);
        record_line_ = ++line_;
        line_ += inside;
        pos_ = after;
        return true;
    }

    const csv_fields& fields() const noexcept { return tok_.fields(); }
    /// The record's byte offset in the input and its first physical line (1-based).
    std::uint64_t offset() const noexcept { return record_offset_; }
    std::uint64_t line() const noexcept { return record_line_; }
    /// The byte offset of field `k` of the last record (its opening quote, if quoted); the
    /// record's offset if it has no such field. Reads the record again: for errors only.
    std::uint64_t field_offset(std::size_t k) {
        const char* start = tok_.record_start();
        const std::uint64_t at = offset_ + static_cast<std::uint64_t>(start - base_);
        csv_tokenizer again = tok_;
        again.record_starts(true);
        again.reset(base_, end_);
        if (again.parse(start, end_, eof_) != csv_step::record ||
            k >= again.field_starts().size()) {
            return at;
        }
        return offset_ + static_cast<std::uint64_t>(again.field_starts()[k] - base_);
    }
    /// Whether the last record ran to the end of the input without a line end.
    bool unterminated() const noexcept { return tok_.unterminated(); }
    /// The input offset where the next record would start.
    std::uint64_t position() const noexcept {
        return offset_ + static_cast<std::uint64_t>(pos_ - base_);
    }
    /// Physical lines read so far.
    std::uint64_t lines() const noexcept { return line_; }
    const csv_failure& failure() const noexcept { return tok_.failure(); }
    std::uint64_t failure_offset() const noexcept { return failure_offset_; }
    std::uint64_t failure_line() const noexcept { return failure_line_; }
    /// The input's read error, or none (a read error ends the input: only then is it asked).
    const fastread::error* read_error() const noexcept {
        return eof_ ? in_->read_error() : nullptr;
    }

  private:
    void skip_bom() {
        if (!bom_) {
            return;
        }
        while (static_cast<std::size_t>(end_ - pos_) < 3 && !eof_) {
            refill();
        }
        bom_ = false;
        if (end_ - pos_ >= 3 && std::memcmp(pos_, "\xEF\xBB\xBF", 3) == 0) {
            pos_ += 3;
        }
    }
    // More bytes after [pos_, end_): the unread ones moved to the buffer's start, the buffer
    // doubled when they fill it, then filled from the input; eof_ when it has ended.
    void refill() {
        if (eof_) {
            return;
        }
        const auto keep = static_cast<std::size_t>(end_ - pos_);
        offset_ += static_cast<std::uint64_t>(pos_ - base_);
        if (keep == cap_) {
            std::unique_ptr<char[]> bigger(new char[cap_ * 2]);
            std::memcpy(bigger.get(), pos_, keep);
            own_ = std::move(bigger);
            cap_ *= 2;
        } else if (keep != 0 && pos_ != own_.get()) {
            std::memmove(own_.get(), pos_, keep);
        }
        base_ = pos_ = own_.get();
        char* end = own_.get() + keep;
        while (end != own_.get() + cap_) {
            const std::size_t got =
                in_->read(end, static_cast<std::size_t>(own_.get() + cap_ - end));
            if (got == 0) {
                eof_ = true;
                break;
            }
            end += got;
        }
        end_ = end;
        tok_.reset(base_, end_);
    }

    csv_tokenizer tok_;
    csv_input* in_;
    std::unique_ptr<char[]> own_;
    std::size_t cap_ = 0;
    const char* base_ = nullptr; // the buffer's first byte: input offset offset_
    const char* pos_ = nullptr;
    const char* end_ = nullptr;
    std::uint64_t offset_ = 0;
    std::uint64_t line_ = 0;
    bool eof_ = false;
    bool bom_ = true;
    std::uint64_t record_offset_ = 0;
    std::uint64_t record_line_ = 0;
    std::uint64_t failure_offset_ = 0;
    std::uint64_t failure_line_ = 0;
};

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_READER_HPP
