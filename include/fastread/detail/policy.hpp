#ifndef FASTREAD_DETAIL_POLICY_HPP
#define FASTREAD_DETAIL_POLICY_HPP

/// @file
/// fastread's tuning constants, in one place: sizes in bytes, shares in percent. Each was
/// chosen by measurement; the figures behind them are in docs/benchmarks/, under
/// the heading each comment names. Changing one changes speed, never results (the tests drive the
/// paths on both sides of every threshold).

#include <cstddef>
#include <cstdint>

namespace fastread::detail {

// ---------------------------------------------------------------------------------------
// The page cache and the file layer ("Reading or mapping (two hosts)")

/// A file counts as cached when at least this share of the pages sampled by file_resident
/// is resident: the threads of a cached load would only wait for the few others.
inline constexpr unsigned resident_percent = 95;

/// Cached files of at least this many bytes are read on a helper thread a few blocks
/// ahead of the caller (read_ahead) by lines(path) and files_equal, where the call may use
/// two threads: the copy out of the page cache then overlaps the caller's work ("Lines").
inline constexpr std::uint64_t read_ahead_from = std::uint64_t{32} << 20;

/// The head of a file a call plans from, read once (input_file::head): the header a load
/// parses before cutting its raster into slices, the lines numbers() skips and the density
/// of numbers it reserves room for. A header or skipped lines past it leave the file to
/// the stream.
inline constexpr std::size_t plan_head_bytes = std::size_t{64} << 10;

/// Bytes per window of the file layer's maps: the file's size is checked once per window.
inline constexpr std::size_t window_bytes = std::size_t{2} << 20;

/// Cached read_at / update_at requests less than this many bytes apart are read as one:
/// copying the gap out of the page cache costs less than another system call.
inline constexpr std::size_t cached_merge_gap = std::size_t{8} << 10;

/// Bytes per read(2) where a pass reads big blocks it then scans (P3 slices read from a
/// file): one system call per 256 KiB, and the block is still in
/// the L2 cache when it is scanned.
inline constexpr std::size_t scan_read_block = std::size_t{256} << 10;

/// lines(path) over a big cached file on a machine of two CPUs or more: a helper thread
/// reads blocks of this many bytes, at most read_ahead_slots ahead of the scan ("Lines").
inline constexpr std::size_t read_ahead_block = std::size_t{1} << 20;
inline constexpr unsigned read_ahead_slots = 4;

// ---------------------------------------------------------------------------------------
// Sources and blocks ("PPM", "Compare and duplicates")

/// Chunk of read_source, stdio_source and istream_source: big enough to amortise the
/// system call, small enough to stay in L1/L2, and below glibc's mmap threshold, so that
/// the buffer comes from the heap instead of fresh pages that fault on every new source.
inline constexpr std::size_t default_chunk_bytes = std::size_t{64} << 10;

/// Block of files_equal's reads, of page_cache::preload and of string_table's write
/// buffer: 1 MiB reads one file after the other from a disk's point of view, and costs
/// two system calls per MiB from the page cache.
inline constexpr std::size_t block_bytes = std::size_t{1} << 20;

// ---------------------------------------------------------------------------------------
// Threads ("PPM", "Records at random positions")

/// Most threads one call starts for a CPU-bound job (P3 slices, cached record requests):
/// past this the memory bus, not the cores, sets the pace.
inline constexpr unsigned most_cpu_threads = 8;

/// Raw (P5, P6, P7) rasters of a cached file that is read, not mapped, are read (and
/// decoded) in slices on several threads when each slice would get at least this many
/// bytes of the file ("PPM": the copy out of the page cache is most of a raw load; a 5 MB
/// P5 took 0.184 ms on two threads against 0.158 on one, a 16 MB P6 0.73 against 1.17).
inline constexpr std::uint64_t raw_bytes_per_thread = std::uint64_t{4} << 20;

/// The same for P4, counted in samples written (8 a byte of the file): expanding bits is
/// work for the CPU, which threads repay sooner (5.2 million samples: 0.184 ms on two
/// threads against 0.211 on one).
inline constexpr std::uint64_t bits_samples_per_thread = std::uint64_t{2} << 20;

/// From this file size ppm::load(path) and pnm::load(path) read a file's magic number to
/// plan the load: a P4 file expands 8 samples a byte, so 128 KiB of it can be worth the
/// slices above; smaller files are streamed without that extra system call.
inline constexpr std::uint64_t raw_bits_from = std::uint64_t{128} << 10;

/// P3 rasters held whole in memory are cut into slices parsed on several threads when
/// each slice would get at least this many bytes.
inline constexpr std::uint64_t plain_bytes_per_thread = std::uint64_t{4} << 20;

/// P3 rasters read from a cached file in slices (load_plain_in_file_slices): at least this
/// many bytes per slice; smaller slices do not repay starting a thread.
inline constexpr std::uint64_t plain_file_bytes_per_thread = std::uint64_t{2} << 20;

/// P6 rasters at least this big (bytes written) are stored with non-temporal stores: they
/// no longer fit in the caches, and the stores would evict what the copy reads next.
inline constexpr std::size_t stream_store_threshold = std::size_t{8} << 20;

/// A raw raster whose samples need decoding (16-bit swapped, or checked against a maxval
/// below 255) from an input of known size is read through a buffer of raw_bounce_bytes,
/// small enough to stay in cache, and decoded from it, when it holds raw_bounce_from bytes
/// or more (a smaller raster stays in cache whole between its read and its decoding).
inline constexpr std::size_t raw_bounce_bytes = std::size_t{256} << 10;
inline constexpr std::uint64_t raw_bounce_from = std::uint64_t{1} << 20;

/// numbers() and columns() of a cached file read (not mapped): at least this many bytes
/// per slice read and scanned on its own thread; a file of fewer than twice as many is
/// scanned on one.
inline constexpr std::size_t number_bytes_per_thread = std::size_t{1} << 20;

/// Cached read_at / update_at: joined requests are at most this many bytes, and a call
/// splits its requests over the CPUs at cached_records_per_thread records or more a thread.
inline constexpr std::size_t cached_request_bytes = std::size_t{256} << 10;
inline constexpr std::size_t cached_records_per_thread = 4096;

/// Cold read_at / update_at with pread: threads keep requests in flight on the device,
/// cold_threads_per_group for every cold_records_per_thread records, up to
/// cold_thread_groups groups (the device, not the CPUs, sets the pace).
inline constexpr std::size_t cold_records_per_thread = 256;
inline constexpr unsigned cold_thread_groups = 16;
inline constexpr unsigned cold_threads_per_group = 4;

/// Bytes of joined record requests read per window of update_at's cached, sorted path
/// (one request more when a single request is longer).
inline constexpr std::size_t update_window_bytes = std::size_t{16} << 20;

/// Calls of one phase per thread below which the phase stays on the calling thread: a
/// thread costs about as much to start as this many cached calls.
inline constexpr std::size_t calls_per_thread = 64;

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_POLICY_HPP
