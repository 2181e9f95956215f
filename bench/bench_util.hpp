#ifndef FASTREAD_BENCH_BENCH_UTIL_HPP
#define FASTREAD_BENCH_BENCH_UTIL_HPP

// The harness every fastread-bench family uses: files as table columns, strategies as rows,
// cached and cold page-cache modes, the cycles-per-byte counter and the results tables.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "progress.hpp"

namespace fastread_bench {

enum class cache_mode { cached, cold };
const char* to_string(cache_mode m);

/// What the command line asked for.
struct options {
    bool quick = false;
    bool verbose = false; // Google Benchmark's lines on standard output too
    bool full = false;    // --full: the long run docs/benchmarks.md comes from
    int repetitions = 3;  // 5 with --full
    /// Repetitions of cold rows at most (0: as many as `repetitions`): 1 in the default run
    /// (which stays within 20 minutes), where each cold iteration reads its input from the
    /// disk again; --full: as many as cached.
    int cold_repetitions = 1;
    double min_time = 0.05; // seconds per repetition (at least one iteration); --full 0.1
    bool run_cached = true;
    bool run_cold = true;
    std::vector<std::string> families;                               // empty: all
    std::map<std::string, std::vector<std::filesystem::path>> files; // --ppm FILE... per family
    std::map<std::string, std::uint64_t> values; // family options (--compare-size N ...)
    std::filesystem::path data_dir;
    std::filesystem::path out_dir;
    std::string command_line; // as typed, for the report
};

/// How cycles are counted: hardware cycles from perf_event_open where the kernel allows it,
/// else TSC reference cycles = wall time x TSC frequency.
struct cycle_source {
    bool hardware = false;
    double tsc_hz = 0;  // as Google Benchmark reports it
    std::string detail; // why hardware counters are unavailable, or which counter is used
    std::string describe() const;
};
const cycle_source& cycles();

/// The Google Benchmark name of a cell: family/row/column/mode, spaces as underscores
/// (e.g. "ppm/ppm::load/P3_big/cached").
std::string benchmark_name(const std::string& family, const std::string& row,
                           const std::string& column, cache_mode mode);

/// The lines standard output starts with: which run this is (repetitions, minimum time),
/// the host, how cycles are counted and where Google Benchmark's own output goes.
std::string run_heading(const options& o);
/// One paragraph on Google Benchmark's "Library was built as DEBUG" warning (Debian's
/// libbenchmark is built without NDEBUG): what it concerns and what it does not.
std::string debug_library_note(const options& o);

/// The compiler that built this binary, by name and version ("GCC 12.2.0").
std::string compiler_name();

/// The host every table is labelled with: CPU, CPUs, kernel, the hypervisor's CPUID
/// signature, and how the default rows reach files (they read; FASTREAD_IO=map makes them
/// map).
std::string host_description();
/// The host in one line for every table and chart: CPU model and count, kernel, hypervisor
/// (/sys/hypervisor/type, else the CPUID hypervisor leaf), cycle source and frequency,
/// compiler and flags, date.
std::string host_label();

/// One input file: a column of a family's table.
struct input {
    std::string column; // table heading, e.g. "P3 big"
    std::string group;  // columns are printed in tables per group
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    /// Other files the rows read (a second file, a tree): read once with `path` for the
    /// cached mode and evicted with it before every cold iteration.
    std::vector<std::filesystem::path> also;
    /// Items (records) one iteration handles, for families that report time per item.
    std::uint64_t items = 0;
    /// At most this many repetitions in the cold mode (0: as many as asked): for columns
    /// whose cold iterations take seconds each.
    int cold_repetitions = 0;
    /// No cold run (writes, for which evicting the output first means nothing).
    bool cached_only = false;
};

/// What a family's cells show.
enum class unit {
    cycles_per_byte,             ///< cycles per byte of input
    cycles_per_byte_and_rate,    ///< cycles per byte, and GB/s (10^9 bytes of input a second)
    seconds_per_run,             ///< seconds per run: whole programs over a tree
    time_per_item,               ///< time per run and per item (input::items), e.g. records
    cycles_per_byte_and_files,   ///< cycles per byte, and files a second (input::items files)
    cycles_per_byte_and_numbers, ///< cycles per byte, and numbers a second (input::items)
    cycles_per_byte_and_rows,    ///< cycles per byte, and rows a second (input::items)
};

/// One statistic of a cell over its repetitions: cycles per byte of input and seconds per
/// run (per iteration: one pass over the input).
struct figures {
    double cycles_per_byte = 0;
    double seconds = 0;
    double bytes_per_second = 0;
};

/// A result cell: the median, minimum and maximum over the repetitions (and the mean with
/// its 95% confidence interval, for results.json readers), or why there is no figure ("not
/// built", "n/a", an error).
struct cell {
    figures median, min, max, mean, ci95;
    int repetitions = 0;
    std::string note; // non-empty: no figure
};

/// What a row is, for the summary and the marks of report.html.
enum class row_kind {
    fastread, ///< fastread's own (the default row, the rows it chooses between, the others)
    baseline, ///< a technique of the articles, implemented as they describe it
    peer,     ///< another library or tool
    floor,    ///< does less than the job (RAW: read only; a re-run over a warm cache; opening
              ///< without checks), never "fastest"
};

/// A job of a family (a family can time several, e.g. reading and updating records): the
/// row a user gets without choosing, the rows it chooses between, and every row that does
/// the same job (the summary compares the default with these).
struct task {
    std::string name;                      ///< e.g. "reading"; empty for a family's only job
    std::string default_row;               ///< what a user gets without choosing
    std::vector<std::string> alternatives; ///< the rows the default chooses between
    std::vector<std::string> rows;         ///< rows doing this job (empty: every row)
};

/// The set of families, rows and columns, and the results as they arrive.
class context {
  public:
    explicit context(options opts) : opts_(std::move(opts)) {}
    const options& opts() const { return opts_; }
    /// Where add() declares its runs and the benchmarks report each finished run (null:
    /// nowhere). Set before the families declare their rows.
    void set_progress(progress_meter* progress) { progress_ = progress; }
    bool wants(const std::string& family) const;

