#ifndef FASTREAD_DETAIL_PPM_PARSE_HPP
#define FASTREAD_DETAIL_PPM_PARSE_HPP

// The PPM decoder behind fastread::ppm. It reports errors as values (ppm_error: a code, the
// input offset and the numbers a message needs), never by throwing from its loops; the public
// entry points in ppm.hpp turn them into fastread::parse_error. Only the sources throw
// (std::system_error, for operating-system failures).
//
// Rules: Netpbm ppm(5) (netpbm.sourceforge.net/doc/ppm.html), with libnetpbm deciding where
// the spec is silent; see the docs of fastread::ppm::load for the list.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../sample_vector.hpp"
#include "../scan/decimal_list.hpp"
#include "../source/byte_source.hpp"
#include "chunk_cursor.hpp"
#include "parallel.hpp"
#include "raw_copy.hpp"

namespace fastread::detail {

enum class ppm_errc : unsigned char {
    none,
    empty_input,           // no byte at all
    bad_magic,             // first two bytes are not P3 / P6; value = the offending byte
    unsupported_format,    // P1, P2, P4, P5, P7; value = the digit byte
    truncated_header,      // input ends inside the header; field = what was expected
    expected_number,       // a header token does not start with a digit; value = byte
    expected_whitespace,   // a header token is followed by something else; value = byte
    number_too_large,      // width or height above 4294967295
    zero_dimension,        // width or height 0
    maxval_out_of_range,   // maxval 0 or above 65535; value (saturated flag in limit)
    needs_16bit_samples,   // maxval > 255 loaded as std::uint8_t; value = maxval
    size_overflow,         // width * height * 3 (* 2) does not fit in 64 bits
    truncated_raster,      // value = what arrived, limit = what the header declares
    sample_exceeds_maxval, // value = sample, limit = maxval, index = sample index
    invalid_raster_byte,   // P3 raster byte that is no digit, whitespace or comment
};

enum class ppm_field : unsigned char { magic, width, height, maxval, delimiter };

struct ppm_error {
    ppm_errc code = ppm_errc::none;
    std::uint64_t offset = 0;
    std::uint64_t value = 0;
    std::uint64_t limit = 0;
    std::uint64_t index = 0;
    ppm_field field = ppm_field::magic;
    bool plain = false;
    std::uint32_t width = 0;
    std::uint32_t height = 0;

