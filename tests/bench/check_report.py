#!/usr/bin/env python3
"""Checks that a fastread-bench run says the same thing everywhere it says it.

usage: check_report.py OUT_DIR STDOUT_FILE

OUT_DIR is the run's --out directory (results.json, report.md, the SVG charts); STDOUT_FILE
is what fastread-bench printed on standard output. For every bar of every chart: its value
(data-value) is the median of its benchmark in results.json, in the unit of its table
(cycles per byte, or seconds per run); the figure printed beside it is the figure its table
cell starts with, on standard output and in report.md; its length is the same log-scale
function of its value as every other bar of the chart. Every figure of every table has its
bar, and every figure agrees with results.json to the digits shown. Standard output: no
line wider than 120 columns, no terminal escape codes, the first table within 40 lines.
Exits 1 with one line per problem.
"""

import json
import math
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}

problems = []


def problem(text):
    problems.append(text)


def medians(results):
    """Benchmark name -> median aggregate, from Google Benchmark's JSON."""
    out = {}
    for run in json.load(open(results, encoding="utf-8"))["benchmarks"]:
        if run.get("aggregate_name") == "median" or (
            run.get("run_type") == "iteration" and run.get("repetitions", 1) == 1
        ):
            out[run["run_name"].split("/min_time")[0]] = run
    return out


def json_value(run, time):
    """The median in the table's unit: seconds per run, or cycles per byte."""
    if time:
        assert run["time_unit"] == "ms", run["time_unit"]
        return run["real_time"] / 1e3
    return run["cycles_per_byte"]


def parse_figure(figure):
    """'12.3 ms' -> (0.0123, 0.0005 half a last digit in seconds); '0.37' -> (0.37, 0.005)."""
    m = re.fullmatch(r"([0-9]+(?:\.([0-9]+))?)(?: (s|ms|µs|ns))?", figure)
    if not m:
        return None
    value = float(m.group(1))
    half = 0.5 * 10 ** -(len(m.group(2)) if m.group(2) else 0)
    scale = TIME_UNITS[m.group(3)] if m.group(3) else 1.0
    return value * scale, half * scale, m.group(3) is not None


def leading_figure(cell):
    """The figure a cell starts with: '0.37 (0.35–0.41), 7.0 GB/s *' -> '0.37'."""
    return re.split(r" \(|, | \*", cell, maxsplit=1)[0]


def close(a, b, rel=1e-5):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def parse_stdout(text):
    """The tables of standard output: (family, mode, row, column) -> cell text; and
    (family) -> the unit its 'cells:' line names."""
    cells, units = {}, {}
    # Logical lines: a wrapped heading's indented continuations joined to it; `at` keeps
    # each one's first physical line number.
    lines, at = [], []
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("    ") and lines and lines[-1].strip():
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
            at.append(n)
    first_table = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([a-z]+): .* — (cached|cold), (.*?)(?: \(part \d+ of \d+\))?$", line)
        if not m or line.startswith("summary"):
            i += 1
            continue
        family, mode = m.group(1), m.group(2)
        # The heading, then its host and cells lines (a table left out has neither).
        if i + 3 >= len(lines) or not lines[i + 1].startswith("host: ") or not lines[
                i + 2].startswith("cells: "):
            i += 1
            continue
        cells_line = lines[i + 2]
        i += 3
        units[family] = "time" if "cells: time per run" in cells_line else "cycles/byte"
        if first_table is None:
            first_table = at[i]
        header = re.split(r"\s{2,}", lines[i].strip())
        if header[0] != "strategy":
            problem("stdout line %d: a table without its heading row" % at[i])
            continue
        columns = header[1:]
        i += 1
        while i < len(lines) and lines[i].strip():
            parts = re.split(r"\s{2,}", lines[i].rstrip())
            if len(parts) != len(columns) + 1:
                problem("stdout line %d: %d cells for %d columns: %s"
                        % (at[i], len(parts) - 1, len(columns), lines[i]))
            else:
                for column, cell in zip(columns, parts[1:]):
                    cells[(family, mode, parts[0], column)] = cell
            i += 1
    return cells, units, first_table


def parse_markdown(text):
    """report.md's tables: (family, mode, row, column) -> cell text, marks removed."""
    cells = {}
    family = mode = None
    columns = None
    for line in text.split("\n"):
        m = re.match(r"^## ([a-z]+): ", line)
        if m:
            family = m.group(1)
            continue
        m = re.match(r"^### (cached|cold), ", line)
        if m:
            mode = m.group(1)
            continue
        if line.startswith("| strategy |"):
            columns = [c.strip() for c in line.strip("|").split("|")][1:]
            continue
        if line.startswith("|---"):
            continue
        if line.startswith("| ") and columns and family and mode:
            parts = [c.strip() for c in line.strip().strip("|").split(" | ")]
            row = re.sub(r"^\*\*(.*)\*\* \(default\)$", r"\1", parts[0])
            for column, cell in zip(columns, parts[1:]):
                cells[(family, mode, row, column)] = re.sub(r"^\*\*(.*)\*\*$", r"\1", cell)
        elif not line.startswith("|"):
            columns = None if line.startswith("#") else columns
    return cells


