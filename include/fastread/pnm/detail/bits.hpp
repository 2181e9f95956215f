#ifndef FASTREAD_PNM_DETAIL_BITS_HPP
#define FASTREAD_PNM_DETAIL_BITS_HPP

// PBM rasters (pbm(5), netpbm.sourceforge.net/doc/pbm.html): plain (P1) '0' and '1'
// characters, whitespace optional between them; raw (P4) 8 pixels to a byte, most
// significant bit first, each row padded to a whole byte. In the file 1 is black. Decoded as
// Netpbm's own PBM to PAM conversion does (pamtopam: tuple type BLACKANDWHITE, maxval 1):
// sample 0 is black, 1 white. The pad bits of a raw row are ignored.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../sample_vector.hpp"
#include "../../source/byte_source.hpp"
#include "header.hpp"
#include "plain.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define FASTREAD_DETAIL_PBM_SSE2 1 // part of the x86-64 baseline: no run-time dispatch
#else
#define FASTREAD_DETAIL_PBM_SSE2 0
#endif

namespace fastread::detail {

/// The P1 raster scanner: a state machine fed chunk by chunk (a comment may straddle
/// chunks), as plain_scanner is for P2 and P3.
struct p1_scanner {
    using status = plain_scanner::status;

    std::uint64_t needed = 0; // samples the header declares
    std::uint64_t count = 0;  // samples decoded so far
    bool in_comment = false;

    /// Decodes the 16 bytes at `p` into `out` (room for 16 samples) if they are all bits and
    /// whitespace, setting `n` to the bits stored; false, with nothing stored, otherwise.
    template <class Sample>
    static bool bit_block(const char* p, Sample* out, std::size_t& n) noexcept {
#if FASTREAD_DETAIL_PBM_SSE2
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
        const int bits = _mm_movemask_epi8(_mm_cmpeq_epi8(
            _mm_and_si128(d, _mm_set1_epi8(static_cast<char>(0xFE))), _mm_setzero_si128()));
        if (bits == 0xFFFF) {
            const __m128i samples = _mm_sub_epi8(_mm_set1_epi8('1'), v); // '1' -> 0, '0' -> 1
            if constexpr (sizeof(Sample) == 1) {
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out), samples);
            } else {
                const __m128i zero = _mm_setzero_si128();
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi8(samples, zero));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 8),
                                 _mm_unpackhi_epi8(samples, zero));
            }
            n = 16;
            return true;
        }
        const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('\t')); // TAB..CR -> 0..4
        const __m128i space = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                           _mm_and_si128(_mm_cmpgt_epi8(t, _mm_set1_epi8(-1)),
                                                         _mm_cmplt_epi8(t, _mm_set1_epi8(5))));
        if ((bits | _mm_movemask_epi8(space)) != 0xFFFF) {
            return false;
        }
#else
        for (int i = 0; i < 16; ++i) {
            const auto c = static_cast<unsigned char>(p[i]);
            if (static_cast<unsigned char>(c - '0') >= 2 && !is_pnm_space(c)) {
                return false;
            }
        }