    explicit operator bool() const noexcept { return code != ppm_errc::none; }
};

struct ppm_header {
    bool plain = false; // P3 (true) or P6
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint16_t maxval = 0;
    std::uint64_t samples = 0;       // width * height * 3
    std::uint64_t raster_offset = 0; // input offset of the first raster byte
};

/// Netpbm whitespace: what C's isspace() calls white space in the "C" locale (the rule the
/// P3 kernels in scan/decimal_list.hpp apply too).
constexpr bool is_ppm_space(unsigned c) noexcept {
    return scan::detail::is_space_byte(c);
}

// ---------------------------------------------------------------------------------------
// Header

/// Skips whitespace and comments (`#` through the next CR or LF) before a header token.
template <class Source>
bool skip_header_space(chunk_cursor<Source>& cur, ppm_field field, ppm_error& err) {
    for (;;) {
        int c = cur.peek();
        if (c < 0) {
            err = {ppm_errc::truncated_header, cur.offset()};
            err.field = field;
            return false;
        }
        if (c == '#') {
            // libnetpbm (pm_getc) replaces a comment by its terminating CR or LF, so a
            // comment ends a token and counts as whitespace.
            do {
                ++cur.pos;
                c = cur.peek();
            } while (c >= 0 && c != '\n' && c != '\r');
            continue;
        }
        if (!is_ppm_space(static_cast<unsigned>(c))) {
            return true;
        }
        ++cur.pos;
    }
}

/// Reads one unsigned decimal header token and checks the byte after it.
template <class Source>
bool read_header_number(chunk_cursor<Source>& cur, ppm_field field, std::uint64_t& value,
                        std::uint64_t& token_offset, bool& saturated, ppm_error& err) {
    if (!skip_header_space(cur, field, err)) {
        return false;
    }
    token_offset = cur.offset();
    int c = cur.peek();
    if (static_cast<unsigned>(c - '0') >= 10) {
        err = {ppm_errc::expected_number, token_offset, static_cast<std::uint64_t>(c)};
        err.field = field;
        return false;
    }
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    value = 0;
    saturated = false;
    while (c >= 0 && static_cast<unsigned>(c - '0') < 10) {
        unsigned d = static_cast<unsigned>(c - '0');
        if (value > (max - d) / 10) {
            saturated = true; // keep consuming digits; the value is reported as too large
            value = max;
        } else if (!saturated) {
            value = value * 10 + d;
        }
        ++cur.pos;
        c = cur.peek();
    }
    if (c >= 0 && c != '#' && !is_ppm_space(static_cast<unsigned>(c))) {
        err = {ppm_errc::expected_whitespace, cur.offset(), static_cast<std::uint64_t>(c)};
        err.field = field;
        return false;
    }
    return true;
}

/// Parses the header, leaving the cursor on the first raster byte.
///
/// `sample_bytes_max` is sizeof(Sample): a maxval needing wider samples is an error.
template <class Source>
ppm_error parse_ppm_header(chunk_cursor<Source>& cur, std::size_t sample_bytes_max, ppm_header& h) {
    ppm_error err;
    const std::uint64_t start = cur.offset();
    int c = cur.peek();
    if (c < 0) {
        return {ppm_errc::empty_input, start};
    }
    if (c != 'P') {
        return {ppm_errc::bad_magic, start, static_cast<std::uint64_t>(c)};
    }
    ++cur.pos;
    c = cur.peek();
    if (c < 0) {
        err = {ppm_errc::truncated_header, cur.offset()};
        err.field = ppm_field::magic;
        return err;
    }
    if (c == '3' || c == '6') {
        h.plain = c == '3';
    } else if (c == '1' || c == '2' || c == '4' || c == '5' || c == '7') {
        return {ppm_errc::unsupported_format, cur.offset(), static_cast<std::uint64_t>(c)};
    } else {
        return {ppm_errc::bad_magic, cur.offset(), static_cast<std::uint64_t>(c)};
    }
    ++cur.pos;
    // libnetpbm reads the width straight after the two magic bytes, so "P62 2 255" is
    // accepted; so are we ("as lenient as possible", ppm(5)).

    std::uint64_t width = 0, height = 0, maxval = 0;
    std::uint64_t width_at = 0, height_at = 0, maxval_at = 0;
    bool saturated = false;
    if (!read_header_number(cur, ppm_field::width, width, width_at, saturated, err)) {
        return err;
    }
    if (width == 0 || width > std::numeric_limits<std::uint32_t>::max()) {
        err = {width == 0 ? ppm_errc::zero_dimension : ppm_errc::number_too_large, width_at};
        err.field = ppm_field::width;
        return err;
    }
    if (!read_header_number(cur, ppm_field::height, height, height_at, saturated, err)) {
        return err;
    }
    if (height == 0 || height > std::numeric_limits<std::uint32_t>::max()) {
        err = {height == 0 ? ppm_errc::zero_dimension : ppm_errc::number_too_large, height_at};
        err.field = ppm_field::height;
        return err;
    }
    std::uint64_t pixels = 0, samples = 0;
    if (__builtin_mul_overflow(width, height, &pixels) ||
        __builtin_mul_overflow(pixels, std::uint64_t{3}, &samples)) {
        err = {ppm_errc::size_overflow, height_at, width, height};
        return err;
    }
    if (!read_header_number(cur, ppm_field::maxval, maxval, maxval_at, saturated, err)) {
        return err;
    }
    if (maxval == 0 || maxval > 65535) {
        err = {ppm_errc::maxval_out_of_range, maxval_at, maxval, saturated ? 1u : 0u};
        return err;
    }
    if (maxval > 255 && sample_bytes_max < 2) {
        return {ppm_errc::needs_16bit_samples, maxval_at, maxval};
    }
    std::uint64_t raster_bytes = 0;
    if (__builtin_mul_overflow(samples, maxval > 255 ? 2u : 1u, &raster_bytes) ||
        samples > std::numeric_limits<std::size_t>::max() / 2) {
        err = {ppm_errc::size_overflow, maxval_at, width, height};
        return err;
    }

    // The delimiter after maxval. ppm(5): exactly one whitespace byte before a raw raster.
    // libnetpbm: a comment there is skipped and its CR or LF is that byte.
    c = cur.peek();
    if (c < 0) {
        if (h.plain) {
            // A plain raster may start right here; it is simply missing (truncated).
        } else {
            err = {ppm_errc::truncated_header, cur.offset()};
            err.field = ppm_field::delimiter;
            return err;
        }
    } else if (c == '#') {
        if (!h.plain) {
            do {
                ++cur.pos;
                c = cur.peek();
            } while (c >= 0 && c != '\n' && c != '\r');
            if (c < 0) {
                err = {ppm_errc::truncated_header, cur.offset()};
                err.field = ppm_field::delimiter;
                return err;
            }
            ++cur.pos;
        } // a plain raster parser skips comments itself
    } else {
        ++cur.pos; // whitespace, checked by read_header_number
    }

    h.width = static_cast<std::uint32_t>(width);
    h.height = static_cast<std::uint32_t>(height);
    h.maxval = static_cast<std::uint16_t>(maxval);
    h.samples = samples;
    h.raster_offset = cur.offset();
    return {};
}

// ---------------------------------------------------------------------------------------
// Raw (P6) raster

/// Sizes a streaming buffer: the whole raster when the input is known to hold it, else a
/// start that grows with what arrives, so a tiny input never causes a huge allocation.
inline std::uint64_t initial_capacity(std::uint64_t needed, std::uint64_t bytes_per_item,
                                      std::optional<std::uint64_t> remaining,
                                      std::uint64_t default_items) {
    std::uint64_t cap = remaining ? *remaining / bytes_per_item + 1 : default_items;
    return std::max<std::uint64_t>(1, std::min(needed, cap));
}

template <class Sample, class Source>
ppm_error read_raw_raster(chunk_cursor<Source>& cur, const ppm_header& h,
                          sample_vector<Sample>& out) {
    const std::size_t bps = h.maxval > 255 ? 2 : 1;
    const std::uint64_t samples = h.samples;
    const std::uint64_t raster_bytes = samples * bps;
    ppm_error err;
    err.plain = false;
    err.width = h.width;
    err.height = h.height;

    std::optional<std::uint64_t> remaining = cur.known_remaining();
    if constexpr (contiguous_source<Source>) {
        if (raster_bytes > *remaining) {
            // Rejected before allocating: the input cannot hold what the header declares.
            err.code = ppm_errc::truncated_raster;
            err.offset = h.raster_offset + *remaining;
            err.value = *remaining;
            err.limit = raster_bytes;
            return err;
        }
        // The whole raster is in memory: decode it in one pass, straight into the samples.
        cur.fill();
        const auto* src = reinterpret_cast<const unsigned char*>(cur.pos);
        out.resize(static_cast<std::size_t>(samples));
        const std::size_t bad =
            copy_raw_samples(out.data(), src, out.size(), static_cast<unsigned>(bps), h.maxval);
        cur.pos += raster_bytes;
        if (bad < out.size()) {
            err.code = ppm_errc::sample_exceeds_maxval;
            err.offset = h.raster_offset + bad * bps;
            err.value =
                bps == 1 ? src[bad] : static_cast<unsigned>(src[2 * bad] << 8 | src[2 * bad + 1]);
            err.limit = h.maxval;
            err.index = bad;
            out.clear();
            return err;
        }
        return {};
    }

    // Read the raster bytes into the sample buffer's storage, growing it as data arrives
    // when the input size is not known.
    std::uint64_t capacity = initial_capacity(samples, bps, remaining, std::uint64_t{1} << 16);
    out.resize(static_cast<std::size_t>(capacity));
    std::uint64_t filled = 0; // raster bytes read
    for (;;) {
        std::uint64_t room = std::min<std::uint64_t>(out.size() * sizeof(Sample), raster_bytes);
        std::size_t want = static_cast<std::size_t>(room - filled);
        std::size_t got = cur.read(reinterpret_cast<char*>(out.data()) + filled, want);
        filled += got;
        if (got < want) {
            out.clear();
            err.code = ppm_errc::truncated_raster;
            err.offset = h.raster_offset + filled;
            err.value = filled;
            err.limit = raster_bytes;
            return err;
        }
        if (filled == raster_bytes) {
            break;
        }
        out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(samples, out.size() * 2)));
    }
    out.resize(static_cast<std::size_t>(samples));

    // Convert in place: widen 1-byte samples into 16-bit ones (backwards, so that each byte
    // is read before its slot is overwritten), or turn big-endian pairs into native order.
    unsigned char* bytes = reinterpret_cast<unsigned char*>(out.data());
    if constexpr (sizeof(Sample) == 2) {
        if (bps == 1) {
            for (std::size_t i = static_cast<std::size_t>(samples); i-- > 0;) {
                out[i] = bytes[i];
            }
        } else if constexpr (std::endian::native == std::endian::little) {
            for (Sample& s : out) {
                s = static_cast<Sample>((s >> 8) | (s << 8));
            }
        }
    }

    // ppm(5): no sample may exceed maxval. Nothing to check when maxval is the largest
    // value the sample width can hold.
    if (h.maxval != (bps == 1 ? 255 : 65535)) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i] > h.maxval) {
                err.code = ppm_errc::sample_exceeds_maxval;
                err.offset = h.raster_offset + i * bps;
                err.value = out[i];
                err.limit = h.maxval;
                err.index = i;
                out.clear();
                return err;
            }
        }
    }
    return {};
}

