#ifndef FASTREAD_PPM_HPP
#define FASTREAD_PPM_HPP

/// @file
/// `fastread::ppm`: decode and encode PPM images, plain (P3, ASCII) and raw (P6, binary),
/// 8- and 16-bit, following Netpbm's ppm(5) (https://netpbm.sourceforge.net/doc/ppm.html),
/// with libnetpbm deciding where the spec is silent.
///
/// Rules the decoder applies:
/// - Header: magic `P3` or `P6`; then width, height and maxval as unsigned decimal numbers
///   separated by whitespace (space, TAB, CR, LF, VT, FF). Width and height 1..4294967295;
///   maxval 1..65535. No sign characters. As in libnetpbm, the width may follow the magic
///   directly (`P62 2 255`).
/// - Comments run from `#` to the next CR or LF and may appear anywhere in the header, even
///   glued to a token (`2#c\n2` is width 2, height 2; libnetpbm's `pm_getc` treats a comment
///   as its line end), and between plain samples.
/// - Raw: exactly one whitespace byte ends the header (`255\r\n` leaves `\n` as the first
///   raster byte); a comment straight after maxval is skipped and its line end is that byte
///   (libnetpbm). Samples are 1 byte when maxval < 256, else 2 bytes, most significant first.
/// - Plain: samples are decimal numbers separated by whitespace or comments; the input may
///   end right after the last sample. Whatever follows the image is not read by `load`.
/// - A sample above maxval is an error (libnetpbm >= 10.66). Samples are never rescaled:
///   maxval is reported beside them.
/// - Sizes are computed in 64 bits. A header that declares more than the input can hold is
///   rejected without allocating the image when the input size is known (memory, mmap); a
///   stream's buffer grows only as data arrives.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/atomic_file.hpp"
#include "detail/chunk_cursor.hpp"
#include "detail/file_map.hpp"
#include "detail/policy.hpp"
#include "detail/posix.hpp"
#include "error.hpp"
#include "io.hpp"
#include "ppm/detail/parse.hpp"
#include "ppm/detail/raw_copy.hpp"
#include "ppm/detail/write.hpp"
#include "sample_vector.hpp"
#include "source/byte_source.hpp"
#include "source/read_source.hpp"

namespace fastread::ppm {

/// The two PPM encodings: plain (P3, ASCII decimal samples) and raw (P6, binary samples).
enum class format { plain = 3, raw = 6 };

/// A decoded RGB image.
///
/// @tparam Sample `std::uint8_t` (maxval <= 255) or `std::uint16_t` (any maxval).
template <class Sample>
struct image {
    static_assert(std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t>,
                  "fastread::ppm::image samples are std::uint8_t or std::uint16_t");

    std::uint32_t width = 0;  ///< pixels per row
    std::uint32_t height = 0; ///< rows
    std::uint16_t maxval = 0; ///< 1..65535, as stored in the file: the value of full intensity
    /// width * height * 3 samples: rows top to bottom, pixels left to right, each R, G, B;
    /// native byte order; every sample <= maxval.
    sample_vector<Sample> samples;

