// The reading-or-mapping decision (fastread/io.hpp): the decision function driven with
// injected costs (tests cannot time), FASTREAD_IO, and the per-file choice the default
// entry points make from them.

#include <fastread/io.hpp>
#include <fastread/page_cache.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "test_util.hpp"

using fastread::choose_io;
using fastread::io_costs;
using fastread::io_mode;

namespace {

io_costs costs(double read, double map, bool measured = true) {
    io_costs c;
    c.read_ns_per_byte = read;
    c.map_ns_per_byte = map;
    c.measured = measured;
    return c;
}

// Sets FASTREAD_IO for the scope (unset when `value` is null), then restores it.
class scoped_io_env {
  public:
    explicit scoped_io_env(const char* value) {
        if (const char* old = std::getenv("FASTREAD_IO")) {
            old_ = old;
        }
        set(value);
    }
    ~scoped_io_env() { set(old_ ? old_->c_str() : nullptr); }
    scoped_io_env(const scoped_io_env&) = delete;
    scoped_io_env& operator=(const scoped_io_env&) = delete;

  private:
    static void set(const char* value) { fastread_test::set_environment("FASTREAD_IO", value); }
    std::optional<std::string> old_;
};

} // namespace

TEST_CASE("choose_io maps only when maps cost less than reading by the margin", "[io]") {
    // The two hosts of docs/performance.md, as their figures order them.
    CHECK(choose_io(costs(0.09, 0.48)) == io_mode::read); // maps 5x dearer
    CHECK(choose_io(costs(0.16, 0.08)) == io_mode::map);  // maps 2x cheaper
    // Ties and near-ties keep reading: it never faults and needs no guard.
    CHECK(choose_io(costs(0.10, 0.10)) == io_mode::read);
    CHECK(choose_io(costs(0.10, 0.10 / fastread::map_margin)) == io_mode::read);
    CHECK(choose_io(costs(0.10, 0.10 / fastread::map_margin * 0.99)) == io_mode::map);
    // A calibration that failed, or figures that cannot be right, read.
    CHECK(choose_io(costs(0.16, 0.08, false)) == io_mode::read);
    CHECK(choose_io(costs(0.16, 0.0)) == io_mode::read);
    CHECK(choose_io(costs(0.0, 0.08)) == io_mode::read);
    CHECK(choose_io(costs(-1.0, -2.0)) == io_mode::read);
    CHECK(choose_io(costs(std::numeric_limits<double>::infinity(), 0.08)) == io_mode::read);
    CHECK(choose_io(costs(std::nan(""), 0.08)) == io_mode::read);
    CHECK(choose_io(costs(0.16, std::nan(""))) == io_mode::read);
    CHECK(choose_io(io_costs{}) == io_mode::read);
}

TEST_CASE("map_pays: a probe's fault count against copying the same bytes", "[io]") {
    using fastread::map_pays;
    io_costs c = costs(0.05, 0.1);
    c.fault_ns = 5000;
    const std::uint64_t bytes = std::uint64_t{4} << 20; // two 2 MiB windows, as files_equal
    // Copying costs 209,715.2 ns; a fault 5,000 ns, times the margin 1.25: 33 faults pay
    // (206,250), 34 do not (212,500).
    CHECK(map_pays(bytes, 0, c));
    CHECK(map_pays(bytes, 2, c)); // large folios: a fault or so a window
    CHECK(map_pays(bytes, 33, c));
    CHECK_FALSE(map_pays(bytes, 34, c));
    CHECK_FALSE(map_pays(bytes, 64, c)); // small folios: 64 KiB mapped around each fault
    // An exact tie reads: 40 faults of 5,000 ns at 1.25 against 250,000 ns of copying.
    c.read_ns_per_byte = 0.0625; // exact in binary, as are the products
    CHECK_FALSE(map_pays(4'000'000, 40, c));
    CHECK(map_pays(4'000'000, 39, c));
    // The other order: faults cheap against a dear copy map, at any count the bytes repay.
    c.fault_ns = 100;
    c.read_ns_per_byte = 0.5;
    CHECK(map_pays(bytes, 512, c));
    CHECK(map_pays(bytes, 16777, c));
    CHECK_FALSE(map_pays(bytes, 16778, c));
    // Unknown faults, an unmeasured host, no fault cost, no read cost: read.
    CHECK_FALSE(map_pays(bytes, -1, c));
    CHECK_FALSE(map_pays(bytes, 0, costs(0.5, 0.1, false)));
    io_costs no_fault = costs(0.5, 0.1);
    CHECK_FALSE(map_pays(bytes, 0, no_fault));
    io_costs no_read = costs(0.0, 0.1);
    no_read.fault_ns = 100;
    CHECK_FALSE(map_pays(bytes, 0, no_read));
    CHECK_FALSE(map_pays(bytes, 0, io_costs{}));
}