// ---------------------------------------------------------------------------------------
// Plain (P3) raster

/// The P3 sample scanner: a state machine fed chunk by chunk, so a token or comment may
/// straddle chunk boundaries.
struct p3_scanner {
    enum class status : unsigned char { need_input, out_full, done, error };

    // Samples saturate here while their digits are read: above every maxval, and small
    // enough that value * 10 + 9 cannot overflow.
    static constexpr std::uint32_t saturation = 1'000'000;

    /// A scanner for the raster of the image `h` describes.
    static p3_scanner for_header(const ppm_header& h) noexcept {
        p3_scanner scanner;
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
    status commit(Sample*& out, Sample* out_end, ppm_error& err) {
        if (value > maxval) {
            err.code = ppm_errc::sample_exceeds_maxval;
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
            const std::size_t one_or_all =
                end - pos >= block_lookahead ? std::min<std::uint64_t>(1, left - got) : left - got;
            const std::size_t more =
                scan::decimal_list_swar(&pos, end, out + got, one_or_all, maxval);
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
                Sample* out_end, scan::decimal_list_fn<Sample> kernel, ppm_error& err) {
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
            if (is_ppm_space(c) || c == '#') {
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
            err.code = ppm_errc::invalid_raster_byte;
            err.offset = end_offset - static_cast<std::uint64_t>(end - p);
            err.value = c;
            st = status::error;
            break;
        }
        pos = p;
        return st;
    }

    /// At end of input: commits a last sample that ends the file (allowed, as libnetpbm's
    /// readers need not see whitespace after it) and reports a short raster.
    template <class Sample>
    status finish(std::uint64_t eof_offset, Sample*& out, Sample* out_end, ppm_error& err) {
        if (in_token) {
            status st = commit(out, out_end, err);
            if (st != status::need_input) {
                return st;
            }
        }
        err.code = ppm_errc::truncated_raster;
        err.offset = eof_offset;
        err.value = count;
        err.limit = needed;
        return status::error;
    }
};

/// An empty error that carries what a plain-raster message needs from the header.
inline ppm_error plain_raster_error(const ppm_header& h) noexcept {
    ppm_error err;
    err.plain = true;
    err.width = h.width;
    err.height = h.height;
    return err;
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
    while (at != stop && !is_ppm_space(static_cast<unsigned char>(*at))) {
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
void scan_plain_slices(const ppm_header& h, const std::vector<std::uint64_t>& slice_bytes,
                       std::uint64_t end_offset, sample_vector<Sample>& out, ppm_error& err,
                       ScanSlice scan_slice) {
    const auto threads = static_cast<unsigned>(slice_bytes.size());
    struct slice_result {
        sample_vector<Sample> buffer; // slices after the first
        std::uint64_t count = 0;
        ppm_error err;
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
            p3_scanner scanner = p3_scanner::for_header(h);
            r.err = plain_raster_error(h);
            const p3_scanner::status st =
                scan_slice(static_cast<unsigned>(t), scanner, o, o_end, r.err);
            r.count = static_cast<std::uint64_t>(o - o_begin);
            if (st != p3_scanner::status::error) {
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
            if (err.code == ppm_errc::truncated_raster) {
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
    err.code = ppm_errc::truncated_raster;
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
                           const ppm_header& h, unsigned threads,
                           scan::decimal_list_fn<Sample> kernel, sample_vector<Sample>& out,
                           ppm_error& err) {
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
        [&](unsigned t, p3_scanner& scanner, Sample*& o, Sample* o_end, ppm_error& e) {
            // A slice but the last ends with the whitespace byte the next one
            // starts at, so its last token is complete and its scan ends
            // outside tokens and comments.
            const char* pos = cuts[t];
            const char* to = t + 1 < threads ? cuts[t + 1] + 1 : end;
            p3_scanner::status st =
                scanner.scan(pos, to, begin_offset + static_cast<std::uint64_t>(to - begin), o,
                             o_end, kernel, e);
            if (st == p3_scanner::status::need_input && to == end) {
                st = scanner.finish(end_offset, o, o_end, e);
            }
            return st;
        });
    return true;
}

/// ppm::load(path) maps a plain file of at least this many bytes when it is in the page
/// cache; smaller ones cost less to copy with read(2) than to map (measured).
inline constexpr std::uint64_t plain_map_threshold = std::uint64_t{1} << 20;

/// Plain rasters held whole in memory are cut into slices parsed on several threads when
/// each slice would get at least this many bytes.
inline constexpr std::uint64_t plain_bytes_per_thread = std::uint64_t{4} << 20;

/// `last_image`: nothing after this image is read, so the raster may be parsed in slices.
template <class Sample, class Source>
ppm_error read_plain_raster(chunk_cursor<Source>& cur, const ppm_header& h,
                            sample_vector<Sample>& out, bool last_image) {
    ppm_error err = plain_raster_error(h);
    p3_scanner scanner = p3_scanner::for_header(h);

    // Every sample but the last needs a digit and a whitespace byte, so n samples need at
    // least 2n - 1 bytes. When the input is known to be shorter, parse into a small scratch
    // buffer instead of allocating the image: the parse then ends in the same error, at the
    // same offset, as it would from a stream.
    std::optional<std::uint64_t> remaining = cur.known_remaining();
    bool discard = false;
    if constexpr (contiguous_source<Source>) {
        discard = h.samples > (*remaining + 1) / 2;
    }
    const scan::decimal_list_fn<Sample> kernel =
        scan::decimal_list_for<Sample>(scan::active_level());
    if constexpr (contiguous_source<Source>) {
        const unsigned threads = threads_for(*remaining, plain_bytes_per_thread, 8);
        if (last_image && !discard && threads > 1 && cur.fill()) {
            const char* begin = cur.pos;
            const char* end = cur.end; // the whole rest of the input
            if (parse_plain_in_slices(begin, end, cur.offset(), h, threads, kernel, out, err)) {
                cur.pos = end;
                return err;
            }
        }
    }
    std::vector<Sample> scratch;
    Sample* out_begin = nullptr;
    Sample* out_end = nullptr;
    if (discard) {
        scratch.resize(4096);
        out_begin = scratch.data();
        out_end = out_begin + scratch.size();
    } else {
        std::uint64_t capacity = initial_capacity(h.samples, 2, remaining, std::uint64_t{1} << 16);
        out.resize(static_cast<std::size_t>(capacity));
        out_begin = out.data();
        out_end = out_begin + out.size();
    }
    Sample* o = out_begin;

    for (;;) {
        p3_scanner::status st;
        if (cur.fill()) {
            st = scanner.scan(cur.pos, cur.end, cur.offset() + (cur.end - cur.pos), o, out_end,
                              kernel, err);
        } else {
            st = scanner.finish(cur.offset(), o, out_end, err);
        }
        if (st == p3_scanner::status::done) {
            break;
        }
        if (st == p3_scanner::status::error) {
            out.clear();
            return err;
        }
        if (st == p3_scanner::status::out_full) {
            if (discard) {
                o = out_begin;
            } else {
                std::size_t filled = out.size();
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

/// Reads one image (header and raster) at the cursor.
template <class Sample, class Source>
ppm_error read_ppm(chunk_cursor<Source>& cur, ppm_header& h, sample_vector<Sample>& samples,
                   bool last_image = false) {
    ppm_error err = parse_ppm_header(cur, sizeof(Sample), h);
    if (err) {
        return err;
    }
    return h.plain ? read_plain_raster(cur, h, samples, last_image)
                   : read_raw_raster(cur, h, samples);
}

// ---------------------------------------------------------------------------------------
// Messages

inline std::string describe_byte(std::uint64_t c) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string s = "byte 0x";
    s += hex[(c >> 4) & 15];
    s += hex[c & 15];
    if (c > ' ' && c < 127) {
        s += " '";
        s += static_cast<char>(c);
        s += '\'';
    }
    return s;
}

inline const char* field_name(ppm_field f) noexcept {
    switch (f) {
    case ppm_field::magic:
        return "the magic number P3 or P6";
    case ppm_field::width:
        return "width";
    case ppm_field::height:
        return "height";
    case ppm_field::maxval:
        return "maxval";
    case ppm_field::delimiter:
        return "one whitespace byte after maxval";
    }
    return "";
}

inline std::string ppm_error_message(const ppm_error& e) {
    using std::to_string;
    switch (e.code) {
    case ppm_errc::none:
        return "no error";
    case ppm_errc::empty_input:
        return "empty input; expected a PPM image (magic number P3 or P6)";
    case ppm_errc::bad_magic:
        return "expected the PPM magic number P3 or P6, found " + describe_byte(e.value);
    case ppm_errc::unsupported_format: {
        static constexpr const char* names[] = {"",        "PBM plain", "PGM plain", "",
                                                "PBM raw", "PGM raw",   "",          "PAM"};
        unsigned d = static_cast<unsigned>(e.value - '0');
        return std::string("P") + static_cast<char>(e.value) + " (" + names[d & 7] +
               ") is not supported; fastread::ppm reads P3 and P6";
    }
    case ppm_errc::truncated_header:
        return std::string("input ends inside the header; expected ") + field_name(e.field);
    case ppm_errc::expected_number:
        return std::string("expected ") + field_name(e.field) +
               " (an unsigned decimal number), found " + describe_byte(e.value);
    case ppm_errc::expected_whitespace:
        return std::string("expected whitespace after ") + field_name(e.field) + ", found " +
               describe_byte(e.value);
    case ppm_errc::number_too_large:
        return std::string(field_name(e.field)) + " is larger than 4294967295";
    case ppm_errc::zero_dimension:
        return std::string(field_name(e.field)) + " is 0; an image has at least one pixel";
    case ppm_errc::maxval_out_of_range:
        return (e.limit != 0 ? std::string("maxval with that many digits")
                             : "maxval " + to_string(e.value)) +
               " is out of range 1..65535";
    case ppm_errc::needs_16bit_samples:
        return "maxval " + to_string(e.value) +
               " needs 16-bit samples; load this image as std::uint16_t";
    case ppm_errc::size_overflow:
        return "image size " + to_string(e.value) + "x" + to_string(e.limit) + " overflows 64 bits";
    case ppm_errc::truncated_raster:
        if (e.plain) {
            return "truncated raster: the header declares " + to_string(e.width) + "x" +
                   to_string(e.height) + " pixels (" + to_string(e.limit) +
                   " samples), the input ends after " + to_string(e.value) + " of them";
        }
        return "truncated raster: the header declares " + to_string(e.width) + "x" +
               to_string(e.height) + " pixels (" + to_string(e.limit) +
               " bytes), the input ends after " + to_string(e.value) + " of them";
    case ppm_errc::sample_exceeds_maxval: {
        std::uint64_t pixel = e.index / 3;
        static constexpr const char* channel[] = {"red", "green", "blue"};
        std::string v = e.value >= p3_scanner::saturation ? std::string("of 7 or more digits")
                                                          : to_string(e.value);
        return "sample " + v + " exceeds maxval " + to_string(e.limit) + " (row " +
               to_string(e.width ? pixel / e.width : 0) + ", column " +
               to_string(e.width ? pixel % e.width : 0) + ", " + channel[e.index % 3] + ")";
    }
    case ppm_errc::invalid_raster_byte:
        return "expected a decimal sample, whitespace or a comment, found " +
               describe_byte(e.value);
    }
    return "unknown error";
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_PPM_PARSE_HPP
