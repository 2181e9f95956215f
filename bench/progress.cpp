#include "progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fastread_bench {

void progress_meter::expect(const std::string& name, const std::string& family,
                            const std::string& mode, int repetitions, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    expected& e = expected_[name];
    e.phase = family + "/" + mode;
    e.repetitions = repetitions;
    e.seconds = seconds;
    total_runs_ += static_cast<std::size_t>(repetitions);
    total_estimate_ += repetitions * seconds;
}

std::string progress_meter::duration(double seconds) {
    const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    char text[48];
    if (s >= 3600) {
        std::snprintf(text, sizeof text, "%lld h %02lld min", s / 3600, s / 60 % 60);
    } else if (s >= 60) {
        std::snprintf(text, sizeof text, "%lld min %02lld s", s / 60, s % 60);
    } else {
        std::snprintf(text, sizeof text, "%lld s", s);
    }
    return text;
}

std::string progress_meter::about(double seconds) {
    const double s = std::max(0.0, seconds);
    char text[48];
    if (s < 90) {
        std::snprintf(text, sizeof text, "about %lld seconds",
                      static_cast<long long>(std::llround(s)));
    } else if (s < 5400) {
        std::snprintf(text, sizeof text, "about %lld minutes",
                      static_cast<long long>(std::llround(s / 60)));
    } else {
        const auto m = static_cast<long long>(std::llround(s / 60));
        std::snprintf(text, sizeof text, "about %lld h %02lld min", m / 60, m % 60);
    }
    return text;
}

double progress_meter::elapsed() const {
    return std::chrono::duration<double>(steady::now() - started_).count();
}

// What is left of the estimate, scaled by how the finished runs compared with theirs: the
// more of the estimate is done, the more that ratio is trusted (one slow first family does
// not multiply the whole rest).
double progress_meter::seconds_left() const {
    const double left = total_estimate_ - done_estimate_;
    if (done_estimate_ <= 0 || total_estimate_ <= 0) {
        return left;
    }
    const double scale = std::clamp(elapsed() / done_estimate_, 0.02, 50.0);
    const double trust = done_estimate_ / total_estimate_;
    return left * (1.0 + (scale - 1.0) * trust);
}

void progress_meter::start(std::size_t phases) {
    std::lock_guard<std::mutex> lock(mutex_);
    phases_ = phases;
    started_ = steady::now();
    out_ << "fastread-bench: " << total_runs_ << " runs (benchmarks x repetitions) in " << phases
         << " phases, " << about(total_estimate_)
         << " (estimated from the input sizes, calibrated per family on a default run; refined "
            "as runs finish)"
         << std::endl;
}

void progress_meter::begin_phase(std::size_t index, const std::string& family,
                                 const std::string& mode) {
    std::lock_guard<std::mutex> lock(mutex_);
    phase_ = index;
    family_ = family;
    mode_ = mode;
    phase_runs_ = 0;
    phase_started_ = steady::now();
    phase_estimate_ = 0;
    for (const auto& [name, e] : expected_) {
        if (e.phase == family + "/" + mode) {
            phase_estimate_ += e.repetitions * e.seconds;
        }
    }
    if (!terminal_) {
        out_ << "fastread-bench: phase " << index << "/" << phases_ << ": " << family << ", "
             << mode << std::endl;
    }
}

void progress_meter::run_done(const std::string& name, const std::string& row) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = expected_.find(name);
    if (it == expected_.end() || it->second.done >= it->second.repetitions) {
        return;
    }
    ++it->second.done;
    ++done_runs_;
    ++phase_runs_;
    done_estimate_ += it->second.seconds;
    if (terminal_ && steady::now() - last_draw_ > std::chrono::milliseconds(200)) {
        draw(row);
    }
}

void progress_meter::draw(const std::string& row) {
    last_draw_ = steady::now();
    constexpr int width = 20;
    const int filled =
        total_runs_ == 0 ? width : static_cast<int>(width * done_runs_ / total_runs_);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::string line = "[" + bar + "] " + std::to_string(done_runs_) + "/" +
                       std::to_string(total_runs_) + " runs, phase " + std::to_string(phase_) +
                       "/" + std::to_string(phases_) + " " + family_ + " " + mode_ + ", " +
                       duration(elapsed()) + " elapsed, about " + duration(seconds_left()) +
                       " left";
    if (!row.empty()) {
        line += ": " + row;
    }
    if (line.size() > 160) {
        line.resize(160);
    }
    out_ << "\r\033[K" << line << std::flush;
}

void progress_meter::end_phase() {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string phase = family_ + "/" + mode_;
    for (auto& [name, e] : expected_) {
        if (e.phase == phase && e.done < e.repetitions) {
            const int rest = e.repetitions - e.done;
            e.done = e.repetitions;
            done_runs_ += static_cast<std::size_t>(rest);
            phase_runs_ += static_cast<std::size_t>(rest);
            done_estimate_ += rest * e.seconds;
        }
    }
    const double took = std::chrono::duration<double>(steady::now() - phase_started_).count();
    if (terminal_) {
        draw("");
    } else {
        out_ << "fastread-bench: phase " << phase_ << "/" << phases_ << " done: " << family_ << ", "
             << mode_ << ", " << phase_runs_ << " runs in " << duration(took) << " (estimated "
             << duration(phase_estimate_) << "); " << done_runs_ << "/" << total_runs_ << " runs, "
             << duration(elapsed()) << " elapsed, about " << duration(seconds_left()) << " left"
             << std::endl;
    }
}

void progress_meter::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (terminal_) {
        out_ << "\r\033[K" << std::flush;
    }
}

void progress_meter::spent(const std::string& name, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = expected_.find(name); it != expected_.end()) {
        it->second.spent += seconds;
    }
}

void progress_meter::write_timings(std::ostream& out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    out << "benchmark\tphase\trepetitions\testimated_s\tspent_s\n";
    for (const auto& [name, e] : expected_) {
        out << name << '\t' << e.phase << '\t' << e.repetitions << '\t' << e.repetitions * e.seconds
            << '\t' << e.spent << '\n';
    }
}

void progress_meter::finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (terminal_) {
        out_ << "\r\033[K";
    }
    out_ << "fastread-bench: " << done_runs_ << " runs in " << duration(elapsed()) << std::endl;
}

} // namespace fastread_bench