TEST_CASE("measure_io_costs measures both ways on this host, once per process", "[io]") {
    const io_costs c = fastread::measure_io_costs();
    REQUIRE(c.measured); // in a memfd_create file, or a tmpfile with the POSIX fallbacks
    CHECK(c.read_ns_per_byte > 0);
    CHECK(c.map_ns_per_byte > 0);
    CHECK(std::isfinite(c.read_ns_per_byte));
    CHECK(std::isfinite(c.map_ns_per_byte));
    // A fault's cost where the system counts a thread's faults (Linux), else none.
    if (fastread::detail::thread_minor_faults() >= 0) {
        CHECK(c.fault_ns > 0);
        CHECK(std::isfinite(c.fault_ns));
    } else {
        CHECK(c.fault_ns == 0);
    }
    const io_costs& host = fastread::host_io_costs();
    CHECK(&host == &fastread::host_io_costs());
    CHECK(host.measured);
}

TEST_CASE("FASTREAD_IO takes read, map or auto, and anything else is an error naming it", "[io]") {
    CHECK(fastread::parse_io_mode("read") == io_mode::read);
    CHECK(fastread::parse_io_mode("map") == io_mode::map);
    CHECK(fastread::parse_io_mode("auto") == io_mode::automatic);
    CHECK(fastread::parse_io_mode("automatic") == io_mode::automatic);
    CHECK_THROWS_WITH(fastread::parse_io_mode("mmap"),
                      "FASTREAD_IO=mmap: expected read, map or auto");
    CHECK_THROWS_AS(fastread::parse_io_mode("READ"), std::invalid_argument);
    {
        scoped_io_env env(nullptr);
        CHECK(fastread::io_mode_from_environment() == std::nullopt);
    }
    {
        scoped_io_env env("");
        CHECK(fastread::io_mode_from_environment() == std::nullopt);
    }
    {
        scoped_io_env env("map");
        CHECK(fastread::io_mode_from_environment() == io_mode::map);
    }
    {
        scoped_io_env env("sometimes");
        CHECK_THROWS_AS(fastread::io_mode_from_environment(), std::invalid_argument);
    }
}

