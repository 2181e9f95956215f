#include "bench_util.hpp"
#include "families.hpp"

#include <fastread/io.hpp>
#include <fastread/page_cache.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <linux/perf_event.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace fastread_bench {

const char* to_string(cache_mode m) {
    return m == cache_mode::cached ? "cached" : "cold";
}

// ------------------------------------------------------------------------------------------
// Cycles

namespace {

int open_cycle_counter() {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.disabled = 1;
    attr.exclude_kernel = 0;
    attr.exclude_hv = 1;
    return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
}

cycle_source detect_cycles() {
    cycle_source c;
    c.tsc_hz = benchmark::CPUInfo::Get().cycles_per_second;
    int fd = open_cycle_counter();
    if (fd >= 0) {
        c.hardware = true;
        c.detail = "perf_event_open PERF_COUNT_HW_CPU_CYCLES";
        ::close(fd);
    } else {
        c.detail = std::string("perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: ") +
                   std::strerror(errno);
    }
    return c;
}

// Two-sided 95% Student t quantiles for 1..30 degrees of freedom.
double t95(std::size_t df) {
    static const double t[] = {12.706, 4.303, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                               2.228,  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
                               2.101,  2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
                               2.056,  2.052, 2.048, 2.045, 2.042, 2.042};
    return df == 0 ? 0.0 : df <= 30 ? t[df - 1] : 1.960;
}

double ci95(const std::vector<double>& v) {
    if (v.size() < 2) {
        return 0.0;
    }
    double mean = 0;
    for (double x : v) {
        mean += x;
    }
    mean /= static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) {
        ss += (x - mean) * (x - mean);
    }
    double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
    return t95(v.size() - 1) * sd / std::sqrt(static_cast<double>(v.size()));
}

} // namespace

std::string benchmark_name(const std::string& family, const std::string& row,
                           const std::string& column, cache_mode mode) {
    std::string n = family + "/" + row + "/" + column + "/" + to_string(mode);
    std::replace(n.begin(), n.end(), ' ', '_');
    return n;
}

std::string compiler_name() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#else
    return "unknown compiler";
#endif
}

const cycle_source& cycles() {
    static const cycle_source c = detect_cycles();
    return c;
}

std::string cycle_source::describe() const {
    std::ostringstream s;
    if (hardware) {
        s << "hardware CPU cycles (" << detail << ")";
    } else {
        s << "TSC reference cycles = wall time x " << std::fixed << std::setprecision(3)
          << tsc_hz / 1e9 << " GHz (TSC frequency as Google Benchmark reports it; " << detail
          << ")";
    }
    return s.str();
}

std::string run_shell(const std::string& command, std::initializer_list<int> ok_statuses) {
    std::FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) {
        throw std::runtime_error("popen failed");
    }
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) {
        out.append(buf, n);
    }
    const int status = ::pclose(p);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0 && std::find(ok_statuses.begin(), ok_statuses.end(), code) == ok_statuses.end()) {
        throw std::runtime_error("command failed (status " + std::to_string(code) +
                                 "): " + command);
    }
    return out;
}

std::string run_process(const std::vector<std::string>& argv,
                        std::initializer_list<int> ok_statuses) {
    std::string shown;
    for (const std::string& a : argv) {
        shown += (shown.empty() ? "" : " ") + a;
    }
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> args;
    for (const std::string& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    pid_t pid = 0;
    const int err = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (err != 0) {
        ::close(pipe_fds[0]);
        throw std::runtime_error("cannot start " + shown + ": " + std::strerror(err));
    }
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0 && std::find(ok_statuses.begin(), ok_statuses.end(), code) == ok_statuses.end()) {
        throw std::runtime_error("command failed (status " + std::to_string(code) + "): " + shown);
    }
    return out;
}

std::string with_commas(std::uint64_t n) {
    std::string s = std::to_string(n);
    for (int at = static_cast<int>(s.size()) - 3; at > 0; at -= 3) {
        s.insert(static_cast<std::size_t>(at), ",");
    }
    return s;
}

std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

std::string self() {
    return std::filesystem::read_symlink("/proc/self/exe").string();
}

void flush_dirty_pages(const std::filesystem::path& path) {
    // Pages dirty or under writeback, system-wide: "nr_dirty N" and "nr_writeback N".
    std::ifstream vmstat("/proc/vmstat");
    std::string name;
    std::uint64_t value = 0, pages = 0;
    while (vmstat >> name >> value) {
        if (name == "nr_dirty" || name == "nr_writeback") {
            pages += value;
        }
    }
    if (pages == 0) {
        return;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::syncfs(fd); // best effort: a failure leaves the flusher to do it, as before
        ::close(fd);
    }
}

