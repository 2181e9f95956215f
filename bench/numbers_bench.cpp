// The numbers family: numbers from text, the usual C and C++ ways (std::ifstream >>, fscanf,
// strtod/strtoull and std::from_chars over a read buffer), a fast_float loop over a read
// buffer, numpy.loadtxt and pandas.read_csv as processes (and the interpreter's start-up
// alone, so that it can be subtracted), against fastread::numbers and fastread::columns.
// Inputs: a point cloud (3 doubles a line, 6 to 17 significant digits), an edge list (two
// 32-bit unsigned integers a line), a Matrix Market coordinate file (two indices and a
// double), a CSV of floats with a header line, and the raster of a P3 image (8-bit samples;
// ppm::load, the P3 kernel, is its reference row). Every row stores every number and is
// checked once against fastread::numbers (count and sum) before timing.

#include <fastread/numbers.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__has_include)
#if __has_include(<fast_float/fast_float.h>)
#include <fast_float/fast_float.h>
#define FASTREAD_BENCH_FAST_FLOAT 1
#endif
#endif
#ifndef FASTREAD_BENCH_FAST_FLOAT
#define FASTREAD_BENCH_FAST_FLOAT 0
#endif

#include "bench_util.hpp"
#include "families.hpp"

namespace fastread_bench {
namespace {

// What a column's text is: the type of each number on a line (true: an integer), the
// separator, the header lines to skip.
struct text_format {
    std::vector<bool> integer; // per column of a line
    char separator = ' ';      // ' ' (any whitespace) or ','
    int skip_lines = 0;
    bool equal_lines = true; // every line has integer.size() numbers (else: P3 rows)
    bool bytes = false;      // fastread reads std::uint8_t (the samples of an 8-bit P3)
};

// What a row read: every number stored, then counted and summed for the check.
struct parsed {
    std::vector<double> reals;
    std::vector<std::uint32_t> ints;
    std::uint64_t count() const { return reals.size() + ints.size(); }
    double sum() const {
        double s = 0;
        for (double d : reals) {
            s += d;
        }
        for (std::uint32_t u : ints) {
            s += u;
        }
        return s;
    }
};

std::string read_all(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + path.string());
    }
    std::string text;
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
        text.append(buffer, n);
    }
    std::fclose(f);
    return text;
}

// The offset after the format's header lines.
std::size_t body_start(const std::string& text, int skip_lines) {
    std::size_t at = 0;
    for (int i = 0; i < skip_lines; ++i) {
        at = text.find('\n', at) + 1;
    }
    return at;
}

bool is_separator(char c, char separator) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == separator;
}

// ---- the baselines ---------------------------------------------------------------------

parsed by_ifstream(const std::filesystem::path& path, const text_format& fmt) {
    std::ifstream in(path);
    std::string header;
    for (int i = 0; i < fmt.skip_lines; ++i) {
        std::getline(in, header);
    }
    parsed out;
    const std::size_t cols = fmt.integer.size();
    for (std::size_t k = 0;; ++k) {
        const bool integer = fmt.integer[k % cols];
        if (integer) {
            std::uint32_t v;
            if (!(in >> v)) {
                break;
            }
            out.ints.push_back(v);
        } else {
            double v;
            if (!(in >> v)) {
                break;
            }
            out.reals.push_back(v);
        }
        if (fmt.separator != ' ' && k % cols + 1 < cols) {
            char comma;
            in >> comma;
        }
    }
    return out;
}

parsed by_fscanf(const std::filesystem::path& path, const text_format& fmt) {
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + path.string());
    }
    for (int i = 0; i < fmt.skip_lines; ++i) {
        int c;
        while ((c = std::fgetc(f)) != EOF && c != '\n') {
        }
    }
    parsed out;
    const std::size_t cols = fmt.integer.size();
    const bool csv = fmt.separator != ' ';
    for (std::size_t k = 0;; ++k) {
        const bool more = csv && k % cols + 1 < cols;
        if (fmt.integer[k % cols]) {
            unsigned v;
            if (std::fscanf(f, more ? " %u," : " %u", &v) != 1) {
                break;
            }
            out.ints.push_back(v);
        } else {
            double v;
            if (std::fscanf(f, more ? " %lf," : " %lf", &v) != 1) {
                break;
            }
            out.reals.push_back(v);
        }
    }
    std::fclose(f);
    return out;
}

