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

// The compiler that built this binary, by name and version ("GCC 12.2.0", "Clang 16.0.6").
std::string compiler_name() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#else
    return "unknown compiler";
#endif
}

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

std::string name_of(const std::string& family, const std::string& row, const std::string& column,
                    cache_mode mode) {
    std::string n = family + "/" + row + "/" + column + "/" + to_string(mode);
    std::replace(n.begin(), n.end(), ' ', '_');
    return n;
}

} // namespace

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
    check_declared(family, row, "");
    family_info& f = families_.at(family);
    f.default_row = row;
    for (const std::string& r : alternatives) {
        check_declared(family, r, "");
    }
    f.alternatives = std::move(alternatives);
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

void context::add(const std::string& family, const std::string& row, const input& in,
                  std::function<void()> body, std::function<std::string()> check) {
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
            cells_[key{family, row, in.column, mode}].note = "n/a";
            continue;
        }
        if (mode == cache_mode::cold && !cold_available_) {
            cells_[key{family, row, in.column, mode}].note = cold_note_;
            continue;
        }
        const std::string name = name_of(family, row, in.column, mode);
        names_[name] = key{family, row, in.column, mode};
        progress_meter* const progress = progress_;
        const double min_time = opts_.min_time;
        const std::string shown = row + ", " + in.column;
        auto fn = [in, mode, body, check, verdict, progress, min_time, name,
                   shown](benchmark::State& state) {
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
            progress_->expect(name, family, to_string(mode), repetitions,
                              iteration + std::max(opts_.min_time, iteration));
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
            ->ComputeStatistics("ci95", ci95);
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
    if (run.aggregate_name == "mean") {
        c.cycles_per_byte = counter("cycles_per_byte");
        c.bytes_per_second = counter("bytes_per_second");
        c.repetitions = static_cast<int>(run.repetitions);
    } else if (run.aggregate_name == "ci95") {
        c.cycles_ci = counter("cycles_per_byte");
    } else if (run.aggregate_name.empty() && c.repetitions == 0) {
        c.cycles_per_byte = counter("cycles_per_byte"); // a single repetition
        c.bytes_per_second = counter("bytes_per_second");
        c.repetitions = 1;
    }
}

// ------------------------------------------------------------------------------------------
// Reports

namespace {

std::string format_cell(const cell& c, bool throughput = false, double seconds_per_cycle_byte = 0,
                        double items = 0) {
    if (!c.note.empty()) {
        return c.note;
    }
    if (c.repetitions == 0) {
        return "-";
    }
    std::ostringstream s;
    if (items > 0) { // time per run = cycles/byte x bytes / TSC Hz; per item: / items
        const double run = c.cycles_per_byte * seconds_per_cycle_byte;
        const double ci = c.cycles_ci * seconds_per_cycle_byte;
        const double unit = run >= 1 ? 1 : run >= 1e-3 ? 1e-3 : 1e-6;
        const char* name = run >= 1 ? " s" : run >= 1e-3 ? " ms" : " µs";
        const double shown = run / unit;
        const int digits = shown < 10 ? 2 : shown < 100 ? 1 : 0;
        s << std::fixed << std::setprecision(digits) << shown;
        if (c.repetitions > 1) {
            s << " ± " << ci / unit;
        }
        const double ns = run / items * 1e9;
        s << name << " (" << std::setprecision(ns < 10 ? 2 : ns < 100 ? 1 : 0) << ns << " ns each)";
        return s.str();
    }
    if (seconds_per_cycle_byte > 0) { // seconds per run = cycles/byte x bytes / TSC Hz
        const double t = c.cycles_per_byte * seconds_per_cycle_byte;
        s << std::fixed << std::setprecision(t < 0.1 ? 4 : t < 1 ? 3 : 2) << t;
        if (c.repetitions > 1) {
            s << " ± " << c.cycles_ci * seconds_per_cycle_byte;
        }
        s << " s";
        return s.str();
    }
    int digits = c.cycles_per_byte < 10 ? 2 : 1;
    s << std::fixed << std::setprecision(digits) << c.cycles_per_byte;
    if (c.repetitions > 1) {
        s << " ± " << std::setprecision(digits) << c.cycles_ci;
    }
    if (throughput) {
        s << " (" << std::setprecision(2) << c.bytes_per_second / 1e9 << " GB/s)";
    }
    return s.str();
}

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

std::string svg_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

} // namespace

