// The random family: the random-records article's (docs/articles.md) experiment. A file of int32
// records (default 256 MiB, --full 1 GiB, --random-size MB; the article's was 4 GiB) and 100,000
// random record indices; reads, and read-increment-write updates, with the article's fseek programs
// over its grid of dials, then fastread::read_at / update_at with each method. A second column (256
// MiB, 100,000 indices) is dense: most pages hold a record (in the default run the first column is
// that one, and the second is left out). A sweep over 1,000 to 1,000,000 indices shows where the
// plan changes.

#include <fastread/detail/rw.hpp>
#include <fastread/records.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "baselines/fseek_records.hpp"
#include "families.hpp"

namespace fastread_bench {
namespace {

namespace fs = std::filesystem;
namespace baseline = fastread::records::baseline;
using fastread::access_method;
using fastread::record_options;

// The value stored at record i: never zero, as in the article.
std::int32_t stored(std::uint64_t i) {
    return static_cast<std::int32_t>((i * 2654435761u) % 2147483647u) + 1;
}

void generate_records(const fs::path& path, std::uint64_t bytes) {
    const fs::path tmp = path.string() + ".partial";
    std::ofstream out(tmp, std::ios::binary);
    std::vector<std::int32_t> block(std::size_t{1} << 18);
    for (std::uint64_t first = 0; first < bytes / 4; first += block.size()) {
        const std::size_t n =
            static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), bytes / 4 - first));
        for (std::size_t k = 0; k < n; ++k) {
            block[k] = stored(first + k);
        }
        out.write(reinterpret_cast<const char*>(block.data()),
                  static_cast<std::streamsize>(n * sizeof(std::int32_t)));
    }
    out.close();
    if (!out) {
        throw std::runtime_error("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
}

std::int32_t plus_one(std::int32_t v) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v) + 1u);
}

// The records at `indices`, read one pread at a time: the reference the rows are checked
// against (independent of the code under test).
std::vector<std::int32_t> reference(const fs::path& path,
                                    const std::vector<std::uint64_t>& indices) {
    fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    std::vector<std::int32_t> out(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        fastread::detail::pread_full(fd.get(), reinterpret_cast<char*>(&out[i]), 4, indices[i] * 4,
                                     path);
    }
    return out;
}

struct batch {
    fs::path path;
    std::vector<std::uint64_t> indices;
};

std::string read_check(const batch& b, const std::function<void(std::span<std::int32_t>)>& run) {
    std::vector<std::int32_t> got(b.indices.size());
    run(got);
    const std::vector<std::int32_t> want = reference(b.path, b.indices);
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (got[i] != want[i]) {
            return "wrong result: record " + std::to_string(b.indices[i]) + " read as " +
                   std::to_string(got[i]) + ", expected " + std::to_string(want[i]);
        }
    }
    return {};
}

// Runs an update of +1 at every index and checks that each record grew by the number of
// times its index appears.
std::string update_check(const batch& b, const std::function<void()>& run) {
    const std::vector<std::int32_t> before = reference(b.path, b.indices);
    run();
    const std::vector<std::int32_t> after = reference(b.path, b.indices);
    std::map<std::uint64_t, std::uint32_t> times;
    for (std::uint64_t i : b.indices) {
        ++times[i];
    }
    for (std::size_t i = 0; i < before.size(); ++i) {
        const auto want =
            static_cast<std::int32_t>(static_cast<std::uint32_t>(before[i]) + times[b.indices[i]]);
        if (after[i] != want) {
            return "wrong result: record " + std::to_string(b.indices[i]) + " is " +
                   std::to_string(after[i]) + " after the update, expected " + std::to_string(want);
        }
    }
    return {};
}

struct fseek_row {
    std::string name;
    baseline::fseek_options options;
};

const char* whence_name(baseline::whence w) {
    return w == baseline::whence::set   ? "SEEK_SET"
           : w == baseline::whence::cur ? "SEEK_CUR"
                                        : "SEEK_SET+CUR";
}

// The article's reading grid: sorted x buffered x whence x mode.
std::vector<fseek_row> fseek_read_rows() {
    std::vector<fseek_row> rows;
    for (bool sorted : {false, true}) {
        for (bool buffered : {true, false}) {
            for (baseline::whence w : {baseline::whence::set, baseline::whence::cur}) {
                for (bool rw : {false, true}) {
                    rows.push_back({std::string("fseek read, ") + (sorted ? "sorted" : "unsorted") +
                                        (buffered ? ", buffered, " : ", unbuffered, ") +
                                        whence_name(w) + (rw ? ", rb+" : ", rb"),
                                    {sorted, buffered, w, rw}});
                }
            }
        }
    }
    return rows;
}