// Reads the file into a buffer, then converts token after token with `convert_int` /
// `convert_real` (each: (p, end, value&) -> pointer after the number, or null).
template <class ConvertInt, class ConvertReal>
parsed over_buffer(const std::filesystem::path& path, const text_format& fmt,
                   ConvertInt convert_int, ConvertReal convert_real) {
    const std::string text = read_all(path);
    const char* p = text.data() + body_start(text, fmt.skip_lines);
    const char* const end = text.data() + text.size();
    parsed out;
    const std::size_t cols = fmt.integer.size();
    for (std::size_t k = 0;; ++k) {
        while (p != end && is_separator(*p, fmt.separator)) {
            ++p;
        }
        if (p == end) {
            break;
        }
        const char* q;
        if (fmt.integer[k % cols]) {
            std::uint32_t v = 0;
            q = convert_int(p, end, v);
            out.ints.push_back(v);
        } else {
            double v = 0;
            q = convert_real(p, end, v);
            out.reals.push_back(v);
        }
        if (q == nullptr || q == p) {
            throw std::runtime_error("not a number at byte " + std::to_string(p - text.data()));
        }
        p = q;
    }
    return out;
}

parsed by_strtod(const std::filesystem::path& path, const text_format& fmt) {
    // The buffer is a std::string: NUL-terminated, as strtod needs.
    return over_buffer(
        path, fmt,
        [](const char* p, const char*, std::uint32_t& v) -> const char* {
            char* e;
            v = static_cast<std::uint32_t>(std::strtoull(p, &e, 10));
            return e;
        },
        [](const char* p, const char*, double& v) -> const char* {
            char* e;
            v = std::strtod(p, &e);
            return e;
        });
}

parsed by_from_chars(const std::filesystem::path& path, const text_format& fmt) {
    return over_buffer(
        path, fmt,
        [](const char* p, const char* end, std::uint32_t& v) -> const char* {
            const auto r = std::from_chars(p, end, v);
            return r.ec == std::errc() ? r.ptr : nullptr;
        },
        [](const char* p, const char* end, double& v) -> const char* {
            const auto r = std::from_chars(p, end, v);
            return r.ec == std::errc() ? r.ptr : nullptr;
        });
}

#if FASTREAD_BENCH_FAST_FLOAT
parsed by_fast_float(const std::filesystem::path& path, const text_format& fmt) {
    // fast_float 3.9 converts floating point only: integers with std::from_chars.
    return over_buffer(
        path, fmt,
        [](const char* p, const char* end, std::uint32_t& v) -> const char* {
            const auto r = std::from_chars(p, end, v);
            return r.ec == std::errc() ? r.ptr : nullptr;
        },
        [](const char* p, const char* end, double& v) -> const char* {
            const auto r = fast_float::from_chars(p, end, v);
            return r.ec == std::errc() ? r.ptr : nullptr;
        });
}
#endif

// ---- fastread --------------------------------------------------------------------------

fastread::number_options options_of(const text_format& fmt, unsigned threads = 0) {
    fastread::number_options o;
    if (fmt.separator == ',') {
        o.separators = ",";
    }
    o.skip_lines = static_cast<std::size_t>(fmt.skip_lines);
    o.threads = threads;
    return o;
}

bool all_integers(const text_format& fmt) {
    for (bool b : fmt.integer) {
        if (!b) {
            return false;
        }
    }
    return true;
}

parsed by_numbers(const std::filesystem::path& path, const text_format& fmt, unsigned threads) {
    parsed out;
    if (fmt.bytes) {
        const auto v = fastread::numbers<std::uint8_t>(path, options_of(fmt, threads));
        out.ints.assign(v.begin(), v.end());
    } else if (all_integers(fmt)) {
        out.ints = fastread::numbers<std::uint32_t>(path, options_of(fmt, threads));
    } else {
        out.reals = fastread::numbers<double>(path, options_of(fmt, threads));
    }
    return out;
}