    /// Declares a family's table: its title, its rows in display order, and what its cells
    /// show. A row or column passed to add() or note() that was not declared is an error.
    void add_family(const std::string& family, const std::string& title,
                    const std::vector<std::string>& rows, unit cells = unit::cycles_per_byte);
    /// Names a family's default row (what a user gets without choosing) and the rows it
    /// chooses between, highlighted in report.html. A family with several jobs calls
    /// add_task instead, once per job.
    void mark_default(const std::string& family, const std::string& row,
                      std::vector<std::string> alternatives = {});
    /// Declares one job of a family, with its default row (see task).
    void add_task(const std::string& family, task t);
    /// Says what `rows` are (rows not named are fastread's own).
    void mark_rows(const std::string& family, row_kind kind, const std::vector<std::string>& rows);
    /// Scales the time estimate of a family's benchmarks, cached and cold, from what the
    /// input sizes alone predict (see add()) to what they took: each family calls it first,
    /// with the ratios its phases showed in a default run (timings.tsv: spent over estimated
    /// seconds). The estimate is refined as runs finish.
    void set_estimate_scale(const std::string& family, double cached, double cold) {
        estimate_scale_[family] = {cached, cold};
    }
    /// Declares a column of a family.
    void add_column(const std::string& family, const input& in);

    /// Registers a timed benchmark for (family, row, column) in every cache mode asked for.
    /// `body` is one iteration: it processes the whole input once and must consume its
    /// result with benchmark::DoNotOptimize. Before timing, `check` (if set) runs once and
    /// returns an empty string when the row's result is right, else what is wrong, which
    /// skips the benchmark and shows in the table. `setup` (if set) runs before each
    /// iteration, untimed (a fresh copy of a tree for a row that changes it).
    void add(const std::string& family, const std::string& row, const input& in,
             std::function<void()> body, std::function<std::string()> check = {},
             std::function<void()> setup = {});
    /// Marks a cell that has no benchmark, e.g. "not built" or "n/a".
    void note(const std::string& family, const std::string& row, const std::string& column,
              const std::string& why);
    /// As note(), for a column measured cached only (input::cached_only): its cold cell says
    /// so, as the cold cells of its timed rows do.
    void note_cached_only(const std::string& family, const std::string& row,
                          const std::string& column, const std::string& why);