void warm(const std::filesystem::path& path) {
    fastread::page_cache::preload(path);
}

// ------------------------------------------------------------------------------------------
// Registration

bool context::wants(const std::string& family) const {
    return opts_.families.empty() ||
           std::find(opts_.families.begin(), opts_.families.end(), family) != opts_.families.end();
}

void context::mark_default(const std::string& family, const std::string& row,
                           std::vector<std::string> alternatives) {
    add_task(family, task{"", row, std::move(alternatives), {}});
}

void context::add_task(const std::string& family, task t) {
    check_declared(family, t.default_row, "");
    for (const std::string& r : t.alternatives) {
        check_declared(family, r, "");
    }
    for (const std::string& r : t.rows) {
        check_declared(family, r, "");
    }
    families_.at(family).tasks.push_back(std::move(t));
}

void context::mark_rows(const std::string& family, row_kind kind,
                        const std::vector<std::string>& rows) {
    for (const std::string& r : rows) {
        check_declared(family, r, "");
        families_.at(family).kinds[r] = kind;
    }
}

void context::add_family(const std::string& family, const std::string& title,
                         const std::vector<std::string>& rows, unit cells) {
    order_.push_back(family);
    families_[family].cells = cells;
    families_[family].title = title;
    families_[family].rows = rows;
}

void context::check_declared(const std::string& family, const std::string& row,
                             const std::string& column) const {
    const auto f = families_.find(family);
    if (f == families_.end()) {
        throw std::logic_error("fastread-bench: family \"" + family + "\" was not declared");
    }
    if (std::find(f->second.rows.begin(), f->second.rows.end(), row) == f->second.rows.end()) {
        throw std::logic_error("fastread-bench: row \"" + row + "\" is not one of the rows " +
                               "family \"" + family + "\" declared");
    }
    if (!column.empty() && std::none_of(f->second.columns.begin(), f->second.columns.end(),
                                        [&](const input& in) { return in.column == column; })) {
        throw std::logic_error("fastread-bench: column \"" + column + "\" of family \"" + family +
                               "\" was not declared (add_column)");
    }
}

void context::add_column(const std::string& family, const input& in) {
    families_[family].columns.push_back(in);
}

void context::note(const std::string& family, const std::string& row, const std::string& column,
                   const std::string& why) {
    check_declared(family, row, column);
    for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
        cells_[key{family, row, column, mode}].note = why;
    }
}

void context::note_cached_only(const std::string& family, const std::string& row,
                               const std::string& column, const std::string& why) {
    check_declared(family, row, column);
    cells_[key{family, row, column, cache_mode::cached}].note = why;
    cells_[key{family, row, column, cache_mode::cold}].note = "n/a (cached only)";
}

