// The lines family: the line readers of the line-readers article (docs/articles.md) (and the usual
// C and C++ ways) against fastread::lines over each source, and wc -l as a process, on a generated
// text file with realistic line lengths and its CRLF copy. Every row consumes every line (the sum
// of the line lengths) so that nothing is optimised away, and reports the number of lines, which is
// checked against a plain count before timing.

#include <fastread/line_readers.hpp>
#include <fastread/lines.hpp>
#include <fastread/scan/byte_mask.hpp>
#include <fastread/source.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.hpp"
#include "families.hpp"

extern char** environ;

namespace fastread_bench {
namespace {

struct tally {
    std::uint64_t lines = 0, bytes = 0;
};

// ---- the strategies, each returning what it saw -----------------------------------------

template <class Range>
tally consume(Range&& range) {
    tally t;
    for (std::string_view line : range) {
        ++t.lines;
        t.bytes += line.size();
    }
    return t;
}

tally by_getline(std::istream& in) {
    tally t;
    std::string line;
    while (std::getline(in, line)) {
        ++t.lines;
        t.bytes += line.size();
    }
    return t;
}

tally by_fgets(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + path.string());
    }
    tally t;
    static char buffer[65536]; // lines longer than this count twice, as fgets splits them
    while (std::fgets(buffer, sizeof buffer, f) != nullptr) {
        ++t.lines;
        t.bytes += std::strlen(buffer);
    }
    std::fclose(f);
    return t;
}

tally by_getline3(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + path.string());
    }
    tally t;
    char* line = nullptr;
    std::size_t cap = 0;
    for (ssize_t n; (n = ::getline(&line, &cap, f)) >= 0;) {
        ++t.lines;
        t.bytes += static_cast<std::uint64_t>(n);
    }
    std::free(line);
    std::fclose(f);
    return t;
}

// ---- child processes ---------------------------------------------------------------------

std::uint64_t lines_reported(const std::string& out) {
    return std::strtoull(out.c_str(), nullptr, 10);
}

// Adds rows to one column of the lines family, each checked to see every line.
struct row_adder {
    context& ctx;
    const input& in;
    std::uint64_t expected; // the newline count, plus a last line without one

    std::function<std::string()> check(std::function<std::uint64_t()> count) const {
        return [expected = expected, count]() -> std::string {
            const std::uint64_t got = count();
            return got == expected ? std::string()
                                   : "wrong result: " + std::to_string(got) + " lines, expected " +
                                         std::to_string(expected);
        };
    }
    // A row run in this process: `run` returns the tally of the lines it read.
    template <class Run>
    void in_process(const std::string& row, Run run) const {
        ctx.add(
            "lines", row, in, [run] { benchmark::DoNotOptimize(run()); },
            check([run] { return run().lines; }));
    }
    // A row run as a child process that prints its line count.
    void child(const std::string& row, const std::string& command) const {
        ctx.add(
            "lines", row, in, [command] { benchmark::DoNotOptimize(run_shell(command)); },
            check([command] { return lines_reported(run_shell(command)); }));
    }
};

// The words in the text at `path` as the C locale counts them: runs of printable bytes
// between whitespace.
std::uint64_t count_words(const std::filesystem::path& path) {
    std::uint64_t n = 0;
    bool in_word = false;
    fastread::read_source src(path);
    for (std::span<const char> c = src.next(); !c.empty(); c = src.next()) {
        for (const char b : c) {
            const auto u = static_cast<unsigned char>(b);
            if (u == ' ' || (u >= '\t' && u <= '\r')) {
                in_word = false;
            } else if (u > ' ' && u < 127) {
                n += !in_word;
                in_word = true;
            }
        }
    }
    return n;
}

// The lines in the file at `path`: its newlines, plus a last line without one.
std::uint64_t count_lines(const std::filesystem::path& path) {
    std::uint64_t n = 0;
    fastread::read_source src(path);
    char last = '\n';
    for (auto c = src.next(); !c.empty(); c = src.next()) {
        for (char ch : c) {
            n += ch == '\n';
        }
        last = c.back();
    }
    return n + (last != '\n');
}

