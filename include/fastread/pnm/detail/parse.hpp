#ifndef FASTREAD_PNM_DETAIL_PARSE_HPP
#define FASTREAD_PNM_DETAIL_PARSE_HPP

// The Netpbm decoder behind fastread::ppm and fastread::pnm. It reports errors as values
// (pnm_error: a code, the input offset and the numbers a message needs), never by throwing from its
// loops; the public entry points in ppm.hpp turn them into fastread::parse_error. Only the sources
// throw (std::system_error, for operating-system failures).
//
// Rules: Netpbm ppm(5) (netpbm.sourceforge.net/doc/ppm.html), with libnetpbm deciding where
// the spec is silent; see the docs of fastread::ppm::load for the list.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../error.hpp"
#include "../../sample_vector.hpp"
#include "../../source/byte_source.hpp"
#include "bits.hpp"
#include "header.hpp"
#include "plain.hpp"
#include "raw_copy.hpp"

namespace fastread::detail {

// ---------------------------------------------------------------------------------------
// Raw (P5, P6, P7) raster

template <class Sample>
pnm_error read_raw_raster(decoder_cursor& cur, const pnm_header& h, sample_vector<Sample>& out) {
    const std::size_t sample_bytes = h.maxval > 255 ? 2 : 1;
    const std::uint64_t samples = h.samples;
    const std::uint64_t raster_bytes = samples * sample_bytes;

    std::optional<std::uint64_t> remaining = cur.known_remaining();
    if (cur.contiguous()) {
        if (raster_bytes > *remaining) {
            // Rejected before allocating: the input cannot hold what the header declares.
            return raw_truncated_error(h, *remaining, raster_bytes);
        }
        // The whole raster is in memory: decode it in one pass, straight into the samples.
        cur.fill();
        const auto* src = reinterpret_cast<const unsigned char*>(cur.pos);
        out.resize(static_cast<std::size_t>(samples));
        const std::size_t bad = copy_raw_samples(out.data(), src, out.size(),
                                                 static_cast<unsigned>(sample_bytes), h.maxval);
        cur.pos += raster_bytes;
        if (bad < out.size()) {
            const pnm_error err = raw_sample_error(h, bad, sample_bytes, out[bad]);
            out.clear();
            return err;
        }
        return {};
    }

    if (remaining && *remaining >= raster_bytes && sample_bytes == sizeof(Sample) &&
        (sample_bytes == 2 || h.maxval < 255) && raster_bytes >= raw_bounce_from) {
        // Samples that need work (2-byte ones swapped, 1-byte ones checked against a maxval
        // below 255), from an input known to hold them: read through a buffer small enough
        // to stay in cache and decoded from it into the samples, so that memory sees one
        // read and one write per byte, as for a plain read; read whole and then decoded in
        // place, a 16-bit P5 took twice the time of reading it.
        out.resize(static_cast<std::size_t>(samples));
        std::unique_ptr<unsigned char[]> bounce(new unsigned char[raw_bounce_bytes]);
        const bool stream = raster_bytes >= stream_store_threshold;
        std::uint64_t done = 0;
        while (done < raster_bytes) {
            const auto want = static_cast<std::size_t>(
                std::min<std::uint64_t>(raw_bounce_bytes, raster_bytes - done));
            const std::size_t got = cur.read(reinterpret_cast<char*>(bounce.get()), want);
            if (got < want) {
                out.clear();
                return raw_truncated_error(h, done + got, raster_bytes);
            }
            const auto first = static_cast<std::size_t>(done / sample_bytes);
            const std::size_t n = got / sample_bytes;
            const std::size_t bad =
                copy_raw_samples(out.data() + first, bounce.get(), n,
                                 static_cast<unsigned>(sample_bytes), h.maxval, stream);
            if (bad < n) {
                const pnm_error err =
                    raw_sample_error(h, first + bad, sample_bytes, out[first + bad]);
                out.clear();
                return err;
            }
            done += got;
        }
        return {};
    }

    // Read the raster bytes into the sample buffer's storage, growing it as data arrives
    // when the input size is not known.
    std::uint64_t capacity =
        initial_capacity(samples, sample_bytes, remaining, std::uint64_t{1} << 16);
    out.resize(static_cast<std::size_t>(capacity));
    std::uint64_t filled = 0; // raster bytes read
    for (;;) {
        std::uint64_t room = std::min<std::uint64_t>(out.size() * sizeof(Sample), raster_bytes);
        std::size_t want = static_cast<std::size_t>(room - filled);
        std::size_t got = cur.read(reinterpret_cast<char*>(out.data()) + filled, want);
        filled += got;
        if (got < want) {
            out.clear();
            return raw_truncated_error(h, filled, raster_bytes);
        }
        if (filled == raster_bytes) {
            break;
        }
        out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(samples, out.size() * 2)));
    }
    out.resize(static_cast<std::size_t>(samples));
    const std::size_t bad =
        decode_raw_in_place(out.data(), out.size(), static_cast<unsigned>(sample_bytes), h.maxval);
    if (bad < out.size()) {
        const pnm_error err = raw_sample_error(h, bad, sample_bytes, out[bad]);
        out.clear();
        return err;
    }
    return {};
}

// ---------------------------------------------------------------------------------------
// Plain (P2, P3) raster

