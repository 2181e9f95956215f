#ifndef FASTREAD_IO_HPP
#define FASTREAD_IO_HPP

/// @file
/// How fastread's default entry points reach the bytes of a regular file: reading them
/// (`read(2)` / `pread(2)` into a reused buffer, or straight into the destination) or
/// mapping them (`mmap`). Which is faster depends on the host, not on the program: on one
/// virtual machine a cached sequential pass through a map ran 2x faster than reading, on
/// another (a paravirtualised guest where page-table updates are expensive) 3-5x slower
/// (docs/performance.md, "Reading or mapping"). So the choice is measured once per process
/// (io_costs) and decided by choose_io(); a user overrides it per call (`io_mode`) or per
/// process with the environment variable `FASTREAD_IO=read|map|auto`.
///
/// The entry points that ask: `lines(path)`, `ppm::load(path)`, `files_equal` with
/// `compare_method::automatic`, `read_at` / `update_at` with `access_method::automatic`.
/// Whatever they choose, a file that shrinks while they read it never kills the process
/// with SIGBUS (see each entry point). The explicit sources and methods (`mmap_source`,
/// `read_source`, `compare_method::mmap`, `access_method::pread`, …) always do what their
/// name says.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "detail/file_map.hpp"
#include "detail/policy.hpp"
#include "detail/posix.hpp"
#include "detail/residency.hpp"

