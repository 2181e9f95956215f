// fastread-bench: reruns the experiments of the articles fastread started from, with their
// strategies as rows beside fastread's own and the peers', in cycles per byte.

#include <benchmark/benchmark.h>

#include <fastread/page_cache.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "families.hpp"

#ifndef FASTREAD_BENCH_BUILD_DIR
#define FASTREAD_BENCH_BUILD_DIR "."
#endif

namespace {

const char* const help_text = R"(usage: fastread-bench [options] [Google Benchmark options]

Loads files the ways the articles behind fastread did, beside fastread's own strategies and
peer libraries, and prints one table per family and cache mode: rows are strategies, columns
are input files, cells are cycles per byte of input (mean ± 95% confidence interval over the
repetitions; lower is faster). Cycles are hardware cycles where perf_event_open works, else
TSC reference cycles (wall time x TSC frequency); the output says which.

families:
  ppm     decode PPM images, P3 (ASCII) and P6 (binary): the article's stages 1-5
          (iostream >>, fscanf, fread + atoi, own parser, mmap), RAW (read only),
          fastread::ppm::load (by path, at each SIMD level of its P3 kernel, and over each
          source), libnetpbm and stb_image when built in. Columns: generated photo-like
          images (big ~16 MB, medium ~2 MB, small ~8 KB as P6; the same pixels as P3), a
          16-bit big image as P3 and P6, and the files under data/.
  lines   read every line of a text file: std::getline (ifstream, std::cin from a pipe,
          with and without sync_with_stdio(false)), fgets, getline(3), the article's
          istream/file/mmap line readers, fastread::lines over each source and from a
          pipe, and wc -l as a process. Columns: a generated 256 MB text (mixed log and
          prose lines, ~60 bytes each), its CRLF copy, and real text: the C headers
          under /usr/include concatenated to 200 MB (~40 bytes a line); --quick 16 MB.
          Rows marked (pipe) or (process) are whole child processes.
  compare fastread::files_equal on two equal generated files (256 MB each; --quick 16 MB)
          with each method: the article's getc byte by byte (with and without reading
          each file first), 4 KiB and 1 MiB blocks (with and without), whole-file blocks,
          getc_unlocked, mmap and automatic; RAW reads both files once for reference.
  dupes   fastread-dupes -r against fdupes -r, jdupes -r and rdfind (those installed) as
          whole processes, in seconds per run, on a generated tree (4000 files; --quick
          500) and on /usr/share (not with --quick); a row says whether fastread-dupes
          found the same groups as fdupes.
  random  records at random positions: a generated file of int32 records (1 GiB;
          --random-size MB; --quick 32 MiB) and 100,000 random indices (--quick 10,000),
          read and updated (+1) with the article's fseek programs over its dials (sorted
          or not, buffered or not, SEEK_SET / SEEK_CUR, rb / rb+) and with
          fastread::read_at / update_at per method; a dense 256 MiB column; a sweep of
          1,000 to 1,000,000 indices. Figures: time per batch and per record.
  table   a million strings of 150 ± 10 bytes (--quick 100,000): the article's naive,
          one-copy and zero-copy readers against fastread::string_table::view::open and
          open_unchecked, each alone and with a visit of every string; the article's two
          writers against string_table::write and string_table::writer (cached only).

options:
  --family NAME[,NAME]  run only these families
  --ppm FILE...         also benchmark these PPM files (one column each)
  --lines FILE...       also benchmark these text files (one column each)
  --dupes DIR...        also run the duplicate finders on these trees (one column each)
  --compare-size MB     size of each file of the compare family (default 256)
  --random-size MB      size of the random family's record file (default 1024)
  --quick               smoke run: 3 repetitions, short runs, no big inputs
  --repetitions N       repetitions per benchmark (default 5)
  --cache MODE          cached, cold or both (default both). cached: the file is read once
                        before timing; cold: fastread::page_cache::evict before every
                        iteration (not timed), so the file comes from the disk
  --data-dir DIR        where generated inputs live (default <build>/bench-data)
  --out DIR             where results.json (Google Benchmark JSON), report.md and the SVG
                        charts go (default <build>/bench-results)
  --help                this text

