// fastread-bench: reruns the experiments of the articles fastread started from
// (docs/articles.md), with their
// strategies as rows beside fastread's own and the peers', in cycles per byte.

#include <benchmark/benchmark.h>

#include <fastread/page_cache.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

#include "bench_util.hpp"
#include "families.hpp"

#ifndef FASTREAD_BENCH_BUILD_DIR
#define FASTREAD_BENCH_BUILD_DIR "."
#endif

namespace {

const char* const help_head = R"(usage: fastread-bench [options] [Google Benchmark options]

Loads files the ways the articles behind fastread did, beside fastread's own strategies and
peer libraries, and prints one table per family and cache mode: rows are strategies, columns
are input files, cells are cycles per byte of input or time per run (the median over the
repetitions, with the minimum and maximum; lower is faster), the fastest row of each column
marked *. Cycles are hardware cycles where perf_event_open works, else TSC reference cycles
(wall time x TSC frequency); the output says which. Standard output is the tables and, at
the end, a summary (per column: the default row, the fastest row, the best peer); Google
Benchmark's own lines go to benchmark.log; progress goes to standard error.

families:
)";

const char* const help_options = R"(
options:
  --family NAME[,NAME]  run only these families
)";

const char* const help_tail =
    R"(  (no option)           the default run, about 18 minutes on 2 cores (KVM host,
                        2026-11-29, inputs generated): 3 repetitions cached, 1 cold, each
                        at least 0.05 s, the random family's big file 256 MiB
  --full                the long run docs/benchmarks.md comes from, about 42 minutes: 5
                        repetitions cached and cold, each at least 0.1 s, the random
                        family's big file 1 GiB
  --quick               smoke run, under 2 minutes: 3 repetitions, short runs, no big
                        inputs
  --repetitions N       repetitions per benchmark, cached and cold (default 3; --full 5)
  --cache MODE          cached, cold or both (default both). cached: the file is read once
                        before timing; cold: fastread::page_cache::evict before every
                        iteration (not timed), so the file comes from the disk
  --data-dir DIR        where generated inputs live (default <build>/bench-data)
  --out DIR             where results.json (Google Benchmark JSON), report.md, report.html,
                        the SVG charts, benchmark.log and timings.tsv (each benchmark's
                        estimated and spent seconds) go (default <build>/bench-results)
  --verbose             Google Benchmark's own lines for every run on standard output too
                        (else they go to benchmark.log in the out directory)
  --help                this text

Google Benchmark options such as --benchmark_filter=REGEX pass through; benchmark names are
family/strategy/column/mode, e.g. ppm/ppm::load/P3_big/cached. The families run one after
the other, each cache mode apart (cached, then cold), so that one family's disk reads or
writeback never overlap another's timings; within each, repetitions run in random order
(--benchmark_enable_random_interleaving=true unless you set it), so that no row inherits
the allocator and cache state of the row before it; pages an update row dirtied are
written back after its repetition, untimed. With glibc, malloc's mmap and
trim thresholds are fixed (32 MiB, 1 GiB), so that every row reuses its buffers alike
instead of some getting fresh pages (docs/benchmarks/notes-2026-11.md, "Reading the tables").
)";

// One option line of --help: the option and its argument padded to the help column.
std::string option_line(const std::string& option, const std::string& help) {
    std::string line = "  " + option;
    line.resize(std::max<std::size_t>(line.size() + 1, 24), ' ');
    return line + help + "\n";
}

// --help: the fixed text around what each family registered.
std::string help_text() {
    std::string out = help_head;
    for (const fastread_bench::family& f : fastread_bench::families()) {
        out += f.help;
    }
    out += help_options;
    for (const fastread_bench::family& f : fastread_bench::families()) {
        if (!f.files_option.empty()) {
            out += option_line(f.files_option + " " + f.files_arg, f.files_help);
        }
        for (const fastread_bench::family_option& o : f.options) {
            out += option_line(o.name + " " + o.arg, o.help);
        }
    }
    return out + help_tail;
}