namespace fastread {

/// How a default entry point reads a regular file.
enum class io_mode {
    /// Decided for this host: the environment variable `FASTREAD_IO` if set, else
    /// choose_io(host_io_costs()) for files that are in the page cache and big enough for
    /// the choice to matter; `read` for the others (cold files stream with the kernel's
    /// read-ahead, where a map waits on page faults).
    automatic,
    /// `read(2)` / `pread(2)`: never faults, works on every kind of file.
    read,
    /// A read-only `mmap`, guarded so that a file that shrinks gives an error instead of
    /// SIGBUS; falls back to `read` where the file cannot be mapped (pipes, sysfs, an
    /// address-space limit) or no guard can be set.
    map,
};

/// "automatic", "read" or "map".
constexpr std::string_view to_string(io_mode m) noexcept {
    switch (m) {
    case io_mode::automatic:
        return "automatic";
    case io_mode::read:
        return "read";
    case io_mode::map:
        return "map";
    }
    return "?";
}

/// What reaching bytes in the page cache costs on this host, in nanoseconds per byte, as
/// measure_io_costs() found it.
struct io_costs {
    /// `pread(2)` of 64 KiB blocks into one reused buffer, touching each 64-byte line.
    double read_ns_per_byte = 0;
    /// `mmap` of the same bytes, touching each 64-byte line, `munmap`.
    double map_ns_per_byte = 0;
    /// One `pread(2)` of 64 bytes: what a system call costs beyond its copy, in ns.
    double call_ns = 0;
    /// What one minor page fault of a fresh map costs, in ns: the map's whole time (mmap,
    /// touching, munmap) over the faults it took, so an upper bound. 0 where the system does
    /// not count a thread's faults (detail::thread_minor_faults).
    double fault_ns = 0;
    /// false when the measurement could not be made (no memfd, no map): then read.
    bool measured = false;
};

/// A map must cost less than reading by this factor before default paths map: when the two
/// are close, reading wins the tie, since it never faults and needs no SIGBUS guard.
inline constexpr double map_margin = 1.25;

/// The decision every default path applies to cached files: `io_mode::map` iff `costs`
/// were measured and `costs.map_ns_per_byte * map_margin < costs.read_ns_per_byte`, else
/// `io_mode::read` (including ties, failed measurements and non-finite figures).
/// Never returns `automatic`.
constexpr io_mode choose_io(const io_costs& costs) noexcept {
    const double r = costs.read_ns_per_byte, m = costs.map_ns_per_byte;
    const bool usable = costs.measured && r > 0 && m > 0 &&
                        r < std::numeric_limits<double>::infinity() &&
                        m < std::numeric_limits<double>::infinity();
    return usable && m * map_margin < r ? io_mode::map : io_mode::read;
}

/// Whether mapping `bytes` of a file that a probe found to cost `faults` minor page faults
/// (a fresh map of them, touched) pays against reading them: iff `costs` were measured with
/// a fault cost and `faults * fault_ns * map_margin < bytes * read_ns_per_byte`. This is how
/// the default paths learn the folio size a file sits in (which the host's calibration
/// cannot know): a 2 MiB window of a file that read-ahead brought in as 2 MiB folios maps
/// with one fault, the same window of small folios with 32 (the kernel maps 64 KiB around
/// each fault) or 512, and one fault cost 3-7 us on the KVM host where copying 2 MiB out of
/// the page cache cost 90 ("Reading or mapping"). False for unknown faults (-1).
constexpr bool map_pays(std::uint64_t bytes, std::int64_t faults, const io_costs& costs) noexcept {
    return costs.measured && faults >= 0 && costs.fault_ns > 0 && costs.read_ns_per_byte > 0 &&
           static_cast<double>(faults) * costs.fault_ns * map_margin <
               static_cast<double>(bytes) * costs.read_ns_per_byte;
}

/// Measures io_costs now: a 256 KiB `memfd` (memory-backed, so always "cached") is read
/// with `pread` and mapped (counting the thread's page faults), in turn, up to four rounds
/// (two when the first two already differ by 2x), and read 64 bytes at a time with 64
/// `pread`s; the fastest round of each counts: a few hundred microseconds at most (1 MiB read and
/// mapped in all, plus 256 small reads). `measured` is false if memfd_create, ftruncate, the writes
/// or mmap fail. Never throws.
io_costs measure_io_costs() noexcept;

/// io_costs measured once per process (on first use, thread-safe) and kept.
const io_costs& host_io_costs() noexcept;

/// Parses a `FASTREAD_IO` value: "read", "map", "auto" (or "automatic").
/// @throws std::invalid_argument naming the variable and the value otherwise.
io_mode parse_io_mode(std::string_view value);

/// The mode `FASTREAD_IO` asks for (read at each call), or `std::nullopt` when it is unset
/// or empty. @throws std::invalid_argument if it is set to something else than
/// parse_io_mode accepts.
std::optional<io_mode> io_mode_from_environment();

// ---------------------------------------------------------------------------------------
// Implementation

inline io_costs measure_io_costs() noexcept {
    constexpr std::size_t bytes = std::size_t{256} << 10, block = std::size_t{64} << 10;
    io_costs costs;
    detail::unique_fd fd = detail::open_anonymous_file("fastread-io-costs");
    if (!fd) {
        return costs;
    }
    std::unique_ptr<char[]> buffer(new (std::nothrow) char[block]);
    if (!buffer || detail::resize_file(fd.get(), bytes) != 0) {
        return costs;
    }
    std::memset(buffer.get(), 'x', block);
    for (std::size_t at = 0; at < bytes; at += block) {
        if (detail::sys::pwrite(fd.get(), buffer.get(), block,
                                static_cast<detail::sys::offset_t>(at)) !=
            static_cast<ssize_t>(block)) {
            return costs;
        }
    }
    // What both paths do to every byte: bring its cache line in (a parser reads them all).
    auto touch = [](const char* p, std::size_t n) noexcept {
        unsigned sum = 0;
        for (std::size_t i = 0; i < n; i += 64) {
            sum += static_cast<unsigned char>(p[i]);
        }
        return sum;
    };
    using clock = std::chrono::steady_clock;
    volatile unsigned sink = 0;
    double best_read = std::numeric_limits<double>::infinity();
    double best_map = best_read, best_call = best_read;
    std::int64_t best_map_faults = -1; // the faults of the fastest map
    for (int round = 0; round < 4; ++round) {
        auto t0 = clock::now();
        for (std::size_t at = 0; at < bytes; at += block) {
            if (detail::sys::pread(fd.get(), buffer.get(), block,
                                   static_cast<detail::sys::offset_t>(at)) !=
                static_cast<ssize_t>(block)) {
                return costs;
            }
            sink = sink + touch(buffer.get(), block);
        }
        auto t1 = clock::now();
        const std::int64_t faults_before = detail::thread_minor_faults();
        int err = 0;
        {
            const detail::file_map map =
                detail::file_map::try_map(fd.get(), bytes, detail::file_map::access::read_only,
                                          detail::file_map::sharing::shared, err);
            if (err != 0) {
                return costs;
            }
            sink = sink + touch(map.data(), bytes);
        }
        auto t2 = clock::now();
        const std::int64_t faults_after = detail::thread_minor_faults();
        for (std::size_t at = 0; at < 64 * 4096; at += 4096) {
            if (detail::sys::pread(fd.get(), buffer.get(), 64,
                                   static_cast<detail::sys::offset_t>(at)) != 64) {
                return costs;
            }
        }
        auto t3 = clock::now();
        best_read = std::min(best_read, std::chrono::duration<double, std::nano>(t1 - t0).count());
        const double map_ns = std::chrono::duration<double, std::nano>(t2 - t1).count();
        if (map_ns < best_map) {
            best_map = map_ns;
            best_map_faults =
                faults_before >= 0 && faults_after >= 0 ? faults_after - faults_before : -1;
        }
        best_call = std::min(best_call, std::chrono::duration<double, std::nano>(t3 - t2).count());
        if (round >= 1 && (best_map * 2 < best_read || best_read * 2 < best_map)) {
            break;
        }
    }
    costs.read_ns_per_byte = best_read / static_cast<double>(bytes);
    costs.map_ns_per_byte = best_map / static_cast<double>(bytes);
    costs.call_ns = best_call / 64;
    costs.fault_ns = best_map_faults > 0 ? best_map / static_cast<double>(best_map_faults) : 0;
    costs.measured = true;
    return costs;
}

inline const io_costs& host_io_costs() noexcept {
    static const io_costs costs = measure_io_costs();
    return costs;
}

inline io_mode parse_io_mode(std::string_view value) {
    if (value == "read") {
        return io_mode::read;
    }
    if (value == "map") {
        return io_mode::map;
    }
    if (value == "auto" || value == "automatic") {
        return io_mode::automatic;
    }
    throw std::invalid_argument("FASTREAD_IO=" + std::string(value) +
                                ": expected read, map or auto");
}

inline std::optional<io_mode> io_mode_from_environment() {
    const char* value = std::getenv("FASTREAD_IO");
    if (value == nullptr || *value == '\0') {
        return std::nullopt;
    }
    return parse_io_mode(value);
}

namespace detail {

/// The mode a default entry point uses: `requested` unless automatic, else FASTREAD_IO
/// unless unset or auto, else `automatic` (left to map_wanted's measurement).
inline io_mode effective_io_mode(io_mode requested) {
    if (requested != io_mode::automatic) {
        return requested;
    }
    return io_mode_from_environment().value_or(io_mode::automatic);
}

/// How lines(path) reaches a regular file (plan_reading()).
enum class reading_plan {
    stream,   ///< read(2) through a buffer, front to back
    map,      ///< a guarded map, handed out in windows
    adaptive, ///< window by window, mapped or read as window_io measures
};

/// What lines(path) does with the regular file of `size` bytes open on `fd`: `io_mode::map`
/// (by the call or FASTREAD_IO) maps, `read` streams; automatic streams files that are
/// empty, smaller than `map_from` or not (resident_percent) cached; adapts for cached files of
/// `adapt_from` bytes or more; maps the cached ones between if choose_io says so.
/// `costs` replaces the host's figures (tests).
inline reading_plan plan_reading(io_mode requested, int fd, std::uint64_t size,
                                 std::uint64_t map_from, std::uint64_t adapt_from,
                                 const io_costs* costs = nullptr) {
    const io_mode mode = effective_io_mode(requested);
    if (mode != io_mode::automatic) {
        return mode == io_mode::map && size > 0 ? reading_plan::map : reading_plan::stream;
    }
    if (size == 0 || size < map_from) {
        return reading_plan::stream;
    }
    // The host's figure first where it alone decides: a residency check costs a system
    // call per sample, not worth making to learn that the file is read either way.
    if (size < adapt_from &&
        choose_io(costs != nullptr ? *costs : host_io_costs()) != io_mode::map) {
        return reading_plan::stream;
    }
    if (!file_resident(fd, size, resident_percent)) {
        return reading_plan::stream;
    }
    return size >= adapt_from ? reading_plan::adaptive : reading_plan::map;
}

/// Whether a default entry point maps the regular file of `size` bytes open on `fd`: the
/// decision of plan_reading() without the adaptive plan. `io_mode::map` (asked for, by the
/// call or FASTREAD_IO) always; `read` never; automatic only for a file of at least
/// `map_from` bytes that is (resident_percent) in the page cache, and then as
/// choose_io(host_io_costs()) says. `costs` replaces the host's figures (tests).
inline bool map_wanted(io_mode requested, int fd, std::uint64_t size, std::uint64_t map_from,
                       const io_costs* costs = nullptr) {
    return plan_reading(requested, fd, size, map_from, std::numeric_limits<std::uint64_t>::max(),
                        costs) == reading_plan::map;
}

/// Window by window, whether a sequential pass over one cached file maps or reads, from
/// what the pass itself measures. The host's calibration (io_costs) sees a memfd; a file
/// maps at its own speed, which depends on how the page cache holds it: on a host where a
/// fresh map of small folios costs 5x a copy, the parts of a file that read-ahead brought
/// in as 2 MiB folios map faster than they read (docs/performance.md, "Reading or
/// mapping"), and read-ahead only reaches that size some megabytes into the file.
///
/// What is measured is the whole pass, not the I/O alone: a chunk's cost is the time from
/// the call that produced it to the call for the next one, so it includes the caller's
/// work on the chunk, and with it the faults of a fresh map (paid at first access) and the
/// cache misses of reading mapped pages rather than a buffer the copy left in cache. (An
/// I/O-only measure, mapping a window and touching each page, cost 7 % of a lines() pass
/// by itself and judged half-folio windows equal to reading where the whole pass ran
/// faster mapped; docs/performance.md.)
///
/// The pass is cut into windows of `window` bytes. It starts mapping if choose_io(prior)
/// says map, else reading, with a probe due at the pass's second window, and never before
/// the pass has measured `own_from` of its own reads (what a probe is compared with). Reading: a
/// probe maps a whole window instead (probe_done; a part of a window cannot show what the window
/// costs, as a window in one 2 MiB folio maps at once); if it cost less per byte than reading by
/// probe_margin, the pass maps from there, else the next probe waits twice as many windows as the
/// last (2, 4, 8, ... up to `most_between_probes`), so a file that never maps well pays a few
/// probes. Mapping: two windows in a row that cost more than reading send it back to reading, with
/// a probe 2 windows later (one slow window happens in any file: a few small folios). So a tie
/// reads, and one lucky probe buys at most two windows of dearer maps (a batch of records
/// measured 11 % behind pread with the margin on the way back instead).
/// The cost of reading is what this pass's reads measured (average over them), the prior's
/// figure until `own_from` (1 MiB) has been read. Costs are in nanoseconds; all figures come from
/// the caller, so tests drive it with their own.
class window_io {
  public:
    static constexpr std::size_t window = window_bytes;
    static constexpr std::uint64_t first_between_probes = 2;
    static constexpr std::uint64_t most_between_probes = 32;
    /// The longest wait between probes after probes that faulted per record (small_folios).
    static constexpr std::uint64_t most_between_small_probes = 128;
    /// A probe must cost less than reading by this factor to switch to mapping.
    static constexpr double probe_margin = 1.1;

