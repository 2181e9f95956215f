#ifndef FASTREAD_PNM_DETAIL_INTO_HPP
#define FASTREAD_PNM_DETAIL_INTO_HPP

// pnm::probe and pnm::load_into from a path or a source: a header read without its raster,
// and a raster decoded into the caller's rows (read, or for a big cached raw file read in
// slices on several threads straight into the caller's buffer, as pnm::load reads its own).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../detail/file_map.hpp"
#include "../../detail/file_shrank.hpp"
#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/residency.hpp"
#include "../../detail/rw.hpp"
#include "../../error.hpp"
#include "../../io.hpp"
#include "../../source/byte_source.hpp"
#include "../../source/read_source.hpp"
#include "../image.hpp"
#include "file.hpp"
#include "rows.hpp"

namespace fastread::detail {

/// The header of the file (or pipe) open on `fd`, read from its current position without
/// a byte of the raster: read(2) of header_bytes_missing bytes at a time, then parsed.
inline result<pnm_header> try_probe_fd(int fd, const std::filesystem::path& path) {
    std::string head;
    bool ended = false;
    for (;;) {
        const std::size_t want = header_bytes_missing(head.data(), head.size());
        if (want == 0 || ended) {
            break;
        }
        const std::size_t had = head.size();
        head.resize(had + want);
        fastread::error err;
        const std::size_t got = read_full(fd, head.data() + had, want, path, err);
        head.resize(had + got);
        if (err.code()) {
            return err;
        }
        ended = got < want;
        if (head.size() > 2 && head[1] == '7' && head.back() == '\n') {
            // A PAM line is whole: a problem in the lines so far is the header's own.
            memory_source lines(std::span<const char>(head.data(), head.size()));
            decoder_cursor cur{source_ref(lines)};
            pnm_header h;
            const pnm_error e = parse_pnm_header(cur, 2, h, true);
            if (e && e.code != pnm_errc::truncated_header) {
                return pnm_failure(e, nullptr, path.string());
            }
        }
    }
    memory_source bytes(std::span<const char>(head.data(), head.size()));
    decoder_cursor cur{source_ref(bytes)};
    return try_probe_cursor(cur, source_ref(bytes), path.string());
}

/// pnm::probe from a path.
inline result<pnm_header> try_probe_file(const std::filesystem::path& path) {
    fastread::error err;
    unique_fd fd = open_read_only(path, 0, err);
    if (!fd) {
        return err;
    }
    return try_probe_fd(fd.get(), path);
}

/// load_into for a big cached raw (P4 to P7) file open on `fd` (`size` bytes): the header
/// from its first 64 KiB, then the rows cut into `threads` slices, each read with pread(2)
/// straight into the caller's rows when they are stored as the file holds them (8-bit
/// maxval 255, 16-bit swapped after), else through a bounce buffer per thread. Nothing,
/// having decoded nothing, where load_raw_in_file_slices would give the file to the stream.
template <class Sample>
std::optional<result<pnm_header>>
load_into_in_file_slices(int fd, std::uint64_t size, unsigned threads,
                         const std::filesystem::path& path, std::span<Sample> dst,
                         std::size_t row_stride, const pnm_limits& limits) {
    pnm_header h;
    if (!header_in_head(fd, size, sizeof(Sample), true, path, h, limits) || h.plain) {
        return std::nullopt;
    }
    const std::uint64_t raster = raster_bytes_of(h);
    if (h.raster_offset > size || raster > size - h.raster_offset) {
        return std::nullopt;
    }
    if (fastread::error e =
            into_buffer_problem<Sample>("fastread::pnm::load_into", h, dst.size(), row_stride);
        e.code()) {
        return result<pnm_header>(std::move(e));
    }
    const bool bits = h.magic == '4';
    const unsigned sample_bytes = h.sample_bytes();
    const std::size_t row_samples = std::size_t{h.width} * h.depth;
    const std::size_t row_bytes =
        bits ? (std::size_t{h.width} + 7) / 8 : row_samples * sample_bytes;
    const bool direct = !bits && sample_bytes == sizeof(Sample) && row_stride == row_samples;
    std::vector<std::uint64_t> reached(threads, 0);
    std::vector<unsigned char> ended_early(threads, 0);
    std::vector<fastread::error> read_errors(threads);
    std::vector<std::uint64_t> bad(threads, UINT64_MAX); // each slice's first sample > maxval
    std::vector<unsigned> bad_value(threads, 0);
    Sample* const out = dst.data();
    in_slices(h.height, threads, [&](unsigned t, std::size_t first, std::size_t last) {
        std::uint64_t pos = h.raster_offset + std::uint64_t{first} * row_bytes;
        reached[t] = pos;
        auto read_block = [&](unsigned char* into, std::size_t want) {
            const std::size_t got =
                pread_full(fd, reinterpret_cast<char*>(into), want, pos, path, read_errors[t]);
            reached[t] = pos + got;
            ended_early[t] = got < want;
            pos += got;
            return got == want;
        };
        if (direct) {
            Sample* rows = out + first * row_stride;
            const std::size_t n = (last - first) * row_samples;
            if (read_block(reinterpret_cast<unsigned char*>(rows), n * sample_bytes) &&
                !(sample_bytes == 1 && h.maxval == 255)) {
                const std::size_t b = decode_raw_in_place(rows, n, sample_bytes, h.maxval);
                if (b < n) {
                    bad[t] = std::uint64_t{first} * row_samples + b;
                    bad_value[t] = rows[b];
                }
            }
            return;
        }
        const std::size_t block = std::max(raw_bounce_bytes, row_bytes);
        const std::size_t rows_per_block = block / row_bytes;
        std::unique_ptr<unsigned char[]> bounce(new unsigned char[block]);
        for (std::size_t row = first; row < last;) {
            const std::size_t rows = std::min(rows_per_block, last - row);
            if (!read_block(bounce.get(), rows * row_bytes)) {
                return;
            }
            for (std::size_t r = 0; r < rows; ++r) {
                Sample* to = out + (row + r) * row_stride;
                const unsigned char* from = bounce.get() + r * row_bytes;
                if (bits) {
                    expand_pbm_row(to, from, h.width);
                    continue;
                }
                const std::size_t b =
                    copy_raw_samples(to, from, row_samples, sample_bytes, h.maxval, false);
                if (b < row_samples) {
                    bad[t] = std::uint64_t{row + r} * row_samples + b;
                    bad_value[t] = to[b];
                    return;
                }
            }
            row += rows;
        }
    });
    std::uint64_t furthest = 0;
    std::optional<fastread::error> failure = first_read_error(read_errors);
    for (unsigned t = 0; t < threads; ++t) {
        furthest = ended_early[t] ? UINT64_MAX : std::max(furthest, reached[t]);
        if (!failure && bad[t] != UINT64_MAX) {
            pnm_error err = raw_sample_error(h, bad[t], sample_bytes, bad_value[t]);
            err.any_format = true;
            failure = pnm_failure(err, nullptr, path.string());
        }
    }
    if (std::optional<fastread::error> e =
            slices_outcome(fd, size, furthest, std::move(failure), path)) {
        return result<pnm_header>(std::move(*e));
    }
    return result<pnm_header>(std::move(h));
}

/// pnm::load_into from a path, read as pnm::load reads the file: mapped (guarded) when
/// `io` asks; a big cached raw file in slices on several threads; else streamed with
/// read(2). A file that shrinks meanwhile gives a shrink error, never SIGBUS.
template <class Sample>
result<pnm_header> try_load_into_file(const std::filesystem::path& path, std::span<Sample> dst,
                                      std::size_t row_stride, io_mode io,
                                      const pnm_limits& limits) {
    fastread::error err;
    unique_fd fd = open_read_only(path, 0, err);
    if (!fd) {
        return err;
    }
    const file_info info = stat_fd(fd.get(), path, err);
    if (err.code()) {
        return err;
    }
    if (!info.regular || info.size == 0) {
        result<read_source> source = read_source::try_adopt(std::move(fd), path);
        if (!source) {
            return source.error();
        }
        decoder_cursor cur{source_ref(*source)};
        return try_load_into_cursor(cur, source_ref(*source), path.string(), dst, row_stride,
                                    limits);
    }
    // The outcome of a decode of the regular file that read up to `reached`: a shrink error
    // if the file now ends before, else the decode's.
    auto settle = [&](result<pnm_header>&& r, std::uint64_t reached) -> result<pnm_header> {
        std::optional<fastread::error> failure;
        if (!r) {
            failure = r.error();
        } else if (r->plain) {
            return std::move(r); // as settle_watched: a plain parse that completed is whole
        }
        if (std::optional<fastread::error> shrank =
                shrink_error(fd.get(), info.size, reached, failure, path)) {
            return std::move(*shrank);
        }
        return std::move(r);
    };
    if (io == io_mode::map) {
        if (file_map map = guarded_map(fd.get(), info.size)) {
            map.advise(map_advice::sequential);
            memory_source bytes(map.bytes());
            decoder_cursor cur{source_ref(bytes)};
            result<pnm_header> r = try_load_into_cursor(cur, source_ref(bytes), path.string(), dst,
                                                        row_stride, limits);
            return settle(std::move(r), map.lost() >= 0 ? UINT64_MAX : map.size());
        }
    }
    if (info.size >= raw_bits_from) {
        char magic[2] = {0, 0};
        if (sys::pread(fd.get(), magic, 2, 0) == 2 && magic[0] == 'P' && magic[1] >= '4' &&
            magic[1] <= '7') {
            const unsigned threads = magic[1] == '4'
                                         ? threads_for(static_cast<std::size_t>(info.size * 8),
                                                       bits_samples_per_thread, most_cpu_threads)
                                         : threads_for(static_cast<std::size_t>(info.size),
                                                       raw_bytes_per_thread, most_cpu_threads);
            if (threads > 1 && file_resident(fd.get(), info.size, resident_percent)) {
                if (std::optional<result<pnm_header>> r = load_into_in_file_slices(
                        fd.get(), info.size, threads, path, dst, row_stride, limits)) {
                    return std::move(*r);
                }
            }
        }
    }
    const int raw_fd = fd.get();
    const std::size_t chunk =
        info.size >= raw_bits_from ? std::size_t{16} << 10 : read_source::default_chunk_size;
    read_source source(std::move(fd), path, chunk, info.size);
    decoder_cursor cur{source_ref(source)};
    result<pnm_header> r =
        try_load_into_cursor(cur, source_ref(source), path.string(), dst, row_stride, limits);
    std::optional<fastread::error> failure;
    if (!r) {
        failure = r.error();
    } else if (r->plain) {
        return r;
    }
    if (std::optional<fastread::error> shrank =
            shrink_error(raw_fd, info.size, source.consumed(), failure, path)) {
        return std::move(*shrank);
    }
    return r;
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_INTO_HPP