// The family whose files option `option` is (e.g. "--ppm"), or nullptr.
const fastread_bench::family* files_option_of(const std::string& option) {
    for (const fastread_bench::family& f : fastread_bench::families()) {
        if (!f.files_option.empty() && f.files_option == option) {
            return &f;
        }
    }
    return nullptr;
}

// Whether `option` is a family option that takes one value (e.g. "--compare-size").
bool is_family_option(const std::string& option) {
    for (const fastread_bench::family& f : fastread_bench::families()) {
        for (const fastread_bench::family_option& o : f.options) {
            if (o.name == option) {
                return true;
            }
        }
    }
    return false;
}

// Writes the runs as Google Benchmark's console reporter does, to benchmark.log in the out
// directory (or standard output with --verbose; colours only on a terminal), hands them to
// the context for the tables, and writes them to one Google Benchmark JSON file. The bench
// calls RunSpecifiedBenchmarks once per phase (family and cache mode): the host context is
// written once, the runs of every phase go to the same JSON document.
class collecting_reporter : public benchmark::ConsoleReporter {
  public:
    collecting_reporter(fastread_bench::context& ctx, const std::filesystem::path& out_dir,
                        fastread_bench::progress_meter& progress, bool verbose, bool colour)
        : benchmark::ConsoleReporter(colour ? OO_ColorTabular : OO_Tabular), ctx_(ctx),
          progress_(progress), json_file_(out_dir / "results.json") {
        if (!json_file_) {
            throw std::runtime_error("cannot write " + (out_dir / "results.json").string());
        }
        json_.SetOutputStream(&json_file_);
        json_.SetErrorStream(&json_file_);
        if (!verbose) {
            log_file_.open(out_dir / "benchmark.log");
            if (!log_file_) {
                throw std::runtime_error("cannot write " + (out_dir / "benchmark.log").string());
            }
            SetOutputStream(&log_file_);
            SetErrorStream(&log_file_);
        }
    }
    bool ReportContext(const Context& context) override {
        progress_.clear();
        if (started_) {
            // The column heading again, not the host description.
            std::ostream* err = &GetErrorStream();
            SetErrorStream(&discard_);
            const bool ok = ConsoleReporter::ReportContext(context);
            SetErrorStream(err);
            return ok;
        }
        started_ = true;
        json_.ReportContext(context);
        // The host description, looked at for the warning of a library built without
        // NDEBUG before it goes where it goes.
        std::ostream* err = &GetErrorStream();
        std::ostringstream description;
        SetErrorStream(&description);
        const bool ok = ConsoleReporter::ReportContext(context);
        SetErrorStream(err);
        *err << description.str();
        debug_library_ = description.str().find("Library was built as DEBUG") != std::string::npos;
        return ok;
    }
    void ReportRuns(const std::vector<Run>& reports) override {
        progress_.clear();
        for (const Run& r : reports) {
            ctx_.record(r);
        }
        json_.ReportRuns(reports);
        ConsoleReporter::ReportRuns(reports);
    }
    /// Ends the JSON document; call once, after the last phase.
    void finish() {
        if (started_) {
            json_.Finalize();
        }
        json_file_.flush();
        log_file_.flush();
    }
    /// Whether Google Benchmark said its library was built as DEBUG (known after the first
    /// phase began).
    bool debug_library() const { return debug_library_; }

  private:
    fastread_bench::context& ctx_;
    fastread_bench::progress_meter& progress_;
    std::ofstream json_file_, log_file_;
    benchmark::JSONReporter json_;
    std::ostringstream discard_;
    bool started_ = false;
    bool debug_library_ = false;
};

[[noreturn]] void usage_error(const std::string& what) {
    std::cerr << "fastread-bench: " << what << "\n(see fastread-bench --help)\n";
    std::exit(2);
}