    /// `first_window`: the index of the pass's first window (a slice of a file may start
    /// anywhere); the first probe is due at the window after it. `own_from`: how much
    /// reading (in the units of read_done: bytes, or records for a batch of records) the
    /// pass measures before its own average replaces `prior`.
    explicit window_io(const io_costs& prior, std::uint64_t first_window = 0,
                       double own_from = static_cast<double>(std::size_t{1} << 20)) noexcept
        : prior_read_(prior.measured && prior.read_ns_per_byte > 0 ? prior.read_ns_per_byte : 0),
          own_from_(own_from), next_probe_(first_window + 1),
          mapping_(choose_io(prior) == io_mode::map) {}

    /// Whether the window now due is mapped whole.
    bool mapping() const noexcept { return mapping_; }

    /// Whether window `index`, about to be read, is mapped whole instead, as a probe: not
    /// before the pass has measured `own_from` of its own reads, which a probe is compared
    /// with (the prior times the I/O alone; a slice that starts near a window's end reads
    /// little of it).
    bool probe_due(std::uint64_t index) const noexcept {
        return !mapping_ && index >= next_probe_ && read_bytes_ >= own_from_;
    }

    /// What a pass does with a window: reads it, maps it as a probe, or maps it.
    enum class use { read, probe, map };