    friend bool operator==(const image&, const image&) = default;
};

/// Decodes the first image of the PPM file at `path`.
///
/// How the file is read follows `io` (fastread/io.hpp). With `io_mode::automatic` (the
/// default), a regular file in the page cache that holds at least 1 MiB (P3) or 8 MiB (P6)
/// is mapped when this host measures maps faster than reading (FASTREAD_IO overrides):
/// a plain raster is then parsed in place, on one thread per CPU from 8 MiB, and a raw one
/// copied with streaming stores. A cached plain file of 4 MiB or more that is not mapped
/// (`io_mode::read`, or a host where reading is cheaper) is cut into slices of at least
/// 2 MiB, one per CPU (at most 8), each read with `pread(2)` through its own 256 KiB buffer
/// and parsed on its own thread; from 32 MiB, in automatic mode, each slice also maps the
/// 2 MiB windows of the file that it measures cheaper mapped (as lines(path) does:
/// detail::window_io). The header must then lie in the first 64 KiB, else the file is
/// streamed. Everything else (cold or small files, pipes, FIFOs, `/proc` files, and any
/// file that cannot be mapped) is streamed with `read(2)`: a plain raster chunk by chunk
/// through a 64 KiB buffer, a raw one straight into the samples. The plain raster goes
/// through the SIMD kernel of scan::active_level(). Time O(file size); memory O(image size)
/// beyond those buffers.
///
/// A file that shrinks while it is read gives a parse_error at the byte where its data now
/// ends (read: the input ended there, or the size checked after the parse is below the bytes
/// read; map: the guard saw the lost pages, or the size checked after the parse is smaller),
/// never SIGBUS.
/// @tparam Sample `std::uint8_t` (default) or `std::uint16_t` for maxval above 255.
/// @throws fastread::parse_error (naming the file and the byte offset) if the file is not a
///         valid P3 or P6 image, or if `Sample` is `std::uint8_t` and maxval exceeds 255.
/// @throws std::system_error if the file cannot be opened or read.
/// @throws std::invalid_argument if FASTREAD_IO holds something else than read, map or auto.
template <class Sample = std::uint8_t>
image<Sample> load(const std::filesystem::path& path, io_mode io = io_mode::automatic);

/// Decodes the first image from `source`, any `byte_source` (e.g. `read_source`,
/// `stdio_source` over stdin, `memory_source`). Reads up to the end of that image only.
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Sample = std::uint8_t, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source);

/// Decodes a sequence of images from one source: ppm(5) raw files may hold several images
/// back to back, and libnetpbm (`pm_nextimage`) skips whitespace between them.
///
/// ```
/// fastread::read_source source("frames.ppm");
/// fastread::ppm::reader frames(source);          // std::uint8_t samples
/// for (fastread::ppm::image<std::uint8_t> frame; frames.next(frame);) { ... }
/// ```
/// The source is borrowed and must outlive the reader.
template <class Sample, byte_source Source>
class reader {
  public:
    /// Reads nothing yet: the first next() does.
    /// @throws std::bad_alloc only (copying the source's path for messages).
    explicit reader(Source& source) : cursor_(source), name_(detail::source_name(source)) {}

    /// Decodes the next image into `out`, reusing its sample buffer.
    /// @returns true if an image was read; false when only whitespace remained (never on
    ///          the first call: an input without any image is an error).
    /// @throws fastread::parse_error if the next image is malformed or something other than
    ///         whitespace and an image follows; `out` is then left empty.
    bool next(image<Sample>& out);

    /// Input offset, in bytes, just after the last image read.
    std::uint64_t offset() const noexcept { return cursor_.offset(); }

  private:
    detail::chunk_cursor<Source> cursor_;
    std::string name_;
    bool started_ = false;
};

/// `ppm::reader frames(source)` reads 8-bit samples (std::uint8_t); name the sample type,
/// `ppm::reader<std::uint16_t, Source>`, for 16-bit ones. Deduction throws nothing.
template <byte_source Source>
reader(Source&) -> reader<std::uint8_t, Source>;

/// Writes `img` to `path` as P3 (`format::plain`, lines of at most 70 characters, each row
/// starting a new line) or P6 (`format::raw`, 2-byte big-endian samples when maxval > 255).
///
/// Atomic: writes a temporary file in the same directory, `fsync`s it and renames it over
/// `path`, so readers never see a partial image and a failure leaves `path` untouched.
/// What `path` already names: a symbolic link is followed (the file it names is replaced);
/// a regular file keeps its permission bits, owner and group (as far as the caller may set
/// them); a file with other hard links, a directory, FIFO, socket or device is refused
/// before anything is written (README, "Guarantees").
/// @throws std::invalid_argument if `img` is inconsistent (a dimension 0, maxval 0 or above
///         255 for 8-bit samples, `samples.size() != width * height * 3`, a sample above
///         maxval); nothing is written then.
/// @throws std::system_error naming `path` if the file cannot be created, written or
///         renamed, or is refused: EMLINK (other hard links), EISDIR, EINVAL (not a regular
///         file), ELOOP (a symbolic link loop).
template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt = format::raw);