// std::getline (in this process and from a pipe), fgets, getline(3) and the article's
// line readers.
void add_baseline_rows(const row_adder& rows) {
    const auto path = rows.in.path;
    rows.in_process("std::getline ifstream", [path] {
        std::ifstream f(path, std::ios::binary);
        return by_getline(f);
    });
    rows.child("std::getline ifstream, sync_with_stdio(false)",
               quote(self()) + " --internal-lines getline-nosync " + quote(path.string()));
    rows.child("std::getline std::cin (pipe)",
               "cat " + quote(path.string()) + " | " + quote(self()) + " --internal-lines cin");
    rows.child("std::getline std::cin (pipe), sync_with_stdio(false)",
               "cat " + quote(path.string()) + " | " + quote(self()) +
                   " --internal-lines cin-nosync");
    rows.in_process("fgets", [path] { return by_fgets(path); });
    rows.in_process("getline(3)", [path] { return by_getline3(path); });
    rows.in_process("istream_line_reader", [path] {
        std::ifstream f(path, std::ios::binary);
        tally t;
        for (const std::string& line : fastread::istream_line_reader(f)) {
            ++t.lines;
            t.bytes += line.size();
        }
        return t;
    });
    rows.in_process("file_line_reader", [path] {
        std::FILE* f = std::fopen(path.c_str(), "rb");
        tally t;
        fastread::file_line_reader reader(f);
        for (auto it = reader.begin(); it != reader.end(); ++it) {
            ++t.lines;
            t.bytes += it.size();
        }
        std::fclose(f);
        return t;
    });
    rows.in_process("mmap_line_reader", [path] {
        tally t;
        for (const std::string& line : fastread::mmap_line_reader(path)) {
            ++t.lines;
            t.bytes += line.size();
        }
        return t;
    });
}

// fastread::lines by path (at each SIMD level), over each source and from a pipe, and
// the memchr-per-line alternative to its kernel.
void add_fastread_rows(const row_adder& rows) {
    const auto path = rows.in.path;
    rows.in_process("fastread::lines(path)", [path] { return consume(fastread::lines(path)); });
    // The same pass without exceptions: errors would end it and stay in range.error().
    rows.in_process("fastread::try_lines(path)", [path] {
        auto range = fastread::try_lines(path);
        tally t = consume(range.value());
        if (range->error().code()) {
            throw std::runtime_error(range->error().message());
        }
        return t;
    });
    // One row per SIMD level of the newline kernel (the default row uses the best level).
    for (fastread::scan::simd_level level : fastread::scan::all_levels) {
        const std::string row =
            "fastread::lines(path) " + std::string(fastread::scan::to_string(level));
        if (level > fastread::scan::best_level()) {
            rows.ctx.note("lines", row, rows.in.column, "n/a (CPU)");
            continue;
        }
        rows.in_process(row, [path, level] {
            fastread::detail::force_simd_level(level);
            auto range = fastread::lines(path); // keeps the level it was made with
            fastread::detail::reset_simd_level();
            return consume(range);
        });
    }
    // The alternative to the kernel: one memchr call per line over the same map, CR
    // stripped as lines() does (what "SIMD or memchr, whichever measures faster" compares).
    rows.in_process("memchr per line over mmap_source", [path] {
        fastread::mmap_source s(path);
        tally t;
        for (std::span<const char> chunk = s.next(); !chunk.empty(); chunk = s.next()) {
            const char* p = chunk.data();
            const char* const end = p + chunk.size();
            while (p != end) {
                const auto* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
                const char* stop = nl == nullptr ? end : nl;
                std::size_t n = static_cast<std::size_t>(stop - p);
                n -= nl != nullptr && n != 0 && stop[-1] == '\r' ? 1 : 0;
                ++t.lines;
                t.bytes += n;
                p = nl == nullptr ? end : nl + 1;
            }
        }
        return t;
    });
    rows.in_process("fastread::lines mmap_source", [path] {
        fastread::mmap_source s(path);
        return consume(fastread::lines(s));
    });
    rows.in_process("fastread::lines read_source", [path] {
        fastread::read_source s(path);
        return consume(fastread::lines(s));
    });
    rows.in_process("fastread::lines fread_source", [path] {
        fastread::fread_source s(path);
        return consume(fastread::lines(s));
    });
    rows.in_process("fastread::lines stdio_source", [path] {
        fastread::stdio_source s(path);
        return consume(fastread::lines(s));
    });
    rows.in_process("fastread::lines istream_source", [path] {
        std::ifstream f(path, std::ios::binary);
        fastread::istream_source s(f);
        return consume(fastread::lines(s));
    });
    rows.child("fastread::lines(stdin) (pipe)",
               "cat " + quote(path.string()) + " | " + quote(self()) + " --internal-lines stdin");
}

