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
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/residency.hpp"
#include "../../detail/rw.hpp"
#include "../../error.hpp"
#include "../../io.hpp"
#include "../../source/byte_source.hpp"
#include "../../source/read_source.hpp"
#include "parse.hpp"

namespace fastread::detail {

/// The first image of a regular file as decoded, before the file's size is checked: the
/// image or the parse's error, and whether the header said P1, P2 or P3.
template <class Sample>
struct watched_pnm {
    std::optional<decoded_pnm<Sample>> img;
    std::optional<fastread::error> failure;
    bool plain = false;
};

/// Decodes the first image of `source`, read from the file at `path`, keeping a parse
/// error for settle_watched (which may turn it into a shrink_error).
template <class Sample>
watched_pnm<Sample> decode_watched(source_ref source, const std::filesystem::path& path,
                                   bool any_format, const pnm_limits& limits = {}) {
    watched_pnm<Sample> w;
    result<decoded_pnm<Sample>> r =
        try_load_first_pnm<Sample>(source, path.string(), any_format, &w.plain, limits);
    if (r) {
        w.img = std::move(*r);
    } else {
        w.failure = r.error();
    }
    return w;
}

/// The outcome of decode_watched on the regular file open on `fd` (`size_at_open` bytes):
/// if the file now ends before `reached` (the bytes the parse read from it), a shrink_error
/// instead of the image or the parse's own error. A P3 image that decoded is returned
/// without that check (see the code).
template <class Sample>
result<decoded_pnm<Sample>> settle_watched(watched_pnm<Sample>&& w, int fd,
                                           std::uint64_t size_at_open, std::uint64_t reached,
                                           const std::filesystem::path& path) {
    if (w.img && w.plain) {
        // A plain image decoded: a byte lost to a shrink reads as 0, which is neither a
        // digit (nor a PBM bit) nor whitespace (and ends no comment), so a parse that read one
        // cannot have completed; the samples are the file's. No fstat needed: a system call is a
        // sixth of the time of a 30 KB P3 on some hosts.
        return std::move(*w.img);
    }
    if (std::optional<fastread::error> shrank =
            shrink_error(fd, size_at_open, reached, w.failure, path)) {
        return std::move(*shrank);
    }
    if (w.failure) {
        return std::move(*w.failure);
    }
    return std::move(*w.img);
}

/// Decodes the first image of a guarded map of the file open on `fd`: the pages past a
/// shrink read as zeros, so any lost page counts as a shrink.
template <class Sample>
result<decoded_pnm<Sample>> load_mapped_pnm(int fd, const file_map& map,
                                            const std::filesystem::path& path, bool any_format,
                                            const pnm_limits& limits = {}) {
    memory_source source(map.bytes());
    watched_pnm<Sample> w = decode_watched<Sample>(source_ref(source), path, any_format, limits);
    const std::uint64_t reached = map.lost() >= 0 ? UINT64_MAX : map.size();
    return settle_watched(std::move(w), fd, map.size(), reached, path);
}

/// Decodes the first image of the regular file open on `fd` (`size_at_open` bytes) with
/// read(2) through chunks of `chunk` bytes; read(2) racing a truncation can return zeros
/// for the lost bytes, so a shrink below the bytes read counts too.
template <class Sample>
result<decoded_pnm<Sample>> load_read_pnm(unique_fd fd, std::uint64_t size_at_open,
                                          std::size_t chunk, const std::filesystem::path& path,
                                          bool any_format, const pnm_limits& limits = {}) {
    const int raw = fd.get();
    read_source source(std::move(fd), path, chunk, size_at_open);
    watched_pnm<Sample> w = decode_watched<Sample>(source_ref(source), path, any_format, limits);
    return settle_watched(std::move(w), raw, size_at_open, source.consumed(), path);
}

/// Parses the header of the file open on `fd` (`size` bytes) from its first 64 KiB, read
/// with pread(2), into `h`, for samples of `sample_bytes_max` bytes. False if the header is
/// bad or does not end within those bytes (the slices then leave the file to the stream).
inline bool header_in_head(int fd, std::uint64_t size, std::size_t sample_bytes_max,
                           bool any_format, const std::filesystem::path& path, pnm_header& h,
                           const pnm_limits& limits = {}) {
    constexpr std::size_t head_bytes = std::size_t{64} << 10;
    std::unique_ptr<char[]> head(new char[head_bytes]);
    fastread::error err; // a read error: the stream reports it
    const std::size_t head_got = pread_full(
        fd, head.get(), static_cast<std::size_t>(std::min<std::uint64_t>(size, head_bytes)), 0,
        path, err);
    if (err.code()) {
        return false;
    }
    memory_source head_source(std::span<const char>(head.get(), head_got));
    decoder_cursor cursor{source_ref(head_source)};
    return !parse_pnm_header(cursor, sample_bytes_max, h, any_format, limits);
}

/// The outcome of a load in slices of the file open on `fd` (`size` bytes at open): a
/// shrink_error if the file now ends before `furthest` (the furthest byte the slices read,
/// UINT64_MAX after a gap or lost page), else `failure` if the slices found an error (a
/// read error, or the parse's), else nothing.
inline std::optional<fastread::error> slices_outcome(int fd, std::uint64_t size,
                                                     std::uint64_t furthest,
                                                     std::optional<fastread::error> failure,
                                                     const std::filesystem::path& path) {
    if (std::optional<fastread::error> shrank = shrink_error(fd, size, furthest, failure, path)) {
        return shrank;
    }
    return failure;
}

/// The first read error of `errors` (one per slice), if any.
inline std::optional<fastread::error> first_read_error(const std::vector<fastread::error>& errors) {
    for (const fastread::error& e : errors) {
        if (e.code()) {
            return e;
        }
    }
    return std::nullopt;
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

/// Decodes the plain (P2 or P3) image of the regular file open on `fd` (`size` bytes, in the page
/// cache) on `threads` threads without holding it in memory: the raster is cut into slices
/// as parse_plain_in_slices cuts a map, and each thread reads its slice with pread(2) in
/// scan_read_block chunks into its own buffer and scans them (scan_plain_slices).
/// So reading costs a copy into a buffer the cache holds, not a map's page-table set-up,
/// and the parse runs on every thread. Returns nothing, having decoded nothing, when the
/// header is not within the first 64 KiB, the image is not plain, the raster cannot hold
/// the samples declared, or no cut is found: the caller then streams the file.
///
/// A file that shrinks during the call: a slice whose read ends early stops there (the last
/// one ends the raster there); read(2) racing the truncation may return zeros, so a size now
/// below the furthest byte read, or any early end but in the last slice, is a shrink_error.
template <class Sample>
std::optional<result<decoded_pnm<Sample>>>
load_plain_in_file_slices(int fd, std::uint64_t size, unsigned threads,
                          const std::filesystem::path& path, bool any_format,
                          const pnm_limits& limits = {}) {
    pnm_header h;
    if (!header_in_head(fd, size, sizeof(Sample), any_format, path, h, limits) ||
        (h.magic != '2' && h.magic != '3') || h.raster_offset >= size ||
        h.samples > (size - h.raster_offset + 1) / 2) {
        return std::nullopt;
    }
    std::vector<std::uint64_t> cuts{h.raster_offset};
    for (unsigned t = 1; t < threads; ++t) {
        const std::optional<std::uint64_t> cut =
            plain_file_cut(fd, cuts.back(), h.raster_offset, size, t, threads, path);
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
    std::vector<std::uint64_t> reached(threads, 0);
    std::vector<unsigned char> ended_early(threads, 0);
    std::vector<fastread::error> read_errors(threads);
    decoded_pnm<Sample> img;
    pnm_error err;
    scan_plain_slices(
        h, slice_bytes, size, img.samples, err,
        [&](unsigned t, plain_scanner& scanner, Sample*& o, Sample* o_end, pnm_error& e) {
            const bool last = t + 1 == threads;
            const std::uint64_t to = last ? size : cuts[t + 1] + 1;
            std::unique_ptr<char[]> buffer(new char[scan_read_block]);
            std::uint64_t pos = cuts[t];
            plain_scanner::status st = plain_scanner::status::need_input;
            while (pos < to && st == plain_scanner::status::need_input) {
                const auto want =
                    static_cast<std::size_t>(std::min<std::uint64_t>(scan_read_block, to - pos));
                const std::size_t got =
                    pread_full(fd, buffer.get(), want, pos, path, read_errors[t]);
                const char* p = buffer.get();
                st = scanner.scan(p, p + got, pos + got, o, o_end, kernel, e);
                pos += got;
                if (got < want) {
                    ended_early[t] = 1; // the file ends here now
                    break;
                }
            }
            reached[t] = pos;
            if (st == plain_scanner::status::need_input && last) {
                st = scanner.finish(pos, o, o_end, e);
            }
            return st;
        });

    std::uint64_t furthest = 0;
    for (unsigned t = 0; t < threads; ++t) {
        furthest = std::max(furthest, reached[t]);
        if (ended_early[t] && t + 1 < threads) {
            furthest = UINT64_MAX; // a gap in the raster: the file shrank
        }
    }
    std::optional<fastread::error> failure = first_read_error(read_errors);
    if (!failure && err) {
        failure =
            parse_error_value(err.offset, pnm_error_message(err), path.string(), to_errc(err.code));
    }
    if (std::optional<fastread::error> e =
            slices_outcome(fd, size, furthest, std::move(failure), path)) {
        return result<decoded_pnm<Sample>>(std::move(*e));
    }
    img.header = std::move(h);
    return result<decoded_pnm<Sample>>(std::move(img));
}

/// Decodes the raw (P4 to P7) image of the regular file open on `fd` (`size` bytes, in
/// the page cache) on `threads` threads: the samples are cut into contiguous slices (whole
/// rows for P4, expanded from a bounce buffer) and each thread reads its slice with
/// pread(2), straight into the samples when they are stored as
/// the file holds them (8-bit, maxval 255), else through its own raw_bounce_bytes buffer
/// that copy_raw_samples decodes from (16-bit samples swapped, samples checked against a
/// maxval below 255, 8-bit samples widened). So the kernel's copy out of the page cache,
/// the larger part of a raw load, runs on every CPU instead of one. Returns nothing, having
/// decoded nothing, when the header is not within the first 64 KiB, the image is not raw
/// P4-P7 (or the header is bad), a P4 row is wider than the bounce buffer, or the file
/// cannot hold the raster declared: the caller
/// then streams the file, which reports the error.
///
/// A file that shrinks during the call: a slice whose read ends early stops there, and
/// read(2) racing the truncation may return zeros, so a size now below the furthest byte
/// read, or any early end, is a shrink_error.
template <class Sample>
std::optional<result<decoded_pnm<Sample>>>
load_raw_in_file_slices(int fd, std::uint64_t size, unsigned threads,
                        const std::filesystem::path& path, bool any_format,
                        const pnm_limits& limits = {}) {
    pnm_header h;
    if (!header_in_head(fd, size, sizeof(Sample), any_format, path, h, limits) ||
        (h.magic != '4' && h.magic != '5' && h.magic != '6' && h.magic != '7')) {
        return std::nullopt;
    }
    if (h.raster_offset > size) {
        return std::nullopt;
    }
    const std::uint64_t room = size - h.raster_offset;
    const auto count = static_cast<std::size_t>(h.samples);
    std::vector<std::uint64_t> reached(threads, 0);     // file offset each slice read to
    std::vector<unsigned char> ended_early(threads, 0); // its read came up short
    std::vector<fastread::error> read_errors(threads);  // its read error
    decoded_pnm<Sample> img;

    // Reads `want` bytes at `pos` into `into` for slice t; false (and the slice marked as
    // ended early) when the file ends before them.
    auto read_block = [&](unsigned t, unsigned char* into, std::size_t want, std::uint64_t pos) {
        const std::size_t got =
            pread_full(fd, reinterpret_cast<char*>(into), want, pos, path, read_errors[t]);
        reached[t] = pos + got;
        ended_early[t] = got < want;
        return got == want;
    };

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
            reached[t] = pos;
            std::unique_ptr<unsigned char[]> bounce(new unsigned char[raw_bounce_bytes]);
            for (std::size_t row = first; row < last;) {
                const std::size_t rows = std::min(rows_per_block, last - row);
                const auto want = static_cast<std::size_t>(rows * row_bytes);
                if (!read_block(t, bounce.get(), want, pos)) {
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
        std::uint64_t furthest = 0;
        for (unsigned t = 0; t < threads; ++t) {
            furthest = ended_early[t] ? UINT64_MAX : std::max(furthest, reached[t]);
        }
        if (std::optional<fastread::error> e =
                slices_outcome(fd, size, furthest, first_read_error(read_errors), path)) {
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
        reached[t] = pos;
        if (first == last) {
            return;
        }
        if (as_stored) {
            read_block(t, reinterpret_cast<unsigned char*>(out + first), last - first, pos);
            return;
        }
        std::unique_ptr<unsigned char[]> bounce(new unsigned char[raw_bounce_bytes]);
        const std::size_t per_block = raw_bounce_bytes / sample_bytes;
        for (std::size_t i = first; i < last;) {
            const std::size_t n = std::min(per_block, last - i);
            const std::size_t want = n * sample_bytes;
            if (!read_block(t, bounce.get(), want, pos)) {
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

    std::uint64_t furthest = 0;
    std::optional<fastread::error> failure = first_read_error(read_errors);
    for (unsigned t = 0; t < threads; ++t) {
        furthest = std::max(furthest, reached[t]);
        if (ended_early[t]) {
            furthest = UINT64_MAX; // the file held the raster at open: it shrank (a
                                   // shrink_error, whatever its size now)
        }
        if (!failure && bad[t] < count) {
            const pnm_error err = raw_sample_error(h, bad[t], sample_bytes, out[bad[t]]);
            failure = parse_error_value(err.offset, pnm_error_message(err), path.string(),
                                        to_errc(err.code));
        }
    }
    if (std::optional<fastread::error> e =
            slices_outcome(fd, size, furthest, std::move(failure), path)) {
        return result<decoded_pnm<Sample>>(std::move(*e));
    }
    img.header = std::move(h);
    return result<decoded_pnm<Sample>>(std::move(img));
}

/// The first image of the file at `path` (P3 or P6, or with `any_format` P1 to P7), read
/// as pnm::load documents: mapped (guarded) when `io` asks; else, for a big cached file
/// when the call may use several threads, read and decoded in slices on each; else
/// streamed with read(2).
template <class Sample>
result<decoded_pnm<Sample>> try_load_pnm_file(const std::filesystem::path& path, io_mode io,
                                              bool any_format, const pnm_limits& limits = {}) {
    // Open once, then pick the source: a FIFO must not be opened twice, and a /proc file
    // (size 0 to fstat) must be streamed.
    fastread::error err;
    unique_fd fd = open_read_only(path, 0, err);
    if (!fd) {
        return err;
    }
    const file_info info = stat_fd(fd.get(), path, err);
    if (err.code()) {
        return err;
    }
    std::size_t chunk = read_source::default_chunk_size;
    if (info.regular && info.size > 0) {
        if (io == io_mode::map) {
            if (file_map map = guarded_map(fd.get(), info.size)) {
                map.advise(map_advice::sequential);
                return load_mapped_pnm<Sample>(fd.get(), map, path, any_format, limits);
            }
        }
        // Below raw_bits_from neither the plan nor the chunk size depends on the format: no
        // pread of the magic (a system call can cost a sixth of a small P3's load).
        if (info.size >= raw_bits_from) {
            char magic[2] = {0, 0};
            const bool read_magic = sys::pread(fd.get(), magic, 2, 0) == 2 && magic[0] == 'P';
            const bool plain = read_magic && (magic[1] == '3' ||
                                              (any_format && (magic[1] == '1' || magic[1] == '2')));
            const bool plain_decimal = plain && magic[1] != '1';
            if (plain_decimal) {
                // Cached: each thread reads and parses a slice of the raster.
                const unsigned threads = threads_for(static_cast<std::size_t>(info.size),
                                                     plain_file_bytes_per_thread, most_cpu_threads);
                if (threads > 1 && file_resident(fd.get(), info.size, resident_percent)) {
                    if (std::optional<result<decoded_pnm<Sample>>> img =
                            load_plain_in_file_slices<Sample>(fd.get(), info.size, threads, path,
                                                              any_format, limits)) {
                        return std::move(*img);
                    }
                }
            }
            if (read_magic && magic[1] >= (any_format ? '4' : '6') && magic[1] <= '7') {
                // Cached: the threads read slices of the raster (and decode them), so the
                // copy out of the page cache runs on every CPU. A P4 byte becomes 8
                // samples: its work is counted in samples.
                const unsigned threads =
                    magic[1] == '4' ? threads_for(static_cast<std::size_t>(info.size * 8),
                                                  bits_samples_per_thread, most_cpu_threads)
                                    : threads_for(static_cast<std::size_t>(info.size),
                                                  raw_bytes_per_thread, most_cpu_threads);
                if (threads > 1 && file_resident(fd.get(), info.size, resident_percent)) {
                    if (std::optional<result<decoded_pnm<Sample>>> img =
                            load_raw_in_file_slices<Sample>(fd.get(), info.size, threads, path,
                                                            any_format, limits)) {
                        return std::move(*img);
                    }
                }
            }
            if (!plain) {
                // Only the header goes through the chunk buffer. A whole-file read(2) from
                // offset 0 measured slower cold: the file then misses the kernel's
                // sequential read-ahead, which a small first read starts.
                chunk = 16 * 1024;
            }
        }
        return load_read_pnm<Sample>(std::move(fd), info.size, chunk, path, any_format, limits);
    }
    result<read_source> source = read_source::try_adopt(std::move(fd), path, chunk);
    if (!source) {
        return source.error();
    }
    return try_load_first_pnm<Sample>(source_ref(*source), path.string(), any_format, nullptr,
                                      limits);
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_FILE_HPP