    /// What to do with window `index`: map while mapping; a probe where one is due and
    /// `whole` (the pass starts the window here, so the probe maps all of it); else read.
    use next(std::uint64_t index, bool whole = true) const noexcept {
        if (mapping_) {
            return use::map;
        }
        return whole && probe_due(index) ? use::probe : use::read;
    }

    /// Reports what next() chose for window `index`: `units` (bytes, or records) passed
    /// over in `ns`, timed end to end (read_done, probe_done or map_done). `faults`: for
    /// passes whose units are records, the minor page faults a probe or mapped window took
    /// (thread_minor_faults; -1 when unknown): the second window in a row that lost to
    /// reading and faulted for every other record or more (small_folios) puts the next probe
    /// most_between_probes windows away, or twice as far as the last such wait, up to
    /// most_between_small_probes.
    void done(use u, std::uint64_t index, std::size_t units, double ns,
              std::int64_t faults = -1) noexcept {
        switch (u) {
        case use::read:
            read_done(units, ns);
            return;
        case use::probe:
            probe_done(index, units, ns);
            break;
        case use::map:
            map_done(index, units, ns);
            break;
        }
        if (mapping_ || !small_folios(units, faults)) {
            small_losses_ = 0;
        } else if (++small_losses_ >= 2) {
            // Mapping lost twice in a row where every record reached cost a fault: the next
            // probe waits most_between_probes windows, then twice as long each time, up to
            // most_between_small_probes. (Once is no pattern: the pages around a file's
            // header are often in small folios when the rest is not.)
            small_wait_ = small_wait_ == 0 ? most_between_probes
                                           : std::min(small_wait_ * 2, most_between_small_probes);
            next_probe_ = index + small_wait_;
        }
    }

