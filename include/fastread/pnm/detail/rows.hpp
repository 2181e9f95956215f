#ifndef FASTREAD_PNM_DETAIL_ROWS_HPP
#define FASTREAD_PNM_DETAIL_ROWS_HPP

// A Netpbm raster decoded row by row into rows the caller owns (pnm::load_into,
// pnm::row_reader, pnm::load_batch), with the decoder's own scanners and checks, so the
// samples and the errors are those of pnm::load; and a header read from a file without
// reading a raster byte (pnm::probe).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../detail/posix.hpp"
#include "../../error.hpp"
#include "../../source/byte_source.hpp"
#include "../image.hpp"
#include "bits.hpp"
#include "header.hpp"
#include "limits.hpp"
#include "plain.hpp"
#include "raw_copy.hpp"

namespace fastread::detail {

/// The bytes a raw raster takes in the input (P4: whole bytes per row), or 0 for a plain
/// one, whose length only its parse tells.
inline std::uint64_t raster_bytes_of(const pnm_header& h) noexcept {
    if (h.plain) {
        return 0;
    }
    if (h.magic == '4') {
        return (std::uint64_t{h.width} + 7) / 8 * h.height;
    }
    return h.samples * h.sample_bytes();
}

/// Decodes the raster of one image, whose header `h` the cursor has just read, a row of
/// `width * depth` samples at a time, or a piece of a row, as read_pnm decodes it whole: the
/// same samples, the same checks, the same errors at the same offsets (but that a raw raster
/// both truncated and holding a sample above maxval reports the first problem its rows
/// meet). Holds no more than a piece's packed bits (P4) beyond the scanners' state.
template <class Sample>
class pnm_row_decoder {
  public:
    pnm_row_decoder(const pnm_header& h, bool any_format)
        : h_(h), row_samples_(std::size_t{h.width} * h.depth),
          kernel_(scan::decimal_list_for<Sample>(scan::active_level())) {
        err_ = h.plain ? plain_raster_error(h) : pnm_error{};
        err_.any_format = any_format;
        plain_ = plain_scanner::for_header(h);
        bits_.needed = h.samples;
    }

    /// Rows decoded whole so far.
    std::uint32_t rows_done() const noexcept { return row_; }

    /// Samples a row holds: width * depth.
    std::size_t row_samples() const noexcept { return row_samples_; }

    /// Decodes the next `n` samples of the current row into `out` (room for `n`; nothing
    /// beyond is written): the whole row, or a piece of it (for P4 a piece but the row's last
    /// holds a multiple of 8 samples). The error, or none.
    pnm_error next(decoder_cursor& cur, Sample* out, std::size_t n) {
        Sample* o = out;
        Sample* const o_end = out + n;
        pnm_error err = err_;
        if (h_.plain) {
            const bool bits = h_.magic == '1';
            for (;;) {
                plain_scanner::status st;
                if (cur.fill()) {
                    const std::uint64_t end_offset = cur.offset() + (cur.end - cur.pos);
                    st = bits ? bits_.scan(cur.pos, cur.end, end_offset, o, o_end, err)
                              : plain_.scan(cur.pos, cur.end, end_offset, o, o_end, kernel_, err);
                } else {
                    st = bits ? bits_.finish(cur.offset(), err)
                              : plain_.finish(cur.offset(), o, o_end, err);
                }
                if (st == plain_scanner::status::error) {
                    return err;
                }
                if (o == o_end || st == plain_scanner::status::done) {
                    break;
                }
            }
        } else if (h_.magic == '4') {
            const std::size_t row_bytes = (row_samples_ + 7) / 8;
            const std::size_t bytes = (n + 7) / 8;
            packed_.resize(bytes);
            const std::size_t got = cur.read(reinterpret_cast<char*>(packed_.data()), bytes);
            if (got < bytes) {
                return with_format(raw_truncated_error(
                    h_, std::uint64_t{row_} * row_bytes + col_ / 8 + got, raster_bytes_of(h_)));
            }
            expand_pbm_row(out, packed_.data(), static_cast<std::uint32_t>(n));
        } else {
            const unsigned sample_bytes = h_.sample_bytes();
            const std::size_t bytes = n * sample_bytes;
            const std::size_t got = cur.read(reinterpret_cast<char*>(out), bytes);
            if (got < bytes) {
                return with_format(raw_truncated_error(
                    h_, (std::uint64_t{row_} * row_samples_ + col_) * sample_bytes + got,
                    raster_bytes_of(h_)));
            }
            const std::size_t bad = decode_raw_in_place(out, n, sample_bytes, h_.maxval);
            if (bad < n) {
                return with_format(raw_sample_error(
                    h_, std::uint64_t{row_} * row_samples_ + col_ + bad, sample_bytes, out[bad]));
            }
        }
        col_ += n;
        if (col_ == row_samples_) {
            col_ = 0;
            ++row_;
        }
        return {};
    }

