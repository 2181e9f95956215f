// The reports of fastread-bench: the tables on standard output, report.md, report.html
// (summary, contents, tables and charts) and one SVG chart per family. Every figure shown
// comes from shown_of(), in its table's unit, so that a chart's bar, its table's cell and
// the summary cannot disagree; tests/bench/check_report.py checks all three against
// results.json, and tests/bench/browser_test.mjs the page in a browser.

#include "bench_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace fastread_bench {

namespace {

constexpr std::size_t text_width = 120; // columns of standard output

// Decimals that show about three significant digits: 123, 12.3, 1.23, 0.12, 0.0123.
int decimals(double v) {
    v = std::fabs(v);
    if (v >= 100 || v == 0) {
        return v >= 100 ? 0 : 2;
    }
    if (v >= 10) {
        return 1;
    }
    if (v >= 0.1) {
        return 2;
    }
    return std::min(8, 2 - static_cast<int>(std::floor(std::log10(v))));
}

std::string fixed(double v, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

// A time unit for `seconds`: its name and its size in seconds.
std::pair<const char*, double> time_unit(double seconds) {
    return seconds >= 1      ? std::pair{"s", 1.0}
           : seconds >= 1e-3 ? std::pair{"ms", 1e-3}
           : seconds >= 1e-6 ? std::pair{"µs", 1e-6}
                             : std::pair{"ns", 1e-9};
}

std::string format_time(double seconds) {
    const auto [name, size] = time_unit(seconds);
    const double v = seconds / size;
    return fixed(v, decimals(v)) + " " + name;
}

std::string escape(const std::string& s) {
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
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

// An id for HTML anchors: letters and digits, the rest as '-'.
std::string anchor(const std::string& s) {
    std::string out;
    for (char c : s) {
        const bool keep =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (keep) {
            out += c;
        } else if (!out.empty() && out.back() != '-') {
            out += '-';
        }
    }
    while (!out.empty() && out.back() == '-') {
        out.pop_back();
    }
    return out;
}

// Terminal columns of a UTF-8 string (code points; "±", "–", "µ" count one).
std::size_t width_of(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char ch : s) {
        n += (ch & 0xC0) != 0x80;
    }
    return n;
}

// `text` wrapped at spaces to lines of at most `width` columns, later lines indented.
std::string wrap(const std::string& text, std::size_t width = text_width,
                 const std::string& indent = "    ") {
    std::string out, line;
    std::size_t at = text.find_first_not_of(' ');
    if (at == std::string::npos) {
        return text + "\n";
    }
    line = text.substr(0, at); // the first line's own indentation
    while (at < text.size()) {
        std::size_t space = text.find(' ', at);
        if (space == std::string::npos) {
            space = text.size();
        }
        const std::string word = text.substr(at, space - at);
        const bool blank = line.find_first_not_of(' ') == std::string::npos;
        if (!blank && width_of(line) + 1 + width_of(word) > width) {
            out += line + "\n";
            line = indent + word;
        } else {
            line += (blank ? "" : " ") + word;
        }
        at = space + 1;
    }
    return out + line + "\n";
}

// Width estimate of SVG text in pixels (sans-serif; generous, so that nothing is cut).
double text_px(const std::string& s, double font_size) {
    return static_cast<double>(width_of(s)) * font_size * 0.64;
}

} // namespace

/// Everything the reports show, computed from the context once.
class report_writer {
  public:
    explicit report_writer(const context& ctx) : ctx_(ctx) {}

    /// A cell as its table shows it, in the table's unit (cycles per byte, or seconds).
    struct shown {
        bool ok = false;
        double value = 0, low = 0, high = 0; // median, min, max
        std::string figure;                  // the median with its unit: "0.37", "12.3 ms"
        std::string text;                    // the whole cell
        std::string detail;                  // a long note in full (text: its head)
        int repetitions = 0;
    };

    shown shown_of(const context::family_info& f, const input& in, const cell& c) const {
        shown s;
        s.repetitions = c.repetitions;
        if (!c.note.empty()) {
            // A failed check ("wrong result (byte order): on byte-order-twin-P6-65535.ppm:
            // sample 0 is 1, expected 256") shows its head in the tables; the whole of it is
            // in results.json, benchmark.log and report.html's tooltip.
            s.text = c.note;
            const bool failed =
                c.note.rfind("wrong result", 0) == 0 || c.note.rfind("failed", 0) == 0;
            if (const std::size_t colon = c.note.find(": ");
                failed && width_of(c.note) > 32 && colon != std::string::npos) {
                s.text = c.note.substr(0, colon);
                s.detail = c.note;
            }
            return s;
        }
        if (c.repetitions == 0) {
            s.text = "-";
            return s;
        }
        s.ok = true;
        if (is_time(f.cells)) {
            s.value = c.median.seconds;
            s.low = c.min.seconds;
            s.high = c.max.seconds;
            const auto [name, size] = time_unit(s.value);
            const int d = decimals(s.value / size);
            s.figure = fixed(s.value / size, d) + " " + name;
            s.text = s.figure;
            if (c.repetitions > 1) {
                s.text += " (" + fixed(s.low / size, d) + "–" + fixed(s.high / size, d) + ")";
            }
            if (f.cells == unit::time_per_item && in.items > 0) {
                s.text += ", " + format_time(s.value / static_cast<double>(in.items)) + " each";
            }
            return s;
        }
        s.value = c.median.cycles_per_byte;
        s.low = c.min.cycles_per_byte;
        s.high = c.max.cycles_per_byte;
        const int d = decimals(s.value);
        s.figure = fixed(s.value, d);
        s.text = s.figure;
        if (c.repetitions > 1) {
            s.text += " (" + fixed(s.low, d) + "–" + fixed(s.high, d) + ")";
        }
        if (f.cells == unit::cycles_per_byte_and_rate) {
            const double gb = c.median.bytes_per_second / 1e9;
            s.text += ", " + fixed(gb, decimals(gb)) + " GB/s";
        }
        if (f.cells == unit::cycles_per_byte_and_files && in.items > 0 && c.median.seconds > 0) {
            const double k = static_cast<double>(in.items) / c.median.seconds / 1e3;
            s.text += ", " + fixed(k, decimals(k)) + " k files/s";
        }
        if ((f.cells == unit::cycles_per_byte_and_numbers ||
             f.cells == unit::cycles_per_byte_and_rows) &&
            in.items > 0 && c.median.seconds > 0) {
            const double m = static_cast<double>(in.items) / c.median.seconds / 1e6;
            s.text += ", " + fixed(m, decimals(m)) + " M/s";
        }
        return s;
    }

