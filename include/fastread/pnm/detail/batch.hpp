#ifndef FASTREAD_PNM_DETAIL_BATCH_HPP
#define FASTREAD_PNM_DETAIL_BATCH_HPP

// pnm::load_batch and pnm::probe_batch: many small files, each opened, read whole with as
// few system calls as its size allows (no fstat: one read(2) sized for the batch's shape),
// decoded and closed, the files shared among threads. For files of a few KiB the system calls
// and the allocations are the whole cost of a load: a batch makes none per file but the
// open, the read and the close, and runs them on every CPU.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../../detail/parallel.hpp"
#include "../../detail/policy.hpp"
#include "../../detail/posix.hpp"
#include "../../detail/rw.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../error.hpp"
#include "../image.hpp"
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

/// Loads the file at `path` into `slot` (shape.samples samples) if it is a Netpbm image of
/// the batch's `shape` within `limits`: read with one read(2) when `bytes` holds it (a first
/// read of its capacity; more only while the header or the raster is incomplete), decoded
/// whole before anything reaches `slot`, so a failure leaves the slot untouched.
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
    bool ended = false;
    // Reads once more into the free room (doubled when full: what arrived justifies it).
    auto read_more = [&]() -> bool {
        if (have == bytes.size()) {
            bytes.resize(bytes.size() * 2);
        }
        const std::size_t got =
            read_some(fd.get(), bytes.data() + have, bytes.size() - have, path, err);
        have += got;
        ended = got == 0;
        return !err.code();
    };
    if (!read_more()) {
        return err;
    }
    pnm_header h;
    for (;;) {
        memory_source head(std::span<const char>(bytes.data(), have));
        decoder_cursor cur{source_ref(head)};
        h = pnm_header{};
        if (pnm_error e = parse_pnm_header(cur, sizeof(Sample), h, true, limits)) {
            if (e.code == pnm_errc::truncated_header && !ended) {
                if (!read_more()) {
                    return err;
                }
                continue;
            }
            e.any_format = true;
            return pnm_failure(e, nullptr, path.string());
        }
        if (h.width != shape.width || h.height != shape.height || h.depth != shape.depth) {
            return parse_error_value(
                0,
                "a " + std::to_string(h.width) + "x" + std::to_string(h.height) + "x" +
                    std::to_string(h.depth) + " image in a batch of " +
                    std::to_string(shape.width) + "x" + std::to_string(shape.height) + "x" +
                    std::to_string(shape.depth) + " images (width x height x depth)",
                path.string(), errc::shape_mismatch);
        }
        break;
    }
    // The rest of the raster: all of a raw one, a plain one to the end of the file.
    const std::uint64_t raster_end = h.raster_offset + raster_bytes_of(h);
    while (!ended && (h.plain || have < raster_end)) {
        if (!read_more()) {
            return err;
        }
    }
    fd.reset();
    memory_source whole(std::span<const char>(bytes.data(), have));
    decoder_cursor cur{source_ref(whole)};
    pnm_header again;
    parse_pnm_header(cur, sizeof(Sample), again, true, limits); // parsed above: no error
    const auto count = static_cast<std::size_t>(h.samples);
    if (!h.plain && sizeof(Sample) == 1 && h.sample_bytes() == 1 && h.maxval == 255 &&
        h.magic != '4' && have >= raster_end) {
        std::memcpy(slot, bytes.data() + h.raster_offset, count); // stored as the file holds it
        return h;
    }
    buffers.samples.resize(count);
    if (pnm_error e = decode_rows_into(cur, h, buffers.samples.data(),
                                       std::size_t{h.width} * h.depth, true)) {
        return pnm_failure(e, nullptr, path.string());
    }
    std::memcpy(slot, buffers.samples.data(), count * sizeof(Sample));
    return h;
}

/// pnm::load_batch: the batch's shape from the first file whose header reads, the buffer
/// checked, then the files on the threads.
template <class Sample>
result<std::vector<result<pnm::header>>>
try_load_batch_files(std::span<const std::filesystem::path> paths, std::span<Sample> dst,
                     const load_options& options) {
    if (options.threads == 0) {
        if (error e = thread_setting_error(); e.code()) {
            return e;
        }
    }
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
            batch_buffers<Sample> buffers;
            buffers.bytes.resize(first_read);
            for (std::size_t i = first + from; i < first + to; ++i) {
                result<pnm_header> r = load_batch_file(
                    paths[i], *shape, dst.data() + i * static_cast<std::size_t>(per_image), buffers,
                    limits);
                each[i].emplace(r ? result<pnm::header>(public_header(*r))
                                  : result<pnm::header>(r.error()));
            }
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