#endif
        n = 0;
        for (int i = 0; i < 16; ++i) {
            const auto c = static_cast<unsigned char>(p[i]);
            out[n] = static_cast<Sample>('1' - c);
            n += static_cast<unsigned char>(c - '0') < 2;
        }
        return true;
    }

    /// Scans [pos, end); `end_offset` is the input offset of `end`. Stops when the input runs
    /// out (need_input), the output is full (out_full), every sample is read (done: `pos` is
    /// just after the last bit, or after whitespace that followed it in the same 16-byte
    /// block) or a byte is no bit, whitespace or comment (error, at its offset).
    template <class Sample>
    status scan(const char*& pos, const char* end, std::uint64_t end_offset, Sample*& out,
                Sample* out_end, pnm_error& err) {
        const char* p = pos;
        status st = status::need_input;
        while (p != end) {
            if (in_comment) {
                while (p != end && *p != '\n' && *p != '\r') {
                    ++p;
                }
                if (p == end) {
                    break;
                }
                in_comment = false;
            }
            std::uint64_t left = needed - count;
            if (static_cast<std::uint64_t>(out_end - out) < left) {
                left = static_cast<std::uint64_t>(out_end - out);
            }
            if (left == 0) {
                st = status::out_full;
                break;
            }
            // Blocks of 16 bytes holding only bits and whitespace: each bit is stored, and
            // the output advances past it only. At least 16 samples must remain, so a block
            // never takes a bit beyond the image. A block of bits alone (Netpbm writes rows
            // of 70 bits without spaces) is one subtraction and a store.
            while (end - p >= 16 && left >= 16) {
                std::size_t n = 0;
                if (!bit_block(p, out, n)) {
                    break; // a comment or an invalid byte: byte by byte below
                }
                p += 16;
                out += n;
                count += n;
                left -= n;
                if (count == needed) {
                    pos = p;
                    return status::done;
                }
            }
            if (p == end) {
                break;
            }
            if (left == 0) {
                continue; // the blocks filled the output: the loop's start says out_full
            }
            // One byte, then back to the blocks.
            const unsigned c = static_cast<unsigned char>(*p);
            if (c == '0' || c == '1') {
                *out++ = static_cast<Sample>('1' - c);
                ++p;
                if (++count == needed) {
                    st = status::done;
                    break;
                }
                continue;
            }
            if (is_pnm_space(c)) {
                ++p;
                continue;
            }
            if (c == '#') {
                in_comment = true;
                ++p;
                continue;
            }
            err.code = pnm_errc::invalid_raster_byte;
            err.offset = end_offset - static_cast<std::uint64_t>(end - p);
            err.value = c;
            st = status::error;
            break;
        }
        pos = p;
        return st;
    }

    /// At end of input: a short raster.
    status finish(std::uint64_t eof_offset, pnm_error& err) const {
        err.code = pnm_errc::truncated_raster;
        err.offset = eof_offset;
        err.value = count;
        err.limit = needed;
        return status::error;
    }
};

/// Decodes a plain (P1) raster into `out` (h.samples samples, 0 black, 1 white).
template <class Sample>
pnm_error read_plain_bits(decoder_cursor& cur, const pnm_header& h, sample_vector<Sample>& out) {
    pnm_error err = plain_raster_error(h);
    p1_scanner scanner;
    scanner.needed = h.samples;
    // A bit is one byte: an input known to be shorter than the raster is parsed into a
    // scratch buffer instead of allocating the image, so the error is the same, at the
    // same offset, as from a stream.
    bool discard = false;
    if (cur.contiguous()) {
        discard = h.samples > *cur.known_remaining();
    }
    return drive_plain_scan(
        cur, h, out, discard, 1, err,
        [&](const char*& pos, const char* end, std::uint64_t end_offset, Sample*& o, Sample* o_end,
            pnm_error& e) { return scanner.scan(pos, end, end_offset, o, o_end, e); },
        [&](std::uint64_t eof_offset, Sample*&, Sample*, pnm_error& e) {
            return scanner.finish(eof_offset, e);
        });
}

/// For each byte of a raw PBM row, its 8 pixels as samples (most significant bit first;
/// bit 1, black, is sample 0).
inline constexpr std::array<std::array<unsigned char, 8>, 256> pbm_byte_samples = [] {
    std::array<std::array<unsigned char, 8>, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        for (unsigned bit = 0; bit < 8; ++bit) {
            table[byte][bit] = static_cast<unsigned char>(((byte >> (7 - bit)) & 1u) ^ 1u);
        }
    }
    return table;
}();

