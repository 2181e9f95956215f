#ifndef FASTREAD_PNM_DETAIL_BATCH_HPP
#define FASTREAD_PNM_DETAIL_BATCH_HPP

// pnm::load_batch and pnm::probe_batch: many small files, each opened, read whole with as
// few system calls as its size allows (no fstat: one read(2) sized for the batch's shape),
// decoded and closed, the files shared among threads. For files of a few KiB the system calls
// and the allocations are the whole cost of a load: a batch makes none per file but the
// open, the read and the close, and runs them on every CPU.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../../detail/call_setup.hpp"
#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../error.hpp"
#include "../image.hpp"
#include "file_batch.hpp"
#include "into.hpp"
#include "rows.hpp"

namespace fastread::detail {

/// Files a thread of a batch should have at least, so that starting it pays.
inline constexpr std::size_t batch_files_per_thread = 16;

/// What a thread of a batch keeps from file to file: the file's bytes and, for images that
/// need decoding, their samples before they go to the slot.
template <class Sample>
struct batch_buffers {
    std::vector<char> bytes;
    std::vector<Sample> samples;
};

/// Decodes the file at `path`, whose first `have` bytes are at `bytes` (all of it when
/// `ended`), into `slot` (shape.samples samples) if it is a Netpbm image of the batch's
/// `shape` within `limits`: decoded whole (into `scratch` when its samples need work) before
/// anything reaches `slot`, so a failure leaves the slot untouched. Nothing when the bytes
/// end before the header or the raster does and the file may hold more (not `ended`).
template <class Sample>
std::optional<result<pnm_header>>
decode_batch_file(const std::filesystem::path& path, const pnm_header& shape, Sample* slot,
                  const char* bytes, std::size_t have, bool ended, std::vector<Sample>& scratch,
                  const pnm_limits& limits) {
    memory_source whole(std::span<const char>(bytes, have));
    decoder_cursor cur{source_ref(whole)};
    pnm_header h;
    if (pnm_error e = parse_pnm_header(cur, sizeof(Sample), h, true, limits)) {
        if (e.code == pnm_errc::truncated_header && !ended) {
            return std::nullopt;
        }
        e.any_format = true;
        return result<pnm_header>(pnm_failure(e, nullptr, path.string()));
    }
    if (h.width != shape.width || h.height != shape.height || h.depth != shape.depth) {
        return result<pnm_header>(parse_error_value(
            0,
            "a " + std::to_string(h.width) + "x" + std::to_string(h.height) + "x" +
                std::to_string(h.depth) + " image in a batch of " + std::to_string(shape.width) +
                "x" + std::to_string(shape.height) + "x" + std::to_string(shape.depth) +
                " images (width x height x depth)",
            path.string(), errc::shape_mismatch));
    }
    // All of a raw raster, or a plain one to the end of the file.
    const std::uint64_t raster_end = h.raster_offset + raster_bytes_of(h);
    if (!ended && (h.plain || have < raster_end)) {
        return std::nullopt;
    }
    const auto count = static_cast<std::size_t>(h.samples);
    if (!h.plain && sizeof(Sample) == 1 && h.maxval == 255 && h.magic != '4' &&
        have >= raster_end) {
        // Stored as the file holds it. Streaming stores: a batch's buffer is written once,
        // and is bigger than the caches.
        copy_raw_samples(slot, reinterpret_cast<const unsigned char*>(bytes) + h.raster_offset,
                         count, 1, 255, /*stream=*/true);
        return result<pnm_header>(std::move(h));
    }
    scratch.resize(count);
    if (pnm_error e =
            decode_rows_into(cur, h, scratch.data(), std::size_t{h.width} * h.depth, true)) {
        return result<pnm_header>(pnm_failure(e, nullptr, path.string()));
    }
    std::memcpy(slot, scratch.data(), count * sizeof(Sample));
    return result<pnm_header>(std::move(h));
}

/// Loads the file at `path` into `slot` as decode_batch_file does, reading it with read(2):
/// one read of the capacity of `buffers.bytes` (the batch's first file's size and a page),
/// more only while the header or the raster is incomplete (the buffer doubled when full:
/// what arrived justifies it).
template <class Sample>
result<pnm_header> load_batch_file(const std::filesystem::path& path, const pnm_header& shape,
                                   Sample* slot, batch_buffers<Sample>& buffers,
                                   const pnm_limits& limits) {
    fastread::error err;
    unique_fd fd = open_read_only(path, 0, err);
    if (!fd) {
        return err;
    }
    std::vector<char>& bytes = buffers.bytes;
    std::size_t have = 0;
    for (;;) {
        if (have == bytes.size()) {
            bytes.resize(bytes.size() * 2);
        }
        const std::size_t got =
            read_some(fd.get(), bytes.data() + have, bytes.size() - have, path, err);
        if (err.code()) {
            return err;
        }
        have += got;
        if (std::optional<result<pnm_header>> r = decode_batch_file(
                path, shape, slot, bytes.data(), have, got == 0, buffers.samples, limits)) {
            return std::move(*r);
        }
    }
}

/// The files [from, to) of a batch into their slots, with one ring for their opens, reads and
/// closes where the system gives one (file_batch_reader), else one file at a time.
template <class Sample>
void load_batch_share(std::span<const std::filesystem::path> paths, std::size_t from,
                      std::size_t to, const pnm_header& shape, Sample* dst, std::size_t first_read,
                      const pnm_limits& limits,
                      std::vector<std::optional<result<pnm::header>>>& each) {
    batch_buffers<Sample> buffers;
    buffers.bytes.resize(first_read);
    const auto per_image = static_cast<std::size_t>(shape.samples);
    auto done = [&](std::size_t i, result<pnm_header>&& r) {
        each[i].emplace(r ? result<pnm::header>(public_header(*r))
                          : result<pnm::header>(r.error()));
    };
    std::size_t i = from;
    // The ring's buffers stay within a fast cache (1 MiB): the files are read there, then
    // copied to their slots with streaming stores. Measured faster than pread(2) straight
    // into the slots for 192 KiB rasters (fastread-bench images: the kernel's copy into
    // memory not cached reads each line before writing it).
    const auto group =
        static_cast<unsigned>(std::clamp<std::size_t>((std::size_t{1} << 20) / first_read, 1, 32));
    if (to - from >= 2) {
        file_batch_reader ring(group);
        std::vector<char> room;
        std::vector<char*> buffer(group);
        std::vector<batch_read> got(group);
        if (ring.usable()) {
            room.resize(group * first_read);
            for (unsigned k = 0; k < group; ++k) {
                buffer[k] = room.data() + k * first_read;
            }
        }
        while (i < to && ring.usable()) {
            const std::size_t n = std::min<std::size_t>(group, to - i);
            if (!ring.read(paths.data() + i, buffer.data(), first_read, n, got.data())) {
                break; // the ring refused: the rest one at a time
            }
            for (std::size_t k = 0; k < n; ++k, ++i) {
                Sample* slot = dst + i * per_image;
                if (got[k].open_errno == EINVAL || got[k].read_errno == EINVAL) {
                    // A kernel without a ring's open or read into its table (before Linux
                    // 5.15): this file and the rest one at a time.
                    done(i, load_batch_file(paths[i], shape, slot, buffers, limits));
                    ring.disable();
                    continue;
                }
                if (got[k].open_errno != 0 || got[k].read_errno != 0) {
                    const bool opening = got[k].open_errno != 0;
                    done(i, result<pnm_header>(
                                os_error(opening ? got[k].open_errno : got[k].read_errno,
                                         opening ? "open" : "read", paths[i])));
                    continue;
                }
                // A file the buffer may not hold whole is read again, alone.
                std::optional<result<pnm_header>> r =
                    decode_batch_file(paths[i], shape, slot, buffer[k], got[k].got,
                                      got[k].got < first_read, buffers.samples, limits);
                done(i,
                     r ? std::move(*r) : load_batch_file(paths[i], shape, slot, buffers, limits));
            }
        }
    }
    for (; i < to; ++i) {
        done(i, load_batch_file(paths[i], shape, dst + i * per_image, buffers, limits));
    }
}

/// pnm::load_batch: the batch's shape from the first file whose header reads, the buffer
/// checked, then the files on the threads.
template <class Sample>
result<std::vector<result<pnm::header>>>
try_load_batch_files(std::span<const std::filesystem::path> paths, std::span<Sample> dst,
                     const load_options& asked) {
    const result<load_options> settled = settle_call(asked);
    if (!settled) {
        return settled.error();
    }
    const load_options& options = *settled;
    const thread_scope scope(options.threads);
    const pnm_limits limits = limits_of(options);
    std::vector<std::optional<result<pnm::header>>> each(paths.size());
    std::optional<pnm_header> shape;
    std::size_t first = 0; // the files before it were reported by their probe
    for (; first < paths.size() && !shape; ++first) {
        result<pnm_header> probed = try_probe_file(paths[first]);
        if (probed) {
            shape = std::move(*probed);
            break;
        }
        each[first].emplace(probed.error());
    }
    if (shape) {
        const std::uint64_t per_image = shape->samples;
        std::uint64_t need = 0;
        if (__builtin_mul_overflow(per_image, std::uint64_t{paths.size()}, &need) ||
            need > dst.size()) {
            return invalid_argument_value("fastread::pnm::load_batch: the buffer holds " +
                                          std::to_string(dst.size()) + " samples; " +
                                          std::to_string(paths.size()) + " images of " +
                                          std::to_string(per_image) + " samples need more");
        }
        // A first read of the first file's size and a page: a header longer than its
        // (comments) still fits most of the time.
        const std::uint64_t expected =
            shape->raster_offset + (shape->plain ? shape->samples * 4 : raster_bytes_of(*shape)) +
            4096;
        const std::size_t first_read =
            static_cast<std::size_t>(std::min<std::uint64_t>(expected, std::uint64_t{16} << 20));
        const unsigned threads =
            threads_for(paths.size() - first, batch_files_per_thread, most_cpu_threads);
        in_slices(paths.size() - first, threads, [&](unsigned, std::size_t from, std::size_t to) {
            load_batch_share(paths, first + from, first + to, *shape, dst.data(), first_read,
                             limits, each);
        });
    }
    std::vector<result<pnm::header>> out;
    out.reserve(paths.size());
    for (std::optional<result<pnm::header>>& r : each) {
        out.push_back(std::move(*r));
    }
    return out;
}

/// pnm::probe_batch: try_probe_file on each path, on the threads `threads` allows.
inline std::vector<result<pnm::header>>
probe_batch_files(std::span<const std::filesystem::path> paths, unsigned threads) {
    std::vector<std::optional<result<pnm::header>>> each(paths.size());
    const thread_scope scope(threads);
    in_slices(paths.size(), threads_for(paths.size(), batch_files_per_thread, most_cpu_threads),
              [&](unsigned, std::size_t from, std::size_t to) {
                  for (std::size_t i = from; i < to; ++i) {
                      result<pnm_header> r = try_probe_file(paths[i]);
                      each[i].emplace(r ? result<pnm::header>(public_header(*r))
                                        : result<pnm::header>(r.error()));
                  }
              });
    std::vector<result<pnm::header>> out;
    out.reserve(paths.size());
    for (std::optional<result<pnm::header>>& r : each) {
        out.push_back(std::move(*r));
    }
    return out;
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_BATCH_HPP