def check_svg(path, family, runs, table, markdown, unit):
    root = ET.parse(path).getroot()
    texts = list(root.iter(SVG + "text"))
    caption = " ".join("".join(t.itertext()) for t in texts[:4])
    time = unit == "time"
    if time and "time per run" not in caption:
        problem("%s: the chart's title does not say time per run: %s" % (path, caption))
    if not time and "cycles per byte" not in caption:
        problem("%s: the chart's title does not say cycles per byte: %s" % (path, caption))
    labels = {t.get("data-bench"): "".join(t.itertext()) for t in texts
              if t.get("class") == "value"}
    fit = []
    bars = 0
    for bar in root.iter(SVG + "rect"):
        if bar.get("class") != "bar":
            continue
        bars += 1
        name, value = bar.get("data-bench"), float(bar.get("data-value"))
        key = (family, bar.get("data-mode"), bar.get("data-row"), bar.get("data-column"))
        where = "%s: bar %s" % (path, name)
        run = runs.get(name)
        if run is None:
            problem(where + ": no such benchmark in results.json")
            continue
        if not close(value, json_value(run, time)):
            problem("%s: plots %g, results.json's median is %g" % (where, value,
                                                                    json_value(run, time)))
        label = labels.get(name)
        if key not in table:
            problem(where + ": no cell in the tables on standard output")
            continue
        if label != leading_figure(table[key]):
            problem("%s: labelled %r, its cell on standard output says %r"
                    % (where, label, table[key]))
        if key in markdown and leading_figure(markdown[key]) != label:
            problem("%s: labelled %r, report.md says %r" % (where, label, markdown[key]))
        width = float(bar.get("width"))
        if width > 1.5:
            fit.append((math.log10(value), float(bar.get("x")) + width))
    if bars == 0:
        problem(path + ": no bars")
    # Every bar's end is one linear function of log10(value).
    if len(fit) >= 2:
        (l0, x0), (l1, x1) = min(fit), max(fit)
        if l1 > l0:
            slope = (x1 - x0) / (l1 - l0)
            for l, x in fit:
                if abs(x0 + slope * (l - l0) - x) > 1.0:
                    problem("%s: a bar of value 10^%.3f ends at x=%.1f, the scale says %.1f"
                            % (path, l, x, x0 + slope * (l - l0)))
    return bars


def main():
    out_dir, stdout_file = sys.argv[1], sys.argv[2]
    text = open(stdout_file, encoding="utf-8").read()
    for n, line in enumerate(text.split("\n"), 1):
        if "\x1b" in line:
            problem("stdout line %d: a terminal escape code" % n)
        if len(line) > 120:
            problem("stdout line %d: %d columns: %s" % (n, len(line), line))
    runs = medians(out_dir + "/results.json")
    table, units, first_table = parse_stdout(text)
    if first_table is None:
        problem("stdout: no table")
    elif first_table > 40:
        problem("stdout: the first table starts at line %d, after 40" % first_table)
    markdown = parse_markdown(open(out_dir + "/report.md", encoding="utf-8").read())
    for key, cell in table.items():
        if key in markdown and markdown[key] != cell.removesuffix(" *"):
            problem("%s: standard output says %r, report.md %r" % (key, cell, markdown[key]))
    bars = 0
    for family in sorted(units):
        bars += check_svg("%s/%s.svg" % (out_dir, family), family, runs, table, markdown,
                          units[family])
    # Every figure of the tables: equal to results.json to the digits shown, and charted.
    charted = set()
    for family in units:
        root = ET.parse("%s/%s.svg" % (out_dir, family)).getroot()
        for bar in root.iter(SVG + "rect"):
            if bar.get("class") == "bar":
                charted.add((family, bar.get("data-mode"), bar.get("data-row"),
                             bar.get("data-column")))
    figures = 0
    for key, cell in table.items():
        parsed = parse_figure(leading_figure(cell))
        if parsed is None:
            continue  # a note: "n/a (P6 only)", "wrong result: ..."
        figures += 1
        value, half, is_time = parsed
        family, mode, row, column = key
        name = "/".join([family, row, column, mode]).replace(" ", "_")
        run = runs.get(name)
        if run is None:
            problem("%s: a figure without a benchmark %s in results.json" % (key, name))
            continue
        want = json_value(run, units[family] == "time")
        if abs(value - want) > half * 1.001 + 1e-12:
            problem("%s: the cell says %r, results.json's median is %g" % (key, cell, want))
        if key not in charted:
            problem("%s: a figure with no bar in %s.svg" % (key, family))
    print("check_report: %d table figures, %d bars, %d families: %s"
          % (figures, bars, len(units), "problems below" if problems else "all agree"))
    for p in problems:
        print("check_report:", p)
    return 1 if problems or figures == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
