// The csv family: delimited text as its readers read it. Python's csv module, pandas.read_csv,
// data.table's fread (1 and 2 threads), vroom, DuckDB's and polars' node packages (1 and 2
// threads) as processes, each interpreter's start-up alone on a row of its own, libcsv and
// fast-cpp-csv-parser in process, against fastread::csv::rows (every field visited) and
// csv::columns (the default threads, 1 thread, and text columns as csv::text). Every reader that
// converts is given the same types. Inputs, generated: a mixed table shaped like a taxi-trip export
// (integers, doubles, short strings, ISO timestamps kept as strings, ~5 % of one column missing),
// an all-numeric table (doubles of 15 and 6 significant digits, integer ids below 10^9), a
// quoted-text table (fields with commas, doubled quotes and line ends), a wide numeric table (500
// columns, the first ten read), and the mixed table as TSV; `--csv FILE` adds a user's file (rows
// only). Each row is checked once: its count of records and the sum of one numeric column against
// fastread::csv::columns'; the check also measures its peak memory (rows "peak memory: ..."): a
// process's whole (GNU time's %M, the interpreter included), an in-process reader's the peak one
// call adds (in a forked child).

#include <fastread/csv.hpp>
#include <fastread/csv/read.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#if FASTREAD_HAVE_LIBCSV
#include <csv.h>
#endif
#if FASTREAD_HAVE_FCCP
// Its header's file-name copy trips GCC 12's -Wstringop-truncation where it is inlined: off
// for the header and the harness that uses it (to the end of by_fccp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#endif

#include <malloc.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.hpp"
#include "families.hpp"

