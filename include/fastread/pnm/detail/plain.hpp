#ifndef FASTREAD_PNM_DETAIL_PLAIN_HPP
#define FASTREAD_PNM_DETAIL_PLAIN_HPP

// The plain (P2, P3) raster: the sample scanner (a state machine fed chunk by chunk) and the
// cutting of a raster held in memory into slices parsed on several threads.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../sample_vector.hpp"
#include "../../scan/decimal_list.hpp"
#include "header.hpp"

namespace fastread::detail {

/// The P3 sample scanner: a state machine fed chunk by chunk, so a token or comment may
/// straddle chunk boundaries.
struct plain_scanner {
    enum class status : unsigned char { need_input, out_full, done, error };

    static constexpr std::uint32_t saturation = p3_sample_saturation;

    /// A scanner for the raster of the image `h` describes.
    static plain_scanner for_header(const pnm_header& h) noexcept {
        plain_scanner scanner;
        scanner.maxval = h.maxval;
        scanner.needed = h.samples;
        return scanner;
    }

    std::uint32_t maxval = 0;
    std::uint64_t needed = 0;       // samples the header declares
    std::uint64_t count = 0;        // samples committed so far
    std::uint64_t token_offset = 0; // input offset of the current token's first digit
    std::uint32_t value = 0;
    bool in_token = false;
    bool in_comment = false;

    template <class Sample>
    status commit(Sample*& out, Sample* out_end, pnm_error& err) {
        if (value > maxval) {
            err.code = pnm_errc::sample_exceeds_maxval;
            err.offset = token_offset;
            err.value = value;
            err.limit = maxval;
            err.index = count;
            return status::error;
        }
        if (out == out_end) {
            return status::out_full;
        }
        *out++ = static_cast<Sample>(value);
        in_token = false;
        return ++count == needed ? status::done : status::need_input;
    }

    /// The fast path for whole tokens: the decimal-list kernel of the chosen level takes
    /// 64-byte windows while it can; a token it leaves (longer than it handles) or the
    /// chunk's tail goes to the scalar SWAR kernel, one token at a time while a window
    /// remains, then back to the block kernel. Anything else (a comment, an invalid byte,
    /// a sample above maxval, a token cut by the chunk's end) is left to the byte-wise
    /// path, which reports errors with exact offsets. Returns true when every sample is
    /// read.
    template <class Sample>
    bool scan_tokens(const char*& pos, const char* end, Sample*& out, Sample* out_end,
                     scan::decimal_list_fn<Sample> kernel) {
        std::uint64_t left = needed - count;
        if (static_cast<std::uint64_t>(out_end - out) < left) {
            left = static_cast<std::uint64_t>(out_end - out);
        }
        // While any block kernel could still take a step, the SWAR kernel takes one token.
        constexpr std::ptrdiff_t block_lookahead =
            scan::decimal_list_lookahead(scan::simd_level::avx512);
        std::size_t got = 0;
        for (;;) {
            got += kernel(&pos, end, out + got, static_cast<std::size_t>(left - got), maxval);
            const std::size_t swar_budget =
                end - pos >= block_lookahead ? std::min<std::uint64_t>(1, left - got) : left - got;
            const std::size_t more =
                scan::decimal_list_swar(&pos, end, out + got, swar_budget, maxval);
            got += more;
            if (more == 0 || got == left) {
                break;
            }
        }
        out += got;
        count += got;
        return count == needed;
    }