parsed by_number_range(const std::filesystem::path& path, const text_format& fmt) {
    fastread::read_source source(path);
    parsed out;
    if (all_integers(fmt)) {
        for (std::uint32_t v : fastread::number_range<std::uint32_t>(source, options_of(fmt))) {
            out.ints.push_back(v);
        }
    } else {
        for (double v : fastread::number_range<double>(source, options_of(fmt))) {
            out.reals.push_back(v);
        }
    }
    return out;
}

// columns<...> for the shapes generated here: `f` gets every column's vector, in order.
template <class F>
void visit_columns(const std::filesystem::path& path, const text_format& fmt, F f) {
    const auto o = options_of(fmt);
    if (fmt.integer == std::vector<bool>{false, false, false}) {
        auto [x, y, z] = fastread::columns<double, double, double>(path, o);
        f(x), f(y), f(z);
    } else if (fmt.integer == std::vector<bool>{true, true}) {
        auto [a, b] = fastread::columns<std::uint32_t, std::uint32_t>(path, o);
        f(a), f(b);
    } else if (fmt.integer == std::vector<bool>{true, true, false}) {
        auto [i, j, v] = fastread::columns<std::uint32_t, std::uint32_t, double>(path, o);
        f(i), f(j), f(v);
    } else if (fmt.integer == std::vector<bool>{false, false, false, false}) {
        auto [a, b, c, d] = fastread::columns<double, double, double, double>(path, o);
        f(a), f(b), f(c), f(d);
    } else {
        throw std::logic_error("no columns<> call for this shape");
    }
}

// The numbers columns<> read, for the check (the timed row only counts them).
parsed by_columns(const std::filesystem::path& path, const text_format& fmt) {
    parsed out;
    visit_columns(path, fmt, [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        if constexpr (std::is_floating_point_v<T>) {
            out.reals.insert(out.reals.end(), v.begin(), v.end());
        } else {
            out.ints.insert(out.ints.end(), v.begin(), v.end());
        }
    });
    return out;
}

// ---- the generated inputs --------------------------------------------------------------

void write_text(const std::filesystem::path& path, const std::string& text) {
    const std::filesystem::path partial = path.string() + ".partial";
    write_bytes(partial, text);
    std::filesystem::rename(partial, path);
}

// Random doubles over many magnitudes, printed with 6 to 17 significant digits.
std::string real_text(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> mantissa(-1, 1);
    std::uniform_int_distribution<int> exponent(-6, 6), digits(6, 17);
    char buffer[64];
    const int n = std::snprintf(buffer, sizeof buffer, "%.*g", digits(rng),
                                mantissa(rng) * std::pow(10.0, exponent(rng)));
    return std::string(buffer, static_cast<std::size_t>(n));
}

void generate(const std::filesystem::path& path, const std::string& kind, std::uint64_t size) {
    std::mt19937_64 rng(0x5eed);
    std::string text;
    text.reserve(static_cast<std::size_t>(size + 4096));
    if (kind == "matrix") {
        text += "%%MatrixMarket matrix coordinate real general\n% generated by fastread-bench\n";
        text += "1000000 1000000 0\n";
    } else if (kind == "csv") {
        text += "a,b,c,d\n";
    }
    std::uniform_int_distribution<std::uint32_t> any32, index(1, 1000000);
    while (text.size() < size) {
        if (kind == "cloud") {
            text += real_text(rng) + ' ' + real_text(rng) + ' ' + real_text(rng) + '\n';
        } else if (kind == "edges") {
            text += std::to_string(any32(rng) >> (rng() % 24)) + '\t' +
                    std::to_string(any32(rng) >> (rng() % 24)) + '\n';
        } else if (kind == "matrix") {
            text += std::to_string(index(rng)) + ' ' + std::to_string(index(rng)) + ' ' +
                    real_text(rng) + '\n';
        } else {
            text += real_text(rng) + ',' + real_text(rng) + ',' + real_text(rng) + ',' +
                    real_text(rng) + '\n';
        }
    }
    write_text(path, text);
}