namespace fastread_bench {
namespace {

namespace csv = fastread::csv;

// The tables, and what every reader is told of each.
enum class table_kind { mixed, numeric, quoted, wide, tsv };

struct table_spec {
    input in;
    table_kind kind = table_kind::mixed;
    char delimiter = ',';
};

// What a reader found: the records, and the sum of the checked column (missing values left
// out).
struct tally {
    std::uint64_t rows = 0;
    double sum = 0;
};

std::string check_tally(const tally& want, const std::string& got_text) {
    std::uint64_t rows = 0;
    double sum = 0;
    if (std::sscanf(got_text.c_str(), "%llu %lf", reinterpret_cast<unsigned long long*>(&rows),
                    &sum) != 2) {
        return "printed \"" + got_text + "\"";
    }
    if (rows != want.rows) {
        return "read " + std::to_string(rows) + " rows, not " + std::to_string(want.rows);
    }
    if (std::fabs(sum - want.sum) > 1e-9 * std::max(std::fabs(want.sum), 1.0)) {
        return "a column sums to " + std::to_string(sum) + ", not " + std::to_string(want.sum);
    }
    return {};
}

std::string tally_text(const tally& t) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu %.17g", static_cast<unsigned long long>(t.rows), t.sum);
    return buf;
}

// ---- the inputs -----------------------------------------------------------------------

void generate(const std::filesystem::path& path, table_kind kind, std::uint64_t size) {
    std::mt19937_64 rng(56);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::string out;
    out.reserve(static_cast<std::size_t>(size) + 4096);
    const char d = kind == table_kind::tsv ? '\t' : ',';
    char buf[512];
    auto sep = [&] { out += d; };
    switch (kind) {
    case table_kind::mixed:
    case table_kind::tsv:
        for (const char* h : {"vendor_id", "pickup_datetime", "passenger_count", "trip_distance",
                              "fare_amount", "tip_amount", "payment_type", "trip_id"}) {
            out += h;
            out += std::string_view(h) == "trip_id" ? '\n' : d;
        }
        for (std::uint64_t i = 0; out.size() < size; ++i) {
            static const char* vendors[] = {"CMT", "VTS", "DDS"};
            static const char* payments[] = {"CRD", "CSH", "NOC", "DIS"};
            out += vendors[rng() % 3];
            sep();
            std::snprintf(buf, sizeof buf, "2026-%02u-%02u %02u:%02u:%02u",
                          static_cast<unsigned>(rng() % 12 + 1),
                          static_cast<unsigned>(rng() % 28 + 1), static_cast<unsigned>(rng() % 24),
                          static_cast<unsigned>(rng() % 60), static_cast<unsigned>(rng() % 60));
            out += buf;
            sep();
            out += std::to_string(rng() % 6 + 1);
            sep();
            std::snprintf(buf, sizeof buf, "%.2f", unit(rng) * 30);
            out += buf;
            sep();
            std::snprintf(buf, sizeof buf, "%.2f", 2.5 + unit(rng) * 80);
            out += buf;
            sep();
            if (rng() % 20 != 0) { // ~5 % missing
                std::snprintf(buf, sizeof buf, "%.2f", unit(rng) * 12);
                out += buf;
            }
            sep();
            out += payments[rng() % 4];
            sep();
            out += std::to_string(100000000 + i);
            out += '\n';
        }
        break;
    case table_kind::numeric:
        out += "x,y,z,id\n";
        while (out.size() < size) {
            std::snprintf(buf, sizeof buf, "%.15g,%.15g,%.6g,%llu\n", unit(rng) * 2000 - 1000,
                          unit(rng), unit(rng) * 100 - 50,
                          static_cast<unsigned long long>(rng() % 1000000000));
            out += buf;
        }
        break;
    case table_kind::quoted:
        out += "id,text,value\n";
        for (std::uint64_t i = 0; out.size() < size; ++i) {
            out += std::to_string(i);
            out += ",\"";
            const int words = static_cast<int>(rng() % 12 + 2);
            for (int w = 0; w < words; ++w) {
                static const char* pieces[] = {"fine",  "then, later", "\"quoted\"", "line\nbreak",
                                               "ok",    "a,b,c",       "x",          "CR\r\nLF",
                                               "plain", "words"};
                out += pieces[rng() % 10];
                out += ' ';
            }
            for (std::size_t k = out.find('"', out.rfind(",\"") + 2); k != std::string::npos;
                 k = out.find('"', k + 2)) {
                out.insert(k, 1, '"'); // a quote inside the field, doubled
            }
            out += "\",";
            std::snprintf(buf, sizeof buf, "%.3f", unit(rng) * 1000);
            out += buf;
            out += '\n';
        }
        break;
    case table_kind::wide:
        for (int c = 0; c < 500; ++c) {
            out += "c" + std::to_string(c);
            out += c == 499 ? '\n' : ',';
        }
        while (out.size() < size) {
            for (int c = 0; c < 500; ++c) {
                std::snprintf(buf, sizeof buf, "%.6g", unit(rng) * 1000);
                out += buf;
                out += c == 499 ? '\n' : ',';
            }
        }
        break;
    }
    std::ofstream f(path, std::ios::binary);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

// ---- fastread's readers ----------------------------------------------------------------

csv::options options_of(const table_spec& t, unsigned threads) {
    csv::options o;
    o.delimiter = t.delimiter;
    o.threads = threads;
    return o;
}

// csv::columns with every column's type given; the tally of the checked column.
// The tables with text columns, those read as csv::text (stored flat) instead of
// std::string; the other columns as by_columns reads them.
tally by_text_columns(const table_spec& t, unsigned threads) {
    const csv::options o = options_of(t, threads);
    tally out;
    if (t.kind == table_kind::quoted) {
        auto [id, text, value] =
            csv::columns<std::int64_t, csv::text, double>(t.in.path, {"id", "text", "value"}, o);
        out.rows = value.size();
        for (double v : value) {
            out.sum += v;
        }
    } else {
        auto [vendor, pickup, passengers, distance, fare, tip, payment, id] =
            csv::columns<csv::text, csv::text, std::int32_t, double, double, std::optional<double>,
                         csv::text, std::int64_t>(
                t.in.path,
                {"vendor_id", "pickup_datetime", "passenger_count", "trip_distance", "fare_amount",
                 "tip_amount", "payment_type", "trip_id"},
                o);
        out.rows = fare.size();
        for (double f : fare) {
            out.sum += f;
        }
    }
    return out;
}

int checked_index(table_kind k);

// csv::read with its defaults (the dialect sniffed, every column's type inferred); the
// tally of the checked column (by index: the inferred table's names are the header's).
tally by_read(const table_spec& t, unsigned threads) {
    csv::read_options o;
    o.csv.threads = threads;
    const csv::table table = csv::read(t.in.path, o);
    tally out;
    out.rows = table.rows();
    const csv::column& c = table[static_cast<std::size_t>(checked_index(t.kind))];
    const std::span<const double> v = c.values<double>();
    for (std::size_t i = 0; i < v.size(); ++i) {
        out.sum += c.missing(i) ? 0.0 : v[i];
    }
    return out;
}

tally by_columns(const table_spec& t, unsigned threads) {
    const csv::options o = options_of(t, threads);
    const auto& path = t.in.path;
    tally out;
    switch (t.kind) {
    case table_kind::mixed:
    case table_kind::tsv: {
        auto [vendor, pickup, passengers, distance, fare, tip, payment, id] =
            csv::columns<std::string, std::string, std::int32_t, double, double,
                         std::optional<double>, std::string, std::int64_t>(
                path,
                {"vendor_id", "pickup_datetime", "passenger_count", "trip_distance", "fare_amount",
                 "tip_amount", "payment_type", "trip_id"},
                o);
        out.rows = fare.size();
        for (double f : fare) {
            out.sum += f;
        }
        break;
    }
    case table_kind::numeric: {
        auto [x, y, z, id] =
            csv::columns<double, double, double, std::uint64_t>(path, {"x", "y", "z", "id"}, o);
        out.rows = x.size();
        for (double v : x) {
            out.sum += v;
        }
        break;
    }
    case table_kind::quoted: {
        auto [id, text, value] =
            csv::columns<std::int64_t, std::string, double>(path, {"id", "text", "value"}, o);
        out.rows = value.size();
        for (double v : value) {
            out.sum += v;
        }
        break;
    }
    case table_kind::wide: {
        auto cols = csv::columns<double, double, double, double, double, double, double, double,
                                 double, double>(path, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, o);
        const std::vector<double>& c0 = std::get<0>(cols);
        out.rows = c0.size();
        for (double v : c0) {
            out.sum += v;
        }
        break;
    }
    }
    return out;
}

// csv::rows: every field visited (its size summed); the records counted.
std::uint64_t by_rows(const table_spec& t) {
    std::uint64_t bytes = 0, rows = 0;
    for (const csv::row& r : csv::rows(t.in.path, options_of(t, 1))) {
        for (std::string_view f : r) {
            bytes += f.size();
        }
        ++rows;
    }
    return bytes + rows;
}

// ---- the C and C++ peers, in process ---------------------------------------------------

#if FASTREAD_HAVE_LIBCSV || FASTREAD_HAVE_FCCP
// The type of each column as the harnesses store it: s string, i integer, d double,
// o double or missing, - not read.
std::string column_kinds(table_kind k) {
    switch (k) {
    case table_kind::mixed:
    case table_kind::tsv:
        return "ssiddosi";
    case table_kind::numeric:
        return "dddi";
    case table_kind::quoted:
        return "isd";
    case table_kind::wide:
        return std::string(10, 'd') + std::string(490, '-');
    }
    return {};
}
#endif

int checked_index(table_kind k);

#if FASTREAD_HAVE_LIBCSV
// libcsv as its users run it: csv_parse over 1 MiB blocks read with fread, a callback per
// field that converts it (strtod, strtoll: CSV_APPEND_NULL makes fields C strings) into its
// column, one per record.
struct libcsv_state {
    std::string kinds;
    std::size_t check = 0;
    std::size_t column = 0;
    bool header = true;
    std::vector<std::vector<std::string>> strings;
    std::vector<std::vector<std::int64_t>> integers;
    std::vector<std::vector<double>> doubles;
    std::vector<std::vector<std::optional<double>>> optionals;
    tally t;
};

void libcsv_field(void* field, std::size_t size, void* data) {
    libcsv_state& st = *static_cast<libcsv_state*>(data);
    const std::size_t c = st.column++;
    if (st.header || c >= st.kinds.size()) {
        return;
    }
    const char* f = static_cast<const char*>(field);
    switch (st.kinds[c]) {
    case 's':
        st.strings[c].emplace_back(f, size);
        break;
    case 'i':
        st.integers[c].push_back(std::strtoll(f, nullptr, 10));
        break;
    case 'd': {
        const double v = std::strtod(f, nullptr);
        st.doubles[c].push_back(v);
        if (c == st.check) {
            st.t.sum += v;
        }
        break;
    }
    case 'o':
        st.optionals[c].push_back(size == 0 ? std::nullopt
                                            : std::optional<double>(std::strtod(f, nullptr)));
        break;
    default:
        break;
    }
}

void libcsv_record(int, void* data) {
    libcsv_state& st = *static_cast<libcsv_state*>(data);
    st.t.rows += st.header ? 0 : 1;
    st.header = false;
    st.column = 0;
}

int libcsv_space(unsigned char c) {
    return c == ' ';
}

tally by_libcsv(const table_spec& t) {
    libcsv_state st;
    st.kinds = column_kinds(t.kind);
    st.check = static_cast<std::size_t>(checked_index(t.kind));
    const std::size_t n = st.kinds.size();
    st.strings.resize(n);
    st.integers.resize(n);
    st.doubles.resize(n);
    st.optionals.resize(n);
    csv_parser p;
    if (csv_init(&p, CSV_APPEND_NULL) != 0) {
        throw std::runtime_error("csv_init failed");
    }
    csv_set_delim(&p, static_cast<unsigned char>(t.delimiter));
    csv_set_space_func(&p, libcsv_space); // a tab is a delimiter in a TSV, not a space
    std::FILE* f = std::fopen(t.in.path.c_str(), "rb");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + t.in.path.string());
    }
    std::vector<char> buf(std::size_t{1} << 20);
    for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
        if (csv_parse(&p, buf.data(), got, libcsv_field, libcsv_record, &st) != got) {
            std::fclose(f);
            throw std::runtime_error(std::string("libcsv: ") + csv_strerror(csv_error(&p)));
        }
    }
    std::fclose(f);
    csv_fini(&p, libcsv_field, libcsv_record, &st);
    csv_free(&p);
    return st.t;
}
#endif