    static bool is_time(unit u) { return u == unit::seconds_per_run || u == unit::time_per_item; }

    /// What a family's cells are, for titles: "cycles per byte of input".
    static std::string unit_text(unit u) {
        switch (u) {
        case unit::cycles_per_byte:
            return "cycles per byte of input";
        case unit::cycles_per_byte_and_rate:
            return "cycles per byte of input (and GB/s: 10^9 bytes of input a second)";
        case unit::seconds_per_run:
            return "time per run";
        case unit::time_per_item:
            return "time per run (and per item)";
        case unit::cycles_per_byte_and_files:
            return "cycles per byte of input (and thousands of files a second)";
        case unit::cycles_per_byte_and_numbers:
            return "cycles per byte of input (and millions of numbers a second)";
        case unit::cycles_per_byte_and_rows:
            return "cycles per byte of input (and millions of rows a second)";
        }
        return {};
    }

    row_kind kind_of(const context::family_info& f, const std::string& row) const {
        const auto it = f.kinds.find(row);
        return it == f.kinds.end() ? row_kind::fastread : it->second;
    }

    /// The task `row` belongs to (the first that lists it, or one that lists no rows).
    const task* task_of(const context::family_info& f, const std::string& row) const {
        for (const task& t : f.tasks) {
            if (t.default_row == row ||
                std::find(t.rows.begin(), t.rows.end(), row) != t.rows.end()) {
                return &t;
            }
        }
        for (const task& t : f.tasks) {
            if (t.rows.empty()) {
                return &t;
            }
        }
        return nullptr;
    }

    bool is_default(const context::family_info& f, const std::string& row) const {
        return std::any_of(f.tasks.begin(), f.tasks.end(),
                           [&](const task& t) { return t.default_row == row; });
    }
    bool is_alternative(const context::family_info& f, const std::string& row) const {
        return std::any_of(f.tasks.begin(), f.tasks.end(), [&](const task& t) {
            return std::find(t.alternatives.begin(), t.alternatives.end(), row) !=
                   t.alternatives.end();
        });
    }

    const cell* find(const std::string& family, const std::string& row, const std::string& column,
                     cache_mode mode) const {
        const auto it = ctx_.cells_.find(context::key{family, row, column, mode});
        return it == ctx_.cells_.end() ? nullptr : &it->second;
    }

    /// The fastest row of `t` in one column (floors left out; only rows of kind `only` if
    /// given), or an empty string.
    std::string fastest(const std::string& family, const task* t, const input& in, cache_mode mode,
                        std::optional<row_kind> only = std::nullopt) const {
        const context::family_info& f = ctx_.families_.at(family);
        std::string best;
        double best_value = std::numeric_limits<double>::infinity();
        for (const std::string& row : f.rows) {
            const row_kind k = kind_of(f, row);
            if (k == row_kind::floor || task_of(f, row) != t || (only && k != *only)) {
                continue;
            }
            const cell* c = find(family, row, in.column, mode);
            if (c == nullptr) {
                continue;
            }
            const shown s = shown_of(f, in, *c);
            if (s.ok && s.value < best_value) {
                best_value = s.value;
                best = row;
            }
        }
        return best;
    }

    struct grid_cell {
        shown s;
        bool best = false;
        std::string bench; // Google Benchmark name, for the tests
    };
    struct grid_row {
        std::string row;
        bool is_default = false, is_alternative = false;
        std::vector<grid_cell> cells;
    };
    struct table_data {
        std::string family, group;
        cache_mode mode = cache_mode::cached;
        std::vector<const input*> cols;
        std::vector<grid_row> rows;
        int min_reps = 0, max_reps = 0;
        bool any_figure = false;
        std::set<std::string> notes;
    };

    std::vector<std::string> groups_of(const context::family_info& f) const {
        std::vector<std::string> groups;
        for (const input& in : f.columns) {
            if (std::find(groups.begin(), groups.end(), in.group) == groups.end()) {
                groups.push_back(in.group);
            }
        }
        return groups;
    }

