// The table family: the zero-copy article's (docs/articles.md) experiment. A million strings of 150
// ± 10 bytes persisted and loaded again: the article's naive reader (one allocation and one fread
// per string), its one-copy reader (one fread of all the bytes) and its zero-copy reader (mmap and
// an O(n) index), against string_table::view::open (validates every offset) and open_unchecked
// (O(1)); each also "+ visit every string" (the sum of the lengths), so that laziness is charged.
// Writes: the article's two writers and string_table's two.

#include <fastread/string_table.hpp>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "baselines/string_table_formats.hpp"
#include "families.hpp"

namespace fastread_bench {
namespace {

namespace fs = std::filesystem;
namespace st = fastread::string_table;

// 150 ± 10 bytes of printable text each, deterministic.
std::vector<std::string> make_strings(std::size_t n) {
    std::mt19937_64 rng(150);
    std::vector<std::string> out(n);
    for (std::string& s : out) {
        s.resize(140 + rng() % 21);
        for (char& c : s) {
            c = static_cast<char>(' ' + rng() % 95);
        }
    }
    return out;
}

template <class Strings>
std::uint64_t sum_of_lengths(const Strings& strings) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < strings.size(); ++i) {
        sum += strings[i].size();
    }
    return sum;
}

// "" when `got` holds exactly `want`, else what differs.
template <class Strings>
std::string same(const Strings& got, const std::vector<std::string>& want) {
    if (got.size() != want.size()) {
        return "wrong result: " + std::to_string(got.size()) + " strings, expected " +
               std::to_string(want.size());
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (got[i] != want[i]) {
            return "wrong result: string " + std::to_string(i) + " differs";
        }
    }
    return {};
}

// The readers' rows, each alone (then "+ visit every string" each).
const std::vector<std::string> read_rows{
    "naive read (malloc + fread per string)", "one-copy read (one fread, index)",
    "zero-copy read (mmap, O(n) index)", "string_table::view::open",
    "string_table::view::open_unchecked"};

// The inputs of the family: the strings and the three files the readers read.
struct table_inputs {
    std::size_t n = 0;
    std::shared_ptr<std::vector<std::string>> strings;
    std::shared_ptr<std::vector<std::string_view>> views;
    fs::path naive, flat, table;

    // A column of `group` ("reading", "writing") whose file is the table.
    input column(const std::string& group) const {
        input in;
        in.column = group + " " + with_commas(n) + " strings";
        in.group = group;
        in.path = table;
        in.bytes = fs::file_size(table);
        in.items = n;
        return in;
    }
};

// Makes the strings, and the files when they are not there yet.
table_inputs make_inputs(const options& o) {
    table_inputs t;
    t.n = o.quick ? 100000 : 1000000;
    t.strings = std::make_shared<std::vector<std::string>>(make_strings(t.n));
    t.views = std::make_shared<std::vector<std::string_view>>(t.strings->begin(), t.strings->end());
    const std::string tag = "v1-" + std::to_string(t.n);
    t.naive = o.data_dir / ("strings-naive-" + tag + ".bin");
    t.flat = o.data_dir / ("strings-flat-" + tag + ".bin");
    t.table = o.data_dir / ("strings-table-" + tag + ".fst");
    std::error_code ec;
    if (!fs::exists(t.naive, ec) || !fs::exists(t.flat, ec) || !fs::exists(t.table, ec)) {
        std::cerr << "fastread-bench: generating " << t.table.string() << " and the article's files"
                  << std::endl;
        st::baseline::naive_write(t.naive, *t.views);
        st::baseline::flat_write(t.flat, *t.views);
        st::write(t.table, *t.views);
    }
    return t;
}

// The article's three readers and string_table::view's two opens, alone and visiting.
void add_reading_rows(context& ctx, const table_inputs& t) {
    const std::string family = "table";
    const std::vector<std::string>& reads = read_rows;
    const fs::path naive = t.naive, flat = t.flat, table = t.table;
    const auto strings = t.strings;
    // Each reader and its own file.
    struct reader {
        std::string row;
        fs::path file;
        std::function<std::string(bool visit)> run; // returns "" or what is wrong
    };
    const std::vector<reader> readers{
        {reads[0], naive,
         [=](bool visit) {
             auto s = st::baseline::naive_read(naive);
             benchmark::DoNotOptimize(visit ? sum_of_lengths(s) : s.size());
             return std::string();
         }},
        {reads[1], flat,
         [=](bool visit) {
             auto s = st::baseline::one_copy_read(flat);
             benchmark::DoNotOptimize(visit ? sum_of_lengths(s) : s.size());
             return std::string();
         }},
        {reads[2], flat,
         [=](bool visit) {
             auto s = st::baseline::zero_copy_read(flat);
             benchmark::DoNotOptimize(visit ? sum_of_lengths(s) : s.size());
             return std::string();
         }},
        {reads[3], table,
         [=](bool visit) {
             st::view v = st::view::open(table);
             benchmark::DoNotOptimize(visit ? sum_of_lengths(v) : v.size());
             return std::string();
         }},
        {reads[4], table, [=](bool visit) {
             st::view v = st::view::open_unchecked(table);
             benchmark::DoNotOptimize(visit ? sum_of_lengths(v) : v.size());
             return std::string();
         }}};
    auto checks = std::vector<std::function<std::string()>>{
        [=] { return same(st::baseline::naive_read(naive), *strings); },
        [=] { return same(st::baseline::one_copy_read(flat), *strings); },
        [=] { return same(st::baseline::zero_copy_read(flat), *strings); },
        [=] { return same(st::view::open(table), *strings); },
        [=] { return same(st::view::open_unchecked(table), *strings); }};
    const input reading = t.column("reading");
    ctx.add_column(family, reading);
    for (std::size_t r = 0; r < readers.size(); ++r) {
        // The column's file is the table; each reader's own file is also warmed / evicted.
        input in = reading;
        in.also = {naive, flat};
        auto run = readers[r].run;
        ctx.add(
            family, readers[r].row, in, [run] { run(false); }, checks[r]);
        ctx.add(
            family, readers[r].row + " + visit every string", in, [run] { run(true); }, checks[r]);
    }
}