void generate_p3(const std::filesystem::path& path, std::uint32_t width, std::uint32_t height) {
    fastread::ppm::image<std::uint8_t> img;
    img.width = width;
    img.height = height;
    img.maxval = 255;
    img.samples.resize(std::size_t{width} * height * 3);
    std::mt19937_64 rng(7);
    for (auto& s : img.samples) {
        s = static_cast<std::uint8_t>(rng());
    }
    const std::filesystem::path partial = path.string() + ".partial";
    fastread::ppm::save(partial, img, fastread::ppm::format::plain);
    std::filesystem::rename(partial, path);
}

// ---- rows --------------------------------------------------------------------------------

struct column_spec {
    input in;
    text_format fmt;
    std::string numpy_dtype; // "float" or "uint32"
};

const char* const row_ifstream = "std::ifstream >>";
const char* const row_fscanf = "fscanf";
const char* const row_strtod = "strtod/strtoull over a read buffer";
const char* const row_from_chars = "std::from_chars over a read buffer";
const char* const row_fast_float = "fast_float loop over a read buffer";
const char* const row_python = "python3 start-up: import numpy, pandas (process)";
const char* const row_numpy = "numpy.loadtxt (process)";
const char* const row_pandas = "pandas.read_csv (process)";
const char* const row_numbers = "fastread::numbers";
const char* const row_columns = "fastread::columns";
const char* const row_numbers_1 = "fastread::numbers, 1 thread";
const char* const row_range = "fastread::number_range read_source";
const char* const row_p3 = "ppm::load (the P3 kernel)";

std::string check_against(const parsed& want, const parsed& got) {
    if (want.count() != got.count()) {
        return "read " + std::to_string(got.count()) + " numbers, not " +
               std::to_string(want.count());
    }
    // The sums are taken in another order (columns, integers apart): equal to 1e-12.
    const double a = want.sum(), b = got.sum();
    if (std::fabs(a - b) > 1e-12 * std::max(std::fabs(a), 1.0)) {
        return "the numbers differ from fastread::numbers'";
    }
    return {};
}

std::string python_script(const column_spec& c, bool pandas) {
    const std::string path = c.in.path.string();
    const std::string sep = c.fmt.separator == ',' ? "," : " ";
    if (pandas) {
        return "import numpy, pandas, sys; d = pandas.read_csv(sys.argv[1], " +
               std::string(c.fmt.separator == ',' ? "sep=','" : "delim_whitespace=True") +
               ", header=None, skiprows=" + std::to_string(c.fmt.skip_lines) + ", dtype=numpy." +
               (c.numpy_dtype == "uint32" ? "uint32" : "float64") + "); print(d.size)";
    }
    return "import numpy, pandas, sys; a = numpy.loadtxt(sys.argv[1], " +
           std::string(c.fmt.separator == ',' ? "delimiter=','" : "") +
           (c.fmt.separator == ',' ? ", " : "") + "skiprows=" + std::to_string(c.fmt.skip_lines) +
           ", dtype=numpy." + (c.numpy_dtype == "uint32" ? "uint32" : "float64") +
           "); print(a.size)";
}

// The Python that has Debian's python3-numpy and python3-pandas (/usr/bin/python3 first: a
// python3 earlier in PATH, e.g. pyenv's, may not), or "" when none has them.
const std::string& python() {
    static const std::string found = [] {
        for (const char* p : {"/usr/bin/python3", "python3"}) {
            const std::string command =
                std::string(p) + " -c 'import numpy, pandas' > /dev/null 2>&1";
            if (std::system(command.c_str()) == 0) {
                return std::string(p);
            }
        }
        return std::string();
    }();
    return found;
}