// The command line: fastread-bench's options into an options struct, Google Benchmark's
// into `passthrough` (after argv[0]). Exits with status 2 on a usage error, 0 after --help.
fastread_bench::options parse_options(int argc, char* argv[],
                                      std::vector<std::string>& passthrough) {
    fastread_bench::options opts;
    opts.data_dir = std::filesystem::path(FASTREAD_BENCH_BUILD_DIR) / "bench-data";
    opts.out_dir = std::filesystem::path(FASTREAD_BENCH_BUILD_DIR) / "bench-results";
    for (int i = 0; i < argc; ++i) {
        opts.command_line += (i ? " " : "") + std::string(argv[i]);
    }
    bool repetitions_set = false;
    passthrough.assign(1, argv[0]);

    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage_error(a + " needs a value");
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << help_text();
            std::exit(0);
        } else if (a == "--verbose") {
            opts.verbose = true;
        } else if (a == "--quick") {
            opts.quick = true;
        } else if (a == "--full") {
            opts.full = true;
        } else if (a == "--repetitions") {
            opts.repetitions = std::atoi(value().c_str());
            repetitions_set = true;
            if (opts.repetitions < 1) {
                usage_error("--repetitions must be at least 1");
            }
        } else if (a == "--cache") {
            const std::string m = value();
            opts.run_cached = m == "cached" || m == "both";
            opts.run_cold = m == "cold" || m == "both";
            if (!opts.run_cached && !opts.run_cold) {
                usage_error("--cache takes cached, cold or both");
            }
        } else if (a == "--family") {
            std::string list = value();
            for (std::size_t at = 0; at <= list.size();) {
                std::size_t comma = list.find(',', at);
                if (comma == std::string::npos) {
                    comma = list.size();
                }
                opts.families.push_back(list.substr(at, comma - at));
                at = comma + 1;
            }
        } else if (a == "--data-dir") {
            opts.data_dir = value();
        } else if (a == "--out") {
            opts.out_dir = value();
        } else if (is_family_option(a)) {
            const std::string v = value();
            char* end = nullptr;
            const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || n == 0) {
                usage_error(a + " takes a whole number, at least 1");
            }
            opts.values[a] = n;
        } else if (const fastread_bench::family* f = files_option_of(a)) {
            int n = 0;
            while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
                opts.files[f->name].emplace_back(argv[++i]);
                ++n;
            }
            if (n == 0) {
                usage_error(a + " needs at least one file");
            }
        } else if (a.rfind("--benchmark_out", 0) == 0) {
            usage_error(a + ": the JSON is always written to results.json in --out DIR");
        } else if (a.rfind("--benchmark_", 0) == 0) {
            passthrough.push_back(a);
        } else {
            usage_error("unknown option " + a);
        }
    }
    for (const std::string& name : opts.families) {
        const auto& all = fastread_bench::families();
        if (std::none_of(all.begin(), all.end(),
                         [&](const fastread_bench::family& f) { return f.name == name; })) {
            usage_error("unknown family " + name);
        }
    }
    if (opts.quick && opts.full) {
        usage_error("--quick and --full exclude each other");
    }
    if (opts.quick) {
        opts.min_time = 0.01;
        opts.cold_repetitions = 0;
    }
    if (opts.full) {
        opts.min_time = 0.1;
        opts.cold_repetitions = 0;
        if (!repetitions_set) {
            opts.repetitions = 5;
        }
    }
    if (repetitions_set) {
        opts.cold_repetitions = 0; // as asked, cold rows too
    }
    return opts;
}

} // namespace

