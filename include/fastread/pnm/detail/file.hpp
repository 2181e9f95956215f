#ifndef FASTREAD_PNM_DETAIL_FILE_HPP
#define FASTREAD_PNM_DETAIL_FILE_HPP

// How ppm::load and pnm::load read a file: streamed with read(2), read and decoded in
// slices on several threads (big cached files), or mapped (guarded) when the caller asks;
// and what a file that shrinks during the call gives (a parse_error where its data now
// ends, never SIGBUS). The choice is documented on fastread::pnm::load.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../detail/file_map.hpp"
#include "../../detail/file_shrank.hpp"
#include "../../detail/input_plan.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/residency.hpp"
#include "../../detail/rw.hpp"
#include "../../error.hpp"
#include "../../io.hpp"
#include "../../source/byte_source.hpp"
#include "../../source/detail/file_stream.hpp"
#include "../../source/read_source.hpp"
#include "parse.hpp"

namespace fastread::detail {

/// Decodes the first image of `source` (P3 or P6, or with `any_format` P1 to P7); `plain`
/// says whether the header said P1, P2 or P3.
template <class Sample>
result<decoded_pnm<Sample>> decode_pnm(source_ref source, const std::filesystem::path& path,
                                       bool any_format, const pnm_limits& limits, bool& plain) {
    return try_load_first_pnm<Sample>(source, path.string(), any_format, &plain, limits);
}

/// Settles a decode of a regular file that read it up to `reached`: a plain image that
/// decoded is whole without asking the size (a byte lost to a shrink reads as 0, which is
/// neither a digit, a PBM bit nor whitespace and ends no comment, so a parse that read one
/// cannot have completed; a system call is a sixth of a 30 KB P3's load on some hosts); any
/// other outcome is input_file::settle's.
template <class R>
result<R> settle_pnm(const input_file& file, result<R>&& r, std::uint64_t reached, bool plain) {
    return file.settle(std::move(r), reached, plain);
}

/// Decodes the first image of a guarded map of `file`: the pages past a shrink read as
/// zeros, so any lost page counts as a shrink.
template <class Sample>
result<decoded_pnm<Sample>> load_mapped_pnm(const input_file& file, const file_map& map,
                                            bool any_format, const pnm_limits& limits = {}) {
    memory_source source(map.bytes());
    bool plain = false;
    result<decoded_pnm<Sample>> r =
        decode_pnm<Sample>(source_ref(source), file.path(), any_format, limits, plain);
    return settle_pnm(file, std::move(r), map.lost() >= 0 ? UINT64_MAX : map.size(), plain);
}

/// Parses the header of `file` from its head (input_file::head, read once) into `h`, for
/// samples of `sample_bytes_max` bytes. False if the header is bad or does not end within
/// those bytes (the slices then leave the file to the stream).
inline bool header_in_head(input_file& file, std::size_t sample_bytes_max, bool any_format,
                           pnm_header& h, const pnm_limits& limits = {}) {
    memory_source head_source(file.head(plan_head_bytes));
    decoder_cursor cursor{source_ref(head_source)};
    return !parse_pnm_header(cursor, sample_bytes_max, h, any_format, limits);
}

/// Where slice `t` of `threads` of the plain raster in [raster, size) of the file open on
/// `fd` starts, after the cut `previous`: the offset of a whitespace byte outside tokens
/// and comments near the slice's share (plain_split_point, on the 8 KiB read around it), or
/// nothing when there is none (or the file ends before it).
inline std::optional<std::uint64_t> plain_file_cut(int fd, std::uint64_t previous,
                                                   std::uint64_t raster, std::uint64_t size,
                                                   unsigned t, unsigned threads,
                                                   const std::filesystem::path& path) {
    constexpr std::uint64_t before = 4097, after = 4096 + 65; // plain_split_point's reach
    const std::uint64_t guess = raster + (size - raster) * t / threads;
    const std::uint64_t lo = std::max(previous, guess > before ? guess - before : 0);
    const std::uint64_t hi = std::min(size, guess + after);
    char window[before + after];
    fastread::error err; // a read error: the stream reports it
    const std::size_t got =
        pread_full(fd, window, static_cast<std::size_t>(hi - lo), lo, path, err);
    if (err.code() || got <= guess - lo) {
        return std::nullopt;
    }
    const char* at = plain_split_point(window, window + (guess - lo), window + got);
    if (at == nullptr) {
        return std::nullopt;
    }
    const std::uint64_t cut = lo + static_cast<std::uint64_t>(at - window);
    return cut > previous ? std::optional<std::uint64_t>(cut) : std::nullopt;
}

/// Decodes the plain (P2 or P3) image of `file` (sized, in the page cache) on `threads`
/// threads without holding it in memory: the raster is cut into slices as
/// parse_plain_in_slices cuts a map, and each thread reads its slice through
/// slice_reads::read_through into its own buffer and scans it (scan_plain_slices). So
/// reading costs a copy into a buffer the cache holds, not a map's page-table set-up, and
/// the parse runs on every thread. Returns nothing, having decoded nothing, when the header
/// is not within the head, the image is not plain, the raster cannot hold the samples
/// declared, or no cut is found: the caller then streams the file.
///
/// A file that shrinks during the call: a slice whose read ends early stops there (the last
/// one ends the raster there); read(2) racing the truncation may return zeros, so a size now
/// below the furthest byte read, or any early end but in the last slice, is a shrink_error.
template <class Sample>
std::optional<result<decoded_pnm<Sample>>>
load_plain_in_file_slices(input_file& file, unsigned threads, bool any_format,
                          const pnm_limits& limits = {}) {
    const std::uint64_t size = file.size();
    const std::filesystem::path& path = file.path();
    pnm_header h;
    if (!header_in_head(file, sizeof(Sample), any_format, h, limits) ||
        (h.magic != '2' && h.magic != '3') || h.raster_offset >= size ||
        h.samples > (size - h.raster_offset + 1) / 2) {
        return std::nullopt;
    }
    std::vector<std::uint64_t> cuts{h.raster_offset};
    for (unsigned t = 1; t < threads; ++t) {
        const std::optional<std::uint64_t> cut =
            plain_file_cut(file.fd(), cuts.back(), h.raster_offset, size, t, threads, path);
        if (!cut) {
            return std::nullopt;
        }
        cuts.push_back(*cut);
    }
    cuts.push_back(size);
    std::vector<std::uint64_t> slice_bytes(threads);
    for (unsigned t = 0; t < threads; ++t) {
        slice_bytes[t] = cuts[t + 1] - cuts[t] + (t + 1 < threads);
    }

    const scan::decimal_list_fn<Sample> kernel =
        scan::decimal_list_for<Sample>(scan::active_level());
    slice_reads reads(file, threads);
    decoded_pnm<Sample> img;
    pnm_error err;
    scan_plain_slices(
        h, slice_bytes, size, img.samples, err,
        [&](unsigned t, plain_scanner& scanner, Sample*& o, Sample* o_end, pnm_error& e) {
            const bool last = t + 1 == threads;
            plain_scanner::status st = plain_scanner::status::need_input;
            reads.read_through(t, cuts[t], last ? size : cuts[t + 1] + 1,
                               [&](const char* p, const char* end, std::uint64_t at) {
                                   st = scanner.scan(p, end, at, o, o_end, kernel, e);
                                   return st == plain_scanner::status::need_input;
                               });
            if (st == plain_scanner::status::need_input && last) {
                st = scanner.finish(reads.reached(t), o, o_end, e);
            }
            return st;
        });

    std::optional<fastread::error> failure;
    if (err) {
        failure =
            parse_error_value(err.offset, pnm_error_message(err), path.string(), to_errc(err.code));
    }
    if (std::optional<fastread::error> e = reads.settle(std::move(failure), true)) {
        return result<decoded_pnm<Sample>>(std::move(*e));
    }
    img.header = std::move(h);
    return result<decoded_pnm<Sample>>(std::move(img));
}

/// Decodes the raw (P4 to P7) image of `file` (sized, in the page cache) on `threads`
/// threads: the samples are cut into contiguous slices (whole
/// rows for P4, expanded from a bounce buffer) and each thread reads its slice with
/// slice_reads::read, straight into the samples when they are stored as
/// the file holds them (8-bit, maxval 255), else through its own raw_bounce_bytes buffer
/// that copy_raw_samples decodes from (16-bit samples swapped, samples checked against a
/// maxval below 255, 8-bit samples widened). So the kernel's copy out of the page cache,
/// the larger part of a raw load, runs on every CPU instead of one. Returns nothing, having
/// decoded nothing, when the header is not within the head, the image is not raw
/// P4-P7 (or the header is bad), a P4 row is wider than the bounce buffer, or the file
/// cannot hold the raster declared: the caller
/// then streams the file, which reports the error.
///
/// A file that shrinks during the call: a slice whose read ends early stops there, and
/// read(2) racing the truncation may return zeros, so a size now below the furthest byte
/// read, or any early end, is a shrink_error.
template <class Sample>
std::optional<result<decoded_pnm<Sample>>>
load_raw_in_file_slices(input_file& file, unsigned threads, bool any_format,
                        const pnm_limits& limits = {}) {
    const std::uint64_t size = file.size();
    pnm_header h;
    if (!header_in_head(file, sizeof(Sample), any_format, h, limits) ||
        (h.magic != '4' && h.magic != '5' && h.magic != '6' && h.magic != '7')) {
        return std::nullopt;
    }
    if (h.raster_offset > size) {
        return std::nullopt;
    }
    const std::uint64_t room = size - h.raster_offset;
    const auto count = static_cast<std::size_t>(h.samples);
    slice_reads reads(file, threads);
    decoded_pnm<Sample> img;

    if (h.magic == '4') {
        // PBM: slices of whole rows, read a bounce buffer of rows at a time and expanded;
        // rows wider than the buffer are left to the stream.
        const std::uint64_t row_bytes = (std::uint64_t{h.width} + 7) / 8;
        if (row_bytes > raw_bounce_bytes || row_bytes * h.height > room) {
            return std::nullopt;
        }
        img.samples.resize(count);
        Sample* const out = img.samples.data();
        const std::size_t rows_per_block = raw_bounce_bytes / static_cast<std::size_t>(row_bytes);
        in_slices(h.height, threads, [&](unsigned t, std::size_t first, std::size_t last) {
            std::uint64_t pos = h.raster_offset + first * row_bytes;
            reads.start(t, pos);
            std::unique_ptr<unsigned char[]> bounce(new unsigned char[raw_bounce_bytes]);
            for (std::size_t row = first; row < last;) {
                const std::size_t rows = std::min(rows_per_block, last - row);
                const auto want = static_cast<std::size_t>(rows * row_bytes);
                if (!reads.read(t, bounce.get(), want, pos)) {
                    return;
                }
                for (std::size_t r = 0; r < rows; ++r) {
                    expand_pbm_row(out + (row + r) * h.width, bounce.get() + r * row_bytes,
                                   h.width);
                }
                row += rows;
                pos += want;
            }
        });
        if (std::optional<fastread::error> e = reads.settle(std::nullopt, false)) {
            return result<decoded_pnm<Sample>>(std::move(*e));
        }
        img.header = std::move(h);
        return result<decoded_pnm<Sample>>(std::move(img));
    }

    const unsigned sample_bytes = h.sample_bytes();
    if (h.samples > room / sample_bytes) {
        return std::nullopt;
    }
    const bool as_stored = sample_bytes == sizeof(Sample) && sample_bytes == 1 && h.maxval == 255;
    const bool stream = count * sizeof(Sample) >= stream_store_threshold;
    img.samples.resize(count);
    Sample* const out = img.samples.data();
    std::vector<std::size_t> bad(threads, count); // each slice's first sample above maxval
    // Slices begin on a multiple of 64 samples, so that each writes whole cache lines.
    const std::size_t units = (count + 63) / 64;
    in_slices(units, threads, [&](unsigned t, std::size_t first_unit, std::size_t last_unit) {
        const std::size_t first = std::min(count, first_unit * 64);
        const std::size_t last = std::min(count, last_unit * 64);
        std::uint64_t pos = h.raster_offset + std::uint64_t{first} * sample_bytes;
        reads.start(t, pos);
        if (first == last) {
            return;
        }
        if (as_stored) {
            reads.read(t, out + first, last - first, pos);
            return;
        }
        std::unique_ptr<unsigned char[]> bounce(new unsigned char[raw_bounce_bytes]);
        const std::size_t per_block = raw_bounce_bytes / sample_bytes;
        for (std::size_t i = first; i < last;) {
            const std::size_t n = std::min(per_block, last - i);
            const std::size_t want = n * sample_bytes;
            if (!reads.read(t, bounce.get(), want, pos)) {
                return;
            }
            const std::size_t b =
                copy_raw_samples(out + i, bounce.get(), n, sample_bytes, h.maxval, stream);
            if (b < n) {
                bad[t] = i + b;
                return;
            }
            i += n;
            pos += want;
        }
    });

    // The file held the raster at open: any slice that ended early means it shrank (a
    // shrink_error, whatever its size now).
    std::optional<fastread::error> failure;
    for (unsigned t = 0; t < threads && !failure; ++t) {
        if (bad[t] < count) {
            const pnm_error err = raw_sample_error(h, bad[t], sample_bytes, out[bad[t]]);
            failure = parse_error_value(err.offset, pnm_error_message(err), file.path().string(),
                                        to_errc(err.code));
        }
    }
    if (std::optional<fastread::error> e = reads.settle(std::move(failure), false)) {
        return result<decoded_pnm<Sample>>(std::move(*e));
    }
    img.header = std::move(h);
    return result<decoded_pnm<Sample>>(std::move(img));
}

/// The threads that may read a big cached pnm file in slices, and its magic: decided
/// from the size alone (no read) while no format could use two threads, else from the
/// head (input_file::head, the one read of the header). `raw_only`: only P4 to P7 are read
/// in slices (load_into); `any_format`: P1, P2, P4, P5 and P7 as well as P3 and P6. A P4
/// byte becomes 8 samples: its work is counted in samples.
struct pnm_slice_plan {
    char magic = 0;       ///< the digit after 'P', 0 when the head was not read
    unsigned threads = 1; ///< 1: stream the file
};

inline pnm_slice_plan plan_pnm_slices(input_file& file, bool any_format, bool raw_only) {
    const std::uint64_t size = file.size();
    if (size < raw_bits_from) {
        return {};
    }
    // The most threads any format could use (P4's work per byte is the largest).
    const unsigned most =
        any_format ? file.slice_threads(size * 8, bits_samples_per_thread)
                   : file.slice_threads(size, raw_only ? raw_bytes_per_thread
                                                       : std::min(raw_bytes_per_thread,
                                                                  plain_file_bytes_per_thread));
    if (most <= 1) {
        return {};
    }
    const std::span<const char> head = file.head(plan_head_bytes);
    if (head.size() < 2 || head[0] != 'P') {
        return {};
    }
    const char m = head[1];
    pnm_slice_plan plan{m, 1};
    const bool plain_decimal = m == '3' || (any_format && m == '2');
    if (plain_decimal && !raw_only) {
        plan.threads = file.slice_threads(size, plain_file_bytes_per_thread);
    } else if (m >= (any_format ? '4' : '6') && m <= '7') {
        plan.threads = m == '4' ? file.slice_threads(size * 8, bits_samples_per_thread)
                                : file.slice_threads(size, raw_bytes_per_thread);
    }
    return plan;
}

/// The one route of pnm::load and pnm::load_into by path (pnm::load documents it): the file
/// opened once (input_file); mapped (guarded) when `io` asks; else a big cached file read in
/// slices on the threads plan_pnm_slices gives, when `slices(file, plan)` decodes it; else
/// streamed with read(2). `decode(source, plain)` decodes from a source; every outcome of a
/// sized file is settled by settle_pnm (the shrink check).
template <class R, class Decode, class Slices>
result<R> read_pnm_file(const std::filesystem::path& path, io_mode io, bool any_format,
                        bool raw_only, Decode&& decode, Slices&& slices) {
    result<input_file> opened = input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    input_file& file = *opened;
    bool plain = false;
    if (file.sized()) {
        if (io == io_mode::map) {
            if (const file_map map = file.map()) {
                memory_source bytes(map.bytes());
                result<R> r = decode(source_ref(bytes), plain);
                return settle_pnm(file, std::move(r), map.lost() >= 0 ? UINT64_MAX : map.size(),
                                  plain);
            }
        }
        if (const pnm_slice_plan plan = plan_pnm_slices(file, any_format, raw_only);
            plan.threads > 1) {
            if (std::optional<result<R>> r = slices(file, plan)) {
                return std::move(*r);
            }
        }
    }
    result<file_stream> source = stream_file(file);
    if (!source) {
        return source.error();
    }
    result<R> r = decode(source_ref(*source), plain);
    if (!file.sized()) {
        return r; // a pipe or a /proc file: no size to check
    }
    return settle_pnm(file, std::move(r), source->consumed(), plain);
}

/// The first image of the file at `path` (P3 or P6, or with `any_format` P1 to P7), read
/// by read_pnm_file.
template <class Sample>
result<decoded_pnm<Sample>> try_load_pnm_file(const std::filesystem::path& path, io_mode io,
                                              bool any_format, const pnm_limits& limits = {}) {
    using R = decoded_pnm<Sample>;
    return read_pnm_file<R>(
        path, io, any_format, false,
        [&](source_ref source, bool& plain) {
            return decode_pnm<Sample>(source, path, any_format, limits, plain);
        },
        [&](input_file& file, const pnm_slice_plan& plan) -> std::optional<result<R>> {
            if (plan.magic == '1' || plan.magic == '2' || plan.magic == '3') {
                return load_plain_in_file_slices<Sample>(file, plan.threads, any_format, limits);
            }
            return load_raw_in_file_slices<Sample>(file, plan.threads, any_format, limits);
        });
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_FILE_HPP