    /// Whether a probe or mapped window of `records` records that took `faults` minor page
    /// faults (-1: unknown) faulted for every other record or more: then the page cache
    /// holds these pages in small folios (one of 2 MiB maps at its first touch, one fault a
    /// window), every record a map reaches costs a fault, and a probe that lost there will
    /// lose again as long as the folios stay small. Probes are dear in such a pass: in the
    /// index count sweep (10,000 records of a 1 GiB file, 20 a window) they made read_at
    /// 1.2x pread's time, where the same pass without probes tied it (faults, and a page
    /// table per probed window for munmap to free; KVM host, docs/performance.md "Random
    /// records"). Other windows of the file may be in 2 MiB folios, so probes go on, rarely.
    static constexpr bool small_folios(std::size_t records, std::int64_t faults) noexcept {
        return faults >= 0 && static_cast<std::uint64_t>(faults) * 2 >= records;
    }

    /// A chunk of `bytes` read and passed over in `ns`.
    void read_done(std::size_t bytes, double ns) noexcept {
        read_bytes_ += static_cast<double>(bytes);
        read_ns_ += ns;
    }

    /// The probe of window `index`: `bytes` mapped and passed over in `ns`.
    void probe_done(std::uint64_t index, std::size_t bytes, double ns) noexcept {
        const double read = read_ns_per_byte();
        if (read > 0 && bytes > 0 && ns / static_cast<double>(bytes) * probe_margin < read) {
            mapping_ = true;
            slow_maps_ = 0;
            between_probes_ = first_between_probes;
        } else {
            next_probe_ = index + between_probes_;
            between_probes_ = std::min(between_probes_ * 2, most_between_probes);
        }
    }

