// The compare family: the compare article's programs (getc byte by byte, with and without
// reading each file first, 4 KiB / 1 MiB / whole-file blocks) as fastread::files_equal
// methods, plus mmap and automatic (and the page-cache check automatic starts with), on two
// identical files; and the dupes family:
// fastread-dupes against fdupes, jdupes and rdfind as whole processes on a generated tree
// and on /usr/share.

#include <fastread/duplicates.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/source/mmap_source.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "families.hpp"

namespace fastread_bench {
namespace {

namespace fs = std::filesystem;

// Deterministic pseudo-random bytes.
void fill(std::string& s, std::mt19937_64& rng) {
    for (std::size_t i = 0; i < s.size(); i += 8) {
        const std::uint64_t v = rng();
        for (std::size_t k = 0; k < 8 && i + k < s.size(); ++k) {
            s[i + k] = static_cast<char>(v >> (8 * k));
        }
    }
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

// ---- files_equal ---------------------------------------------------------------------------

void generate_pair(const fs::path& a, const fs::path& b, std::uint64_t size) {
    std::mt19937_64 rng(20091123);
    std::string block(std::size_t{1} << 20, '\0');
    std::ofstream oa(a, std::ios::binary), ob(b, std::ios::binary);
    for (std::uint64_t done = 0; done < size; done += block.size()) {
        fill(block, rng);
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
    auto method = [&](const std::string& row, fastread::compare_options o, bool extra_read) {
        ctx.add(
            family, row, in,
            [=] {
                if (extra_read) { // the article's "with extra read": each file once first
                    fastread::page_cache::preload(a);
                    fastread::page_cache::preload(b);
                }
                benchmark::DoNotOptimize(fastread::files_equal(a, b, o));
            },
            [=] {
                return fastread::files_equal(a, b, o) ? std::string()
                                                      : std::string("wrong result: unequal");
            });
    };
    constexpr std::size_t kib4 = 4096, mib1 = std::size_t{1} << 20;
    method("simple-compare (getc)", {compare_method::getc, 0}, false);
    method("compare-with-extra-read (getc)", {compare_method::getc, 0}, true);
    method("getc_unlocked", {compare_method::getc_unlocked, 0}, false);
    method("block 4 KiB", {compare_method::block, kib4}, false);
    method("block 4 KiB, extra read", {compare_method::preload_then_block, kib4}, false);
    method("block 1 MiB", {compare_method::block, mib1}, false);
    method("block 1 MiB, extra read", {compare_method::preload_then_block, mib1}, false);
    method("whole-file block", {compare_method::block, 0}, false);
    method("mmap", {compare_method::mmap, 0}, false);
    method("files_equal automatic", {compare_method::automatic, 0}, false);
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

// ---- duplicate finders ---------------------------------------------------------------------

using group_set = std::set<std::vector<std::string>>;

// Groups from fdupes-style output: paths one per line, groups separated by blank lines.
group_set parse_groups(const std::string& out) {
    group_set groups;
    std::vector<std::string> g;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) {
            if (!g.empty()) {
                std::sort(g.begin(), g.end());
                groups.insert(g);
                g.clear();
            }
        } else {
            g.push_back(line);
        }
    }
    if (!g.empty()) {
        std::sort(g.begin(), g.end());
        groups.insert(g);
    }
    return groups;
}

// A tree of `files` files in 40 directories: mostly small files, some of up to 4 MiB; 15%
// are copies of an earlier file placed elsewhere, 5% copies with the last byte changed
// (near-duplicates), 1% empty.
void generate_tree(const fs::path& root, int files) {
    std::mt19937_64 rng(1987);
    const fs::path tmp = root.string() + ".partial";
    fs::remove_all(tmp);
    std::vector<fs::path> made;
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < files; ++i) {
        const fs::path dir = tmp / ("d" + std::to_string(i % 40)) / ("s" + std::to_string(i % 7));
        fs::create_directories(dir);
        const fs::path path = dir / ("f" + std::to_string(i) + ".bin");
        const double kind = unit(rng);
        std::string bytes;
        if (kind < 0.01) {
            // empty
        } else if (kind < 0.21 && !made.empty()) {
            std::ifstream src(made[rng() % made.size()], std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(src), {});
            if (kind >= 0.16 && !bytes.empty()) {
                bytes.back() = static_cast<char>(bytes.back() ^ 0x5a);
            }
        } else {
            const double r = unit(rng);
            const std::size_t size = r < 0.75   ? 100 + rng() % 16384
                                     : r < 0.99 ? 16384 + rng() % (256 * 1024)
                                                : (256 * 1024) + rng() % (4 << 20);
            bytes.assign(size, '\0');
            fill(bytes, rng);
        }
        write_bytes(path, bytes);
        made.push_back(path);
    }
    fs::rename(tmp, root);
}

std::vector<fs::path> regular_files(const fs::path& root, std::uint64_t& bytes) {
    std::vector<fs::path> out;
    bytes = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (it->is_regular_file(e2) && !it->is_symlink(e2) &&
            ::access(it->path().c_str(), R_OK) == 0) {
            out.push_back(it->path());
            bytes += it->file_size(e2);
        }
    }
    return out;
}

std::string tool(const char* name) {
    const std::string out = run_shell(std::string("command -v ") + name + " || true");
    return out.empty() ? std::string() : out.substr(0, out.find('\n'));
}

void add_dupes_rows(context& ctx, const input& in, const fs::path& root) {
    const std::string family = "dupes";
    ctx.add_column(family, in);
    const std::string dir = root.string();
    const std::string fdupes = tool("fdupes");
    struct peer {
        std::string row, program;
        std::vector<std::string> argv;
    };
    const std::vector<peer> peers{
        {"fastread-dupes -r", FASTREAD_DUPES, {FASTREAD_DUPES, "-r", "-q", dir}},
        {"fdupes -r", fdupes, {"fdupes", "-r", "-q", dir}},
        {"jdupes -r", tool("jdupes"), {"jdupes", "-r", "-q", dir}},
        {"rdfind -dryrun true",
         tool("rdfind"),
         {"rdfind", "-dryrun", "true", "-outputname", "/dev/null", dir}}};
    for (const peer& p : peers) {
        if (p.program.empty()) {
            ctx.note(family, p.row, in.column, "not installed");
            continue;
        }
        // Each tool is started directly (no shell), standard error discarded. Status 1:
        // some files could not be read (fastread-dupes; reported on stderr).
        const std::vector<std::string> command = p.argv;
        std::function<std::string()> check;
        if (p.row == "fastread-dupes -r") {
            check = [&ctx, family, column = in.column, command, fdupes, dir] {
                const group_set ours = parse_groups(run_process(command, {1}));
                if (fdupes.empty()) {
                    ctx.note(family, "groups agree with fdupes", column, "fdupes not installed");
                    return std::string();
                }
                const group_set theirs =
                    parse_groups(run_process({"fdupes", "-r", "-q", dir}, {1}));
                std::size_t files = 0;
                for (const auto& g : ours) {
                    files += g.size();
                }
                std::string verdict;
                if (ours == theirs) {
                    verdict = "yes: " + std::to_string(ours.size()) + " groups, " +
                              std::to_string(files) + " files";
                } else {
                    std::size_t only_ours = 0, only_theirs = 0;
                    for (const auto& g : ours) {
                        only_ours += theirs.count(g) == 0;
                    }
                    for (const auto& g : theirs) {
                        only_theirs += ours.count(g) == 0;
                    }
                    verdict = "NO: " + std::to_string(only_ours) + " groups only ours, " +
                              std::to_string(only_theirs) + " only fdupes'";
                }
                ctx.note(family, "groups agree with fdupes", column, verdict);
                return std::string();
            };
        }
        ctx.add(
            family, p.row, in, [command] { benchmark::DoNotOptimize(run_process(command, {1})); },
            check);
    }
}

} // namespace