#if FASTREAD_HAVE_FCCP
// fast-cpp-csv-parser as its README shows it: io::CSVReader with the header's names, a
// variable per column, read_row in a loop (its own thread reads ahead). It refuses line
// ends inside quoted fields (by design), so it has no quoted-text cell; a missing tip is
// read as a char* and converted when present.
template <char Delim>
tally by_fccp_of(const table_spec& t) {
    tally out;
    using quoting = io::double_quote_escape<Delim, '"'>;
    switch (t.kind) {
    case table_kind::mixed:
    case table_kind::tsv: {
        io::CSVReader<8, io::trim_chars<' '>, quoting> in(t.in.path.string());
        in.read_header(io::ignore_no_column, "vendor_id", "pickup_datetime", "passenger_count",
                       "trip_distance", "fare_amount", "tip_amount", "payment_type", "trip_id");
        std::vector<std::string> vendors, pickups, payments;
        std::vector<int> passengers;
        std::vector<double> distances, fares;
        std::vector<std::optional<double>> tips;
        std::vector<long long> ids;
        std::string vendor, pickup, payment;
        int passenger = 0;
        double distance = 0, fare = 0;
        char* tip = nullptr;
        long long id = 0;
        while (in.read_row(vendor, pickup, passenger, distance, fare, tip, payment, id)) {
            vendors.push_back(vendor);
            pickups.push_back(pickup);
            passengers.push_back(passenger);
            distances.push_back(distance);
            fares.push_back(fare);
            tips.push_back(*tip == 0 ? std::nullopt
                                     : std::optional<double>(std::strtod(tip, nullptr)));
            payments.push_back(payment);
            ids.push_back(id);
            out.sum += fare;
        }
        out.rows = fares.size();
        break;
    }
    case table_kind::numeric: {
        io::CSVReader<4, io::trim_chars<' '>, quoting> in(t.in.path.string());
        in.read_header(io::ignore_no_column, "x", "y", "z", "id");
        std::vector<double> xs, ys, zs;
        std::vector<unsigned long long> ids;
        double x = 0, y = 0, z = 0;
        unsigned long long id = 0;
        while (in.read_row(x, y, z, id)) {
            xs.push_back(x);
            ys.push_back(y);
            zs.push_back(z);
            ids.push_back(id);
            out.sum += x;
        }
        out.rows = xs.size();
        break;
    }
    case table_kind::wide: {
        io::CSVReader<10, io::trim_chars<' '>, quoting> in(t.in.path.string());
        in.read_header(io::ignore_extra_column, "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7",
                       "c8", "c9");
        std::vector<std::vector<double>> cols(10);
        double v[10] = {};
        while (in.read_row(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9])) {
            for (int c = 0; c < 10; ++c) {
                cols[static_cast<std::size_t>(c)].push_back(v[c]);
            }
            out.sum += v[0];
        }
        out.rows = cols[0].size();
        break;
    }
    case table_kind::quoted:
        break;
    }
    return out;
}