void add_rows(context& ctx, const input& in) {
    ctx.add_column("lines", in);
    const row_adder rows{ctx, in, count_lines(in.path)};
    add_baseline_rows(rows);
    add_fastread_rows(rows);
    // The peer: wc -l as a process.
    rows.child("wc -l (process)", "wc -l < " + quote(in.path.string()));
    // Words: fastread-wc -w and wc -w, in Debian's default locale and in C. The check: the
    // count of words by the C locale's rules (count_words), and in C.UTF-8 the count wc -w
    // prints there (the text may hold UTF-8: the C headers do).
    if (std::string(FASTREAD_WC).empty()) {
        return;
    }
    for (const char* locale : {"C.UTF-8", "C"}) {
        const std::uint64_t words =
            locale == std::string("C")
                ? count_words(in.path)
                : lines_reported(run_shell("LC_ALL=C.UTF-8 wc -w < " + quote(in.path.string())));
        for (const char* tool : {"fastread-wc", "wc"}) {
            const std::string command =
                std::string("LC_ALL=") + locale + " " +
                (std::string(tool) == "wc" ? std::string("wc") : quote(FASTREAD_WC)) + " -w < " +
                quote(in.path.string());
            ctx.add(
                "lines", std::string(tool) + " -w " + locale + " (process)", in,
                [command] { benchmark::DoNotOptimize(run_shell(command)); },
                [command, words]() -> std::string {
                    const std::uint64_t got = lines_reported(run_shell(command));
                    return got == words ? std::string()
                                        : "wrong result: " + std::to_string(got) +
                                              " words, expected " + std::to_string(words);
                });
        }
    }
}