void register_compare_family(context& ctx) {
    ctx.add_family("compare", "comparing two equal files (bytes of one file per second)",
                   {"simple-compare (getc)", "compare-with-extra-read (getc)", "getc_unlocked",
                    "block 4 KiB", "block 4 KiB, extra read", "block 1 MiB",
                    "block 1 MiB, extra read", "whole-file block", "mmap", "files_equal automatic",
                    "residency check: mincore over maps", "residency check: cachestat",
                    "RAW: read both files in turn (1 MiB reads)"},
                   true);
    const options& o = ctx.opts();
    const std::uint64_t mb = o.compare_megabytes != 0 ? o.compare_megabytes : o.quick ? 16 : 256;
    input in;
    in.column = "equal pair, " + std::to_string(mb) + " MB each";
    in.group = "generated files";
    in.path = o.data_dir / ("compare-v1-" + std::to_string(mb) + "-a.bin");
    const fs::path b = o.data_dir / ("compare-v1-" + std::to_string(mb) + "-b.bin");
    in.also = {b};
    in.bytes = mb * 1000000;
    std::error_code ec;
    if (fs::file_size(in.path, ec) != in.bytes || fs::file_size(b, ec) != in.bytes) {
        std::cout << "fastread-bench: generating " << in.path.string() << " and its copy"
                  << std::endl;
        generate_pair(in.path, b, in.bytes);
    }
    add_compare_rows(ctx, in);
}

void register_dupes_family(context& ctx) {
    ctx.add_family("dupes",
                   "finding duplicate files, whole processes (seconds per run; cold: every "
                   "file's pages evicted, directory metadata still cached)",
                   {"fastread-dupes -r", "fdupes -r", "jdupes -r", "rdfind -dryrun true",
                    "groups agree with fdupes"},
                   false, true);
    const options& o = ctx.opts();
    std::vector<std::pair<std::string, fs::path>> trees;
    const int files = o.quick ? 500 : 4000;
    const fs::path tree = o.data_dir / ("tree-v1-" + std::to_string(files));
    if (!fs::exists(tree)) {
        std::cout << "fastread-bench: generating " << tree.string() << std::endl;
        generate_tree(tree, files);
    }
    trees.emplace_back("generated tree, " + std::to_string(files) + " files", tree);
    if (!o.quick && fs::is_directory("/usr/share")) {
        trees.emplace_back("/usr/share", "/usr/share");
    }
    if (auto it = o.files.find("dupes"); it != o.files.end()) {
        for (const auto& p : it->second) {
            trees.emplace_back(p.string(), p);
        }
    }
    for (const auto& [column, root] : trees) {
        input in;
        in.column = column;
        in.group = "trees";
        std::vector<fs::path> all = regular_files(root, in.bytes);
        if (all.empty() || in.bytes == 0) {
            std::cerr << "fastread-bench: skipping " << root.string() << " (no readable files)\n";
            continue;
        }
        in.path = all.front();
        in.also.assign(all.begin() + 1, all.end());
        add_dupes_rows(ctx, in, root);
    }
}

} // namespace fastread_bench