void context::add(const std::string& family, const std::string& row, const input& in,
                  std::function<void()> body, std::function<std::string()> check,
                  std::function<void()> setup) {
    check_declared(family, row, in.column);
    // The check runs once for both cache modes, at the first benchmark that needs it.
    auto verdict = std::make_shared<std::optional<std::string>>();
    for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
        if ((mode == cache_mode::cached && !opts_.run_cached) ||
            (mode == cache_mode::cold && !opts_.run_cold)) {
            cells_[key{family, row, in.column, mode}].note = "not run";
            continue;
        }
        if (mode == cache_mode::cold && in.cached_only) {
            cells_[key{family, row, in.column, mode}].note = "n/a (cached only)";
            continue;
        }
        if (mode == cache_mode::cold && !cold_available_) {
            cells_[key{family, row, in.column, mode}].note = cold_note_;
            continue;
        }
        const std::string name = benchmark_name(family, row, in.column, mode);
        names_[name] = key{family, row, in.column, mode};
        progress_meter* const progress = progress_;
        const double min_time = opts_.min_time;
        const std::string shown = row + ", " + in.column;
        auto fn = [in, mode, body, check, setup, verdict, progress, min_time, name,
                   shown](benchmark::State& state) {
            const auto call_began = std::chrono::steady_clock::now();
            struct report_spent {
                progress_meter* progress;
                const std::string& name;
                std::chrono::steady_clock::time_point began;
                ~report_spent() {
                    if (progress != nullptr) {
                        progress->spent(name, std::chrono::duration<double>(
                                                  std::chrono::steady_clock::now() - began)
                                                  .count());
                    }
                }
            } spent{progress, name, call_began};
            if (!verdict->has_value()) {
                try {
                    *verdict = check ? check() : std::string();
                } catch (const std::exception& e) {
                    *verdict = std::string("failed: ") + e.what();
                }
            }
            if (!verdict->value().empty()) {
                state.SkipWithError(verdict->value().c_str());
                for (auto _ : state) {
                }
                if (progress != nullptr) {
                    progress->run_done(name, shown);
                }
                return;
            }
            // Timed seconds of this call, as Google Benchmark counts them (evictions
            // excluded): a call that reaches the minimum time ends a repetition.
            double timed = 0;
            if (mode == cache_mode::cached) {
                warm(in.path);
                for (const auto& p : in.also) {
                    warm(p);
                }
            }
            const cycle_source& cyc = cycles();
            int counter = cyc.hardware ? open_cycle_counter() : -1;
            std::uint64_t hw_cycles = 0;
            for (auto _ : state) {
                if (setup) {
                    state.PauseTiming();
                    setup();
                    state.ResumeTiming();
                }
                if (mode == cache_mode::cold) {
                    state.PauseTiming();
                    fastread::page_cache::evict(in.path);
                    for (const auto& p : in.also) {
                        fastread::page_cache::evict(p);
                    }
                    state.ResumeTiming();
                }
                if (counter >= 0) {
                    ::ioctl(counter, PERF_EVENT_IOC_ENABLE, 0);
                }
                const auto began = std::chrono::steady_clock::now();
                body();
                timed +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
                if (counter >= 0) {
                    ::ioctl(counter, PERF_EVENT_IOC_DISABLE, 0);
                }
            }
            if (progress != nullptr && timed >= min_time) {
                progress->run_done(name, shown);
            }
            // Untimed: pages this repetition dirtied (the update rows) are written back
            // now, not by the kernel's flusher in the middle of whatever runs next.
            flush_dirty_pages(in.path);
            const double bytes = static_cast<double>(in.bytes);
            state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                    static_cast<std::int64_t>(in.bytes));
            if (counter >= 0) {
                if (::read(counter, &hw_cycles, sizeof hw_cycles) != sizeof hw_cycles) {
                    hw_cycles = 0;
                }
                ::close(counter);
                state.counters["cycles_per_byte"] = benchmark::Counter(
                    static_cast<double>(hw_cycles) / bytes, benchmark::Counter::kAvgIterations);
            } else {
                // value * iterations / seconds, inverted: seconds / iteration * Hz / bytes.
                state.counters["cycles_per_byte"] = benchmark::Counter(
                    bytes / cyc.tsc_hz,
                    benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
            }
        };
        int repetitions = opts_.repetitions;
        if (mode == cache_mode::cold) {
            for (const int most : {in.cold_repetitions, opts_.cold_repetitions}) {
                if (most > 0) {
                    repetitions = std::min(repetitions, most);
                }
            }
        }
        if (progress_ != nullptr) {
            // A first iteration, then enough to fill the minimum time: about one iteration
            // (at 1 ns per byte cached, 4 ns cold, plus the eviction) and the minimum time.
            const double iteration =
                static_cast<double>(in.bytes) * (mode == cache_mode::cold ? 4e-9 : 1e-9) +
                (mode == cache_mode::cold ? 0.01 : 0.0);
            double scale = 1;
            if (const auto it = estimate_scale_.find(family); it != estimate_scale_.end()) {
                scale = mode == cache_mode::cold ? it->second.second : it->second.first;
            }
            progress_->expect(name, family, to_string(mode), repetitions,
                              scale * (iteration + std::max(opts_.min_time, iteration)));
        }
        pending_.push_back(pending{family, mode, name, std::move(fn), repetitions});
    }
}

bool context::has_phase(const std::string& family, cache_mode mode) const {
    return std::any_of(pending_.begin(), pending_.end(),
                       [&](const pending& p) { return p.family == family && p.mode == mode; });
}

