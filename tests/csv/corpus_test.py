#!/usr/bin/python3
"""csv::sniff and csv::read on real CSV/TSV files from Debian packages, against CleverCSV
(the dialect) and pandas.read_csv (the values), as issue 57 asks.

Usage: corpus_test.py CORPUS_DUMP [FILE...]   (CORPUS_DUMP: tests/csv/corpus_dump.cpp built;
       no FILE: the corpus below, which scripts/test installs)

For each file:
- the dialect: csv::sniff's delimiter, quote and escape must be CleverCSV's (clevercsv.Sniffer) unless
  the file is listed in DIALECT_DIFFERENCES with the reason;
- the values: pandas.read_csv with fastread's dialect (its escapechar too), its types inferred, then column by
  column (pandas' exact float parser, float_precision="round_trip": its default one is off by
  an ULP on 17-digit decimals such as fertility.csv's 7.0539999999999985): an int64 column of pandas is int64 here with the same values, a float64 one double
  (or int64 where pandas made an integer column with missing values float), bool bool, an
  object column text with the same strings; missing values where pandas has NaN. The
  exceptions are where pandas loses information, each by its rule in `keeps_more`: leading
  zeros (pandas reads `007` as 7: text here), integers beyond 2^53 beside decimals (pandas
  rounds them into float64: text here), dates and timestamps (pandas leaves them text).
Exit status 1 with the differences listed.
"""
import glob
import math
import subprocess
import sys

import clevercsv
import pandas

# The corpus: the CSV files of these Debian packages (sample data sets and test data), each
# pattern with the fewest files it must match.
CORPUS = [
    ("python3-statsmodels", "/usr/lib/python3/dist-packages/statsmodels/datasets/*/*.csv", 30),
    ("python3-sklearn", "/usr/lib/python3/dist-packages/sklearn/datasets/data/*.csv", 5),
    ("python3-matplotlib (matplotlib-data)", "/usr/share/matplotlib/mpl-data/sample_data/*.csv", 4),
    ("r-cran-palmerpenguins", "/usr/lib/R/site-library/palmerpenguins/extdata/*.csv", 2),
    ("r-cran-vroom", "/usr/lib/R/site-library/vroom/extdata/mtcars*.csv", 4),
    ("r-cran-data.table", "/usr/lib/R/site-library/data.table/tests/*.csv", 3),
    ("distro-info-data", "/usr/share/distro-info/*.csv", 2),
    ("gdal-data", "/usr/share/gdal/*.csv", 60),
]

# Files fastread refuses and pandas reads (basename: why).
REFUSED = {
    # A first line of 4 fields ("569,30,malignant,benign": sizes and class names), then rows
    # of 31: pandas makes the first 27 fields of each row its index; fastread says which row
    # has another field count than the header.
    "breast_cancer.csv": "a first line of 4 fields above rows of 31",
    "wine_data.csv": "a first line of 5 fields above rows of 14",
}

# Files whose dialect differs from CleverCSV's on purpose (basename: why). Besides these,
# CleverCSV's quote '' (none) for a file without a '"' is fastread's '"': the same reading.
DIALECT_DIFFERENCES = {
    # Columns aligned by runs of spaces (" 0   0    0"): CleverCSV's ' ' reads empty fields
    # between the spaces of a run; no one-byte delimiter splits it into its three columns,
    # so fastread reads each line as one field of text.
    "data_x_x2_x3.csv": "columns aligned by runs of spaces",
}


def dump(tool, path):
    out = subprocess.run([tool, path], capture_output=True, check=False).stdout.decode("latin-1")
    dialect, columns = None, []
    for line in out.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "D":
            d, q, h, skip, e = rest.split()
            dialect = (chr(int(d)), chr(int(q)) if int(q) else "", h == "1", int(skip),
                       chr(int(e)) if int(e) else "")
        elif kind == "C":
            _, t, name = rest.split()
            columns.append({"type": t, "name": bytes.fromhex("" if name == "-" else name),
                            "values": {}, "missing": set()})
        elif kind == "V":
            i, v = rest.split(" ", 1)
            columns[-1]["values"][int(i)] = v
        elif kind == "M":
            columns[-1]["missing"].add(int(rest))
        elif kind == "E":
            return None, rest
    return dialect, columns


ENCODING = ["utf-8"]  # the file's: UTF-8, or Latin-1 where it is not valid UTF-8


def text_of(v):
    return bytes.fromhex("" if v == "-" else v).decode(ENCODING[0])


def keeps_more(ours, series, k):
    """Why our column may differ from pandas': it keeps what pandas loses, or None."""
    texts = [text_of(v) for v in ours["values"].values()] if ours["type"] == "text" else []
    if ours["type"] == "text" and str(series.dtype) in ("int64", "float64"):
        if any(len(t) > 1 and t.lstrip("+-")[:1] == "0" and t.lstrip("+-")[1:2].isdigit()
               for t in texts):
            return "leading zeros"
        if any(t.lstrip("+-").isdigit() and abs(int(t)) > 2 ** 53 for t in texts):
            return "an integer beyond 2^53 beside decimals"
    if ours["type"] in ("date", "timestamp") and str(series.dtype) == "object":
        return "dates (pandas leaves them text)"
    return None