TEST_CASE("map_wanted: the call's mode, then FASTREAD_IO, then size, residency and costs", "[io]") {
    fastread_test::temp_dir dir;
    const std::uint64_t big = std::uint64_t{2} << 20;
    const auto path = dir / "f.bin";
    fastread_test::write_file(path, std::string(big, 'z'));
    fastread::page_cache::preload(path);
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    const io_costs maps_win = costs(0.16, 0.08), reads_win = costs(0.09, 0.48);
    const io_costs failed = costs(0.16, 0.08, false);
    using fastread::detail::map_wanted;
    const std::uint64_t from = fastread::detail::map_threshold;

    scoped_io_env unset(nullptr);
    // Where the page cache cannot be asked (Windows), no file counts as cached: read.
    const bool known = fastread_test::residency_known;
    SECTION("automatic follows the costs for a big cached file") {
        CHECK(map_wanted(io_mode::automatic, fd.get(), big, from, &maps_win) == known);
        CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), big, from, &reads_win));
        CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), big, from, &failed));
    }
    SECTION("automatic reads small files whatever the costs") {
        CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), from - 1, from, &maps_win));
        CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), 0, from, &maps_win));
    }
    SECTION("automatic reads a cold file whatever the costs") {
        if (!known) {
            WARN("skipped: this system's page cache cannot be asked or told to drop a file");
            return;
        }
        if (fastread_test::on_memory_file_system(dir.path())) {
            WARN("skipped: " << dir.path() << " is on tmpfs, whose pages cannot be evicted");
            return;
        }
        fastread::page_cache::evict(path);
        if (fastread::page_cache::resident_fraction(path) > 0.5) {
            WARN("skipped: this file system ignores POSIX_FADV_DONTNEED");
            return;
        }
        CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), big, from, &maps_win));
    }
    SECTION("an explicit mode wins over the costs, and over FASTREAD_IO") {
        CHECK(map_wanted(io_mode::map, fd.get(), 10, from, &reads_win));
        CHECK_FALSE(map_wanted(io_mode::read, fd.get(), big, from, &maps_win));
        scoped_io_env env("map");
        CHECK_FALSE(map_wanted(io_mode::read, fd.get(), big, from, &maps_win));
        CHECK_FALSE(map_wanted(io_mode::map, fd.get(), 0, from, &maps_win)); // nothing to map
    }
    SECTION("FASTREAD_IO decides for automatic calls") {
        {
            scoped_io_env env("read");
            CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), big, from, &maps_win));
        }
        {
            scoped_io_env env("map");
            CHECK(map_wanted(io_mode::automatic, fd.get(), 10, from, &reads_win));
        }
        {
            scoped_io_env env("auto");
            CHECK(map_wanted(io_mode::automatic, fd.get(), big, from, &maps_win) == known);
            CHECK_FALSE(map_wanted(io_mode::automatic, fd.get(), big, from, &reads_win));
        }
        {
            scoped_io_env env("mmap");
            CHECK_THROWS_AS(map_wanted(io_mode::automatic, fd.get(), big, from, &maps_win),
                            std::invalid_argument);
        }
    }
}

TEST_CASE("plan_reading: stream, map or adapt, by mode, size, residency and costs", "[io]") {
    fastread_test::temp_dir dir;
    const std::uint64_t size = std::uint64_t{2} << 20;
    const auto path = dir / "f.txt";
    fastread_test::write_file(path, std::string(size, 'z'));
    fastread::page_cache::preload(path);
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    const io_costs maps_win = costs(0.16, 0.08), reads_win = costs(0.09, 0.48);
    using fastread::detail::plan_reading;
    using fastread::detail::reading_plan;
    const std::uint64_t from = fastread::detail::map_threshold;

    scoped_io_env unset(nullptr);
    // Where the page cache cannot be asked (Windows), no file counts as cached: it streams.
    const bool known = fastread_test::residency_known;
    // Cached files from adapt_from on adapt, whatever the host's costs say.
    CHECK(plan_reading(io_mode::automatic, fd.get(), size, from, size, &reads_win) ==
          (known ? reading_plan::adaptive : reading_plan::stream));
    CHECK(plan_reading(io_mode::automatic, fd.get(), size, from, size, &maps_win) ==
          (known ? reading_plan::adaptive : reading_plan::stream));
    // Below it, the costs decide; below map_from, or empty, the file streams.
    CHECK(plan_reading(io_mode::automatic, fd.get(), size, from, size + 1, &maps_win) ==
          (known ? reading_plan::map : reading_plan::stream));
    CHECK(plan_reading(io_mode::automatic, fd.get(), size, from, size + 1, &reads_win) ==
          reading_plan::stream);
    CHECK(plan_reading(io_mode::automatic, fd.get(), size, size + 1, size + 2, &maps_win) ==
          reading_plan::stream);
    CHECK(plan_reading(io_mode::automatic, fd.get(), 0, 0, 0, &maps_win) == reading_plan::stream);
    // An explicit mode never adapts.
    CHECK(plan_reading(io_mode::map, fd.get(), size, from, size, &reads_win) == reading_plan::map);
    CHECK(plan_reading(io_mode::read, fd.get(), size, from, size, &maps_win) ==
          reading_plan::stream);
    scoped_io_env env("read");
    CHECK(plan_reading(io_mode::automatic, fd.get(), size, from, size, &maps_win) ==
          reading_plan::stream);
}