// ---------------------------------------------------------------------------------------
// Implementation

} // namespace fastread::ppm

namespace fastread::detail {

/// Decodes the first image of `source`; `name` labels errors. `plain`, when given, is set
/// to whether the header said P3.
template <class Sample, class Source>
ppm::image<Sample> load_first_ppm(Source& source, const std::string& name, bool* plain = nullptr) {
    chunk_cursor<Source> cursor(source);
    ppm_header header;
    ppm::image<Sample> img;
    if (plain != nullptr) {
        *plain = false;
    }
    ppm_error err = read_ppm(cursor, header, img.samples, true);
    if (plain != nullptr) {
        *plain = header.plain;
    }
    if (err) {
        throw parse_error(err.offset, ppm_error_message(err), name);
    }
    img.width = header.width;
    img.height = header.height;
    img.maxval = header.maxval;
    return img;
}

/// The error to report instead of `failure` (or instead of success) when the regular file
/// open on `fd`, which had `size_at_open` bytes, now ends before `reached`, the bytes the
/// parse read from it: it shrank during the call, so what was read may hold zeros where its
/// data was (a map's guard, or a read(2) racing the truncation) and the error is where the
/// data now ends. A parse that failed before that byte keeps its own error.
inline std::optional<parse_error> shrink_error(int fd, std::uint64_t size_at_open,
                                               std::uint64_t reached,
                                               const std::optional<parse_error>& failure,
                                               const std::filesystem::path& path) {
    const std::uint64_t now = size_now(fd, path);
    if (now >= reached || (failure && failure->offset() < now)) {
        return std::nullopt;
    }
    return parse_error(now,
                       "the file ends here: it shrank from " + std::to_string(size_at_open) +
                           " to " + std::to_string(now) + " bytes while it was read",
                       path.string());
}

/// Decodes the first image of `source`, read from the regular file open on `fd`
/// (`size_at_open` bytes); then, if the file now ends before `reached()` (the bytes the
/// parse read from it), throws shrink_error instead of returning the image or the parse's
/// own error. A P3 image that decoded is returned without that check (see the code).
template <class Sample, class Source, class Reached>
ppm::image<Sample> load_watching_size(Source& source, int fd, std::uint64_t size_at_open,
                                      const std::filesystem::path& path, Reached reached) {
    std::optional<ppm::image<Sample>> img;
    std::optional<parse_error> failure;
    bool plain = false;
    try {
        img = load_first_ppm<Sample>(source, path.string(), &plain);
    } catch (const parse_error& e) {
        failure = e;
    }
    if (img && plain) {
        // A plain image decoded: a byte lost to a shrink reads as 0, which is neither a
        // digit nor whitespace (and ends no comment), so a parse that read one cannot have
        // completed; the samples are the file's. No fstat needed: a system call is a sixth
        // of the time of a 30 KB P3 on some hosts.
        return std::move(*img);
    }
    if (std::optional<parse_error> shrank =
            shrink_error(fd, size_at_open, reached(), failure, path)) {
        throw *shrank;
    }
    if (failure) {
        throw *failure;
    }
    return std::move(*img);
}

/// Decodes the first image of a guarded map of the file open on `fd`: the pages past a
/// shrink read as zeros, so any lost page counts as a shrink.
template <class Sample>
ppm::image<Sample> load_mapped_ppm(int fd, const file_map& map, const std::filesystem::path& path) {
    memory_source source(map.bytes());
    ppm::image<Sample> img =
        load_watching_size<Sample>(source, fd, map.size(), path, [&]() -> std::uint64_t {
            return map.lost() >= 0 ? UINT64_MAX : map.size();
        });
    // Tearing down a big map is a serial cost munmap would add; share it.
    map.drop_entries(threads_for(map.size(), plain_bytes_per_thread, max_threads));
    return img;
}

/// Decodes the first image of the regular file open on `fd` (`size_at_open` bytes) with
/// read(2) through chunks of `chunk` bytes; read(2) racing a truncation can return zeros
/// for the lost bytes, so a shrink below the bytes read counts too.
template <class Sample>
ppm::image<Sample> load_read_ppm(unique_fd fd, std::uint64_t size_at_open, std::size_t chunk,
                                 const std::filesystem::path& path) {
    const int raw = fd.get();
    read_source source(std::move(fd), path, chunk, size_at_open);
    return load_watching_size<Sample>(source, raw, size_at_open, path,
                                      [&] { return source.consumed(); });
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
    const std::size_t got = pread_full(fd, window, static_cast<std::size_t>(hi - lo), lo, path);
    if (got <= guess - lo) {
        return std::nullopt;
    }
    const char* at = plain_split_point(window, window + (guess - lo), window + got);
    if (at == nullptr) {
        return std::nullopt;
    }
    const std::uint64_t cut = lo + static_cast<std::uint64_t>(at - window);
    return cut > previous ? std::optional<std::uint64_t>(cut) : std::nullopt;
}

/// Decodes the plain (P3) image of the regular file open on `fd` (`size` bytes, in the page
/// cache) on `threads` threads without holding it in memory: the raster is cut into slices
/// as parse_plain_in_slices cuts a map, and each thread reads its slice with pread(2) in
/// scan_read_block chunks into its own buffer and scans them (scan_plain_slices).
/// So reading costs a copy into a buffer the cache holds, not a map's page-table set-up,
/// and the parse runs on every thread. With `adaptive` (automatic mode, files of
/// adaptive_from bytes or more: the host's io_costs, or a test's), each slice decides
/// window by window (window_io, starting from those costs) whether to read or to scan one
/// guarded map of the file shared by the slices, timing each chunk's read or map and its
/// scan together, as lines(path) does: a file held in large folios maps cheaper than it
/// reads on some hosts. Returns nothing, having decoded nothing, when the
/// header is not within the first 64 KiB, the image is not plain, the raster cannot hold
/// the samples declared, or no cut is found: the caller then streams the file.
///
/// A file that shrinks during the call: a slice whose read ends early stops there (the last
/// one ends the raster there); read(2) racing the truncation may return zeros, so a size now
/// below the furthest byte read, or any early end but in the last slice, is a shrink_error.
template <class Sample>
std::optional<ppm::image<Sample>>
load_plain_in_file_slices(int fd, std::uint64_t size, unsigned threads, const io_costs* adaptive,
                          const std::filesystem::path& path) {
    constexpr std::size_t head_bytes = std::size_t{64} << 10;
    std::unique_ptr<char[]> head(new char[head_bytes]);
    const std::size_t head_got =
        pread_full(fd, head.get(),
                   static_cast<std::size_t>(std::min<std::uint64_t>(size, head_bytes)), 0, path);
    memory_source head_source(std::span<const char>(head.get(), head_got));
    chunk_cursor<memory_source> cursor(head_source);
    ppm_header h;
    if (parse_ppm_header(cursor, sizeof(Sample), h) || !h.plain || h.raster_offset >= size ||
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
    const file_map map = adaptive != nullptr ? guarded_map(fd, size) : file_map();
    std::vector<std::uint64_t> reached(threads, 0);
    std::vector<unsigned char> ended_early(threads, 0);
    ppm::image<Sample> img;
    ppm_error err;
    scan_plain_slices(
        h, slice_bytes, size, img.samples, err,
        [&](unsigned t, p3_scanner& scanner, Sample*& o, Sample* o_end, ppm_error& e) {
            const bool last = t + 1 == threads;
            const std::uint64_t to = last ? size : cuts[t + 1] + 1;
            std::unique_ptr<char[]> buffer(new char[scan_read_block]);
            std::optional<window_io> windows;
            if (map) {
                windows.emplace(*adaptive, cuts[t] / window_bytes);
            }
            std::uint64_t pos = cuts[t];
            std::uint64_t mapped_from = to, mapped_to = 0; // what this slice scanned mapped
            p3_scanner::status st = p3_scanner::status::need_input;
            while (pos < to && st == p3_scanner::status::need_input) {
                if (windows) {
                    const std::uint64_t index = pos / window_bytes;
                    const std::uint64_t window_end = std::min(to, (index + 1) * window_bytes);
                    const window_io::use use = windows->next(index, pos % window_bytes == 0);
                    if (use != window_io::use::read) {
                        // Where the file ends now: a mapped page past it would read as
                        // zeros (the guard), so a shrink ends the slice here, as a short
                        // read does.
                        const std::uint64_t now = stat_fd(fd, path).size;
                        const std::uint64_t end = std::min(window_end, std::max(pos, now));
                        if (end == pos) {
                            ended_early[t] = 1;
                            break;
                        }
                        // Timed end to end, the scan included (window_io).
                        const auto t0 = std::chrono::steady_clock::now();
                        const char* p = map.data() + pos;
                        st = scanner.scan(p, map.data() + end, end, o, o_end, kernel, e);
                        const double ns = std::chrono::duration<double, std::nano>(
                                              std::chrono::steady_clock::now() - t0)
                                              .count();
                        windows->done(use, index, static_cast<std::size_t>(end - pos), ns);
                        mapped_from = std::min(mapped_from, pos);
                        mapped_to = end;
                        pos = end;
                        if (end < window_end) {
                            ended_early[t] = 1; // the file ends here now
                            break;
                        }
                        continue;
                    }
                }
                std::uint64_t until = to;
                if (windows) {
                    until = std::min(to, (pos / window_bytes + 1) * window_bytes);
                }
                const auto want =
                    static_cast<std::size_t>(std::min<std::uint64_t>(scan_read_block, until - pos));
                const auto t0 = std::chrono::steady_clock::now();
                const std::size_t got = pread_full(fd, buffer.get(), want, pos, path);
                const char* p = buffer.get();
                st = scanner.scan(p, p + got, pos + got, o, o_end, kernel, e);
                if (windows) {
                    windows->read_done(got, std::chrono::duration<double, std::nano>(
                                                std::chrono::steady_clock::now() - t0)
                                                .count());
                }
                pos += got;
                if (got < want) {
                    ended_early[t] = 1; // the file ends here now
                    break;
                }
            }
            reached[t] = pos;
            if (mapped_to > mapped_from) {
                // The page-table entries this slice made, removed on this thread: munmap
                // then has little left to tear down on one (see load_mapped_ppm).
                const std::uint64_t from = mapped_from / page_size() * page_size();
                (void)::madvise(map.data() + from, static_cast<std::size_t>(mapped_to - from),
                                MADV_DONTNEED);
            }
            if (st == p3_scanner::status::need_input && last) {
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
    if (map && map.lost() >= 0) {
        furthest = UINT64_MAX; // a mapped page past the file's new end read as zeros
    }
    std::optional<parse_error> failure;
    if (err) {
        failure.emplace(err.offset, ppm_error_message(err), path.string());
    }
    if (std::optional<parse_error> shrank = shrink_error(fd, size, furthest, failure, path)) {
        throw *shrank;
    }
    if (failure) {
        throw *failure;
    }
    img.width = h.width;
    img.height = h.height;
    img.maxval = h.maxval;
    return img;
}

} // namespace fastread::detail

namespace fastread::ppm {

template <class Sample>
image<Sample> load(const std::filesystem::path& path, io_mode io) {
    // Open once, then pick the source: a FIFO must not be opened twice, and a /proc file
    // (size 0 to fstat) must be streamed. A cold file is streamed with read(2), which
    // overlaps parsing with the kernel's read-ahead where a map waits on page faults; a
    // small one costs less to copy than to map (docs/performance.md, "ppm::load").
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    const fastread::detail::file_info info = fastread::detail::stat_fd(fd.get(), path);
    std::size_t chunk = read_source::default_chunk_size;
    if (info.regular && info.size > 0) {
        // Below map_threshold neither the map nor the chunk size depends on the format: no
        // pread of the magic (a system call can cost a sixth of a small P3's load).
        if (info.size >= fastread::detail::map_threshold ||
            fastread::detail::effective_io_mode(io) == io_mode::map) {
            char magic[2] = {0, 0};
            const bool plain =
                ::pread(fd.get(), magic, 2, 0) == 2 && magic[0] == 'P' && magic[1] == '3';
            const std::uint64_t map_from =
                plain ? fastread::detail::map_threshold : fastread::detail::raw_map_threshold;
            if (fastread::detail::map_wanted(io, fd.get(), info.size, map_from)) {
                fastread::detail::file_map map = fastread::detail::guarded_map(fd.get(), info.size);
                if (map) {
                    return fastread::detail::load_mapped_ppm<Sample>(fd.get(), map, path);
                }
            }
            if (plain) {
                // Cached and not mapped: each thread reads and parses a slice of the raster.
                const unsigned threads = fastread::detail::threads_for(
                    static_cast<std::size_t>(info.size),
                    fastread::detail::plain_file_bytes_per_thread, fastread::detail::max_threads);
                if (threads > 1 && fastread::detail::file_resident(
                                       fd.get(), info.size, fastread::detail::resident_percent)) {
                    if (std::optional<image<Sample>> img =
                            fastread::detail::load_plain_in_file_slices<Sample>(
                                fd.get(), info.size, threads,
                                fastread::detail::effective_io_mode(io) == io_mode::automatic &&
                                        info.size >= fastread::detail::adaptive_from
                                    ? &host_io_costs()
                                    : nullptr,
                                path)) {
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
        return fastread::detail::load_read_ppm<Sample>(std::move(fd), info.size, chunk, path);
    }
    read_source source(std::move(fd), path, chunk);
    return fastread::detail::load_first_ppm<Sample>(source, path.string());
}

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source) {
    return fastread::detail::load_first_ppm<Sample>(source, fastread::detail::source_name(source));
}

template <class Sample, byte_source Source>
bool reader<Sample, Source>::next(image<Sample>& out) {
    if (started_) {
        int c = cursor_.peek();
        while (c >= 0 && fastread::detail::is_ppm_space(static_cast<unsigned>(c))) {
            ++cursor_.pos;
            c = cursor_.peek();
        }
        if (c < 0) {
            return false;
        }
    }
    started_ = true;
    fastread::detail::ppm_header header;
    fastread::detail::ppm_error err = fastread::detail::read_ppm(cursor_, header, out.samples);
    if (err) {
        out = image<Sample>{};
        throw parse_error(err.offset, fastread::detail::ppm_error_message(err), name_);
    }
    out.width = header.width;
    out.height = header.height;
    out.maxval = header.maxval;
    return true;
}

template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    fastread::detail::check_ppm_image(img.width, img.height, img.maxval, img.samples.data(),
                                      img.samples.size());
    fastread::detail::atomic_file file(path);
    fastread::detail::encode_ppm(img.width, img.height, img.maxval, img.samples.data(),
                                 img.samples.size(), fmt == format::plain,
                                 [&](const char* data, std::size_t n) { file.write(data, n); });
    file.commit();
}

} // namespace fastread::ppm

#endif // FASTREAD_PPM_HPP