def compare(ours, series, rows):
    """The first difference of column `ours` from pandas' `series`, or None."""
    t, dtype = ours["type"], str(series.dtype)
    for i in range(rows):
        v = series.iloc[i]
        na = v is None or (isinstance(v, float) and math.isnan(v))
        if i in ours["missing"]:
            if not na:
                return f"row {i + 1}: missing here, {v!r} in pandas"
            continue
        if na:
            return f"row {i + 1}: {ours['values'].get(i)!r} here, missing in pandas"
        mine = ours["values"][i]
        if t == "int64" and dtype in ("int64", "float64"):
            if int(mine) != v:
                return f"row {i + 1}: {mine} here, {v!r} in pandas"
        elif t == "double" and dtype in ("float64", "int64"):
            if float(mine) != float(v):
                return f"row {i + 1}: {mine} here, {v!r} in pandas"
        elif t == "bool" and dtype in ("bool", "object"):
            if (mine == "1") != bool(v):
                return f"row {i + 1}: {mine} here, {v!r} in pandas"
        elif t == "text" and dtype == "object":
            if text_of(mine) != str(v):
                return f"row {i + 1}: {text_of(mine)!r} here, {v!r} in pandas"
        else:
            return f"type {t} here, {dtype} in pandas"
    return None


def main():
    tool, files = sys.argv[1], sys.argv[2:]
    failures, compared, refused = [], 0, 0
    if not files:
        for package, pattern, least in CORPUS:
            found = sorted(glob.glob(pattern))
            if len(found) < least:
                failures.append(f"{package}: {len(found)} files match {pattern}, not {least}")
            files += found
    for path in files:
        name = path.rsplit("/", 1)[-1]
        with open(path, "rb") as f:
            raw = f.read()
        try:
            raw.decode("utf-8")
            ENCODING[0] = "utf-8"
        except UnicodeDecodeError:
            ENCODING[0] = "latin-1"
        sample = raw[: 1 << 20].decode(ENCODING[0], "ignore")
        dialect, columns = dump(tool, path)
        if dialect is None:
            # A file pandas refuses too (a row longer than the header: an unquoted delimiter
            # inside a field) is not read by either.
            if name in REFUSED:
                refused += 1
                print(f"{name}: refused here, read by pandas: {REFUSED[name]}")
                continue
            try:
                pandas.read_csv(path, encoding=ENCODING[0])
                failures.append(f"{name}: csv::read failed, pandas read it: {columns}")
            except Exception as e:
                refused += 1
                print(f"{name}: refused by both (fastread: {columns}; pandas: "
                      f"{str(e).strip()[:80]})")
            continue
        clever = clevercsv.Sniffer().sniff(sample)
        clever_quote = clever.quotechar if clever is not None else ""
        if clever_quote == "" and '"' not in sample:
            clever_quote = '"'
        clever_escape = clever.escapechar if clever is not None else ""
        if clever is not None and (clever.delimiter, clever_quote, clever_escape) != \
                (dialect[0], dialect[1], dialect[4]) and name not in DIALECT_DIFFERENCES:
            failures.append(f"{name}: dialect {(dialect[0], dialect[1], dialect[4])!r} here, "
                            f"CleverCSV's {(clever.delimiter, clever.quotechar, clever_escape)!r}")
            continue
        frame = pandas.read_csv(path, sep=dialect[0], quotechar=dialect[1] or '"',
                                escapechar=dialect[4] or None,
                                header=0 if dialect[2] else None, encoding=ENCODING[0],
                                float_precision="round_trip", skiprows=dialect[3],
                                keep_default_na=False,
                                na_values=["", "NA", "N/A", "NaN", "null", "NULL"])
        if len(frame.columns) != len(columns):
            failures.append(f"{name}: {len(columns)} columns here, {len(frame.columns)} in pandas")
            continue
        notes = []
        for k, ours in enumerate(columns):
            series = frame.iloc[:, k]
            why = keeps_more(ours, series, k)
            if why:
                notes.append(f"column {k + 1} {why}")
                continue
            diff = compare(ours, series, len(frame))
            if diff:
                failures.append(f"{name}: column {k + 1} ({ours['name'].decode('utf-8', 'replace')}): {diff}")
        compared += 1
        print(f"{name}: {len(frame)} rows, {len(columns)} columns, dialect "
              f"{dialect!r}: equal" + (f" ({'; '.join(notes)})" if notes else ""))
    for f in failures:
        print("DIFFERENT:", f)
    print(f"{compared} of {len(files)} files equal, {refused} refused")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
