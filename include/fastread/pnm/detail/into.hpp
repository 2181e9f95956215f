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

/// pnm::probe from a path: the file opened once (input_file::open_for_start), its header read.
inline result<pnm_header> try_probe_file(const std::filesystem::path& path) {
    result<input_file> file = input_file::open_for_start(path);
    if (!file) {
        return file.error();
    }
    return try_probe_fd(file->fd(), path);
}

/// load_into for a big cached raw (P4 to P7) `file`: the header from its head, then the
/// rows cut into `threads` slices, each read with slice_reads::read
/// straight into the caller's rows when they are stored as the file holds them (8-bit
/// maxval 255, 16-bit swapped after), else through a bounce buffer per thread. Nothing,
/// having decoded nothing, where load_raw_in_file_slices would give the file to the stream.
template <class Sample>
std::optional<result<pnm_header>>
load_into_in_file_slices(input_file& file, unsigned threads, std::span<Sample> dst,
                         std::size_t row_stride, const pnm_limits& limits) {
    const std::uint64_t size = file.size();
    pnm_header h;
    if (!header_in_head(file, sizeof(Sample), true, h, limits) || h.plain) {
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
    slice_reads reads(file, threads);
    std::vector<std::uint64_t> bad(threads, UINT64_MAX); // each slice's first sample > maxval
    std::vector<unsigned> bad_value(threads, 0);
    Sample* const out = dst.data();
    in_slices(h.height, threads, [&](unsigned t, std::size_t first, std::size_t last) {
        std::uint64_t pos = h.raster_offset + std::uint64_t{first} * row_bytes;
        reads.start(t, pos);
        auto read_block = [&](unsigned char* into, std::size_t want) {
            const bool whole = reads.read(t, into, want, pos);
            pos = reads.reached(t);
            return whole;
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
    std::optional<fastread::error> failure;
    for (unsigned t = 0; t < threads && !failure; ++t) {
        if (bad[t] != UINT64_MAX) {
            pnm_error err = raw_sample_error(h, bad[t], sample_bytes, bad_value[t]);
            err.any_format = true;
            failure = pnm_failure(err, nullptr, file.path().string());
        }
    }
    if (std::optional<fastread::error> e = reads.settle(std::move(failure), false)) {
        return result<pnm_header>(std::move(*e));
    }
    return result<pnm_header>(std::move(h));
}

/// pnm::load_into from a path, by the route of pnm::load (read_pnm_file): mapped
/// (guarded) when `io` asks; a big cached raw file in slices on several threads; else
/// streamed with read(2). A file that shrinks meanwhile gives a shrink error, never SIGBUS.
template <class Sample>
result<pnm_header> try_load_into_file(const std::filesystem::path& path, std::span<Sample> dst,
                                      std::size_t row_stride, io_mode io,
                                      const pnm_limits& limits) {
    return read_pnm_file<pnm_header>(
        path, io, true, true,
        [&](source_ref source, bool& plain) {
            decoder_cursor cur{source};
            result<pnm_header> r =
                try_load_into_cursor(cur, source, path.string(), dst, row_stride, limits);
            plain = r && r->plain;
            return r;
        },
        [&](input_file& file, const pnm_slice_plan& plan) {
            return load_into_in_file_slices(file, plan.threads, dst, row_stride, limits);
        });
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_INTO_HPP