TEST_CASE("window_io: probes while reading, maps when the file maps cheaper, backs off", "[io]") {
    using fastread::detail::window_io;
    const std::size_t window = window_io::window; // a probe maps a whole window
    const std::size_t mib = std::size_t{1} << 20;

    SECTION("a host where reading wins starts reading, with a probe at window 1") {
        window_io w(costs(0.1, 0.5));
        CHECK_FALSE(w.mapping());
        CHECK_FALSE(w.probe_due(0));        // window 0 reads: what reading costs this pass
        CHECK_FALSE(w.probe_due(1));        // not before the pass measured 1 MiB of its reads
        CHECK(w.read_ns_per_byte() == 0.1); // the prior, until 1 MiB is read
        w.read_done(mib / 2, 0.1 * static_cast<double>(mib / 2));
        CHECK_FALSE(w.probe_due(1));
        w.read_done(mib / 2, 0.1 * static_cast<double>(mib / 2));
        CHECK(w.probe_due(1));
        // A probe that costs what the host's map costs: keep reading; the next probes wait
        // 2, 4, 8, ... windows, up to most_between_probes.
        w.probe_done(1, window, 0.5 * window);
        CHECK_FALSE(w.mapping());
        CHECK_FALSE(w.probe_due(2));
        CHECK(w.probe_due(3));
        w.probe_done(3, window, 0.5 * window);
        CHECK_FALSE(w.probe_due(6));
        CHECK(w.probe_due(7));
        std::uint64_t at = 7;
        for (std::uint64_t gap : {8, 16, 32, 32, 32}) {
            w.probe_done(at, window, 0.5 * window);
            std::uint64_t next = at + 1;
            while (!w.probe_due(next)) {
                ++next;
            }
            CHECK(next - at == gap);
            at = next;
        }
        CHECK(window_io::most_between_probes == 32);
    }
    SECTION("the pass's own reads replace the prior after 1 MiB") {
        window_io w(costs(0.1, 0.5));
        w.read_done(mib / 2, 0.3 * static_cast<double>(mib / 2));
        CHECK(w.read_ns_per_byte() == 0.1);
        w.read_done(mib / 2, 0.1 * static_cast<double>(mib / 2));
        CHECK(w.read_ns_per_byte() == Approx(0.2));
        // A probe at 0.19 ns/B: cheaper than reading (0.2), but not by probe_margin (1.1).
        w.probe_done(1, window, 0.19 * window);
        CHECK_FALSE(w.mapping());
        // At 0.18 ns/B it is: the pass maps from there.
        w.probe_done(3, window, 0.18 * window);
        CHECK(w.mapping());
        CHECK_FALSE(w.probe_due(4));
    }
    SECTION("mapping: one slow window is kept, two in a row go back to reading") {
        window_io w(costs(0.5, 0.1)); // a host where maps win starts mapping
        CHECK(w.mapping());
        // As dear as reading (0.5): not slow.
        w.map_done(0, window, 0.5 * window);
        w.map_done(0, window, 0.5 * window);
        CHECK(w.mapping());
        w.map_done(0, window, 0.05 * window);
        w.map_done(1, window, 0.6 * window); // dearer than reading
        CHECK(w.mapping());
        w.map_done(2, window, 0.05 * window);
        w.map_done(3, window, 0.6 * window);
        CHECK(w.mapping());
        w.map_done(4, window, 0.6 * window);
        CHECK_FALSE(w.mapping());
        // A probe 2 windows later (once reads were measured); if it finds maps cheap,
        // mapping again.
        w.read_done(window, 0.5 * window);
        CHECK_FALSE(w.probe_due(5));
        CHECK(w.probe_due(6));
        w.probe_done(6, window, 0.1 * window);
        CHECK(w.mapping());
    }
    SECTION("records: probes that fault per record twice in a row wait 32, 64, 128 windows") {
        CHECK(window_io::small_folios(8, 4));
        CHECK(window_io::small_folios(8, 8));
        CHECK_FALSE(window_io::small_folios(8, 3));
        CHECK_FALSE(window_io::small_folios(8, -1)); // unknown
        CHECK_FALSE(window_io::small_folios(20, 1)); // one 2 MiB folio: one fault
        using use = window_io::use;
        window_io w(costs(0.1, 0.5), 0, 16); // per record; own figure from 16 records
        w.done(use::read, 0, 20, 20 * 1000.0);
        REQUIRE(w.probe_due(1));
        // A losing probe that faulted per record: once is no pattern, the usual wait (2).
        w.done(use::probe, 1, 8, 8 * 4600.0, 8);
        CHECK(w.probe_due(3));
        // Twice in a row: 32 windows.
        w.done(use::probe, 3, 8, 8 * 4600.0, 7);
        CHECK_FALSE(w.probe_due(34));
        CHECK(w.probe_due(35));
        w.done(use::probe, 35, 8, 8 * 4600.0, 8);
        CHECK_FALSE(w.probe_due(98));
        CHECK(w.probe_due(99)); // 64
        std::uint64_t at = 99;
        for (int i = 0; i < 3; ++i) {
            w.done(use::probe, at, 8, 8 * 4600.0, 8);
            CHECK_FALSE(w.probe_due(at + 127));
            CHECK(w.probe_due(at + 128)); // most_between_small_probes
            at += 128;
        }
        CHECK(window_io::most_between_small_probes == 128);
        // A losing probe with few faults (large folios, slow for another reason) breaks the
        // run: the wait doubles from the last as for any losing probe.
        w.done(use::probe, at, 20, 20 * 4600.0, 1);
        CHECK_FALSE(w.mapping());
        // A probe that wins maps, whatever it faulted.
        window_io v(costs(0.1, 0.5), 0, 16);
        v.done(use::read, 0, 20, 20 * 1000.0);
        v.done(use::probe, 1, 20, 20 * 100.0, 20);
        CHECK(v.mapping());
        // Mapping that turns slow twice with a fault per record: reading, and the second
        // such window in a row (the probe after it) waits 32.
        v.done(use::map, 2, 8, 8 * 4600.0, 8);
        v.done(use::map, 3, 8, 8 * 4600.0, 8);
        CHECK_FALSE(v.mapping());
        CHECK(v.probe_due(5));
        v.done(use::probe, 5, 8, 8 * 4600.0, 8);
        CHECK_FALSE(v.probe_due(36));
        CHECK(v.probe_due(37));
    }
    SECTION("unknown costs: reading, and no probe can switch to mapping") {
        window_io w(costs(0.1, 0.05, false));
        CHECK_FALSE(w.mapping());
        CHECK(w.read_ns_per_byte() == 0);
        w.probe_done(1, window, 0.0);
        CHECK_FALSE(w.mapping());
        w.read_done(mib, 0.1 * static_cast<double>(mib));
        w.probe_done(3, window, 0.01 * window);
        CHECK(w.mapping()); // once the pass measured its reads, the probe decides
    }
}