bool context::register_phase(const std::string& family, cache_mode mode) {
    benchmark::ClearRegisteredBenchmarks();
    bool any = false;
    for (const pending& p : pending_) {
        if (p.family != family || p.mode != mode) {
            continue;
        }
        benchmark::RegisterBenchmark(p.name.c_str(), p.fn)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(opts_.min_time)
            ->Repetitions(p.repetitions)
            ->ReportAggregatesOnly(true)
            ->ComputeStatistics("ci95", ci95)
            ->ComputeStatistics(
                "min",
                [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
            ->ComputeStatistics("max", [](const std::vector<double>& v) {
                return *std::max_element(v.begin(), v.end());
            });
        any = true;
    }
    return any;
}

void context::record(const benchmark::BenchmarkReporter::Run& run) {
    auto it = names_.find(run.run_name.function_name);
    if (it == names_.end()) {
        return;
    }
    cell& c = cells_[it->second];
    if (run.error_occurred) {
        c.note = run.error_message;
        return;
    }
    auto counter = [&](const char* name) {
        auto f = run.counters.find(name);
        return f == run.counters.end() ? 0.0 : f->second.value;
    };
    // Seconds per iteration: GetAdjustedRealTime is in the run's unit (milliseconds).
    figures f{counter("cycles_per_byte"), run.GetAdjustedRealTime() / 1e3,
              counter("bytes_per_second")};
    if (run.aggregate_name == "mean") {
        c.mean = f;
        c.repetitions = static_cast<int>(run.repetitions);
    } else if (run.aggregate_name == "median") {
        c.median = f;
    } else if (run.aggregate_name == "min") {
        c.min = f;
    } else if (run.aggregate_name == "max") {
        c.max = f;
    } else if (run.aggregate_name == "ci95") {
        c.ci95 = f;
    } else if (run.aggregate_name.empty() && c.repetitions == 0) {
        c.mean = c.median = c.min = c.max = f; // a single repetition
        c.repetitions = 1;
    }
}

// ------------------------------------------------------------------------------------------
// Host

namespace {

std::string read_first_line_with(const char* file, const char* prefix) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(prefix, 0) == 0) {
            auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown";
}

} // namespace

namespace {

// "AMD EPYC, 2 logical CPUs, Linux 6.18.44": the CPU model, how many (`cpus` names them),
// the kernel.
std::string cpu_and_kernel(const char* cpus) {
    std::ostringstream s;
    s << read_first_line_with("/proc/cpuinfo", "model name") << ", "
      << benchmark::CPUInfo::Get().num_cpus << " " << cpus;
    utsname u{};
    if (::uname(&u) == 0) {
        s << ", " << u.sysname << " " << u.release;
    }
    return s.str();
}

// The hypervisor's CPUID signature ("KVMKVMKVM"); empty without a hypervisor; nullopt where
// CPUID cannot tell (not x86).
std::optional<std::string> cpuid_hypervisor() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid(1, a, b, c, d);
    if (((c >> 31) & 1u) == 0) {
        return std::string();
    }
    __cpuid(0x40000000, a, b, c, d);
    char sig[13] = {};
    std::memcpy(sig, &b, 4);
    std::memcpy(sig + 4, &c, 4);
    std::memcpy(sig + 8, &d, 4);
    return std::string(sig);
#else
    return std::nullopt;
#endif
}

} // namespace

std::string host_description() {
    std::ostringstream s;
    s << cpu_and_kernel("logical CPUs");
    if (const std::optional<std::string> sig = cpuid_hypervisor()) {
        s << (sig->empty() ? ", no hypervisor" : ", hypervisor CPUID signature \"" + *sig + "\"");
    }
    s << "; default paths read, maps are the caller's choice (the map rows)";
    if (const char* forced = std::getenv("FASTREAD_IO"); forced != nullptr && *forced != '\0') {
        s << " (FASTREAD_IO=" << forced << " sets the default rows' io)";
    }
    return s.str();
}

std::string host_label() {
    std::ostringstream s;
    s << cpu_and_kernel("CPUs");
    std::string hypervisor;
    std::ifstream("/sys/hypervisor/type") >> hypervisor;
    if (hypervisor.empty()) {
        hypervisor = cpuid_hypervisor().value_or("");
    }
    s << ", " << (hypervisor.empty() ? std::string("no hypervisor") : "hypervisor " + hypervisor);
    s << ", " << (cycles().hardware ? "hardware cycles" : "TSC") << " " << std::fixed
      << std::setprecision(3) << cycles().tsc_hz / 1e9 << " GHz";
    s << ", " << compiler_name() << " " << FASTREAD_BENCH_FLAGS;
    char date[32] = "unknown date";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    s << ", " << date;
    return s.str();
}

// ------------------------------------------------------------------------------------------
// Generated inputs

void fill_random(std::string& s, std::mt19937_64& rng) {
    for (std::size_t i = 0; i < s.size(); i += 8) {
        const std::uint64_t v = rng();
        for (std::size_t k = 0; k < 8 && i + k < s.size(); ++k) {
            s[i + k] = static_cast<char>(v >> (8 * k));
        }
    }
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

// ------------------------------------------------------------------------------------------
// Families

namespace {

std::vector<family>& registry() {
    static std::vector<family> all;
    return all;
}

} // namespace

const std::vector<family>& families() {
    return registry();
}

family_registration::family_registration(family f) {
    std::vector<family>& all = registry();
    const auto at = std::upper_bound(all.begin(), all.end(), f.order,
                                     [](int order, const family& g) { return order < g.order; });
    all.insert(at, std::move(f));
}

std::uint64_t option_value(const options& o, const std::string& name, std::uint64_t fallback) {
    const auto it = o.values.find(name);
    return it == o.values.end() ? fallback : it->second;
}

} // namespace fastread_bench