    table_data table(const std::string& family, cache_mode mode, const std::string& group) const {
        const context::family_info& f = ctx_.families_.at(family);
        table_data t;
        t.family = family;
        t.group = group;
        t.mode = mode;
        for (const input& in : f.columns) {
            if (in.group == group) {
                t.cols.push_back(&in);
            }
        }
        std::vector<std::string> best(t.cols.size() * (f.tasks.size() + 1));
        for (std::size_t c = 0; c < t.cols.size(); ++c) {
            for (std::size_t k = 0; k < f.tasks.size(); ++k) {
                best[c * (f.tasks.size() + 1) + k] = fastest(family, &f.tasks[k], *t.cols[c], mode);
            }
        }
        for (const std::string& row : f.rows) {
            // A row with no cell in this group (a family whose groups run different rows)
            // is left out.
            if (std::none_of(t.cols.begin(), t.cols.end(), [&](const input* in) {
                    return find(family, row, in->column, mode) != nullptr;
                })) {
                continue;
            }
            grid_row r;
            r.row = row;
            r.is_default = is_default(f, row);
            r.is_alternative = is_alternative(f, row);
            for (std::size_t c = 0; c < t.cols.size(); ++c) {
                grid_cell g;
                const cell* found = find(family, row, t.cols[c]->column, mode);
                if (found == nullptr) {
                    g.s.text = "-";
                } else {
                    g.s = shown_of(f, *t.cols[c], *found);
                }
                if (g.s.ok) {
                    g.bench = benchmark_name(family, row, t.cols[c]->column, mode);
                    t.any_figure = true;
                    t.min_reps =
                        t.min_reps == 0 ? g.s.repetitions : std::min(t.min_reps, g.s.repetitions);
                    t.max_reps = std::max(t.max_reps, g.s.repetitions);
                    const task* tk = task_of(f, row);
                    const std::size_t k = tk == nullptr
                                              ? f.tasks.size()
                                              : static_cast<std::size_t>(tk - f.tasks.data());
                    g.best = k < f.tasks.size() && best[c * (f.tasks.size() + 1) + k] == row;
                } else if (found != nullptr) {
                    t.notes.insert(g.s.text);
                }
                r.cells.push_back(g);
            }
            t.rows.push_back(r);
        }
        return t;
    }

    std::string title(const std::string& family) const {
        return family + ": " + ctx_.families_.at(family).title;
    }

    std::string repetitions_text(const table_data& t) const {
        if (t.min_reps == t.max_reps) {
            return std::to_string(t.max_reps) + (t.max_reps == 1 ? " repetition" : " repetitions");
        }
        return std::to_string(t.min_reps) + " to " + std::to_string(t.max_reps) + " repetitions";
    }

    std::string cells_line(const table_data& t, const std::string& mark = "*") const {
        const context::family_info& f = ctx_.families_.at(t.family);
        return "cells: " + unit_text(f.cells) + ", median (min–max) of " + repetitions_text(t) +
               "; lower is faster; " + mark + " the fastest row of its column";
    }

    std::string why_empty(const table_data& t) const {
        std::string why;
        for (const std::string& n : t.notes) {
            why += (why.empty() ? "" : "; ") + n;
        }
        return why.empty() ? "no cells" : why;
    }

    /// A table as text, split by columns into blocks of at most text_width columns.
    std::string text_table(const table_data& t) const {
        std::ostringstream out;
        const std::string heading = title(t.family) + " — " + to_string(t.mode) + ", " + t.group;
        if (!t.any_figure) {
            out << wrap(heading + ": left out, no figures (" + why_empty(t) + ")") << "\n";
            return out.str();
        }
        // Cell texts, best marked.
        std::vector<std::vector<std::string>> grid;
        std::vector<std::string> head{"strategy"};
        for (const input* in : t.cols) {
            head.push_back(in->column);
        }
        grid.push_back(head);
        for (const grid_row& r : t.rows) {
            std::vector<std::string> line{r.row};
            for (const grid_cell& g : r.cells) {
                line.push_back(g.s.text + (g.best ? " *" : ""));
            }
            grid.push_back(line);
        }
        std::vector<std::size_t> w(head.size(), 0);
        for (const auto& line : grid) {
            for (std::size_t c = 0; c < line.size(); ++c) {
                w[c] = std::max(w[c], width_of(line[c]));
            }
        }
        // Blocks of columns that fit.
        std::vector<std::pair<std::size_t, std::size_t>> blocks;
        for (std::size_t c = 1; c < head.size();) {
            std::size_t used = w[0], end = c;
            while (end < head.size() && (end == c || used + 2 + w[end] <= text_width)) {
                used += 2 + w[end];
                ++end;
            }
            blocks.emplace_back(c, end);
            c = end;
        }
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            out << wrap(heading + (blocks.size() > 1 ? " (part " + std::to_string(b + 1) + " of " +
                                                           std::to_string(blocks.size()) + ")"
                                                     : ""))
                << wrap("host: " + host_label()) << wrap(cells_line(t));
            for (const auto& line : grid) {
                std::string text = line[0] + std::string(w[0] - width_of(line[0]), ' ');
                for (std::size_t c = blocks[b].first; c < blocks[b].second; ++c) {
                    text += "  " + std::string(w[c] - width_of(line[c]), ' ') + line[c];
                }
                while (!text.empty() && text.back() == ' ') {
                    text.pop_back();
                }
                out << text << "\n";
            }
            out << "\n";
        }
        return out.str();
    }