void add_rows(context& ctx, const column_spec& c) {
    const input& in = c.in;
    const text_format fmt = c.fmt;
    const auto path = in.path;
    ctx.add_column("numbers", in);
    // `run` is timed and checked; a row whose call returns something else than a
    // `parsed` times `timed` (the call alone) and checks what `run` makes of it.
    auto row = [&](const char* name, std::function<parsed()> run,
                   std::function<std::size_t()> timed = {}) {
        std::function<void()> body = [run] { benchmark::DoNotOptimize(run().count()); };
        if (timed) {
            body = [timed] { benchmark::DoNotOptimize(timed()); };
        }
        ctx.add("numbers", name, in, body,
                [path, fmt, run] { return check_against(by_numbers(path, fmt, 0), run()); });
    };
    row(row_ifstream, [path, fmt] { return by_ifstream(path, fmt); });
    row(row_fscanf, [path, fmt] { return by_fscanf(path, fmt); });
    row(row_strtod, [path, fmt] { return by_strtod(path, fmt); });
    row(row_from_chars, [path, fmt] { return by_from_chars(path, fmt); });
#if FASTREAD_BENCH_FAST_FLOAT
    row(row_fast_float, [path, fmt] { return by_fast_float(path, fmt); });
#else
    ctx.note("numbers", row_fast_float, in.column, "not built");
#endif
    if (fmt.equal_lines && !python().empty()) {
        const std::uint64_t count = by_numbers(path, fmt, 0).count();
        auto process = [&](const char* name, bool pandas) {
            const std::vector<std::string> argv{python(), "-c", python_script(c, pandas),
                                                path.string()};
            ctx.add(
                "numbers", name, in, [argv] { benchmark::DoNotOptimize(run_process(argv)); },
                [argv, count] {
                    const std::string out = run_process(argv);
                    return std::stoull(out) == count
                               ? std::string()
                               : "read " + out + " numbers, not " + std::to_string(count);
                });
        };
        process(row_numpy, false);
        process(row_pandas, true);
        const std::vector<std::string> start{python(), "-c", "import numpy, pandas"};
        ctx.add("numbers", row_python, in,
                [start] { benchmark::DoNotOptimize(run_process(start)); });
    } else {
        const char* why = fmt.equal_lines ? "n/a (python3-numpy, python3-pandas not installed)"
                                          : "n/a (lines of unequal length)";
        for (const char* r : {row_numpy, row_pandas, row_python}) {
            ctx.note("numbers", r, in.column, why);
        }
    }
    // 8-bit samples: the call alone is timed (the widening for the check is not).
    auto count = [path, fmt](unsigned threads) -> std::function<std::size_t()> {
        if (!fmt.bytes) {
            return {};
        }
        return [path, fmt, threads] {
            return fastread::numbers<std::uint8_t>(path, options_of(fmt, threads)).size();
        };
    };
    row(
        row_numbers, [path, fmt] { return by_numbers(path, fmt, 0); }, count(0));
    if (fmt.equal_lines) {
        row(
            row_columns, [path, fmt] { return by_columns(path, fmt); },
            [path, fmt] {
                std::size_t n = 0;
                visit_columns(path, fmt, [&](const auto& v) { n += v.size(); });
                return n;
            });
    } else {
        ctx.note("numbers", row_columns, in.column, "n/a (lines of unequal length)");
    }
    row(
        row_numbers_1, [path, fmt] { return by_numbers(path, fmt, 1); }, count(1));
    row(row_range, [path, fmt] { return by_number_range(path, fmt); });
    if (!fmt.equal_lines && in.group == "generated") {
        row(
            row_p3,
            [path] {
                parsed out;
                const auto img = fastread::ppm::load(path);
                out.ints.assign(img.samples.begin(), img.samples.end());
                return out;
            },
            [path] { return fastread::ppm::load(path).samples.size(); });
    } else {
        ctx.note("numbers", row_p3, in.column, "n/a");
    }
}