// The article's updating grid: sorted x whence (both: SEEK_SET to read, SEEK_CUR back) x
// buffered; mode rb+.
std::vector<fseek_row> fseek_update_rows() {
    std::vector<fseek_row> rows;
    for (bool sorted : {false, true}) {
        for (baseline::whence w :
             {baseline::whence::set, baseline::whence::cur, baseline::whence::set_then_cur}) {
            for (bool buffered : {true, false}) {
                rows.push_back({std::string("fseek update, ") + (sorted ? "sorted" : "unsorted") +
                                    ", " + whence_name(w) +
                                    (buffered ? ", buffered" : ", unbuffered"),
                                {sorted, buffered, w, true}});
            }
        }
    }
    return rows;
}

struct method_row {
    std::string name;
    access_method method;
    bool sort;
};

// fastread's rows: `verb` is "read_at" or "update_at".
std::vector<method_row> method_rows(const std::string& verb) {
    return {{verb + " pread, unsorted", access_method::pread, false},
            {verb + " pread, sorted", access_method::pread, true},
            {verb + " mmap", access_method::mmap, true},
            {verb + " io_uring", access_method::io_uring, true},
            {verb + " automatic", access_method::automatic, true}};
}

const std::vector<method_row>& read_method_rows() {
    static const std::vector<method_row> rows = method_rows("read_at");
    return rows;
}

const std::vector<method_row>& update_method_rows() {
    static const std::vector<method_row> rows = method_rows("update_at");
    return rows;
}

std::vector<std::string> all_rows() {
    std::vector<std::string> rows;
    for (const fseek_row& r : fseek_read_rows()) {
        rows.push_back(r.name);
    }
    for (const method_row& r : read_method_rows()) {
        rows.push_back(r.name);
    }
    for (const fseek_row& r : fseek_update_rows()) {
        rows.push_back(r.name);
    }
    for (const method_row& r : update_method_rows()) {
        rows.push_back(r.name);
    }
    return rows;
}

// The sweep columns run only these of fastread's rows.
bool in_sweep(const method_row& r) {
    return r.method == access_method::automatic || (r.method == access_method::pread && r.sort);
}

// Registers a reading row: `run` fills a span of records; checked against pread first.
void add_read_row(context& ctx, const input& in, const std::shared_ptr<batch>& b,
                  const std::string& row, std::function<void(std::span<std::int32_t>)> run) {
    auto out = std::make_shared<std::vector<std::int32_t>>(b->indices.size());
    ctx.add(
        "random", row, in,
        [run, out] {
            run(*out);
            benchmark::DoNotOptimize(out->data());
        },
        [b, run] { return read_check(*b, run); });
}

// fastread's rows for this column (all of them, or the sweep's), with their options;
// io_uring is noted instead where it is not available.
std::vector<std::pair<std::string, record_options>>
method_options(context& ctx, const input& in, const std::vector<method_row>& rows, bool grid) {
    std::vector<std::pair<std::string, record_options>> out;
    for (const method_row& r : rows) {
        if (!grid && !in_sweep(r)) {
            continue;
        }
        if (r.method == access_method::io_uring && !fastread::detail::uring_usable()) {
            ctx.note("random", r.name, in.column, "io_uring not available");
            continue;
        }
        record_options o;
        o.method = r.method;
        o.sort = r.sort;
        out.emplace_back(r.name, o);
    }
    return out;
}

void add_read_rows(context& ctx, const input& in, const std::shared_ptr<batch>& b, bool grid) {
    if (grid) {
        for (const fseek_row& r : fseek_read_rows()) {
            add_read_row(ctx, in, b, r.name, [b, o = r.options](std::span<std::int32_t> out) {
                baseline::fseek_read<std::int32_t>(b->path, b->indices, out, o);
            });
        }
    }
    for (const auto& [row, o] : method_options(ctx, in, read_method_rows(), grid)) {
        add_read_row(ctx, in, b, row, [b, o = o](std::span<std::int32_t> out) {
            fastread::read_at<std::int32_t>(b->path, b->indices, out, o);
        });
    }
}

void add_update_rows(context& ctx, const input& in, const std::shared_ptr<batch>& b, bool grid) {
    auto add = [&](const std::string& row, std::function<void()> run) {
        ctx.add("random", row, in, run, [b, run] { return update_check(*b, run); });
    };
    if (grid) {
        for (const fseek_row& r : fseek_update_rows()) {
            add(r.name, [b, o = r.options] {
                baseline::fseek_update<std::int32_t>(b->path, b->indices, plus_one, o);
            });
        }
    }
    for (const auto& [row, o] : method_options(ctx, in, update_method_rows(), grid)) {
        add(row,
            [b, o = o] { fastread::update_at<std::int32_t>(b->path, b->indices, plus_one, o); });
    }
}