    std::string markdown_table(const table_data& t) const {
        std::ostringstream out;
        if (!t.any_figure) {
            out << "Left out: no figures (" << why_empty(t) << ").\n\n";
            return out.str();
        }
        out << "Host: " << host_label() << "\n\n" << cells_line(t) << " (**bold**)\n\n";
        out << "| strategy |";
        for (const input* in : t.cols) {
            out << " " << in->column << " |";
        }
        out << "\n|---|";
        for (std::size_t c = 0; c < t.cols.size(); ++c) {
            out << "---:|";
        }
        out << "\n";
        for (const grid_row& r : t.rows) {
            out << "| " << (r.is_default ? "**" + r.row + "** (default)" : r.row) << " |";
            for (const grid_cell& g : r.cells) {
                out << " " << (g.best ? "**" + g.s.text + "**" : g.s.text) << " |";
            }
            out << "\n";
        }
        return out.str() + "\n";
    }

    // ---- summary --------------------------------------------------------------------------

    struct summary_line {
        cache_mode mode;
        const input* in;
        const task* t;
        std::string default_row, fastest_row, peer_row;
        shown default_fig, fastest_fig, peer_fig;
        row_kind peer_kind = row_kind::peer;
    };

    std::vector<summary_line> summary(const std::string& family) const {
        const context::family_info& f = ctx_.families_.at(family);
        std::vector<summary_line> lines;
        for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
            for (const input& in : f.columns) {
                for (const task& t : f.tasks) {
                    const cell* d = find(family, t.default_row, in.column, mode);
                    if (d == nullptr) {
                        continue;
                    }
                    summary_line l{mode, &in, &t, t.default_row, {}, {}, {}, {}, {}};
                    l.default_fig = shown_of(f, in, *d);
                    if (!l.default_fig.ok) {
                        continue;
                    }
                    l.fastest_row = fastest(family, &t, in, mode);
                    l.fastest_fig = shown_of(f, in, *find(family, l.fastest_row, in.column, mode));
                    l.peer_row = fastest(family, &t, in, mode, row_kind::peer);
                    if (l.peer_row.empty()) { // no peer: the best of the articles' techniques
                        l.peer_kind = row_kind::baseline;
                        l.peer_row = fastest(family, &t, in, mode, row_kind::baseline);
                    }
                    if (!l.peer_row.empty()) {
                        l.peer_fig = shown_of(f, in, *find(family, l.peer_row, in.column, mode));
                    }
                    lines.push_back(l);
                }
            }
        }
        return lines;
    }

    static std::string ratio(double a, double b) {
        if (b <= 0) {
            return "-";
        }
        const double r = a / b;
        return fixed(r, r < 10 ? 2 : r < 100 ? 1 : 0) + "×";
    }

    std::string column_label(const summary_line& l) const {
        return l.in->column + (l.t->name.empty() ? "" : ", " + l.t->name);
    }

    std::string text_summary() const {
        std::ostringstream out;
        out << wrap("Summary: per column, the default row (what a user gets without choosing), "
                    "the fastest row and the best peer (another library or tool; where a family "
                    "has none, the best of the articles' techniques, marked (article)), with the "
                    "ratios of their times; the tables above give every row.")
            << "\n";
        for (const std::string& family : ctx_.order_) {
            const std::vector<summary_line> lines = summary(family);
            if (lines.empty()) {
                continue;
            }
            for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
                std::vector<std::vector<std::string>> grid{{"column", "default", "fastest",
                                                            "default/fastest", "best peer",
                                                            "peer/default"}};
                for (const summary_line& l : lines) {
                    if (l.mode != mode) {
                        continue;
                    }
                    grid.push_back(
                        {column_label(l), l.default_row + " " + l.default_fig.figure,
                         l.fastest_row + " " + l.fastest_fig.figure,
                         ratio(l.default_fig.value, l.fastest_fig.value),
                         l.peer_row.empty()
                             ? std::string("-")
                             : l.peer_row +
                                   (l.peer_kind == row_kind::baseline ? " (article) " : " ") +
                                   l.peer_fig.figure,
                         l.peer_row.empty() ? std::string("-")
                                            : ratio(l.peer_fig.value, l.default_fig.value)});
                }
                if (grid.size() == 1) {
                    continue;
                }
                out << wrap("summary, " + title(family) + " — " + to_string(mode) + " (" +
                            unit_text(ctx_.families_.at(family).cells) + ")");
                out << lines_of(grid) << "\n";
            }
        }
        return out.str();
    }

    // A grid as text columns; rows wider than text_width wrap their last cells onto
    // indented lines.
    static std::string lines_of(const std::vector<std::vector<std::string>>& grid) {
        std::vector<std::size_t> w(grid[0].size(), 0);
        for (const auto& line : grid) {
            for (std::size_t c = 0; c < line.size(); ++c) {
                w[c] = std::max(w[c], width_of(line[c]));
            }
        }
        std::size_t total = 0;
        for (std::size_t x : w) {
            total += x + 2;
        }
        std::ostringstream out;
        if (total <= text_width + 2) {
            for (const auto& line : grid) {
                std::string text;
                for (std::size_t c = 0; c < line.size(); ++c) {
                    text +=
                        (c == 0 ? "" : "  ") + line[c] + std::string(w[c] - width_of(line[c]), ' ');
                }
                while (!text.empty() && text.back() == ' ') {
                    text.pop_back();
                }
                out << text << "\n";
            }
            return out.str();
        }
        // Too wide: one record per line group, "heading: value".
        for (std::size_t r = 1; r < grid.size(); ++r) {
            out << grid[r][0] << "\n";
            for (std::size_t c = 1; c < grid[r].size(); ++c) {
                out << wrap("    " + grid[0][c] + ": " + grid[r][c], text_width, "        ");
            }
        }
        return out.str();
    }

    // ---- the chart ------------------------------------------------------------------------

    std::string svg(const std::string& family) const {
        // Horizontal bars on a log scale, in the unit of the family's tables: per column
        // group a legend, then one panel per cache mode, one bar per row and column (the
        // median), a whisker from the minimum to the maximum, the median's figure beside it.
        const context::family_info& f = ctx_.families_.at(family);
        static const char* colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                        "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};
        double lo = std::numeric_limits<double>::infinity(), hi = 0;
        std::size_t label_chars = 0, value_chars = 0;
        bool any = false;
        for (const std::string& group : groups_of(f)) {
            for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
                const table_data t = table(family, mode, group);
                for (const grid_row& r : t.rows) {
                    for (const grid_cell& g : r.cells) {
                        if (g.s.ok && g.s.value > 0) {
                            any = true;
                            lo = std::min(lo, std::max(g.s.low, g.s.value / 1e3));
                            hi = std::max(hi, g.s.high);
                            label_chars = std::max(label_chars, width_of(r.row));
                            value_chars = std::max(value_chars, width_of(g.s.figure));
                        }
                    }
                }
            }
        }
        if (!any) {
            return {};
        }
        const double log_lo = std::floor(std::log10(lo)), log_hi = std::ceil(std::log10(hi));
        const double span = std::max(1.0, log_hi - log_lo);
        const bool time = is_time(f.cells);
        const int font = 11, small = 9, bar_h = 13, row_gap = 8;
        const int label_w = static_cast<int>(label_chars * font * 0.64) + 16;
        const int plot_w = 560;
        const int value_w = static_cast<int>(value_chars * small * 0.64) + 12;
        const int width = std::max(label_w + plot_w + value_w + 20, 900);
        const int title_chars = static_cast<int>((width - 20) / (14 * 0.64));
        const int small_chars = static_cast<int>((width - 20) / (10 * 0.64));
        auto x_of = [&](double v) { return label_w + (std::log10(v) - log_lo) / span * plot_w; };
        auto tick_text = [&](double d) {
            const double v = std::pow(10.0, d);
            if (time) {
                return format_time(v);
            }
            char text[32];
            std::snprintf(text, sizeof text, "%g", v);
            return std::string(text);
        };

        std::ostringstream body;
        int y = 10;
        auto text_lines = [&](const std::string& text, int size, std::size_t chars,
                              const char* extra) {
            std::string wrapped = wrap(text, chars, "");
            std::istringstream in(wrapped);
            for (std::string line; std::getline(in, line);) {
                y += size + 5;
                body << "<text x=\"10\" y=\"" << y << "\" font-size=\"" << size << "\"" << extra
                     << ">" << escape(line) << "</text>\n";
            }
        };
        text_lines("fastread-bench " + title(family), 14, static_cast<std::size_t>(title_chars),
                   " class=\"title\"");
        text_lines(unit_text(f.cells) + " (median, whisker: min–max), log scale; lower is faster",
                   10, static_cast<std::size_t>(small_chars), "");
        text_lines("host: " + host_label(), 10, static_cast<std::size_t>(small_chars),
                   " class=\"host\"");
        y += 8;
        for (const std::string& group : groups_of(f)) {
            std::vector<const input*> cols;
            for (const input& in : f.columns) {
                if (in.group == group) {
                    cols.push_back(&in);
                }
            }
            y += 18;
            body << "<text x=\"10\" y=\"" << y << "\" font-size=\"13\" font-weight=\"bold\">"
                 << escape(group) << "</text>\n";
            // The legend, wrapped to the chart's width.
            y += 8;
            int lx = 10;
            for (std::size_t c = 0; c < cols.size(); ++c) {
                const int item = 18 + static_cast<int>(text_px(cols[c]->column, font)) + 16;
                if (lx > 10 && lx + item > width - 10) {
                    lx = 10;
                    y += 16;
                }
                body << "<rect x=\"" << lx << "\" y=\"" << y
                     << "\" width=\"12\" height=\"10\" fill=\"" << colours[c % 8]
                     << "\"/><text class=\"legend\" x=\"" << lx + 16 << "\" y=\"" << y + 9 << "\">"
                     << escape(cols[c]->column) << "</text>\n";
                lx += item;
            }
            y += 16;
            for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
                const table_data t = table(family, mode, group);
                std::vector<const grid_row*> rows;
                for (const grid_row& r : t.rows) {
                    if (std::any_of(r.cells.begin(), r.cells.end(),
                                    [](const grid_cell& g) { return g.s.ok && g.s.value > 0; })) {
                        rows.push_back(&r);
                    }
                }
                y += 20;
                body << "<text x=\"10\" y=\"" << y << "\" font-weight=\"bold\">" << to_string(mode)
                     << (rows.empty() ? ": no figures (" + escape(why_empty(t)) + ")" : "")
                     << "</text>\n";
                if (rows.empty()) {
                    continue;
                }
                y += 18;
                const int row_h = static_cast<int>(cols.size()) * bar_h + row_gap;
                const int top = y, bottom = y + static_cast<int>(rows.size()) * row_h;
                // The scale's ticks, labelled above and below the panel.
                for (double d = log_lo; d <= log_hi; d += 1) {
                    const double x = label_w + (d - log_lo) / span * plot_w;
                    body << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\""
                         << bottom << "\" stroke=\"#ccc\"/>\n";
                    for (const int ty : {top - 5, bottom + 14}) {
                        body << "<text class=\"tick\" x=\"" << x << "\" y=\"" << ty
                             << "\" font-size=\"10\" text-anchor=\"middle\">"
                             << escape(tick_text(d)) << "</text>\n";
                    }
                }
                int ry = top;
                for (const grid_row* r : rows) {
                    body << "<text class=\"row\" x=\"" << label_w - 8 << "\" y=\""
                         << ry + row_h / 2 + 1 << "\" text-anchor=\"end\""
                         << (r->is_default ? " font-weight=\"bold\"" : "") << ">" << escape(r->row)
                         << "</text>\n";
                    for (std::size_t c = 0; c < cols.size(); ++c) {
                        const grid_cell& g = r->cells[c];
                        if (!g.s.ok || g.s.value <= 0) {
                            continue;
                        }
                        const int by = ry + static_cast<int>(c) * bar_h;
                        const double w = std::max(1.0, x_of(g.s.value) - label_w);
                        body << "<rect class=\"bar\" x=\"" << label_w << "\" y=\"" << by
                             << "\" width=\"" << w << "\" height=\"" << bar_h - 2 << "\" fill=\""
                             << colours[c % 8] << "\" data-bench=\"" << escape(g.bench)
                             << "\" data-value=\"" << g.s.value << "\" data-row=\""
                             << escape(r->row) << "\" data-column=\"" << escape(cols[c]->column)
                             << "\" data-mode=\"" << to_string(mode) << "\"><title>"
                             << escape(r->row) << ", " << escape(cols[c]->column) << ", "
                             << to_string(mode) << ": " << escape(g.s.text) << "</title></rect>\n";
                        double end = label_w + w;
                        if (g.s.repetitions > 1 && g.s.high > g.s.low) {
                            const double x1 = x_of(std::max(g.s.low, lo)), x2 = x_of(g.s.high);
                            const int my = by + (bar_h - 2) / 2;
                            body << "<path class=\"whisker\" d=\"M" << x1 << " " << my << "H" << x2
                                 << "M" << x1 << " " << my - 3 << "v6M" << x2 << " " << my - 3
                                 << "v6\" stroke=\"#333\" fill=\"none\"/>\n";
                            end = std::max(end, x2);
                        }
                        body << "<text class=\"value\" x=\"" << end + 4 << "\" y=\""
                             << by + bar_h - 4 << "\" font-size=\"" << small << "\" data-bench=\""
                             << escape(g.bench) << "\">" << escape(g.s.figure) << "</text>\n";
                    }
                    ry += row_h;
                }
                y = bottom + 20;
            }
        }
        y += 10;
        std::ostringstream s;
        s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << y
          << "\" viewBox=\"0 0 " << width << " " << y
          << "\" font-family=\"sans-serif\" font-size=\"" << font << "\" data-family=\""
          << escape(family) << "\">\n"
          << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
          << body.str() << "</svg>\n";
        return s.str();
    }

    // ---- report.html ----------------------------------------------------------------------

    std::string run_kind() const {
        const options& o = ctx_.opts_;
        return o.quick ? "--quick run" : o.full ? "--full run" : "default run";
    }

    std::string html() const {
        const options& o = ctx_.opts_;
        std::ostringstream h;
        h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          << "<title>fastread-bench results</title>\n<style>\n"
          << "body{font-family:sans-serif;margin:2em;max-width:1400px;color:#222}\n"
          << "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}\n"
          << "th,td{border:1px solid #ccc;padding:3px 8px}td{text-align:right}\n"
          << "td:first-child,th:first-child{text-align:left}\n"
          << "tr.default td{background:#ffe58a;font-weight:bold}\n"
          << "tr.alternative td{background:#fff6d0}\n"
          << "td.best{background:#b7e4b0 !important;font-weight:bold}\n"
          << "td.best::after{content:\" \\2605\"}\n"
          << "table.summary td{text-align:left}table.summary td.ratio{text-align:right}\n"
          << "nav ul{columns:3;font-size:13px}\n"
          << ".host{color:#555;font-size:12px}\n.chart{overflow-x:auto}\n"
          << "</style></head><body>\n"
          << "<h1>fastread-bench results</h1>\n<p class=\"host\">Host: " << escape(host_label())
          << "<br>Command: <code>" << escape(o.command_line) << "</code> (" << run_kind() << ")<br>"
          << escape(cycles().describe()) << "</p>\n"
          << "<p>Cells: the median over the repetitions each table states, with the minimum and "
             "maximum in brackets; cycles per byte of input unless the table says time; lower "
             "is faster. <span style=\"background:#ffe58a;font-weight:bold\">The default "
             "row</span> is what a user gets without choosing; <span "
             "style=\"background:#fff6d0\">the rows it chooses between</span> are beside it; "
             "<span style=\"background:#b7e4b0;font-weight:bold\">the fastest row of each "
             "column &#9733;</span> (rows that do less than the job left out: RAW, which only "
             "reads; a re-run over a warm cache; opening without checks).</p>\n";
        // Summary.
        h << "<h2 id=\"summary\">Summary</h2>\n<p>Per column: the default row, the fastest row "
             "and the best peer (another library or tool; where a family has none, the best of "
             "the articles' techniques, marked <i>article</i>). <i>default / fastest</i>: how "
             "many times the fastest row's time the default takes (1.00×: the default is the "
             "fastest); <i>peer / default</i>: how many times the default's time the best peer "
             "takes.</p>\n";
        for (const std::string& family : ctx_.order_) {
            const std::vector<summary_line> lines = summary(family);
            if (lines.empty()) {
                continue;
            }
            const context::family_info& f = ctx_.families_.at(family);
            h << "<h3 id=\"summary-" << anchor(family) << "\"><a href=\"#" << anchor(family)
              << "\">" << escape(title(family)) << "</a></h3>\n"
              << "<p class=\"host\">" << escape(unit_text(f.cells))
              << "; host: " << escape(host_label()) << "</p>\n"
              << "<table class=\"summary\" data-family=\"" << escape(family) << "\">\n"
              << "<tr><th>cache</th><th>column</th><th>default</th><th></th><th>fastest</th>"
                 "<th></th><th>default / fastest</th><th>best peer</th><th></th>"
                 "<th>peer / default</th></tr>\n";
            for (const summary_line& l : lines) {
                auto fig = [&](const std::string& row, const shown& s,
                               const std::string& label_suffix = "") {
                    return "<td>" + escape(row + label_suffix) +
                           "</td><td class=\"fig\" data-bench=\"" +
                           escape(benchmark_name(family, row, l.in->column, l.mode)) +
                           "\" data-unit=\"" + (is_time(f.cells) ? "time" : "cycles/byte") + "\">" +
                           escape(s.figure) + "</td>";
                };
                h << "<tr><td>" << to_string(l.mode) << "</td><td>" << escape(column_label(l))
                  << "</td>" << fig(l.default_row, l.default_fig)
                  << fig(l.fastest_row, l.fastest_fig) << "<td class=\"ratio\">"
                  << ratio(l.default_fig.value, l.fastest_fig.value) << "</td>";
                if (l.peer_row.empty()) {
                    h << "<td>-</td><td></td><td class=\"ratio\">-</td>";
                } else {
                    h << fig(l.peer_row, l.peer_fig,
                             l.peer_kind == row_kind::baseline ? " (article)" : "")
                      << "<td class=\"ratio\">" << ratio(l.peer_fig.value, l.default_fig.value)
                      << "</td>";
                }
                h << "</tr>\n";
            }
            h << "</table>\n";
        }
        // Contents.
        h << "<nav><h2 id=\"contents\">Contents</h2>\n<ul>\n<li><a href=\"#summary\">Summary</a>"
             "</li>\n";
        for (const std::string& family : ctx_.order_) {
            const context::family_info& f = ctx_.families_.at(family);
            h << "<li><a href=\"#" << anchor(family) << "\">" << escape(title(family))
              << "</a><ul>\n";
            for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
                for (const std::string& group : groups_of(f)) {
                    h << "<li><a href=\"#" << anchor(family + "-" + to_string(mode) + "-" + group)
                      << "\">" << to_string(mode) << ", " << escape(group) << "</a></li>\n";
                }
            }
            h << "<li><a href=\"#" << anchor(family + "-chart") << "\">chart</a></li></ul></li>\n";
        }
        h << "</ul></nav>\n";
        for (const std::string& family : ctx_.order_) {
            const context::family_info& f = ctx_.families_.at(family);
            h << "<h2 id=\"" << anchor(family) << "\">" << escape(title(family)) << "</h2>\n";
            for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
                for (const std::string& group : groups_of(f)) {
                    const table_data t = table(family, mode, group);
                    h << "<h3 id=\"" << anchor(family + "-" + to_string(mode) + "-" + group)
                      << "\">" << to_string(mode) << ", " << escape(group) << "</h3>\n";
                    if (!t.any_figure) {
                        h << "<p>Left out: no figures (" << escape(why_empty(t)) << ").</p>\n";
                        continue;
                    }
                    h << "<p class=\"host\">host: " << escape(host_label()) << "<br>"
                      << escape(cells_line(t, "\u2605")) << "</p>\n<table data-family=\""
                      << escape(family) << "\" data-mode=\"" << to_string(mode)
                      << "\">\n<tr><th>strategy</th>";
                    for (const input* in : t.cols) {
                        h << "<th>" << escape(in->column) << "</th>";
                    }
                    h << "</tr>\n";
                    for (const grid_row& r : t.rows) {
                        h << "<tr"
                          << (r.is_default       ? " class=\"default\""
                              : r.is_alternative ? " class=\"alternative\""
                                                 : "")
                          << "><td>" << escape(r.row) << "</td>";
                        for (const grid_cell& g : r.cells) {
                            h << "<td" << (g.best ? " class=\"best\"" : "");
                            if (g.s.ok) {
                                h << " data-bench=\"" << escape(g.bench) << "\"";
                            }
                            if (!g.s.detail.empty()) {
                                h << " title=\"" << escape(g.s.detail) << "\"";
                            }
                            h << ">" << escape(g.s.text) << "</td>";
                        }
                        h << "</tr>\n";
                    }
                    h << "</table>\n";
                }
            }
            const std::string chart = svg(family);
            h << "<div class=\"chart\" id=\"" << anchor(family + "-chart") << "\">\n"
              << (chart.empty() ? "<p>No chart: no figures.</p>\n" : chart) << "</div>\n";
        }
        h << "</body></html>\n";
        return h.str();
    }

    std::string markdown() const {
        const options& o = ctx_.opts_;
        std::ostringstream md;
        char date[32] = "unknown";
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
        md << "# fastread-bench results\n\n"
           << "- Date: " << date << "\n"
           << "- Command: `" << o.command_line << "` (" << run_kind() << ")\n"
           << "- Host: " << host_label() << "\n"
           << "- Compiler: " << compiler_name() << "\n"
           << "- Host details: " << host_description() << "\n"
           << "- Cycles: " << cycles().describe() << "\n"
           << "- Figures: the median over the repetitions each table states, (minimum–maximum); "
              "cycles per byte of input unless the table says time; **bold**: the fastest row "
              "of its column\n"
           << "- cached: the file was read once before timing; cold: "
              "fastread::page_cache::evict before every iteration (not timed)\n\n";
        md << "## Summary\n\n";
        for (const std::string& family : ctx_.order_) {
            const std::vector<summary_line> lines = summary(family);
            if (lines.empty()) {
                continue;
            }
            md << "### " << title(family) << "\n\n"
               << "| cache | column | default | fastest | default / fastest | best peer | peer / "
                  "default |\n|---|---|---|---|---:|---|---:|\n";
            for (const summary_line& l : lines) {
                md << "| " << to_string(l.mode) << " | " << column_label(l) << " | "
                   << l.default_row << " " << l.default_fig.figure << " | " << l.fastest_row << " "
                   << l.fastest_fig.figure << " | "
                   << ratio(l.default_fig.value, l.fastest_fig.value) << " | ";
                if (l.peer_row.empty()) {
                    md << "- | - |\n";
                } else {
                    md << l.peer_row << (l.peer_kind == row_kind::baseline ? " (article) " : " ")
                       << l.peer_fig.figure << " | " << ratio(l.peer_fig.value, l.default_fig.value)
                       << " |\n";
                }
            }
            md << "\n";
        }
        for (const std::string& family : ctx_.order_) {
            const context::family_info& f = ctx_.families_.at(family);
            md << "## " << title(family) << "\n\n";
            for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
                for (const std::string& group : groups_of(f)) {
                    md << "### " << to_string(mode) << ", " << group << "\n\n"
                       << markdown_table(table(family, mode, group));
                }
            }
            if (!svg(family).empty()) {
                md << "![" << family << "](" << family << ".svg)\n\n";
            }
        }
        return md.str();
    }

  private:
    const context& ctx_;
};