/// Expands one raw PBM row of `width` pixels (`(width + 7) / 8` bytes at `src`) into `dst`.
template <class Sample>
void expand_pbm_row(Sample* dst, const unsigned char* src, std::uint32_t width) noexcept {
    const std::uint32_t whole = width / 8;
    for (std::uint32_t b = 0; b < whole; ++b) {
        if constexpr (sizeof(Sample) == 1) {
            std::memcpy(dst + std::size_t{b} * 8, pbm_byte_samples[src[b]].data(), 8);
        } else {
            for (unsigned k = 0; k < 8; ++k) {
                dst[std::size_t{b} * 8 + k] = pbm_byte_samples[src[b]][k];
            }
        }
    }
    for (std::uint32_t k = 0; k < width % 8; ++k) {
        dst[std::size_t{whole} * 8 + k] = pbm_byte_samples[src[whole]][k];
    }
}

/// Decodes a raw (P4) raster into `out` (h.samples samples, 0 black, 1 white).
template <class Sample>
pnm_error read_raw_bits(decoder_cursor& cur, const pnm_header& h, sample_vector<Sample>& out) {
    const std::uint64_t row_bytes = (std::uint64_t{h.width} + 7) / 8;
    const std::uint64_t raster_bytes = row_bytes * h.height; // <= h.samples
    const std::optional<std::uint64_t> remaining = cur.known_remaining();
    if (cur.contiguous()) {
        if (raster_bytes > *remaining) {
            // Rejected before allocating: the input cannot hold what the header declares.
            return raw_truncated_error(h, *remaining, raster_bytes);
        }
        cur.fill();
        const auto* src = reinterpret_cast<const unsigned char*>(cur.pos);
        out.resize(static_cast<std::size_t>(h.samples));
        for (std::uint32_t row = 0; row < h.height; ++row) {
            expand_pbm_row(out.data() + std::size_t{row} * h.width, src + row * row_bytes, h.width);
        }
        cur.pos += raster_bytes;
        return {};
    }
    if (remaining && *remaining >= raster_bytes) {
        // The input holds the raster: read it whole (an eighth of the samples' size) with
        // one call, then expand it.
        std::vector<unsigned char> raster(static_cast<std::size_t>(raster_bytes));
        const std::size_t got = cur.read(reinterpret_cast<char*>(raster.data()), raster.size());
        if (got < raster.size()) {
            return raw_truncated_error(h, got, raster_bytes); // the input shrank meanwhile
        }
        out.resize(static_cast<std::size_t>(h.samples));
        for (std::uint32_t row = 0; row < h.height; ++row) {
            expand_pbm_row(out.data() + std::size_t{row} * h.width, raster.data() + row * row_bytes,
                           h.width);
        }
        return {};
    }
    // Piece by piece (at most 64 KiB of a row at a time); the samples grow with the bytes
    // that arrived, never beyond what they justify (8 samples a byte), however wide a row
    // the header declares.
    std::vector<unsigned char> piece(
        static_cast<std::size_t>(std::min<std::uint64_t>(row_bytes, std::uint64_t{64} << 10)));
    out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(h.samples, 1u << 16)));
    for (std::uint32_t row = 0; row < h.height; ++row) {
        for (std::uint64_t b = 0; b < row_bytes;) {
            const auto n =
                static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), row_bytes - b));
            const std::size_t got = cur.read(reinterpret_cast<char*>(piece.data()), n);
            if (got < n) {
                out.clear();
                return raw_truncated_error(h, row * row_bytes + b + got, raster_bytes);
            }
            const auto pixels = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(std::uint64_t{n} * 8, h.width - b * 8));
            const std::uint64_t at = std::uint64_t{row} * h.width + b * 8;
            if (at + pixels > out.size()) {
                out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(
                    h.samples,
                    std::max<std::uint64_t>(at + pixels, std::uint64_t{out.size()} * 2))));
            }
            expand_pbm_row(out.data() + at, piece.data(), pixels);
            b += n;
        }
    }
    out.resize(static_cast<std::size_t>(h.samples));
    return {};
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_BITS_HPP