std::vector<std::uint64_t> random_indices(std::uint64_t records, std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> out(n);
    for (auto& i : out) {
        i = rng() % records;
    }
    return out;
}

fs::path record_file(const options& o, std::uint64_t megabytes) {
    const fs::path path = o.data_dir / ("records-v1-" + std::to_string(megabytes) + "MiB.bin");
    const std::uint64_t bytes = megabytes << 20;
    std::error_code ec;
    if (fs::file_size(path, ec) != bytes) {
        std::cerr << "fastread-bench: generating " << path.string() << std::endl;
        generate_records(path, bytes);
    }
    return path;
}

void register_random_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv).
    ctx.set_estimate_scale("random", 0.66, 0.69);
    const std::string family = "random";
    ctx.add_family(family,
                   "records at random positions (time per batch, and per record; updates: "
                   "read, add 1, write back)",
                   all_rows(), unit::time_per_item);
    // Two jobs: reading the records, and updating them; each with its default row.
    std::vector<std::string> reading, updating, article;
    for (const fseek_row& r : fseek_read_rows()) {
        reading.push_back(r.name);
        article.push_back(r.name);
    }
    for (const method_row& r : read_method_rows()) {
        reading.push_back(r.name);
    }
    for (const fseek_row& r : fseek_update_rows()) {
        updating.push_back(r.name);
        article.push_back(r.name);
    }
    for (const method_row& r : update_method_rows()) {
        updating.push_back(r.name);
    }
    ctx.add_task(family, {"reading",
                          "read_at automatic",
                          {"read_at pread, sorted", "read_at mmap", "read_at io_uring"},
                          reading});
    ctx.add_task(family, {"updating",
                          "update_at automatic",
                          {"update_at pread, sorted", "update_at mmap", "update_at io_uring"},
                          updating});
    ctx.mark_rows(family, row_kind::baseline, article);
    const options& o = ctx.opts();
    const std::uint64_t big_mb = option_value(o, "--random-size",
                                              o.quick  ? 32
                                              : o.full ? 1024
                                                       : 256);
    const std::uint64_t dense_mb = o.quick ? 8 : 256;
    const std::size_t n = o.quick ? 10000 : 100000;
    auto column = [&](const std::string& name, const std::string& group, std::uint64_t mb,
                      std::size_t indices, unsigned seed, bool grid) {
        input in;
        in.column = name;
        in.group = group;
        in.path = record_file(o, mb);
        in.bytes = mb << 20;
        in.items = indices;
        // Cold iterations of the unsorted fseek rows take seconds each.
        in.cold_repetitions = grid ? 3 : 5;
        auto b =
            std::make_shared<batch>(batch{in.path, random_indices((mb << 20) / 4, indices, seed)});
        ctx.add_column(family, in);
        add_read_rows(ctx, in, b, grid);
        add_update_rows(ctx, in, b, grid);
    };
    column(std::to_string(big_mb) + " MiB file, " + with_commas(n) + " records",
           "the article's grid", big_mb, n, 1, true);
    if (dense_mb != big_mb) { // the default run's big file is the dense one's size
        column(std::to_string(dense_mb) + " MiB file, " + with_commas(n) + " records (dense)",
               "the article's grid", dense_mb, n, 2, true);
    }
    for (std::size_t k : o.quick ? std::vector<std::size_t>{1000, 10000}
                                 : std::vector<std::size_t>{1000, 10000, 100000, 1000000}) {
        column(with_commas(k) + " records",
               "index count sweep, " + std::to_string(big_mb) + " MiB file", big_mb, k, 3, false);
    }
}

} // namespace

const family_registration random_family{{
    "random",
    4,
    "  random  records at random positions: a generated file of int32 records (256 MiB;\n"
    "          --full 1 GiB; --random-size MB; --quick 32 MiB) and 100,000 random indices\n"
    "          (--quick 10,000),\n"
    "          read and updated (+1) with the article's fseek programs over its dials (sorted\n"
    "          or not, buffered or not, SEEK_SET / SEEK_CUR, rb / rb+) and with\n"
    "          fastread::read_at / update_at per method; a dense 256 MiB column (--full,\n"
    "          --quick); a sweep of\n"
    "          1,000 to 1,000,000 indices. Figures: time per batch and per record.\n",
    "",
    "",
    {{"--random-size", "MB", "size of the random family's record file (default 256, --full 1024)"}},
    &register_random_family,
}};

} // namespace fastread_bench