std::string run_heading(const options& o) {
    std::string which = o.quick ? "--quick run" : o.full ? "--full run" : "the default run";
    const int cold =
        o.cold_repetitions > 0 ? std::min(o.cold_repetitions, o.repetitions) : o.repetitions;
    which += ": " + std::to_string(o.repetitions) + " repetitions cached, " + std::to_string(cold) +
             " cold (fewer for some slow columns, as each table says), "
             "each at least " +
             fixed(o.min_time, 2) + " s of timed iterations";
    return wrap("fastread-bench, " + which) + wrap("host: " + host_label()) +
           wrap("cycles: " + cycles().describe()) + wrap("io: " + host_description()) +
           wrap("Google Benchmark's own lines for every run: " +
                (o.verbose ? std::string("below (--verbose)")
                           : (o.out_dir / "benchmark.log").string() + " (--verbose: here too)")) +
           "\n";
}

std::string debug_library_note(const options& o) {
    return wrap(std::string("note: Google Benchmark's library warns \"Library was built as "
                            "DEBUG. Timings may be affected.\" (") +
                (o.verbose ? "above" : "in benchmark.log") +
                "). That is Debian's libbenchmark, built without NDEBUG: its timing loop is "
                "inline and compiled with fastread-bench's own flags (" FASTREAD_BENCH_FLAGS
                "); what runs inside the library (starting and stopping the timer, the "
                "statistics) runs once per repetition, or around each cold iteration's "
                "untimed eviction: microseconds against timed iterations of milliseconds.");
}

void context::print_family(std::ostream& out, const std::string& family) const {
    const report_writer w(*this);
    const family_info& f = families_.at(family);
    for (cache_mode mode : {cache_mode::cached, cache_mode::cold}) {
        for (const std::string& group : w.groups_of(f)) {
            out << w.text_table(w.table(family, mode, group));
        }
    }
    out << std::flush;
}

void context::report(std::ostream& out) const {
    const report_writer w(*this);
    out << w.text_summary();
    for (const std::string& family : order_) {
        const std::string chart = w.svg(family);
        if (!chart.empty()) {
            std::ofstream(opts_.out_dir / (family + ".svg")) << chart;
        }
    }
    std::ofstream(opts_.out_dir / "report.md") << w.markdown();
    std::ofstream(opts_.out_dir / "report.html") << w.html();
    out << wrap("Wrote " + (opts_.out_dir / "results.json").string() +
                " (Google Benchmark JSON), " + (opts_.out_dir / "report.md").string() + ", " +
                (opts_.out_dir / "report.html").string() + ", one SVG chart per family and " +
                (opts_.out_dir / "benchmark.log").string() +
                " (Google Benchmark's own output for every run).");
}

} // namespace fastread_bench