std::vector<std::vector<std::string>> context::grid(const std::string& family, cache_mode mode,
                                                    const std::string& group) const {
    const family_info& f = families_.at(family);
    std::vector<const input*> cols;
    for (const input& in : f.columns) {
        if (in.group == group) {
            cols.push_back(&in);
        }
    }
    std::vector<std::vector<std::string>> grid;
    std::vector<std::string> head{"strategy"};
    for (const input* in : cols) {
        head.push_back(in->column);
    }
    grid.push_back(head);
    for (const std::string& row : f.rows) {
        // A row with no cell in this group (a family whose groups run different rows) is
        // left out.
        if (std::none_of(cols.begin(), cols.end(), [&](const input* in) {
                return cells_.count(key{family, row, in->column, mode}) != 0;
            })) {
            continue;
        }
        std::vector<std::string> line{row};
        for (const input* in : cols) {
            auto it = cells_.find(key{family, row, in->column, mode});
            const bool timed = f.cells == unit::seconds_per_run || f.cells == unit::time_per_item;
            const double scale = timed ? static_cast<double>(in->bytes) / cycles().tsc_hz : 0.0;
            line.push_back(
                it == cells_.end()
                    ? "-"
                    : format_cell(it->second, f.cells == unit::cycles_per_byte_and_rate, scale,
                                  f.cells == unit::time_per_item ? static_cast<double>(in->items)
                                                                 : 0.0));
        }
        grid.push_back(line);
    }
    return grid;
}

std::string context::table(const std::string& family, cache_mode mode, const std::string& group,
                           bool markdown) const {
    const std::vector<std::vector<std::string>> grid = this->grid(family, mode, group);
    std::ostringstream out;
    if (markdown) {
        for (std::size_t r = 0; r < grid.size(); ++r) {
            out << "|";
            for (const std::string& c : grid[r]) {
                out << " " << c << " |";
            }
            out << "\n";
            if (r == 0) {
                out << "|";
                for (std::size_t c = 0; c < grid[r].size(); ++c) {
                    out << (c == 0 ? "---|" : "---:|");
                }
                out << "\n";
            }
        }
        return out.str();
    }
    // Column widths count UTF-8 code points so that "±" lines up.
    auto width = [](const std::string& s) {
        std::size_t n = 0;
        for (unsigned char ch : s) {
            n += (ch & 0xC0) != 0x80;
        }
        return n;
    };
    std::vector<std::size_t> w(grid[0].size(), 0);
    for (const auto& line : grid) {
        for (std::size_t c = 0; c < line.size(); ++c) {
            w[c] = std::max(w[c], width(line[c]));
        }
    }
    for (std::size_t r = 0; r < grid.size(); ++r) {
        for (std::size_t c = 0; c < grid[r].size(); ++c) {
            std::string pad(w[c] - width(grid[r][c]), ' ');
            out << (c == 0 ? grid[r][c] + pad : "  " + pad + grid[r][c]);
        }
        out << "\n";
    }
    return out.str();
}