tally by_fccp(const table_spec& t) {
    return t.delimiter == '\t' ? by_fccp_of<'\t'>(t) : by_fccp_of<','>(t);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// ---- the peers, as processes -------------------------------------------------------------

// The checked column's index and name, per table.
int checked_index(table_kind k) {
    return k == table_kind::mixed || k == table_kind::tsv ? 4 : k == table_kind::quoted ? 2 : 0;
}

std::string python_csv_script(const table_spec& t) {
    const std::string d = t.delimiter == '\t' ? "\\t" : ",";
    return "import csv, sys\n"
           "n = 0; s = 0.0\n"
           "with open(sys.argv[1], newline='') as f:\n"
           "    r = csv.reader(f, delimiter='" +
           d +
           "')\n"
           "    next(r)\n"
           "    for row in r:\n"
           "        n += 1; s += float(row[" +
           std::to_string(checked_index(t.kind)) +
           "])\n"
           "print(n, repr(s))\n";
}

std::string pandas_script(const table_spec& t) {
    std::string args;
    switch (t.kind) {
    case table_kind::mixed:
    case table_kind::tsv:
        args = "dtype={'vendor_id': str, 'pickup_datetime': str, 'passenger_count': 'int32', "
               "'trip_distance': 'float64', 'fare_amount': 'float64', 'tip_amount': 'float64', "
               "'payment_type': str, 'trip_id': 'int64'}";
        break;
    case table_kind::numeric:
        args = "dtype={'x': 'float64', 'y': 'float64', 'z': 'float64', 'id': 'uint64'}";
        break;
    case table_kind::quoted:
        args = "dtype={'id': 'int64', 'text': str, 'value': 'float64'}";
        break;
    case table_kind::wide:
        args = "usecols=range(10), dtype='float64'";
        break;
    }
    const std::string sep = t.delimiter == '\t' ? "\\t" : ",";
    return "import pandas, sys\nd = pandas.read_csv(sys.argv[1], sep='" + sep + "', " + args +
           ")\nprint(len(d), repr(float(d.iloc[:, " + std::to_string(checked_index(t.kind)) +
           "].sum())))\n";
}

std::string fread_script(const table_spec& t, int threads) {
    std::string classes;
    switch (t.kind) {
    case table_kind::mixed:
    case table_kind::tsv:
        classes = "colClasses = c('character', 'character', 'integer', 'numeric', 'numeric', "
                  "'numeric', 'character', 'integer64')";
        break;
    case table_kind::numeric:
        classes = "colClasses = c('numeric', 'numeric', 'numeric', 'integer64')";
        break;
    case table_kind::quoted:
        classes = "colClasses = c('integer64', 'character', 'numeric')";
        break;
    case table_kind::wide:
        classes = "select = 1:10, colClasses = list(numeric = 1:10)";
        break;
    }
    return "suppressMessages(library(data.table)); a <- commandArgs(TRUE); d <- fread(a[1], "
           "nThread = " +
           std::to_string(threads) + ", sep = '" + (t.delimiter == '\t' ? "\\t" : ",") + "', " +
           classes + "); cat(nrow(d), format(sum(as.numeric(d[[" +
           std::to_string(checked_index(t.kind) + 1) + "]]), na.rm = TRUE), digits = 17), '\\n')";
}

// The peers' calls as their users make them on a file they know nothing of: no type, no
// delimiter given (each finds them itself), then the rows and the checked column's sum.
std::string pandas_default_script(const table_spec& t) {
    return "import pandas, sys\nd = pandas.read_csv(sys.argv[1])\nprint(len(d), "
           "repr(float(d.iloc[:, " +
           std::to_string(checked_index(t.kind)) + "].sum())))\n";
}
std::string fread_default_script(const table_spec& t) {
    return "suppressMessages(library(data.table)); a <- commandArgs(TRUE); d <- fread(a[1]); "
           "cat(nrow(d), format(sum(as.numeric(d[[" +
           std::to_string(checked_index(t.kind) + 1) + "]]), na.rm = TRUE), digits = 17), '\\n')";
}

// The columns' names and, per reader, their types: as the other readers are given them.
struct column_type {
    const char* name;
    const char* vroom;  // a col_types letter or call
    const char* duckdb; // a SQL type
    const char* polars; // a pl.DataType
};

std::vector<column_type> column_types(table_kind k) {
    switch (k) {
    case table_kind::mixed:
    case table_kind::tsv:
        return {{"vendor_id", "'c'", "VARCHAR", "pl.Utf8"},
                {"pickup_datetime", "'c'", "VARCHAR", "pl.Utf8"},
                {"passenger_count", "'i'", "INTEGER", "pl.Int32"},
                {"trip_distance", "'d'", "DOUBLE", "pl.Float64"},
                {"fare_amount", "'d'", "DOUBLE", "pl.Float64"},
                {"tip_amount", "'d'", "DOUBLE", "pl.Float64"},
                {"payment_type", "'c'", "VARCHAR", "pl.Utf8"},
                {"trip_id", "col_big_integer()", "BIGINT", "pl.Int64"}};
    case table_kind::numeric:
        return {{"x", "'d'", "DOUBLE", "pl.Float64"},
                {"y", "'d'", "DOUBLE", "pl.Float64"},
                {"z", "'d'", "DOUBLE", "pl.Float64"},
                {"id", "col_big_integer()", "UBIGINT", "pl.UInt64"}};
    case table_kind::quoted:
        return {{"id", "col_big_integer()", "BIGINT", "pl.Int64"},
                {"text", "'c'", "VARCHAR", "pl.Utf8"},
                {"value", "'d'", "DOUBLE", "pl.Float64"}};
    case table_kind::wide: {
        static const char* const names[] = {"c0", "c1", "c2", "c3", "c4",
                                            "c5", "c6", "c7", "c8", "c9"};
        std::vector<column_type> out;
        for (const char* n : names) {
            out.push_back({n, "'d'", "DOUBLE", "pl.Float64"});
        }
        return out;
    }
    }
    return {};
}

std::string vroom_script(const table_spec& t) {
    const std::vector<column_type> cols = column_types(t.kind);
    std::string types;
    for (const column_type& c : cols) {
        types += std::string(types.empty() ? "" : ", ") + c.name + " = " + c.vroom;
    }
    // The wide table: its first 10 columns only (cols_only: the others skipped).
    const std::string only = t.kind == table_kind::wide ? "cols_only(" : "cols(";
    return "suppressMessages(library(vroom)); a <- commandArgs(TRUE); d <- vroom(a[1], delim = '" +
           std::string(t.delimiter == '\t' ? "\\t" : ",") +
           "', altrep = FALSE, num_threads = 2, progress = FALSE, col_types = " + only + types +
           ")); cat(nrow(d), format(sum(as.numeric(d[[" +
           std::to_string(checked_index(t.kind) + 1) + "]]), na.rm = TRUE), digits = 17), '\\n')";
}

// A JavaScript string literal of `s`.
std::string quote_js(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

// DuckDB's node client, as its users run it: the table created from read_csv with the
// types given (the wide table: its first 10 columns typed and selected), then its count and
// the checked column's sum asked for.
std::string duckdb_script(const table_spec& t, const std::string& module, int threads) {
    const std::vector<column_type> cols = column_types(t.kind);
    std::string types, names;
    for (const column_type& c : cols) {
        types += std::string(types.empty() ? "" : ", ") + "'" + c.name + "': '" + c.duckdb + "'";
        names += std::string(names.empty() ? "" : ", ") + c.name;
    }
    const std::string delim = t.delimiter == '\t' ? "\\t" : ",";
    const std::string sql_tail =
        "', header = true, delim = '" + delim + "', quote = '\"', escape = '\"', " +
        (t.kind == table_kind::wide ? "types" : "columns") + " = {" + types + "})";
    const std::string checked = cols[static_cast<std::size_t>(checked_index(t.kind))].name;
    return "const { DuckDBInstance } = require(" + quote_js(module) + ");\n" +
           "const file = process.argv[1].replace(/'/g, \"''\");\n" +
           "(async () => {\n"
           "  const db = await DuckDBInstance.create(':memory:', { threads: '" +
           std::to_string(threads) + "' });\n" + "  const c = await db.connect();\n" +
           "  await c.run(" + quote_js("CREATE TABLE t AS SELECT " + names + " FROM read_csv('") +
           " + file + " + quote_js(sql_tail) + ");\n" + "  const r = await c.runAndReadAll(" +
           quote_js("SELECT count(*)::VARCHAR, sum(" + checked + ")::DOUBLE FROM t") + ");\n" +
           "  const [n, sum] = r.getRows()[0];\n" + "  console.log(n + ' ' + sum);\n" + "})();\n";
}

// DuckDB's read_csv with its auto-detection (dialect and types sniffed), its default threads.
std::string duckdb_default_script(const table_spec& t, const std::string& module) {
    const std::string checked =
        column_types(t.kind)[static_cast<std::size_t>(checked_index(t.kind))].name;
    return "const { DuckDBInstance } = require(" + quote_js(module) + ");\n" +
           "const file = process.argv[1].replace(/'/g, \"''\");\n" +
           "(async () => {\n"
           "  const db = await DuckDBInstance.create(':memory:');\n" +
           "  const c = await db.connect();\n" + "  await c.run(" +
           quote_js("CREATE TABLE t AS FROM read_csv('") + " + file + " + quote_js("')") + ");\n" +
           "  const r = await c.runAndReadAll(" +
           quote_js("SELECT count(*)::VARCHAR, sum(" + checked + ")::DOUBLE FROM t") + ");\n" +
           "  const [n, sum] = r.getRows()[0];\n" + "  console.log(n + ' ' + sum);\n" + "})();\n";
}

// polars' readCSV with its defaults (types inferred from its first rows).
std::string polars_default_script(const table_spec& t, const std::string& module) {
    const std::string checked =
        column_types(t.kind)[static_cast<std::size_t>(checked_index(t.kind))].name;
    return "const pl = require(" + quote_js(module) + ");\n" +
           "const d = pl.readCSV(process.argv[1]);\n" +
           "console.log(d.height + ' ' + d.getColumn('" + checked + "').sum());\n";
}

// polars' node package: pl.readCSV with the types given (the wide table: its first 10
// columns asked for), then the height and the checked column's sum. Its threads are set by
// POLARS_MAX_THREADS in the environment.
std::string polars_script(const table_spec& t, const std::string& module) {
    const std::vector<column_type> cols = column_types(t.kind);
    std::string types, names;
    for (const column_type& c : cols) {
        types += std::string(types.empty() ? "" : ", ") + c.name + ": " + c.polars;
        names += std::string(names.empty() ? "" : ", ") + "'" + c.name + "'";
    }
    const std::string delim = t.delimiter == '\t' ? "\\t" : ",";
    const std::string checked = cols[static_cast<std::size_t>(checked_index(t.kind))].name;
    return "const pl = require(" + quote_js(module) + ");\n" +
           "const d = pl.readCSV(process.argv[1], { hasHeader: true, sep: '" + delim +
           "', quoteChar: '\"', " +
           (t.kind == table_kind::wide ? "columns: [" + names + "], " : "") + "dtypes: { " + types +
           " } });\n" + "console.log(d.height + ' ' + d.getColumn('" + checked + "').sum());\n";
}

const std::string& python_with_pandas() {
    static const std::string found = [] {
        for (const char* p : {"/usr/bin/python3", "python3"}) {
            if (std::system((std::string(p) + " -c 'import pandas' > /dev/null 2>&1").c_str()) ==
                0) {
                return std::string(p);
            }
        }
        return std::string();
    }();
    return found;
}

bool have_fread() {
    static const bool found = std::system("Rscript -e 'library(data.table)' > /dev/null 2>&1") == 0;
    return found;
}

const char* const row_python_csv = "Python csv module (process)";
const char* const row_python = "python3 start-up: import pandas (process)";
const char* const row_pandas = "pandas.read_csv (process)";
const char* const row_r = "R start-up: library(data.table) (process)";
const char* const row_fread_1 = "data.table fread, nThread=1 (process)";
const char* const row_fread_2 = "data.table fread, nThread=2 (process)";
const char* const row_rows = "fastread::csv::rows, fields visited";
const char* const row_columns = "fastread::csv::columns";
const char* const row_columns_1 = "fastread::csv::columns, 1 thread";
const char* const row_columns_text = "fastread::csv::columns, text as csv::text";
const char* const row_libcsv = "libcsv, a callback per field";
const char* const row_fccp = "fast-cpp-csv-parser io::CSVReader";
const char* const row_vroom = "vroom, num_threads=2, altrep=FALSE (process)";
const char* const row_r_vroom = "R start-up: library(vroom) (process)";
const char* const row_duckdb_1 = "DuckDB read_csv, threads=1 (node, process)";
const char* const row_duckdb_2 = "DuckDB read_csv, threads=2 (node, process)";
const char* const row_node_duckdb = "node start-up: DuckDB's module and instance (process)";
const char* const row_polars_1 = "polars readCSV, POLARS_MAX_THREADS=1 (node, process)";
const char* const row_polars_2 = "polars readCSV, POLARS_MAX_THREADS=2 (node, process)";
const char* const row_node_polars = "node start-up: require polars (process)";
// Types not given: each reader sniffs and infers (the mixed and quoted tables).
const char* const row_pandas_infer = "pandas.read_csv(f), types inferred (process)";
const char* const row_fread_infer = "data.table fread(f), its defaults (process)";
const char* const row_duckdb_infer = "DuckDB read_csv(f), auto-detected (node, process)";
const char* const row_polars_infer = "polars readCSV(f), its defaults (node, process)";
const char* const row_read = "fastread::csv::read, types inferred";
const char* const row_read_1 = "fastread::csv::read, types inferred, 1 thread";
// The tools (the mixed and quoted tables): rows counted, two columns selected as CSV.
const char* const row_tool_count = "fastread-csv count (process)";
const char* const row_mlr_count = "mlr count (process)";
const char* const row_sqlite_count = "sqlite3 .import, count(*) (process)";
const char* const row_tool_select = "fastread-csv select 2 columns (process)";
const char* const row_mlr_select = "mlr cut -f 2 columns (process)";
const char* const row_sqlite_select = "sqlite3 .import, select 2 columns (process)";
const char* const infer_rows[] = {row_pandas_infer, row_fread_infer, row_duckdb_infer,
                                  row_polars_infer, row_read,        row_read_1,
                                  row_tool_count,   row_mlr_count,   row_sqlite_count,
                                  row_tool_select,  row_mlr_select,  row_sqlite_select};

bool have_vroom() {
    static const bool found = std::system("Rscript -e 'library(vroom)' > /dev/null 2>&1") == 0;
    return found;
}

// Where scripts/bench installs the npm peers: <build>/bench-node/node_modules; a module's
// directory, or empty where it (or node) does not load.
std::string node_module(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::path(FASTREAD_BENCH_BUILD_DIR) / "bench-node" / "node_modules" / name;
    if (!std::filesystem::exists(dir)) {
        return {};
    }
    const std::string probe =
        "node -e " + quote("require(" + quote_js(dir.string()) + ")") + " > /dev/null 2>&1";
    return std::system(probe.c_str()) == 0 ? dir.string() : std::string();
}
const std::string& duckdb_module() {
    static const std::string found = node_module("@duckdb/node-api");
    return found;
}
const std::string& polars_module() {
    static const std::string found = node_module("nodejs-polars");
    return found;
}

// A note in a cell of the csv family: a cached-only column's cold cell says only that.
void note(context& ctx, const input& in, const std::string& row, const std::string& why) {
    if (in.cached_only) {
        ctx.note_cached_only("csv", row, in.column, why);
    } else {
        ctx.note("csv", row, in.column, why);
    }
}

// ---- peak memory -----------------------------------------------------------------------

// A peak resident memory as a cell: MiB.
std::string memory_cell(std::uint64_t bytes) {
    if (bytes == 0) {
        return "not measured";
    }
    char cell[48];
    std::snprintf(cell, sizeof cell, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return cell;
}

// Runs `argv` under GNU time (its output returned) and sets `peak` to its peak resident
// memory in bytes (`%M`), 0 where /usr/bin/time is not there.
std::string run_measured(const std::vector<std::string>& argv, const std::filesystem::path& report,
                         std::uint64_t& peak) {
    peak = 0;
    if (!std::filesystem::exists("/usr/bin/time")) {
        return run_process(argv);
    }
    std::vector<std::string> timed{"/usr/bin/time", "-f", "%M", "-o", report.string()};
    timed.insert(timed.end(), argv.begin(), argv.end());
    std::string out = run_process(timed);
    std::ifstream in(report);
    std::uint64_t kib = 0;
    if (in >> kib) {
        peak = kib * 1024;
    }
    return out;
}

// The peak resident memory that `fn` adds to this process, in bytes, measured in a child
// (fork) whose free heap memory is first given back to the system (malloc_trim: what
// earlier rows freed is not counted as reused) and whose peak is set back to its resident
// size (/proc/self/clear_refs, 5); 0 where that cannot be done. The child's result goes
// back through a pipe.
std::uint64_t peak_added(const std::function<void()>& fn) {
    int fds[2];
    if (::pipe(fds) != 0) {
        return 0;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        ::close(fds[0]);
        auto status_kib = [](const char* key) -> std::uint64_t {
            std::ifstream in("/proc/self/status");
            std::string line;
            while (std::getline(in, line)) {
                if (line.rfind(key, 0) == 0) {
                    return std::strtoull(line.c_str() + std::strlen(key), nullptr, 10);
                }
            }
            return 0;
        };
        std::uint64_t added = 0;
        ::malloc_trim(0);
        if (std::ofstream("/proc/self/clear_refs") << "5") {
            const std::uint64_t before = status_kib("VmRSS:");
            try {
                fn();
                const std::uint64_t peak = status_kib("VmHWM:");
                added = peak > before ? (peak - before) * 1024 : 0;
            } catch (...) {
                added = 0;
            }
        }
        const ssize_t w = ::write(fds[1], &added, sizeof added);
        ::_exit(w == sizeof added ? 0 : 1);
    }
    ::close(fds[1]);
    std::uint64_t added = 0;
    if (::read(fds[0], &added, sizeof added) != sizeof added) {
        added = 0;
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return added;
}

const char* const memory_prefix = "peak memory: ";

// The rows whose peak memory is measured (in their check), in the table's order.
std::vector<const char*> memory_rows() {
    return {row_python_csv,   row_pandas,      row_fread_1,      row_fread_2,      row_vroom,
            row_duckdb_1,     row_duckdb_2,    row_polars_1,     row_polars_2,     row_libcsv,
            row_fccp,         row_rows,        row_columns,      row_columns_1,    row_columns_text,
            row_pandas_infer, row_fread_infer, row_duckdb_infer, row_polars_infer, row_read,
            row_read_1};
}

// A tool's row: `argv` run as a process with its standard output to /dev/null (as a user
// pipes it on), its check run once with the output kept: `check(output)`.
void tool_row(context& ctx, const table_spec& t, const char* row, std::vector<std::string> argv,
              std::function<std::string(const std::string&)> check) {
    std::string line;
    for (const std::string& a : argv) {
        line += (line.empty() ? "" : " ") + quote(a);
    }
    const std::vector<std::string> timed{"sh", "-c", line + " > /dev/null"};
    ctx.add(
        "csv", row, t.in, [timed] { benchmark::DoNotOptimize(run_process(timed)); },
        [argv, check] { return check(run_process(argv)); });
}

// The rows whose types are not given (the mixed and quoted tables only; the others' cells
// say so): the peers' default calls, csv::read, and the tools.
template <class Process, class InProcess>
void add_infer_rows(context& ctx, const table_spec& t, Process& process, InProcess& in_process) {
    if (t.kind != table_kind::mixed && t.kind != table_kind::quoted) {
        for (const char* r : infer_rows) {
            note(ctx, t.in, r, "n/a (the mixed and quoted tables only)");
        }
        return;
    }
    if (!python_with_pandas().empty()) {
        process(row_pandas_infer,
                {python_with_pandas(), "-c", pandas_default_script(t), t.in.path.string()});
    } else {
        note(ctx, t.in, row_pandas_infer, "n/a (python3-pandas not installed)");
    }
    if (have_fread()) {
        process(row_fread_infer, {"Rscript", "-e", fread_default_script(t), t.in.path.string()});
    } else {
        note(ctx, t.in, row_fread_infer, "n/a (r-cran-data.table not installed)");
    }
    if (const std::string& m = duckdb_module(); !m.empty()) {
        process(row_duckdb_infer, {"node", "-e", duckdb_default_script(t, m), t.in.path.string()});
    } else {
        note(ctx, t.in, row_duckdb_infer, "n/a (npm package not installed)");
    }
    if (const std::string& m = polars_module(); !m.empty()) {
        process(row_polars_infer, {"node", "-e", polars_default_script(t, m), t.in.path.string()});
    } else {
        note(ctx, t.in, row_polars_infer, "n/a (npm package not installed)");
    }
    in_process(row_read, [t] { return by_read(t, 0); });
    in_process(row_read_1, [t] { return by_read(t, 1); });

    const std::string path = t.in.path.string();
    const std::uint64_t rows = t.in.items;
    auto count_is = [rows](const std::string& out) {
        const unsigned long long n = std::strtoull(out.c_str(), nullptr, 10);
        return n == rows ? std::string()
                         : "counted " + std::to_string(n) + " rows, not " + std::to_string(rows);
    };
    const std::string a = t.kind == table_kind::quoted ? "text" : "vendor_id";
    const std::string b = t.kind == table_kind::quoted ? "value" : "fare_amount";
    if (std::string(FASTREAD_CSV).empty()) {
        note(ctx, t.in, row_tool_count, "not built (examples)");
        note(ctx, t.in, row_tool_select, "not built (examples)");
    } else {
        tool_row(ctx, t, row_tool_count, {FASTREAD_CSV, "count", path}, count_is);
        tool_row(ctx, t, row_tool_select, {FASTREAD_CSV, "select", a + "," + b, path},
                 [path, a, b](const std::string& out) {
                     // Python's csv module, the quote rules' reference (mlr and sqlite3 turn
                     // a quoted field's CR LF into LF).
                     const std::string py =
                         "import csv, sys\n"
                         "r = csv.reader(open(sys.argv[1], newline=''))\n"
                         "w = csv.writer(sys.stdout, lineterminator='\\n')\n"
                         "h = next(r); i = h.index(sys.argv[2]); j = h.index(sys.argv[3])\n"
                         "w.writerow([h[i], h[j]])\n"
                         "for row in r: w.writerow([row[i], row[j]])\n";
                     const std::string want = run_process({"python3", "-c", py, path, a, b});
                     return out == want ? std::string() : "its output is not Python's csv module's";
                 });
    }
    if (std::system("mlr --version > /dev/null 2>&1") == 0) {
        tool_row(ctx, t, row_mlr_count, {"mlr", "--icsv", "--onidx", "count", path}, count_is);
        tool_row(ctx, t, row_mlr_select, {"mlr", "--csv", "cut", "-o", "-f", a + "," + b, path},
                 [](const std::string&) { return std::string(); });
    } else {
        note(ctx, t.in, row_mlr_count, "n/a (miller not installed)");
        note(ctx, t.in, row_mlr_select, "n/a (miller not installed)");
    }
    if (std::system("sqlite3 --version > /dev/null 2>&1") == 0) {
        tool_row(ctx, t, row_sqlite_count,
                 {"sqlite3", ":memory:", ".import --csv " + path + " t", "select count(*) from t"},
                 count_is);
        tool_row(ctx, t, row_sqlite_select,
                 {"sqlite3", "-csv", ":memory:", ".import --csv " + path + " t",
                  "select " + a + ", " + b + " from t"},
                 [](const std::string&) { return std::string(); });
    } else {
        note(ctx, t.in, row_sqlite_count, "n/a (sqlite3 not installed)");
        note(ctx, t.in, row_sqlite_select, "n/a (sqlite3 not installed)");
    }
}

void add_rows(context& ctx, const table_spec& t) {
    ctx.add_column("csv", t.in);
    // Until a row's check measures it: a row not run has no peak memory.
    for (const char* r : memory_rows()) {
        note(ctx, t.in, memory_prefix + std::string(r), "not run");
    }
    const tally want = t.in.group == "your files" ? tally{} : by_columns(t, 0);
    // A process's row: its check (once, untimed) also measures its peak memory, the whole
    // process's (interpreter included: its start-up row's peak is that alone).
    const std::filesystem::path report = ctx.opts().data_dir / "csv-peak-memory";
    auto process = [&](const char* row, std::vector<std::string> argv) {
        ctx.add(
            "csv", row, t.in, [argv] { benchmark::DoNotOptimize(run_process(argv)); },
            [&ctx, argv, want, report, row = std::string(row), in = t.in] {
                std::uint64_t peak = 0;
                const std::string out = run_measured(argv, report, peak);
                note(ctx, in, memory_prefix + row, memory_cell(peak));
                return check_tally(want, out);
            });
    };
    // An in-process row's check measures the peak memory one call adds.
    auto in_process = [&](const char* row, std::function<tally()> read) {
        ctx.add(
            "csv", row, t.in, [read] { benchmark::DoNotOptimize(read().rows); },
            [&ctx, read, want, row = std::string(row), in = t.in] {
                note(ctx, in, memory_prefix + row,
                     memory_cell(peak_added([read] { benchmark::DoNotOptimize(read().rows); })));
                return check_tally(want, tally_text(read()));
            });
    };
    if (t.in.group == "your files") {
        for (const char* r : {row_python_csv, row_pandas, row_python, row_fread_1, row_fread_2,
                              row_r, row_vroom, row_r_vroom, row_duckdb_1, row_duckdb_2,
                              row_node_duckdb, row_polars_1, row_polars_2, row_node_polars,
                              row_columns, row_columns_1, row_columns_text, row_libcsv, row_fccp}) {
            note(ctx, t.in, r, "n/a (the file's types are not known)");
        }
        for (const char* r : infer_rows) {
            note(ctx, t.in, r, "n/a (the generated tables only)");
        }
    } else {
        if (!python_with_pandas().empty()) {
            process(row_python_csv,
                    {python_with_pandas(), "-c", python_csv_script(t), t.in.path.string()});
            process(row_pandas, {python_with_pandas(), "-c", pandas_script(t), t.in.path.string()});
            const std::vector<std::string> start{python_with_pandas(), "-c", "import pandas"};
            ctx.add("csv", row_python, t.in,
                    [start] { benchmark::DoNotOptimize(run_process(start)); });
        } else {
            for (const char* r : {row_python_csv, row_pandas, row_python}) {
                note(ctx, t.in, r, "n/a (python3-pandas not installed)");
            }
        }
        if (have_fread()) {
            process(row_fread_1, {"Rscript", "-e", fread_script(t, 1), t.in.path.string()});
            process(row_fread_2, {"Rscript", "-e", fread_script(t, 2), t.in.path.string()});
            const std::vector<std::string> start{"Rscript", "-e",
                                                 "suppressMessages(library(data.table))"};
            ctx.add("csv", row_r, t.in, [start] { benchmark::DoNotOptimize(run_process(start)); });
        } else {
            for (const char* r : {row_fread_1, row_fread_2, row_r}) {
                note(ctx, t.in, r, "n/a (r-cran-data.table not installed)");
            }
        }
        if (have_vroom()) {
            process(row_vroom, {"Rscript", "-e", vroom_script(t), t.in.path.string()});
            const std::vector<std::string> start{"Rscript", "-e",
                                                 "suppressMessages(library(vroom))"};
            ctx.add("csv", row_r_vroom, t.in,
                    [start] { benchmark::DoNotOptimize(run_process(start)); });
        } else {
            for (const char* r : {row_vroom, row_r_vroom}) {
                note(ctx, t.in, r, "n/a (r-cran-vroom not installed)");
            }
        }
        if (const std::string& m = duckdb_module(); !m.empty()) {
            process(row_duckdb_1, {"node", "-e", duckdb_script(t, m, 1), t.in.path.string()});
            process(row_duckdb_2, {"node", "-e", duckdb_script(t, m, 2), t.in.path.string()});
            const std::vector<std::string> start{
                "node", "-e",
                "const { DuckDBInstance } = require(" + quote_js(m) +
                    ");\n(async () => { const db = await DuckDBInstance.create(':memory:'); await "
                    "db.connect(); })();\n"};
            ctx.add("csv", row_node_duckdb, t.in,
                    [start] { benchmark::DoNotOptimize(run_process(start)); });
        } else {
            for (const char* r : {row_duckdb_1, row_duckdb_2, row_node_duckdb}) {
                note(ctx, t.in, r, "n/a (npm package not installed)");
            }
        }
        if (const std::string& m = polars_module(); !m.empty()) {
            for (const auto& [row, threads] : {std::pair{row_polars_1, "POLARS_MAX_THREADS=1"},
                                               std::pair{row_polars_2, "POLARS_MAX_THREADS=2"}}) {
                process(row,
                        {"env", threads, "node", "-e", polars_script(t, m), t.in.path.string()});
            }
            const std::vector<std::string> start{"node", "-e", "require(" + quote_js(m) + ")"};
            ctx.add("csv", row_node_polars, t.in,
                    [start] { benchmark::DoNotOptimize(run_process(start)); });
        } else {
            for (const char* r : {row_polars_1, row_polars_2, row_node_polars}) {
                note(ctx, t.in, r, "n/a (npm package not installed)");
            }
        }
#if FASTREAD_HAVE_LIBCSV
        in_process(row_libcsv, [t] { return by_libcsv(t); });
#else
        note(ctx, t.in, row_libcsv, "not built (libcsv-dev)");
#endif
#if FASTREAD_HAVE_FCCP
        if (t.kind == table_kind::quoted) {
            note(ctx, t.in, row_fccp, "n/a (refuses line ends in quoted fields)");
        } else {
            in_process(row_fccp, [t] { return by_fccp(t); });
        }
#else
        note(ctx, t.in, row_fccp, "not built (libfccp-dev)");
#endif
        in_process(row_columns, [t] { return by_columns(t, 0); });
        in_process(row_columns_1, [t] { return by_columns(t, 1); });
        if (t.kind == table_kind::numeric || t.kind == table_kind::wide) {
            note(ctx, t.in, row_columns_text, "n/a (no text column)");
        } else {
            in_process(row_columns_text, [t] { return by_text_columns(t, 0); });
        }
        add_infer_rows(ctx, t, process, in_process);
    }
    ctx.add(
        "csv", row_rows, t.in, [t] { benchmark::DoNotOptimize(by_rows(t)); },
        [&ctx, t] {
            note(ctx, t.in, memory_prefix + std::string(row_rows),
                 memory_cell(peak_added([t] { benchmark::DoNotOptimize(by_rows(t)); })));
            std::uint64_t rows = 0;
            for ([[maybe_unused]] const csv::row& r : csv::rows(t.in.path, options_of(t, 1))) {
                ++rows;
            }
            return rows == t.in.items ? std::string()
                                      : "read " + std::to_string(rows) + " rows, not " +
                                            std::to_string(t.in.items);
        });
}

void register_csv_family(context& ctx) {
    ctx.set_estimate_scale("csv", 5.9, 1.0); // default run, Xeon KVM host, 2026-11-29
    std::vector<std::string> rows = {
        row_python_csv, row_python,      row_pandas,   row_r,           row_fread_1,
        row_fread_2,    row_r_vroom,     row_vroom,    row_node_duckdb, row_duckdb_1,
        row_duckdb_2,   row_node_polars, row_polars_1, row_polars_2,    row_libcsv,
        row_fccp,       row_rows,        row_columns,  row_columns_1,   row_columns_text};
    rows.insert(rows.end(), std::begin(infer_rows), std::end(infer_rows));
    for (const char* r : memory_rows()) {
        rows.push_back(memory_prefix + std::string(r));
    }
    ctx.add_family("csv", "delimited text (CSV, TSV)", rows, unit::cycles_per_byte_and_rows);
    ctx.mark_default("csv", row_columns, {row_rows});
    ctx.mark_rows("csv", row_kind::peer,
                  {row_python_csv, row_pandas, row_fread_1, row_fread_2, row_vroom, row_duckdb_1,
                   row_duckdb_2, row_polars_1, row_polars_2, row_pandas_infer, row_fread_infer,
                   row_duckdb_infer, row_polars_infer, row_mlr_count, row_sqlite_count,
                   row_mlr_select, row_sqlite_select});
    ctx.mark_rows("csv", row_kind::floor,
                  {row_python, row_r, row_r_vroom, row_node_duckdb, row_node_polars});
    const options& o = ctx.opts();
    const std::uint64_t size = o.quick ? std::uint64_t{4} << 20 : std::uint64_t{64} << 20;
    const std::string label = o.quick ? "4 MB" : "64 MB";
    const std::string tag = o.quick ? "4MB" : "64MB";
    std::vector<table_spec> specs;
    auto generated = [&](table_kind kind, const std::string& name, const std::string& column) {
        table_spec t;
        t.kind = kind;
        t.delimiter = kind == table_kind::tsv ? '\t' : ',';
        t.in.column = column + " " + label;
        t.in.group = "generated";
        // Cached only: the comparison is of parsers (the processes read their file once
        // each), and a cold phase would double the family's time in the default run.
        t.in.cached_only = true;
        t.in.path = o.data_dir /
                    ("csv-v1-" + name + "-" + tag + (kind == table_kind::tsv ? ".tsv" : ".csv"));
        if (!std::filesystem::exists(t.in.path)) {
            std::cerr << "fastread-bench: generating " << t.in.path.string() << std::endl;
            generate(t.in.path, kind, size);
        }
        specs.push_back(t);
    };
    generated(table_kind::mixed, "mixed", "mixed");
    generated(table_kind::numeric, "numeric", "numeric");
    generated(table_kind::quoted, "quoted", "quoted text");
    generated(table_kind::wide, "wide", "wide (500 columns, 10 read)");
    generated(table_kind::tsv, "tsv", "TSV");
    if (auto it = o.files.find("csv"); it != o.files.end()) {
        for (const auto& p : it->second) {
            table_spec t;
            t.in.column = p.filename().string();
            t.in.group = "your files";
            t.in.path = p;
            specs.push_back(t);
        }
    }
    for (table_spec& t : specs) {
        std::error_code ec;
        t.in.bytes = std::filesystem::file_size(t.in.path, ec);
        if (ec || t.in.bytes == 0) {
            continue;
        }
        std::uint64_t rows = 0;
        for ([[maybe_unused]] const csv::row& r : csv::rows(t.in.path, options_of(t, 1))) {
            ++rows;
        }
        t.in.items = rows; // for rows a second
        add_rows(ctx, t);
    }
}

} // namespace

const family_registration csv_family{{
    "csv",
    9,
    "  csv     delimited text: Python's csv module, pandas.read_csv, data.table's fread\n"
    "          (nThread 1 and 2), vroom, DuckDB and polars (threads 1 and 2), processes with\n"
    "          their start-up on rows of their own; libcsv and fast-cpp-csv-parser; against\n"
    "          fastread::csv::rows (fields visited) and csv::columns (threads, 1 thread, text\n"
    "          as csv::text), the same types given to every reader. Columns: 64 MB (--quick\n"
    "          4 MB) each of a mixed table (a taxi-trip export), an all-numeric one, quoted\n"
    "          text, a wide one (500 columns, 10 read) and a TSV. Cells: cycles per byte and\n"
    "          millions of rows a second; peak memory per row and column.\n",
    "--csv",
    "also benchmark these delimited files (csv::rows only; one column each)",
    {},
    &register_csv_family,
}};

} // namespace fastread_bench