/// `last_image`: nothing after this image is read, so the raster may be parsed in slices.
template <class Sample>
pnm_error read_plain_raster(decoder_cursor& cur, const pnm_header& h, sample_vector<Sample>& out,
                            bool last_image) {
    pnm_error err = plain_raster_error(h);
    plain_scanner scanner = plain_scanner::for_header(h);

    // Every sample but the last needs a digit and a whitespace byte, so n samples need at
    // least 2n - 1 bytes. When the input is known to be shorter, parse into a small scratch
    // buffer instead of allocating the image: the parse then ends in the same error, at the
    // same offset, as it would from a stream.
    std::optional<std::uint64_t> remaining = cur.known_remaining();
    bool discard = false;
    if (cur.contiguous()) {
        discard = h.samples > (*remaining + 1) / 2;
    }
    const scan::decimal_list_fn<Sample> kernel =
        scan::decimal_list_for<Sample>(scan::active_level());
    if (cur.contiguous()) {
        const unsigned threads = threads_for(*remaining, plain_bytes_per_thread, most_cpu_threads);
        if (last_image && !discard && threads > 1 && cur.fill()) {
            const char* begin = cur.pos;
            const char* end = cur.end; // the whole rest of the input
            if (parse_plain_in_slices(begin, end, cur.offset(), h, threads, kernel, out, err)) {
                cur.pos = end;
                return err;
            }
        }
    }
    return drive_plain_scan(
        cur, h, out, discard, 2, err,
        [&](const char*& pos, const char* end, std::uint64_t end_offset, Sample*& o, Sample* o_end,
            pnm_error& e) { return scanner.scan(pos, end, end_offset, o, o_end, kernel, e); },
        [&](std::uint64_t eof_offset, Sample*& o, Sample* o_end, pnm_error& e) {
            return scanner.finish(eof_offset, o, o_end, e);
        });
}

/// Reads one image (header and raster) at the cursor: P3 or P6, or with `any_format` any
/// of P1 to P7. `last_image`: nothing after this image is read, so a plain raster may be
/// parsed in slices. A header over `limits` is an error before anything is allocated.
template <class Sample>
pnm_error read_pnm(decoder_cursor& cur, pnm_header& h, sample_vector<Sample>& samples,
                   bool last_image = false, bool any_format = false,
                   const pnm_limits& limits = {}) {
    pnm_error err = parse_pnm_header(cur, sizeof(Sample), h, any_format, limits);
    if (err) {
        return err;
    }
    switch (h.magic) {
    case '1':
        err = read_plain_bits(cur, h, samples);
        break;
    case '4':
        err = read_raw_bits(cur, h, samples);
        break;
    case '2':
    case '3':
        err = read_plain_raster(cur, h, samples, last_image);
        if (!err && !last_image && cur.peek() == '#') {
            // A comment straight after the last sample ends it (libnetpbm's pm_getc reads
            // a comment as its line end): skip it with its line end, so a reader does not
            // take the '#' for the next image.
            if (skip_comment(cur) >= 0) {
                ++cur.pos;
            }
        }
        break;
    default:
        err = read_raw_raster(cur, h, samples);
        break;
    }
    err.any_format = any_format;
    return err;
}

/// For a reader: false when, after the first image, only whitespace remains (libnetpbm's
/// pm_nextimage skips it); true, with the cursor on the next image's first byte, otherwise.
/// The first call always goes on: an input without any image is an error.
inline bool next_image_follows(decoder_cursor& cur, bool& started) {
    if (started) {
        int c = cur.peek();
        while (c >= 0 && is_pnm_space(static_cast<unsigned>(c))) {
            ++cur.pos;
            c = cur.peek();
        }
        if (c < 0) {
            return false;
        }
    }
    started = true;
    return true;
}

/// An image as the family's decoder returns it: its header and samples. ppm::load and
/// pnm::load move them into their own image types.
template <class Sample>
struct decoded_pnm {
    pnm_header header;
    sample_vector<Sample> samples;
};

/// Decodes the first image of `source` (P3 or P6, or with `any_format` P1 to P7); `name`
/// labels errors. `plain`, when given, is set to whether the header said P1, P2 or P3.
/// The image, or the error: the source's read error where one ended the input (not the
/// truncation it looks like), else the parse's (a header over `limits` among them).
template <class Sample>
result<decoded_pnm<Sample>> try_load_first_pnm(source_ref source, const std::string& name,
                                               bool any_format, bool* plain = nullptr,
                                               const pnm_limits& limits = {}) {
    decoder_cursor cursor(source);
    decoded_pnm<Sample> img;
    if (plain != nullptr) {
        *plain = false;
    }
    pnm_error err = read_pnm(cursor, img.header, img.samples, true, any_format, limits);
    if (plain != nullptr) {
        *plain = img.header.plain;
    }
    if (err) {
        if (const fastread::error* read_error = source.error()) {
            return *read_error;
        }
        return parse_error_value(err.offset, pnm_error_message(err), name, to_errc(err.code));
    }
    return img;
}

/// try_load_first_pnm, reporting its error as throwing calls do.
template <class Sample>
decoded_pnm<Sample> load_first_pnm(source_ref source, const std::string& name, bool any_format,
                                   bool* plain = nullptr) {
    return value_or_throw(try_load_first_pnm<Sample>(source, name, any_format, plain));
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_PARSE_HPP
