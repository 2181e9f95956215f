// The compare family: the compare article's (docs/articles.md) programs (getc byte by byte, with
// and without reading each file first: bench/baselines/compare_methods.hpp; 4 KiB / 1 MiB /
// whole-file blocks, files_equal's `block` method), plus mmap and automatic (and the page-cache
// check automatic starts with), on two identical files.

#include <fastread/detail/rw.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/source/mmap_source.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "baselines/compare_methods.hpp"
#include "families.hpp"

namespace fastread_bench {
namespace {

namespace fs = std::filesystem;

// ---- files_equal ---------------------------------------------------------------------------

void generate_pair(const fs::path& a, const fs::path& b, std::uint64_t size) {
    std::mt19937_64 rng(20091123);
    std::string block(std::size_t{1} << 20, '\0');
    std::ofstream oa(a, std::ios::binary), ob(b, std::ios::binary);
    for (std::uint64_t done = 0; done < size; done += block.size()) {
        fill_random(block, rng);
        const auto n =
            static_cast<std::streamsize>(std::min<std::uint64_t>(block.size(), size - done));
        oa.write(block.data(), n);
        ob.write(block.data(), n);
    }
    if (!oa || !ob) {
        throw std::runtime_error("cannot write " + a.string());
    }
}

void add_compare_rows(context& ctx, const input& in) {
    const std::string family = "compare";
    ctx.add_column(family, in);
    const fs::path a = in.path, b = in.also.at(0);
    using fastread::compare_method;
    // Each row: how it compares (true when equal), timed and checked.
    auto row_of = [&](const std::string& row, std::function<bool()> compare) {
        ctx.add(
            family, row, in, [=] { benchmark::DoNotOptimize(compare()); },
            [=] { return compare() ? std::string() : std::string("wrong result: unequal"); });
    };
    auto method = [&](const std::string& row, fastread::compare_options o) {
        row_of(row, [=] { return fastread::files_equal(a, b, o); });
    };
    namespace baseline = fastread::compare_baseline;
    constexpr std::size_t kib4 = 4096, mib1 = std::size_t{1} << 20;
    row_of("simple-compare (getc)", [=] { return baseline::compare_getc(a, b, false); });
    row_of("compare-with-extra-read (getc)", [=] {
        // The article's "with extra read": each file once first.
        fastread::page_cache::preload(a);
        fastread::page_cache::preload(b);
        return baseline::compare_getc(a, b, false);
    });
    row_of("getc_unlocked", [=] { return baseline::compare_getc(a, b, true); });
    method("block 4 KiB", {compare_method::block, kib4});
    row_of("block 4 KiB, extra read",
           [=] { return baseline::compare_preload_then_block(a, b, kib4); });
    method("block 1 MiB", {compare_method::block, mib1});
    row_of("block 1 MiB, extra read",
           [=] { return baseline::compare_preload_then_block(a, b, mib1); });
    method("whole-file block", {compare_method::block, 0});
    method("mmap", {compare_method::mmap, 0});
    method("files_equal automatic", {compare_method::automatic, 0});
    // What automatic does before comparing: ask whether both files are in the page cache,
    // with each way of asking (mincore needs a map of each file; cachestat does not).
    auto residency = [&](const std::string& row, bool use_cachestat) {
        if (use_cachestat) {
            fastread::detail::unique_fd fd = fastread::detail::open_read_only(a);
            if (!fastread::detail::cached_pages(fd.get(), 1)) {
                ctx.note(family, row, in.column, "n/a (no cachestat on this kernel)");
                return;
            }
        }
        ctx.add(family, row, in, [=] {
            bool all = true;
            for (const fs::path& p : {a, b}) {
                fastread::detail::unique_fd fd = fastread::detail::open_read_only(p);
                if (use_cachestat) {
                    const std::uint64_t size = fastread::detail::stat_fd(fd.get(), p).size;
                    all &= fastread::detail::file_resident(fd.get(), size, 95);
                } else {
                    fastread::mmap_source map(fd.get());
                    const std::span<const char> bytes = map.bytes();
                    all &= fastread::detail::mapping_resident(bytes.data(), bytes.size(), 95);
                }
            }
            benchmark::DoNotOptimize(all);
        });
    };
    residency("residency check: mincore over maps", false);
    residency("residency check: cachestat", true);
    // The reference: read both files sequentially, one after the other, in 1 MiB reads.
    ctx.add(family, "RAW: read both files in turn (1 MiB reads)", in, [=] {
        std::vector<char> buf(mib1);
        std::uint64_t total = 0;
        for (const fs::path& p : {a, b}) {
            fastread::detail::unique_fd fd = fastread::detail::open_read_only(p);
            for (std::size_t n;
                 (n = fastread::detail::read_full(fd.get(), buf.data(), buf.size(), p)) != 0;) {
                total += n;
            }
        }
        benchmark::DoNotOptimize(total);
    });
}

void register_compare_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv): the getc rows take 9 s a
    // repetition.
    ctx.set_estimate_scale("compare", 3.14, 0.757);
    ctx.add_family("compare", "comparing two equal files (bytes of one file per second)",
                   {"simple-compare (getc)", "compare-with-extra-read (getc)", "getc_unlocked",
                    "block 4 KiB", "block 4 KiB, extra read", "block 1 MiB",
                    "block 1 MiB, extra read", "whole-file block", "mmap", "files_equal automatic",
                    "residency check: mincore over maps", "residency check: cachestat",
                    "RAW: read both files in turn (1 MiB reads)"},
                   unit::cycles_per_byte_and_rate);
    ctx.mark_default("compare", "files_equal automatic", {"block 1 MiB", "mmap"});
    ctx.mark_rows("compare", row_kind::baseline,
                  {"simple-compare (getc)", "compare-with-extra-read (getc)", "getc_unlocked",
                   "block 4 KiB", "block 4 KiB, extra read", "block 1 MiB",
                   "block 1 MiB, extra read", "whole-file block", "mmap"});
    // Less than the job: a check that the pages are cached, and reading without comparing.
    ctx.mark_rows("compare", row_kind::floor,
                  {"residency check: mincore over maps", "residency check: cachestat",
                   "RAW: read both files in turn (1 MiB reads)"});
    const options& o = ctx.opts();
    const std::uint64_t mb = option_value(o, "--compare-size", o.quick ? 16 : 256);
    input in;
    in.column = "equal pair, " + std::to_string(mb) + " MB each";
    in.group = "generated files";
    in.path = o.data_dir / ("compare-v1-" + std::to_string(mb) + "-a.bin");
    const fs::path b = o.data_dir / ("compare-v1-" + std::to_string(mb) + "-b.bin");
    in.also = {b};
    in.bytes = mb * 1000000;
    std::error_code ec;
    if (fs::file_size(in.path, ec) != in.bytes || fs::file_size(b, ec) != in.bytes) {
        std::cerr << "fastread-bench: generating " << in.path.string() << " and its copy"
                  << std::endl;
        generate_pair(in.path, b, in.bytes);
    }
    add_compare_rows(ctx, in);
}

} // namespace

const family_registration compare_family{{
    "compare",
    2,
    "  compare fastread::files_equal on two equal generated files (256 MB each; --quick 16 MB)\n"
    "          with each method: the article's getc byte by byte (with and without reading\n"
    "          each file first), 4 KiB and 1 MiB blocks (with and without), whole-file blocks,\n"
    "          getc_unlocked, mmap and automatic; RAW reads both files once for reference.\n",
    "",
    "",
    {{"--compare-size", "MB", "size of each file of the compare family (default 256)"}},
    &register_compare_family,
}};

} // namespace fastread_bench
