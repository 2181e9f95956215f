#ifndef FASTREAD_BENCH_PROGRESS_HPP
#define FASTREAD_BENCH_PROGRESS_HPP

// What the bench tells a user while it runs, on standard error (results stay on standard
// output): the number of runs (benchmarks x repetitions) and an estimate of the time before
// the first; on a terminal, a one-line bar with the phase, the row, runs done of all and the
// time left (durations, never clock times), redrawn as runs finish; otherwise a line per finished
// phase, so that CI logs and `| tee` stay readable. The estimate starts from the input sizes and is
// refined by how long the finished runs took against what was estimated for them.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

namespace fastread_bench {

class progress_meter {
  public:
    /// `out`: where to write (standard error); `terminal`: redraw one line in place.
    progress_meter(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

    /// Declares benchmark `name` of phase (`family`, `mode`): `repetitions` runs, each
    /// estimated to take `seconds`.
    void expect(const std::string& name, const std::string& family, const std::string& mode,
                int repetitions, double seconds);
    /// Says how many runs there are and about how long they will take.
    void start(std::size_t phases);
    /// A phase (family and cache mode) begins.
    void begin_phase(std::size_t index, const std::string& family, const std::string& mode);
    /// One run (a repetition) of benchmark `name`, showing `row`, has finished.
    void run_done(const std::string& name, const std::string& row);
    /// The phase has finished: its benchmarks count as done whatever was counted.
    void end_phase();
    /// Wall-clock seconds one call of benchmark `name` took, untimed parts included (the
    /// check, warming, evictions): what the estimate should have predicted.
    void spent(const std::string& name, double seconds);
    /// The last phase has finished.
    void finish();
    /// Per benchmark: phase, repetitions, estimated and spent seconds (tab-separated, with
    /// a heading line), so that the estimate can be checked against what the runs took.
    void write_timings(std::ostream& out) const;
    /// Something else is about to write to the terminal: the bar's line is cleared, and
    /// drawn again with the next finished run.
    void clear();

    /// A duration: "42 s", "12 min 05 s", "1 h 02 min".
    static std::string duration(double seconds);
    /// A rounded duration: "about 40 seconds", "about 17 minutes", "about 1 h 32 min".
    static std::string about(double seconds);

  private:
    using steady = std::chrono::steady_clock;
    double elapsed() const;
    double seconds_left() const;
    void draw(const std::string& row);

    struct expected {
        std::string phase; // family and mode
        int repetitions = 0;
        double seconds = 0; // per run
        int done = 0;
        double spent = 0; // wall seconds of every call
    };
    std::ostream& out_;
    bool terminal_;
    mutable std::mutex mutex_;
    std::map<std::string, expected> expected_;
    std::size_t total_runs_ = 0, done_runs_ = 0;
    double total_estimate_ = 0, done_estimate_ = 0; // seconds
    double phase_estimate_ = 0;                     // seconds, of the current phase
    steady::time_point started_{}, phase_started_{}, last_draw_{};
    std::size_t phases_ = 0, phase_ = 0, phase_runs_ = 0;
    std::string family_, mode_;
};

} // namespace fastread_bench

#endif