int main(int argc, char* argv[]) {
    if (argc > 1 && std::strcmp(argv[1], "--internal-lines") == 0) {
        return fastread_bench::run_internal_lines(argc, argv);
    }
#if defined(__GLIBC__)
    // glibc's malloc adapts its mmap threshold to the blocks freed so far (up to 32 MiB),
    // so an image buffer of a few MiB came either from fresh pages, faulted in and zeroed on
    // every load (a 16 MB P6: 1.2 cycles/byte on the KVM host), or from reused heap (0.14),
    // depending on what the rows run before it had freed: with random interleaving that
    // moved P6 big between 0.12 and 0.26 within one run. Fixed thresholds keep every block
    // below 32 MiB on the heap and reused, for every row alike, as in a program that loads
    // many files; a first load's page faults are not in the tables
    // (docs/benchmarks/notes-2026-11.md).
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    std::vector<std::string> passthrough;
    const fastread_bench::options opts = parse_options(argc, argv, passthrough);
    std::filesystem::create_directories(opts.out_dir);
    std::filesystem::create_directories(opts.data_dir);

    fastread_bench::context ctx(opts);
    // Cold runs need eviction to work: not on tmpfs, where the page cache is the only copy.
    {
        const auto probe = opts.data_dir / ".evict-probe";
        { std::ofstream(probe) << std::string(1 << 20, 'x'); }
        fastread::page_cache::evict(probe);
        const double left = fastread::page_cache::resident_fraction(probe);
        std::filesystem::remove(probe);
        if (left > 0.5) {
            ctx.set_cold_available(false, "cold n/a (eviction has no effect here)");
        }
    }

    fastread_bench::progress_meter progress(std::cerr, ::isatty(STDERR_FILENO) == 1);
    ctx.set_progress(&progress);
    for (const fastread_bench::family& f : fastread_bench::families()) {
        if (ctx.wants(f.name)) {
            f.declare(ctx);
        }
    }

    // Repetitions of all benchmarks run in random order, so that no row inherits a warmer
    // or colder allocator and cache state from the row before it.
    bool interleaving_set = false;
    for (const std::string& a : passthrough) {
        interleaving_set |= a.rfind("--benchmark_enable_random_interleaving", 0) == 0;
    }
    if (!interleaving_set) {
        passthrough.push_back("--benchmark_enable_random_interleaving=true");
    }
    std::vector<char*> gb_argv;
    for (std::string& s : passthrough) {
        gb_argv.push_back(s.data());
    }
    int gb_argc = static_cast<int>(gb_argv.size());
    benchmark::Initialize(&gb_argc, gb_argv.data());
    benchmark::AddCustomContext("cycles", fastread_bench::cycles().describe());

    std::cout << fastread_bench::run_heading(opts);
    benchmark::AddCustomContext("host", fastread_bench::host_description());
    benchmark::AddCustomContext("host_label", fastread_bench::host_label());
    collecting_reporter reporter(ctx, opts.out_dir, progress, opts.verbose,
                                 opts.verbose && ::isatty(STDOUT_FILENO) == 1);
    // Family by family, each cache mode apart (the cached runs first); repetitions are
    // interleaved within a phase. A family's tables are printed after its last phase.
    std::vector<std::pair<std::string, fastread_bench::cache_mode>> to_run;
    for (const std::string& family : ctx.family_order()) {
        for (auto mode : {fastread_bench::cache_mode::cached, fastread_bench::cache_mode::cold}) {
            if (ctx.has_phase(family, mode)) {
                to_run.emplace_back(family, mode);
            }
        }
    }
    progress.start(to_run.size());
    for (std::size_t phase = 0; phase < to_run.size(); ++phase) {
        const auto& [family, mode] = to_run[phase];
        ctx.register_phase(family, mode);
        progress.begin_phase(phase + 1, family, fastread_bench::to_string(mode));
        benchmark::RunSpecifiedBenchmarks(&reporter);
        progress.end_phase();
        if (phase == 0 && reporter.debug_library()) {
            std::cout << fastread_bench::debug_library_note(opts) << "\n" << std::flush;
        }
        if (phase + 1 == to_run.size() || to_run[phase + 1].first != family) {
            progress.clear();
            ctx.print_family(std::cout, family);
        }
    }
    progress.finish();
    {
        std::ofstream timings(opts.out_dir / "timings.tsv");
        progress.write_timings(timings);
    }
    reporter.finish();
    benchmark::Shutdown();
    ctx.report(std::cout);
    return 0;
}