/// Text like a mixed log: short records, timestamped log lines and long prose lines
/// (mean ~60 bytes), deterministic.
void generate_text(const std::filesystem::path& path, std::uint64_t size, bool crlf) {
    static const char* const words[] = {
        "the",   "request", "server", "timeout", "client", "value",  "record", "file",
        "cache", "line",    "parser", "byte",    "page",   "memory", "disk",   "thread",
        "queue", "retry",   "error",  "latency", "batch",  "index",  "table",  "string"};
    std::uint64_t state = 0x1234567;
    auto rnd = [&state](std::uint64_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % n;
    };
    std::string out;
    out.reserve(1 << 20);
    std::ofstream f(path, std::ios::binary);
    std::uint64_t written = 0, n = 0;
    const char* eol = crlf ? "\r\n" : "\n";
    while (written < size) {
        const std::uint64_t kind = rnd(10);
        if (kind < 6) {
            out += "GET /api/v1/items/" + std::to_string(rnd(100000)) + " " +
                   std::to_string(200 + rnd(3) * 100);
        } else if (kind < 9) {
            out += "2026-11-22T10:" + std::to_string(10 + rnd(50)) + ":" +
                   std::to_string(10 + rnd(50)) + " INFO worker-" + std::to_string(rnd(16)) +
                   " request id=" + std::to_string(rnd(1000000)) + " took " +
                   std::to_string(rnd(900)) + " ms";
        } else {
            const std::uint64_t count = 12 + rnd(20);
            for (std::uint64_t w = 0; w < count; ++w) {
                out += words[rnd(sizeof words / sizeof words[0])];
                out += w + 1 < count ? " " : ".";
            }
        }
        out += eol;
        ++n;
        if (out.size() >= (1u << 20)) {
            f.write(out.data(), static_cast<std::streamsize>(out.size()));
            written += out.size();
            out.clear();
        }
    }
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

/// Real text with short lines: the C headers under /usr/include (sorted by path),
/// concatenated and repeated until `size` bytes (about 40 bytes per line). False when
/// there are none.
bool generate_header_text(const std::filesystem::path& path, std::uint64_t size) {
    std::vector<std::filesystem::path> headers;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator("/usr/include", ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".h") {
            headers.push_back(it->path());
        }
    }
    std::sort(headers.begin(), headers.end());
    if (headers.empty()) {
        return false;
    }
    const std::filesystem::path partial = path.string() + ".partial";
    std::ofstream out(partial, std::ios::binary);
    std::uint64_t written = 0;
    std::vector<char> buffer(std::size_t{1} << 20);
    while (written < size) {
        const std::uint64_t before = written;
        for (const auto& h : headers) {
            std::ifstream in(h, std::ios::binary);
            while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) ||
                   in.gcount() > 0) {
                out.write(buffer.data(), in.gcount());
                written += static_cast<std::uint64_t>(in.gcount());
            }
            if (written >= size) {
                break;
            }
        }
        if (written == before) {
            return false;
        }
    }
    out.close();
    if (!out) {
        throw std::runtime_error("cannot write " + partial.string());
    }
    std::filesystem::rename(partial, path);
    return true;
}

} // namespace

int run_internal_lines(int argc, char* argv[]) {
    // Child processes of the lines family: print the number of lines read.
    const std::string mode = argc > 2 ? argv[2] : "";
    tally t;
    if (mode == "getline-nosync" && argc > 3) {
        std::ios::sync_with_stdio(false);
        std::ifstream f(argv[3], std::ios::binary);
        t = by_getline(f);
    } else if (mode == "cin") {
        t = by_getline(std::cin);
    } else if (mode == "cin-nosync") {
        std::ios::sync_with_stdio(false);
        t = by_getline(std::cin);
    } else if (mode == "stdin") {
        t = consume(fastread::lines(stdin));
    } else {
        std::fprintf(stderr, "fastread-bench: unknown internal mode\n");
        return 2;
    }
    std::printf("%llu %llu\n", static_cast<unsigned long long>(t.lines),
                static_cast<unsigned long long>(t.bytes));
    return 0;
}