std::string context::svg(const std::string& family) const {
    // Horizontal bars, log-scale cycles/byte: one panel per cache mode, one bar per
    // strategy and column of the first column group.
    const family_info& f = families_.at(family);
    if (f.columns.empty()) {
        return {};
    }
    const std::string group = f.columns.front().group;
    std::vector<const input*> cols;
    for (const input& in : f.columns) {
        if (in.group == group) {
            cols.push_back(&in);
        }
    }
    static const char* colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                    "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};
    double lo = 1e9, hi = 0;
    for (const auto& [k, c] : cells_) {
        if (k.family == family && c.note.empty() && c.cycles_per_byte > 0) {
            lo = std::min(lo, c.cycles_per_byte);
            hi = std::max(hi, c.cycles_per_byte);
        }
    }
    if (hi <= 0) {
        return {};
    }
    // Rows with a bar somewhere (not rows of notes only, such as a verdict).
    std::vector<std::string> rows;
    for (const std::string& row : f.rows) {
        for (const auto& [k, c] : cells_) {
            if (k.family == family && k.row == row && c.note.empty() && c.cycles_per_byte > 0) {
                rows.push_back(row);
                break;
            }
        }
    }
    const double log_lo = std::floor(std::log10(lo)), log_hi = std::ceil(std::log10(hi));
    const double span = std::max(1.0, log_hi - log_lo);
    const int label_w = 230, plot_w = 560, value_w = 70, bar_h = 11, row_gap = 8, top = 50;
    const int row_h = static_cast<int>(cols.size()) * bar_h + row_gap;
    const int panel_h = static_cast<int>(rows.size()) * row_h + 40;
    const int height = top + 2 * panel_h + 30 + 16 * static_cast<int>(cols.size());
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << label_w + plot_w + value_w + 30
      << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    s << "<text x=\"10\" y=\"20\" font-size=\"14\">fastread-bench " << svg_escape(family) << ": "
      << svg_escape(f.title) << " (cycles/byte, log scale; lower is faster)</text>\n";
    s << "<text x=\"10\" y=\"36\" font-size=\"10\">host: " << svg_escape(host_label())
      << "</text>\n";
    int y0 = top;
    for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
        s << "<text x=\"10\" y=\"" << y0 - 6 << "\" font-weight=\"bold\">" << to_string(mode)
          << "</text>\n";
        for (double d = log_lo; d <= log_hi; d += 1) {
            double x = label_w + (d - log_lo) / span * plot_w;
            s << "<line x1=\"" << x << "\" y1=\"" << y0 << "\" x2=\"" << x << "\" y2=\""
              << y0 + panel_h - 30 << "\" stroke=\"#ccc\"/>\n<text x=\"" << x << "\" y=\""
              << y0 + panel_h - 18 << "\" text-anchor=\"middle\">" << std::pow(10.0, d)
              << "</text>\n";
        }
        int y = y0;
        for (const std::string& row : rows) {
            s << "<text x=\"" << label_w - 6 << "\" y=\"" << y + row_h / 2
              << "\" text-anchor=\"end\"" << (row == f.default_row ? " font-weight=\"bold\"" : "")
              << ">" << svg_escape(row) << "</text>\n";
            for (std::size_t c = 0; c < cols.size(); ++c) {
                auto it = cells_.find(key{family, row, cols[c]->column, mode});
                if (it != cells_.end() && it->second.note.empty() &&
                    it->second.cycles_per_byte > 0) {
                    double v = std::log10(it->second.cycles_per_byte);
                    double w = std::max(1.0, (v - log_lo) / span * plot_w);
                    s << "<rect x=\"" << label_w << "\" y=\"" << y + static_cast<int>(c) * bar_h
                      << "\" width=\"" << w << "\" height=\"" << bar_h - 1 << "\" fill=\""
                      << colours[c % 8] << "\"><title>" << svg_escape(row) << ", "
                      << svg_escape(cols[c]->column) << ": " << format_cell(it->second)
                      << " cycles/byte</title></rect>\n";
                    // The value beside its bar.
                    char value[32];
                    std::snprintf(value, sizeof value, "%.3g", it->second.cycles_per_byte);
                    s << "<text x=\"" << label_w + w + 3 << "\" y=\""
                      << y + static_cast<int>(c) * bar_h + bar_h - 2 << "\" font-size=\"9\">"
                      << value << "</text>\n";
                }
            }
            y += row_h;
        }
        y0 += panel_h;
    }
    for (std::size_t c = 0; c < cols.size(); ++c) {
        int y = y0 + 16 * static_cast<int>(c);
        s << "<rect x=\"" << label_w << "\" y=\"" << y << "\" width=\"12\" height=\"10\" fill=\""
          << colours[c % 8] << "\"/><text x=\"" << label_w + 18 << "\" y=\"" << y + 9 << "\">"
          << svg_escape(cols[c]->column) << "</text>\n";
    }
    s << "</svg>\n";
    return s.str();
}

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

// One self-contained page (no network: styles inline, charts as inline SVG) with every
// family's tables and chart; each table says its host, and the default row of a family is
// A family's column groups, in the order their first columns were declared.
std::vector<std::string> context::column_groups(const family_info& f) {
    std::vector<std::string> groups;
    for (const input& in : f.columns) {
        if (std::find(groups.begin(), groups.end(), in.group) == groups.end()) {
            groups.push_back(in.group);
        }
    }
    return groups;
}