// The article's two writers against string_table::write and string_table::writer (cached
// only: evicting the output first means nothing).
void add_writing_rows(context& ctx, const table_inputs& t) {
    const std::string family = "table";
    const options& o = ctx.opts();
    const auto strings = t.strings;
    const auto views = t.views;
    input writing = t.column("writing");
    writing.cached_only = true;
    ctx.add_column(family, writing);
    const fs::path out_naive = o.data_dir / "strings-written-naive.bin";
    const fs::path out_flat = o.data_dir / "strings-written-flat.bin";
    const fs::path out_table = o.data_dir / "strings-written.fst";
    const fs::path out_writer = o.data_dir / "strings-written-by-writer.fst";
    ctx.add(
        family, "naive write", writing, [=] { st::baseline::naive_write(out_naive, *views); },
        [=] {
            st::baseline::naive_write(out_naive, *views);
            return same(st::baseline::naive_read(out_naive), *strings);
        });
    ctx.add(
        family, "flat write", writing, [=] { st::baseline::flat_write(out_flat, *views); },
        [=] {
            st::baseline::flat_write(out_flat, *views);
            return same(st::baseline::zero_copy_read(out_flat), *strings);
        });
    ctx.add(
        family, "string_table::write", writing, [=] { st::write(out_table, *views); },
        [=] {
            st::write(out_table, *views);
            return same(st::view::open(out_table), *strings);
        });
    auto by_writer = [=] {
        st::writer w(out_writer);
        for (std::string_view s : *views) {
            w.add(s);
        }
        w.finish();
    };
    ctx.add(family, "string_table::writer (one add per string)", writing, by_writer, [=] {
        by_writer();
        return same(st::view::open(out_writer), *strings);
    });
}

void register_table_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv).
    ctx.set_estimate_scale("table", 0.77, 0.12);
    std::vector<std::string> rows = read_rows;
    for (const std::string& r : read_rows) {
        rows.push_back(r + " + visit every string");
    }
    for (const char* w : {"naive write", "flat write", "string_table::write",
                          "string_table::writer (one add per string)"}) {
        rows.emplace_back(w);
    }
    ctx.add_family("table",
                   "a million strings of 150 ± 10 bytes, persisted and loaded (time per run, "
                   "and per string)",
                   rows, unit::time_per_item);
    // Three jobs: opening a table, opening it and visiting every string, and writing one.
    std::vector<std::string> visiting;
    for (const std::string& r : read_rows) {
        visiting.push_back(r + " + visit every string");
    }
    const std::vector<std::string> writing = {"naive write", "flat write", "string_table::write",
                                              "string_table::writer (one add per string)"};
    ctx.add_task("table", {"opening", "string_table::view::open", {}, read_rows});
    ctx.add_task("table", {"opening and visiting every string",
                           "string_table::view::open + visit every string",
                           {},
                           visiting});
    ctx.add_task("table", {"writing", "string_table::write", {}, writing});
    // Opening without the checks is less than the job (trusted files only): never "fastest".
    ctx.mark_rows("table", row_kind::floor,
                  {"string_table::view::open_unchecked",
                   "string_table::view::open_unchecked + visit every string"});
    ctx.mark_rows("table", row_kind::baseline,
                  {"naive read (malloc + fread per string)", "one-copy read (one fread, index)",
                   "zero-copy read (mmap, O(n) index)",
                   "naive read (malloc + fread per string) + visit every string",
                   "one-copy read (one fread, index) + visit every string",
                   "zero-copy read (mmap, O(n) index) + visit every string", "naive write",
                   "flat write"});
    const table_inputs t = make_inputs(ctx.opts());
    add_reading_rows(ctx, t);
    add_writing_rows(ctx, t);
}

} // namespace

const family_registration table_family{{
    "table",
    5,
    "  table   a million strings of 150 ± 10 bytes (--quick 100,000): the article's naive,\n"
    "          one-copy and zero-copy readers against fastread::string_table::view::open and\n"
    "          open_unchecked, each alone and with a visit of every string; the article's two\n"
    "          writers against string_table::write and string_table::writer (cached only).\n",
    "",
    "",
    {},
    &register_table_family,
}};

} // namespace fastread_bench