namespace {

void register_lines_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv).
    ctx.set_estimate_scale("lines", 0.84, 0.16);
    ctx.add_family("lines", "reading every line",
                   {"std::getline ifstream",
                    "std::getline ifstream, sync_with_stdio(false)",
                    "std::getline std::cin (pipe)",
                    "std::getline std::cin (pipe), sync_with_stdio(false)",
                    "fgets",
                    "getline(3)",
                    "istream_line_reader",
                    "file_line_reader",
                    "mmap_line_reader",
                    "fastread::lines(path)",
                    "fastread::try_lines(path)",
                    "fastread::lines(path) scalar",
                    "fastread::lines(path) sse2",
                    "fastread::lines(path) avx2",
                    "fastread::lines(path) avx512",
                    "memchr per line over mmap_source",
                    "fastread::lines mmap_source",
                    "fastread::lines read_source",
                    "fastread::lines fread_source",
                    "fastread::lines stdio_source",
                    "fastread::lines istream_source",
                    "fastread::lines(stdin) (pipe)",
                    "wc -l (process)",
                    "fastread-wc -w C.UTF-8 (process)",
                    "wc -w C.UTF-8 (process)",
                    "fastread-wc -w C (process)",
                    "wc -w C (process)"},
                   unit::cycles_per_byte_and_rate);
    ctx.mark_default("lines", "fastread::lines(path)",
                     {"fastread::lines read_source", "fastread::lines mmap_source"});
    ctx.mark_rows("lines", row_kind::baseline,
                  {"std::getline ifstream", "std::getline ifstream, sync_with_stdio(false)",
                   "std::getline std::cin (pipe)",
                   "std::getline std::cin (pipe), sync_with_stdio(false)", "fgets", "getline(3)",
                   "istream_line_reader", "file_line_reader", "mmap_line_reader",
                   "memchr per line over mmap_source"});
    ctx.mark_rows("lines", row_kind::peer,
                  {"wc -l (process)", "wc -w C.UTF-8 (process)", "wc -w C (process)"});
    const options& o = ctx.opts();
    const std::uint64_t size = o.quick ? std::uint64_t{16} << 20 : std::uint64_t{256} << 20;
    const std::string label = o.quick ? "16 MB" : "256 MB";
    std::vector<input> inputs;
    for (bool crlf : {false, true}) {
        input in;
        in.column = std::string(crlf ? "CRLF " : "LF ") + label;
        in.group = "generated text";
        in.path = o.data_dir /
                  ("text-v1-" + label.substr(0, label.find(' ')) + (crlf ? "-crlf" : "") + ".txt");
        if (!std::filesystem::exists(in.path)) {
            std::cerr << "fastread-bench: generating " << in.path.string() << std::endl;
            generate_text(in.path, size, crlf);
        }
        inputs.push_back(in);
    }
    {
        // Real text: short lines (C headers, ~40 bytes each), 200 MB (--quick 16 MB).
        const std::uint64_t header_size =
            o.quick ? std::uint64_t{16} << 20 : std::uint64_t{200} << 20;
        input in;
        in.column = o.quick ? "C headers 16 MB" : "C headers 200 MB";
        in.group = "real text";
        in.path = o.data_dir / (o.quick ? "c-headers-16MB.txt" : "c-headers-200MB.txt");
        if (std::filesystem::exists(in.path) ||
            (std::cerr << "fastread-bench: generating " << in.path.string() << std::endl,
             generate_header_text(in.path, header_size))) {
            inputs.push_back(in);
        }
    }
    if (auto it = o.files.find("lines"); it != o.files.end()) {
        for (const auto& p : it->second) {
            input in;
            in.column = p.filename().string();
            in.group = "your files";
            in.path = p;
            inputs.push_back(in);
        }
    }
    for (input& in : inputs) {
        std::error_code ec;
        in.bytes = std::filesystem::file_size(in.path, ec);
        if (ec || in.bytes == 0) {
            std::cerr << "fastread-bench: skipping " << in.path.string() << "\n";
            continue;
        }
        add_rows(ctx, in);
    }
}

} // namespace

const family_registration lines_family{{
    "lines",
    1,
    "  lines   read every line of a text file: std::getline (ifstream, std::cin from a pipe,\n"
    "          with and without sync_with_stdio(false)), fgets, getline(3), the article's\n"
    "          istream/file/mmap line readers, fastread::lines over each source and from a\n"
    "          pipe, try_lines (the same without exceptions), and wc -l as a process.\n"
    "          Columns: a generated 256 MB text (mixed log and prose lines, ~60 bytes each),\n"
    "          its CRLF copy, and real text: the C headers under /usr/include concatenated\n"
    "          to 200 MB (~40 bytes a line); --quick 16 MB.\n"
    "          Rows marked (pipe) or (process) are whole child processes.\n",
    "--lines",
    "also benchmark these text files (one column each)",
    {},
    &register_lines_family,
}};

} // namespace fastread_bench