// highlighted beside the rows it chooses between.
std::string context::html_report(const std::string& label) const {
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<title>fastread-bench results</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:2em;max-width:1400px;color:#222}\n"
      << "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}\n"
      << "th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}\n"
      << "td:first-child,th:first-child{text-align:left}\n"
      << "tr.default td{background:#ffe58a;font-weight:bold}\n"
      << "tr.alternative td{background:#fff6d0}\n"
      << ".host{color:#555;font-size:12px}\n</style></head><body>\n"
      << "<h1>fastread-bench results</h1>\n<p class=\"host\">Host: " << svg_escape(label)
      << "<br>Command: <code>" << svg_escape(opts_.command_line) << "</code><br>"
      << svg_escape(cycles().describe()) << "</p>\n"
      << "<p>Cells: mean &plusmn; 95% confidence interval over " << opts_.repetitions
      << " repetitions (cycles per byte of input unless the table says otherwise; lower is "
         "faster). <span style=\"background:#ffe58a;font-weight:bold\">The default row</span>"
         " is what a user gets without choosing; <span style=\"background:#fff6d0\">the rows "
         "it chooses between</span> are beside it.</p>\n";
    for (const std::string& family : order_) {
        const family_info& f = families_.at(family);
        const std::vector<std::string> groups = column_groups(f);
        h << "<h2 id=\"" << svg_escape(family) << "\">" << svg_escape(family) << ": "
          << svg_escape(f.title) << "</h2>\n";
        for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
            for (const std::string& group : groups) {
                const auto g = grid(family, mode, group);
                h << "<h3>" << to_string(mode) << ", " << svg_escape(group) << "</h3>\n"
                  << "<p class=\"host\">host: " << svg_escape(label) << "</p>\n<table>\n";
                for (std::size_t r = 0; r < g.size(); ++r) {
                    const std::string& row = g[r][0];
                    const bool is_default = r > 0 && row == f.default_row;
                    const bool is_alternative =
                        r > 0 && std::find(f.alternatives.begin(), f.alternatives.end(), row) !=
                                     f.alternatives.end();
                    h << "<tr"
                      << (is_default       ? " class=\"default\""
                          : is_alternative ? " class=\"alternative\""
                                           : "")
                      << ">";
                    for (const std::string& c : g[r]) {
                        h << (r == 0 ? "<th>" : "<td>") << svg_escape(c)
                          << (r == 0 ? "</th>" : "</td>");
                    }
                    h << "</tr>\n";
                }
                h << "</table>\n";
            }
        }
        const std::string chart = svg(family);
        if (!chart.empty()) {
            h << "<div class=\"chart\">\n" << chart << "</div>\n";
        }
    }
    h << "</body></html>\n";
    return h.str();
}

void context::report(std::ostream& out) const {
    const std::string cpu = read_first_line_with("/proc/cpuinfo", "model name");
    const std::string label = host_label();
    std::ostringstream md;
    char date[32] = "unknown";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    md << "# fastread-bench results\n\n"
       << "- Date: " << date << "\n"
       << "- Command: `" << opts_.command_line << "`\n"
       << "- CPU: " << cpu << " (" << benchmark::CPUInfo::Get().num_cpus << " logical CPUs)\n"
       << "- Compiler: " << compiler_name() << "\n"
       << "- Host: " << host_description() << "\n"
       << "- Cycles: " << cycles().describe() << "\n"
       << "- Figures: cycles per byte of input, mean ± 95% confidence interval over "
       << opts_.repetitions << " repetitions" << (opts_.quick ? " (--quick run)" : "") << "\n"
       << "- cached: the file was read once before timing; cold: "
          "fastread::page_cache::evict before every iteration (not timed)\n\n";
    out << "\nHost: " << host_description() << "\n";
    out << "Cycles: " << cycles().describe() << "\n";
    out << "Cells: cycles per byte of input, mean ± 95% CI over " << opts_.repetitions
        << " repetitions; lower is faster (GB/s = 10^9 bytes of input per second).\n";
    for (const std::string& family : order_) {
        const family_info& f = families_.at(family);
        const std::vector<std::string> groups = column_groups(f);
        md << "## " << family << ": " << f.title << "\n\n";
        for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
            for (const std::string& group : groups) {
                out << "\n"
                    << family << ": " << f.title << " — " << to_string(mode) << ", " << group
                    << "\nhost: " << label << "\n"
                    << table(family, mode, group, false);
                md << "### " << to_string(mode) << ", " << group << "\n\nHost: " << label << "\n\n"
                   << table(family, mode, group, true) << "\n";
            }
        }
        std::string chart = svg(family);
        if (!chart.empty()) {
            std::ofstream(opts_.out_dir / (family + ".svg")) << chart;
            md << "![" << family << "](" << family << ".svg)\n\n";
        }
    }
    std::ofstream(opts_.out_dir / "report.md") << md.str();
    std::ofstream(opts_.out_dir / "report.html") << html_report(label);
    out << "\nWrote " << (opts_.out_dir / "results.json").string() << ", "
        << (opts_.out_dir / "report.md").string() << ", "
        << (opts_.out_dir / "report.html").string() << " and one SVG chart per family.\n";
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