    /// Records a finished run (called by the reporter).
    void record(const benchmark::BenchmarkReporter::Run& run);
    /// Prints one family's tables (each cache mode and column group; wide tables split
    /// to fit 120 columns), as soon as its last phase has run.
    void print_family(std::ostream& out, const std::string& family) const;
    /// Prints the summary (per family: each column's default row, the fastest row and the
    /// best peer, with ratios) and writes report.md, report.html and the SVG charts.
    void report(std::ostream& out) const;

    /// Registers with Google Benchmark (after clearing what was registered before) the
    /// benchmarks add() declared for one family in one cache mode; false if there are none.
    /// The bench runs family by family and mode by mode, repetitions interleaved within
    /// each phase: a cold iteration's disk reads or the writeback of an update row never
    /// overlap another family's cached timings.
    bool register_phase(const std::string& family, cache_mode mode);
    /// Whether add() declared any benchmark for this family in this cache mode.
    bool has_phase(const std::string& family, cache_mode mode) const;
    /// Families in the order they were declared.
    const std::vector<std::string>& family_order() const { return order_; }

    bool cold_available() const { return cold_available_; }
    void set_cold_available(bool yes, std::string why) {
        cold_available_ = yes;
        cold_note_ = std::move(why);
    }

  private:
    struct family_info {
        std::string title;
        unit cells = unit::cycles_per_byte;
        std::vector<std::string> rows;
        std::vector<input> columns;
        std::vector<task> tasks;               // the first is the family's main job
        std::map<std::string, row_kind> kinds; // rows not listed: fastread
    };
    struct key {
        std::string family, row, column;
        cache_mode mode;
        auto operator<=>(const key&) const = default;
    };
    friend class report_writer;
    /// Throws std::logic_error unless `family` declared `row` and (if not empty) `column`.
    void check_declared(const std::string& family, const std::string& row,
                        const std::string& column) const;

    struct pending {
        std::string family;
        cache_mode mode;
        std::string name;
        std::function<void(benchmark::State&)> fn;
        int repetitions;
    };

    options opts_;
    progress_meter* progress_ = nullptr;
    std::vector<pending> pending_;
    std::vector<std::string> order_;
    std::map<std::string, family_info> families_;
    std::map<std::string, key> names_; // benchmark name -> cell
    std::map<key, cell> cells_;
    bool cold_available_ = true;
    std::string cold_note_;
    std::map<std::string, std::pair<double, double>> estimate_scale_; // family: cached, cold
};

/// Runs `command` with /bin/sh; returns its standard output. Throws std::runtime_error if
/// it cannot start or exits with a status other than 0 (or one listed in `ok_statuses`).
std::string run_shell(const std::string& command, std::initializer_list<int> ok_statuses = {});

/// Runs the program `argv[0]` (searched in PATH) with arguments `argv`, without a shell,
/// its standard error sent to /dev/null; returns its standard output. Throws
/// std::runtime_error if it cannot start or exits with a status other than 0 (or one
/// listed in `ok_statuses`). For timing whole tools: nothing but the tool is started.
std::string run_process(const std::vector<std::string>& argv,
                        std::initializer_list<int> ok_statuses = {});

/// `n` with thousands separated by commas, e.g. 1,000,000 (for column names).
std::string with_commas(std::uint64_t n);

/// `s` quoted for /bin/sh.
std::string quote(const std::string& s);

/// The path of this program (for child processes that run one of its internal modes).
std::string self();

/// Fills `s` with deterministic pseudo-random bytes from `rng`.
void fill_random(std::string& s, std::mt19937_64& rng);

/// Writes `bytes` to `path` (created or truncated); throws std::runtime_error if it cannot.
void write_bytes(const std::filesystem::path& path, const std::string& bytes);

/// Writes back the dirty pages of the file system holding `path` (syncfs), when the
/// system has any (nr_dirty in /proc/vmstat): called after each repetition, untimed.
void flush_dirty_pages(const std::filesystem::path& path);

/// Reads a file once so that the cached mode starts warm.
void warm(const std::filesystem::path& path);

} // namespace fastread_bench

#endif