void register_numbers_family(context& ctx) {
    ctx.set_estimate_scale("numbers", 1.0, 0.3);
    ctx.add_family("numbers", "numbers from text",
                   {row_ifstream, row_fscanf, row_strtod, row_from_chars, row_fast_float,
                    row_python, row_numpy, row_pandas, row_numbers, row_columns, row_numbers_1,
                    row_range, row_p3},
                   unit::cycles_per_byte_and_numbers);
    ctx.mark_default("numbers", row_numbers, {row_columns});
    ctx.mark_rows("numbers", row_kind::baseline,
                  {row_ifstream, row_fscanf, row_strtod, row_from_chars});
    ctx.mark_rows("numbers", row_kind::peer, {row_fast_float, row_numpy, row_pandas});
    ctx.mark_rows("numbers", row_kind::floor, {row_python});
    const options& o = ctx.opts();
    const std::uint64_t size = o.quick ? std::uint64_t{4} << 20 : std::uint64_t{64} << 20;
    const std::string label = o.quick ? "4 MB" : "64 MB";
    const std::string tag = o.quick ? "4MB" : "64MB";
    std::vector<column_spec> specs;
    auto generated = [&](const std::string& kind, const std::string& column, text_format fmt,
                         const std::string& dtype) {
        column_spec c;
        c.in.column = column + " " + label;
        c.in.group = "generated";
        c.in.path = o.data_dir / ("numbers-v1-" + kind + "-" + tag + ".txt");
        c.fmt = std::move(fmt);
        c.numpy_dtype = dtype;
        if (!std::filesystem::exists(c.in.path)) {
            std::cerr << "fastread-bench: generating " << c.in.path.string() << std::endl;
            generate(c.in.path, kind, size);
        }
        specs.push_back(c);
    };
    generated("cloud", "xyz cloud", {{false, false, false}, ' ', 0, true}, "float");
    generated("edges", "edge list", {{true, true}, ' ', 0, true}, "uint32");
    generated("matrix", "Matrix Market", {{true, true, false}, ' ', 2, true}, "float");
    generated("csv", "CSV", {{false, false, false, false}, ',', 1, true}, "float");
    {
        column_spec c;
        // 3 × 1500 × 1500 samples (--quick 500 × 500), as the ppm family's big P3.
        const std::uint32_t side = o.quick ? 500 : 1500;
        c.in.column = "P3 raster " + std::to_string(side) + "²";
        c.in.group = "generated";
        c.in.path = o.data_dir / ("numbers-v1-p3-" + std::to_string(side) + ".ppm");
        // The header is 3 lines (ppm::save writes "P3", "W H", "255"): the samples after.
        c.fmt = {{true}, ' ', 3, false, true};
        if (!std::filesystem::exists(c.in.path)) {
            std::cerr << "fastread-bench: generating " << c.in.path.string() << std::endl;
            generate_p3(c.in.path, side, side);
        }
        specs.push_back(c);
    }
    if (auto it = o.files.find("numbers"); it != o.files.end()) {
        for (const auto& p : it->second) {
            // The user's files: numbers separated by whitespace, read as doubles.
            column_spec c;
            c.in.column = p.filename().string();
            c.in.group = "your files";
            c.in.path = p;
            c.fmt = {{false}, ' ', 0, false};
            specs.push_back(c);
        }
    }
    for (column_spec& c : specs) {
        std::error_code ec;
        c.in.bytes = std::filesystem::file_size(c.in.path, ec);
        if (!ec && c.in.bytes > 0) {
            c.in.items = by_numbers(c.in.path, c.fmt, 0).count(); // for numbers a second
            add_rows(ctx, c);
        }
    }
}

} // namespace

const family_registration numbers_family{{
    "numbers",
    8,
    "  numbers read every number of a text: std::ifstream >>, fscanf, strtod/strtoull and\n"
    "          std::from_chars over a read buffer, a fast_float loop, numpy.loadtxt and\n"
    "          pandas.read_csv (processes; the interpreter's start-up alone on its own row),\n"
    "          fastread::numbers and columns (threads, 1 thread) and number_range, and\n"
    "          ppm::load on the P3 column. Columns: 64 MB (--quick 4 MB) each of a point\n"
    "          cloud (3 doubles a line), an edge list (2 uint32), a Matrix Market file, a\n"
    "          CSV of 4 floats with a header, and a 1500² P3 image. Cells: cycles per\n"
    "          byte and millions of numbers a second.\n",
    "--numbers",
    "also benchmark these text files of whitespace-separated numbers (one column each)",
    {},
    &register_numbers_family,
}};

} // namespace fastread_bench