Google Benchmark options such as --benchmark_filter=REGEX pass through; benchmark names are
family/strategy/column/mode, e.g. ppm/ppm::load/P3_big/cached. Repetitions run in random
order (--benchmark_enable_random_interleaving=true unless you set it), so that no row
inherits the allocator and cache state of the row before it.
)";

class collecting_reporter : public benchmark::ConsoleReporter {
  public:
    explicit collecting_reporter(fastread_bench::context& ctx) : ctx_(ctx) {}
    void ReportRuns(const std::vector<Run>& reports) override {
        for (const Run& r : reports) {
            ctx_.record(r);
        }
        ConsoleReporter::ReportRuns(reports);
    }

  private:
    fastread_bench::context& ctx_;
};

[[noreturn]] void usage_error(const std::string& what) {
    std::cerr << "fastread-bench: " << what << "\n(see fastread-bench --help)\n";
    std::exit(2);
}

} // namespace

int main(int argc, char* argv[]) {
    if (argc > 1 && std::strcmp(argv[1], "--internal-lines") == 0) {
        return fastread_bench::run_internal_lines(argc, argv);
    }
    fastread_bench::options opts;
    opts.data_dir = std::filesystem::path(FASTREAD_BENCH_BUILD_DIR) / "bench-data";
    opts.out_dir = std::filesystem::path(FASTREAD_BENCH_BUILD_DIR) / "bench-results";
    for (int i = 0; i < argc; ++i) {
        opts.command_line += (i ? " " : "") + std::string(argv[i]);
    }
    bool repetitions_set = false;
    std::vector<std::string> passthrough{argv[0]};

    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                usage_error(a + " needs a value");
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << help_text;
            return 0;
        } else if (a == "--quick") {
            opts.quick = true;
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
        } else if (a == "--compare-size") {
            opts.compare_megabytes = std::strtoull(value().c_str(), nullptr, 10);
            if (opts.compare_megabytes == 0) {
                usage_error("--compare-size takes a size in MB, at least 1");
            }
        } else if (a == "--random-size") {
            opts.random_megabytes = std::strtoull(value().c_str(), nullptr, 10);
            if (opts.random_megabytes == 0) {
                usage_error("--random-size takes a size in MB, at least 1");
            }
        } else if (a == "--data-dir") {
            opts.data_dir = value();
        } else if (a == "--out") {
            opts.out_dir = value();
        } else if (a.rfind("--", 0) == 0 && a.rfind("--benchmark_", 0) != 0 &&
                   fastread_bench::is_file_option(a)) {
            const std::string family = a.substr(2);
            int n = 0;
            while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
                opts.files[family].emplace_back(argv[++i]);
                ++n;
            }
            if (n == 0) {
                usage_error(a + " needs at least one file");
            }
        } else if (a.rfind("--benchmark_", 0) == 0) {
            passthrough.push_back(a);
        } else {
            usage_error("unknown option " + a);
        }
    }
    if (opts.quick) {
        opts.min_time = 0.01;
        if (!repetitions_set) {
            opts.repetitions = 3;
        }
    }
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

    fastread_bench::register_families(ctx);

    // Repetitions of all benchmarks run in random order, so that no row inherits a warmer
    // or colder allocator and cache state from the row before it.
    bool interleaving_set = false;
    for (const std::string& a : passthrough) {
        interleaving_set |= a.rfind("--benchmark_enable_random_interleaving", 0) == 0;
    }
    if (!interleaving_set) {
        passthrough.push_back("--benchmark_enable_random_interleaving=true");
    }
    passthrough.push_back("--benchmark_out=" + (opts.out_dir / "results.json").string());
    passthrough.push_back("--benchmark_out_format=json");
    std::vector<char*> gb_argv;
    for (std::string& s : passthrough) {
        gb_argv.push_back(s.data());
    }
    int gb_argc = static_cast<int>(gb_argv.size());
    benchmark::Initialize(&gb_argc, gb_argv.data());
    benchmark::AddCustomContext("cycles", fastread_bench::cycles().describe());

    std::cout << "fastread-bench: " << fastread_bench::cycles().describe() << "\n";
    std::cout << "fastread-bench: host: " << fastread_bench::host_description() << "\n";
    benchmark::AddCustomContext("host", fastread_bench::host_description());
    collecting_reporter reporter(ctx);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    ctx.report(std::cout);
    return 0;
}