    /// Window `index` mapped whole: `bytes` mapped and passed over in `ns`.
    void map_done(std::uint64_t index, std::size_t bytes, double ns) noexcept {
        const double read = read_ns_per_byte();
        const bool slow = read > 0 && bytes > 0 && ns / static_cast<double>(bytes) > read;
        slow_maps_ = slow ? slow_maps_ + 1 : 0;
        if (slow_maps_ >= 2) {
            mapping_ = false;
            slow_maps_ = 0;
            next_probe_ = index + first_between_probes;
            between_probes_ = first_between_probes * 2;
        }
    }

    /// Nanoseconds per byte (or unit) reading costs: this pass's average once it read
    /// `own_from` (1 MiB), else the prior's figure (0 when unknown: then no probe switches
    /// to mapping).
    double read_ns_per_byte() const noexcept {
        return read_bytes_ >= own_from_ && read_bytes_ > 0 ? read_ns_ / read_bytes_ : prior_read_;
    }

  private:
    double prior_read_;
    double own_from_;
    double read_bytes_ = 0;
    double read_ns_ = 0;
    std::uint64_t next_probe_;
    std::uint64_t between_probes_ = first_between_probes;
    std::uint64_t small_wait_ = 0; // the last wait after probes that faulted per record
    unsigned small_losses_ = 0;    // probes or maps in a row that lost, a fault a record
    unsigned slow_maps_ = 0;
    bool mapping_;
};

/// For requests of cached bytes: two requests whose gap is at most this many bytes are read
/// as one, when copying the gap costs less than a system call (call_ns over
/// read_ns_per_byte), within [page, 256 KiB]; a page when the costs are unknown.
inline std::size_t cached_merge_gap(const io_costs& costs) noexcept {
    const std::size_t page = page_size(), most = std::size_t{256} << 10;
    if (!costs.measured || !(costs.call_ns > 0) || !(costs.read_ns_per_byte > 0)) {
        return page;
    }
    const double gap = costs.call_ns / costs.read_ns_per_byte;
    return gap >= static_cast<double>(most)   ? most
           : gap <= static_cast<double>(page) ? page
                                              : static_cast<std::size_t>(gap);
}

/// A guarded shared map (read-only unless `access` says otherwise) of the first `size`
/// bytes of `fd`, or an empty map when it cannot be made or guarded (the caller then reads
/// or writes with system calls): the fallback every default path takes where mmap fails
/// (ENODEV, ENOMEM under an address-space limit, EACCES...).
inline file_map guarded_map(int fd, std::uint64_t size,
                            file_map::access access = file_map::access::read_only) noexcept {
    int err = 0;
    file_map map = file_map::try_map(fd, size, access, file_map::sharing::shared, err);
    if (err != 0 || !map.guard()) {
        return {};
    }
    return map;
}

} // namespace detail
} // namespace fastread

#endif // FASTREAD_IO_HPP