    /// After the last row, for a reader of images back to back: a comment straight after a
    /// plain raster's last sample ends it (as read_pnm skips it).
    void finish_image(decoder_cursor& cur) {
        if ((h_.magic == '2' || h_.magic == '3') && cur.peek() == '#') {
            if (skip_comment(cur) >= 0) {
                ++cur.pos;
            }
        }
    }

  private:
    pnm_error with_format(pnm_error e) const noexcept {
        e.any_format = err_.any_format;
        return e;
    }

    pnm_header h_;
    std::size_t row_samples_;
    scan::decimal_list_fn<Sample> kernel_;
    pnm_error err_;
    plain_scanner plain_;
    p1_scanner bits_;
    std::vector<unsigned char> packed_;
    std::uint32_t row_ = 0;
    std::size_t col_ = 0; // samples of the current row decoded
};

/// The error for a caller's buffer that cannot hold the image `h` describes at `row_stride`
/// samples a row; none when it can. `who` names the call.
template <class Sample>
fastread::error into_buffer_problem(const char* who, const pnm_header& h, std::size_t dst_size,
                                    std::size_t row_stride) {
    const std::uint64_t row_samples = std::uint64_t{h.width} * h.depth;
    if (row_stride < row_samples) {
        return invalid_argument_value(
            std::string(who) + ": row_stride " + std::to_string(row_stride) +
            " is below width * depth = " + std::to_string(row_samples) + " samples");
    }
    // (height - 1) rows at the stride, then the last row; a stride that overflows cannot fit.
    std::uint64_t need = 0;
    if (__builtin_mul_overflow(std::uint64_t{h.height - 1}, std::uint64_t{row_stride}, &need) ||
        __builtin_add_overflow(need, row_samples, &need) || need > dst_size) {
        return invalid_argument_value(
            std::string(who) + ": the buffer holds " + std::to_string(dst_size) + " samples; " +
            std::to_string(h.height) + " rows of " + std::to_string(row_samples) +
            " samples at a stride of " + std::to_string(row_stride) + " need more");
    }
    return {};
}

/// Decodes the raster at the cursor (the header `h` just read) into `dst`, row r at
/// `dst + r * row_stride`, each row's padding untouched. A raw raster the input is known
/// not to hold is reported as truncated before any row is decoded, as pnm::load does.
template <class Sample>
pnm_error decode_rows_into(decoder_cursor& cur, const pnm_header& h, Sample* dst,
                           std::size_t row_stride, bool any_format) {
    const std::uint64_t raster_bytes = raster_bytes_of(h);
    if (!h.plain) {
        if (const std::optional<std::uint64_t> remaining = cur.known_remaining();
            remaining && *remaining < raster_bytes) {
            pnm_error err = raw_truncated_error(h, *remaining, raster_bytes);
            err.any_format = any_format;
            return err;
        }
    }
    if (!h.plain && h.magic != '4' && row_stride == std::size_t{h.width} * h.depth) {
        // Rows without padding: the raster in one read (straight from a source that reads
        // into the caller's memory), then decoded in place, as read_raw_raster does.
        const auto bytes = static_cast<std::size_t>(raster_bytes);
        const std::size_t got = cur.read(reinterpret_cast<char*>(dst), bytes);
        pnm_error err;
        if (got < bytes) {
            err = raw_truncated_error(h, got, raster_bytes);
        } else {
            const auto count = static_cast<std::size_t>(h.samples);
            const std::size_t bad = decode_raw_in_place(dst, count, h.sample_bytes(), h.maxval);
            if (bad < count) {
                err = raw_sample_error(h, bad, h.sample_bytes(), dst[bad]);
            }
        }
        err.any_format = any_format;
        return err;
    }
    pnm_row_decoder<Sample> rows(h, any_format);
    for (std::uint32_t r = 0; r < h.height; ++r) {
        if (pnm_error err = rows.next(cur, dst + std::size_t{r} * row_stride, rows.row_samples())) {
            return err;
        }
    }
    return {};
}

/// The least count of bytes that must follow `n` bytes of a Netpbm header at `p` before
/// its last byte can have been read (0 when it has been): each header number still
/// missing needs a digit and the byte that ends it, a comment its line end, PAM the line
/// `ENDHDR` and its line feed. Never more than the header still holds, so a probe that
/// reads this many bytes at a time reads no raster byte.
inline std::size_t header_bytes_missing(const char* p, std::size_t n) noexcept {
    if (n < 2) {
        return 2 - n + 4; // the magic number, then at least "1 1\n" (P4, P1)
    }
    if (p[0] != 'P' || p[1] < '1' || p[1] > '7') {
        return 0; // not a Netpbm header: the parse says what it is
    }
    if (p[1] == '7') {
        // Lines; the header ends with the line feed after the first ENDHDR line.
        constexpr std::string_view endhdr = "ENDHDR";
        std::size_t line = 0; // start of the current line
        for (std::size_t i = 0; i < n; ++i) {
            if (p[i] != '\n') {
                continue;
            }
            std::string_view text(p + line, i - line);
            while (!text.empty() && is_pnm_space(static_cast<unsigned char>(text.front()))) {
                text.remove_prefix(1);
            }
            while (!text.empty() && is_pnm_space(static_cast<unsigned char>(text.back()))) {
                text.remove_suffix(1);
            }
            if (line > 0 && text == endhdr) {
                return 0;
            }
            line = i + 1;
        }
        std::string_view partial(p + line, n - line);
        while (!partial.empty() && is_pam_blank(static_cast<unsigned char>(partial.front()))) {
            partial.remove_prefix(1);
        }
        if (line > 0 && partial.size() <= endhdr.size() &&
            endhdr.substr(0, partial.size()) == partial) {
            return endhdr.size() - partial.size() + 1; // the rest of ENDHDR and its line feed
        }
        if (line > 0 && partial.substr(0, endhdr.size()) == endhdr) {
            return 1; // ENDHDR and blanks: its line feed at least
        }
        return 1 + endhdr.size() + 1; // this line's end, then ENDHDR and its line feed
    }
    const bool bitmap = p[1] == '1' || p[1] == '4';
    const unsigned numbers = bitmap ? 2 : 3;
    unsigned complete = 0;
    bool in_number = false, in_comment = false;
    for (std::size_t i = 2; i < n; ++i) {
        const unsigned c = static_cast<unsigned char>(p[i]);
        if (in_comment) {
            in_comment = c != '\n' && c != '\r';
            if (!in_comment && complete == numbers) {
                return 0; // a raw raster's delimiter: the comment's line end
            }
            continue;
        }
        if (c - '0' < 10) {
            in_number = true;
            continue;
        }
        if (in_number) {
            in_number = false;
            if (++complete == numbers && (c != '#' || p[1] <= '3')) {
                return 0; // the delimiter (a plain raster's '#' stays in the raster)
            }
        }
        in_comment = c == '#';
        if (!in_comment && !is_pnm_space(c)) {
            return 0; // not a header byte: the parse reports it
        }
    }
    if (complete == numbers) {
        return 1; // a raw raster's delimiter is the line end of the comment after maxval
    }
    const unsigned left = numbers - complete;
    return (in_comment ? 1 : 0) + (in_number ? 1 + 2 * (left - 1) : 2 * left);
}

/// The decoder's header as a pnm::header.
inline pnm::header public_header(const pnm_header& h) {
    pnm::header out;
    out.encoding = static_cast<pnm::format>(h.magic - '0');
    out.width = h.width;
    out.height = h.height;
    out.depth = h.depth;
    out.maxval = h.maxval;
    out.tuple_type = h.tuple_type;
    out.raster_offset = h.raster_offset;
    out.raster_bytes = raster_bytes_of(h);
    out.sample_bytes = h.sample_bytes();
    return out;
}

/// A decoder error (or the source's read error, which caused it) as an error naming `name`.
inline fastread::error pnm_failure(const pnm_error& err, const fastread::error* read_error,
                                   const std::string& name) {
    if (read_error != nullptr) {
        return *read_error;
    }
    return parse_error_value(err.offset, pnm_error_message(err), name, to_errc(err.code));
}

/// The header of the next image at the cursor (any of P1 to P7; 16-bit samples allowed).
inline result<pnm_header> try_probe_cursor(decoder_cursor& cur, source_ref source,
                                           const std::string& name) {
    pnm_header h;
    if (const pnm_error err = parse_pnm_header(cur, 2, h, /*any_format=*/true)) {
        return pnm_failure(err, source.error(), name);
    }
    return h;
}

/// pnm::load_into from the cursor over `source`: the header (within `limits`), the buffer
/// checked against it, then the rows.
template <class Sample>
result<pnm_header> try_load_into_cursor(decoder_cursor& cur, source_ref source,
                                        const std::string& name, std::span<Sample> dst,
                                        std::size_t row_stride, const pnm_limits& limits) {
    pnm_header h;
    if (pnm_error err = parse_pnm_header(cur, sizeof(Sample), h, true, limits)) {
        err.any_format = true;
        return pnm_failure(err, source.error(), name);
    }
    if (fastread::error e =
            into_buffer_problem<Sample>("fastread::pnm::load_into", h, dst.size(), row_stride);
        e.code()) {
        return e;
    }
    if (const pnm_error err = decode_rows_into(cur, h, dst.data(), row_stride, true)) {
        return pnm_failure(err, source.error(), name);
    }
    return h;
}

/// `r`'s header as a pnm::header, or its error.
inline result<pnm::header> as_header_result(result<pnm_header>&& r) {
    if (!r) {
        return r.error();
    }
    return public_header(*r);
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_ROWS_HPP