    /// Scans [pos, end); `end_offset` is the input offset of `end`. Stops when the input
    /// runs out (need_input), the output is full (out_full: grow it and call again), every
    /// sample is read (done: `pos` is after the last sample's terminating whitespace) or a
    /// byte is invalid (error).
    template <class Sample>
    status scan(const char*& pos, const char* end, std::uint64_t end_offset, Sample*& out,
                Sample* out_end, scan::decimal_list_fn<Sample> kernel, pnm_error& err) {
        const char* p = pos;
        status st = status::need_input;
        while (p != end) {
            if (!in_token && !in_comment) {
                if (scan_tokens(p, end, out, out_end, kernel)) {
                    st = status::done;
                    break;
                }
                if (p == end) {
                    break;
                }
            }
            const unsigned c = static_cast<unsigned char>(*p);
            if (in_comment) {
                in_comment = c != '\n' && c != '\r';
                ++p;
                continue;
            }
            const unsigned d = c - '0';
            if (d < 10) {
                if (!in_token) {
                    in_token = true;
                    value = 0;
                    token_offset = end_offset - static_cast<std::uint64_t>(end - p);
                }
                value = std::min(value * 10 + d, saturation);
                ++p;
                continue;
            }
            if (is_pnm_space(c) || c == '#') {
                if (in_token) {
                    st = commit(out, out_end, err);
                    if (st == status::done) {
                        // ppm(5): whitespace after each sample; a '#' stays for a reader
                        // that looks for the next image.
                        p += c != '#';
                        break;
                    }
                    if (st != status::need_input) {
                        break;
                    }
                }
                in_comment = c == '#';
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

    /// At end of input: commits a last sample that ends the file and reports a short
    /// raster. Accepting a sample that ends the file is fastread's own leniency: ppm(5)
    /// puts whitespace after each sample, and libnetpbm 11 (pm_getc) fails at that end.
    template <class Sample>
    status finish(std::uint64_t eof_offset, Sample*& out, Sample* out_end, pnm_error& err) {
        if (in_token) {
            status st = commit(out, out_end, err);
            if (st != status::need_input) {
                return st;
            }
        }
        err.code = pnm_errc::truncated_raster;
        err.offset = eof_offset;
        err.value = count;
        err.limit = needed;
        return status::error;
    }
};

/// An empty error that carries what a plain-raster message needs from the header.
inline pnm_error plain_raster_error(const pnm_header& h) noexcept {
    pnm_error err;
    err.plain = true;
    err.width = h.width;
    err.height = h.height;
    err.depth = h.depth;
    err.magic = h.magic;
    return err;
}

/// Drives a plain-raster scanner (plain_scanner for P2 and P3, p1_scanner for P1) over the
/// cursor's chunks into `out`, h.samples samples: `scan(pos, end, end_offset, o, o_end,
/// err)` on each chunk, `finish(eof_offset, o, o_end, err)` at the end of the input, each
/// returning a plain_scanner::status. The samples grow as they are decoded, from what the
/// input can hold at `min_bytes` a sample (initial_capacity); with `discard` (the input is
/// known to be too short for the image) they go to a small scratch buffer instead, so the
/// parse ends in the same error, at the same offset, as from a stream, without allocating
/// the image. Returns the scanner's error, or none with `out` holding the image.
template <class Sample, class Scan, class Finish>
pnm_error drive_plain_scan(decoder_cursor& cur, const pnm_header& h, sample_vector<Sample>& out,
                           bool discard, std::uint64_t min_bytes, pnm_error err, Scan scan,
                           Finish finish) {
    std::vector<Sample> scratch;
    Sample* out_begin = nullptr;
    Sample* out_end = nullptr;
    if (discard) {
        scratch.resize(4096);
        out_begin = scratch.data();
        out_end = out_begin + scratch.size();
    } else {
        const std::uint64_t capacity =
            initial_capacity(h.samples, min_bytes, cur.known_remaining(), std::uint64_t{1} << 16);
        out.resize(static_cast<std::size_t>(capacity));
        out_begin = out.data();
        out_end = out_begin + out.size();
    }
    Sample* o = out_begin;
    for (;;) {
        plain_scanner::status st;
        if (cur.fill()) {
            st = scan(cur.pos, cur.end, cur.offset() + (cur.end - cur.pos), o, out_end, err);
        } else {
            st = finish(cur.offset(), o, out_end, err);
        }
        if (st == plain_scanner::status::done) {
            break;
        }
        if (st == plain_scanner::status::error) {
            out.clear();
            return err;
        }
        if (st == plain_scanner::status::out_full) {
            if (discard) {
                o = out_begin;
            } else {
                const std::size_t filled = out.size();
                out.resize(static_cast<std::size_t>(
                    std::min<std::uint64_t>(h.samples, std::uint64_t{out.size()} * 2)));
                o = out.data() + filled;
                out_end = out.data() + out.size();
            }
        }
    }
    out.resize(static_cast<std::size_t>(h.samples));
    return {};
}

/// Where a slice of a plain raster may start near `at`: a whitespace byte outside any
/// comment, found within a few KiB (a comment runs from '#' to the next CR or LF, so `at`
/// is inside one when a '#' follows the last line break before it). nullptr if none.
inline const char* plain_split_point(const char* begin, const char* at, const char* end) {
    constexpr std::ptrdiff_t reach = 4096;
    const char* line = at;
    while (line > begin && line[-1] != '\n' && line[-1] != '\r') {
        if (at - line >= reach) {
            return nullptr;
        }
        --line;
    }
    if (std::find(line, at, '#') != at) {
        // Inside a comment: go past its end.
        const char* stop = end - at > reach ? at + reach : end;
        at = std::find_if(at, stop, [](char c) { return c == '\n' || c == '\r'; });
        if (at == stop) {
            return nullptr;
        }
    }
    // Out of a token: the next whitespace byte (a long token or another byte: give up).
    const char* stop = end - at > 64 ? at + 64 : end;
    while (at != stop && !is_pnm_space(static_cast<unsigned char>(*at))) {
        if (*at == '#' || static_cast<unsigned>(*at - '0') >= 10) {
            return nullptr;
        }
        ++at;
    }
    return at == stop ? nullptr : at;
}

/// Scans a plain raster cut into `slice_bytes.size()` consecutive slices of the sizes given
/// (a slice but the last ending with the whitespace byte the next one starts at), each on
/// its own thread: scan_slice(t, scanner, o, o_end, err) scans slice t with a fresh scanner
/// into [o, o_end) (the first slice straight into `out`, the others into buffers of at
/// most bytes / 2 + 1 samples copied after it) and returns the scanner's last status. The
/// slices' counts and errors are then joined as one sequential scan would see them: the
/// first error before the last sample wins; anything after the last sample is ignored; too
/// few samples is a truncated raster at `end_offset`. On error `out` is cleared.
/// @throws what scan_slice throws (the lowest slice's), after every slice has finished.
template <class Sample, class ScanSlice>
void scan_plain_slices(const pnm_header& h, const std::vector<std::uint64_t>& slice_bytes,
                       std::uint64_t end_offset, sample_vector<Sample>& out, pnm_error& err,
                       ScanSlice scan_slice) {
    const auto threads = static_cast<unsigned>(slice_bytes.size());
    struct slice_result {
        sample_vector<Sample> buffer; // slices after the first
        std::uint64_t count = 0;
        pnm_error err;
    };
    std::vector<slice_result> results(threads);
    out.resize(static_cast<std::size_t>(h.samples));
    in_slices(threads, threads, [&](unsigned, std::size_t first, std::size_t last) {
        for (std::size_t t = first; t < last; ++t) {
            slice_result& r = results[t];
            Sample* o = nullptr;
            Sample* o_end = nullptr;
            if (t == 0) {
                o = out.data();
                o_end = o + out.size();
            } else {
                const std::uint64_t most =
                    std::min<std::uint64_t>(h.samples, slice_bytes[t] / 2 + 1);
                r.buffer.resize(static_cast<std::size_t>(most));
                o = r.buffer.data();
                o_end = o + r.buffer.size();
            }
            Sample* const o_begin = o;
            plain_scanner scanner = plain_scanner::for_header(h);
            r.err = plain_raster_error(h);
            const plain_scanner::status st =
                scan_slice(static_cast<unsigned>(t), scanner, o, o_end, r.err);
            r.count = static_cast<std::uint64_t>(o - o_begin);
            if (st != plain_scanner::status::error) {
                r.err = {};
            }
        }
    });

    std::uint64_t total = 0;
    for (unsigned t = 0; t < threads; ++t) {
        slice_result& r = results[t];
        const std::uint64_t take = std::min(r.count, h.samples - total);
        if (t > 0 && take > 0) {
            std::memcpy(out.data() + total, r.buffer.data(),
                        static_cast<std::size_t>(take) * sizeof(Sample));
        }
        total += take;
        if (total == h.samples) {
            return;
        }
        if (r.err) {
            err = r.err;
            if (err.code == pnm_errc::truncated_raster) {
                err.value = total;
            } else {
                err.index += total - take;
            }
            out.clear();
            return;
        }
    }
    // Every slice ended without an error yet too few samples: the last slice's finish()
    // reports a short raster, so only a slice that stopped early (its input ended) gets here.
    err.code = pnm_errc::truncated_raster;
    err.offset = end_offset;
    err.value = total;
    err.limit = h.samples;
    out.clear();
}

/// Parses a plain raster held whole in memory, [begin, end) at input offset `begin_offset`,
/// on `threads` threads: the bytes are cut into slices at whitespace outside comments,
/// each slice is scanned on its own (the first into `out`, the others into buffers copied
/// after it), and the slices' counts and errors are joined as one sequential scan would
/// see them: the first error before the last sample wins; anything after the last sample
/// is ignored. Used by ppm::load, which reads one image and leaves nothing after it.
/// Returns false (nothing done) when no good cut is found.
template <class Sample>
bool parse_plain_in_slices(const char* begin, const char* end, std::uint64_t begin_offset,
                           const pnm_header& h, unsigned threads,
                           scan::decimal_list_fn<Sample> kernel, sample_vector<Sample>& out,
                           pnm_error& err) {
    std::vector<const char*> cuts{begin};
    for (unsigned t = 1; t < threads; ++t) {
        const char* at = plain_split_point(
            cuts.back(), begin + (end - begin) * static_cast<std::ptrdiff_t>(t) / threads, end);
        if (at == nullptr || at <= cuts.back()) {
            return false;
        }
        cuts.push_back(at);
    }
    cuts.push_back(end);

    std::vector<std::uint64_t> slice_bytes(threads);
    for (unsigned t = 0; t < threads; ++t) {
        slice_bytes[t] = static_cast<std::uint64_t>(cuts[t + 1] - cuts[t]) + (t + 1 < threads);
    }
    const std::uint64_t end_offset = begin_offset + static_cast<std::uint64_t>(end - begin);
    scan_plain_slices(
        h, slice_bytes, end_offset, out, err,
        [&](unsigned t, plain_scanner& scanner, Sample*& o, Sample* o_end, pnm_error& e) {
            // A slice but the last ends with the whitespace byte the next one
            // starts at, so its last token is complete and its scan ends
            // outside tokens and comments.
            const char* pos = cuts[t];
            const char* to = t + 1 < threads ? cuts[t + 1] + 1 : end;
            plain_scanner::status st =
                scanner.scan(pos, to, begin_offset + static_cast<std::uint64_t>(to - begin), o,
                             o_end, kernel, e);
            if (st == plain_scanner::status::need_input && to == end) {
                st = scanner.finish(end_offset, o, o_end, e);
            }
            return st;
        });
    return true;
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_PLAIN_HPP
