// The dupes family: fastread-dupes against fdupes, jdupes and rdfind as whole processes on
// a generated tree and on /usr/share, and whether fastread-dupes finds fdupes' groups.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "families.hpp"

namespace fastread_bench {
namespace {

namespace fs = std::filesystem;

// ---- duplicate finders ---------------------------------------------------------------------

using group_set = std::set<std::vector<std::string>>;

// Groups from fdupes-style output: paths one per line, groups separated by blank lines.
group_set parse_groups(const std::string& out) {
    group_set groups;
    std::vector<std::string> group;
    auto close_group = [&] {
        if (!group.empty()) {
            std::sort(group.begin(), group.end());
            groups.insert(std::exchange(group, {}));
        }
    };
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) {
            close_group();
        } else {
            group.push_back(line);
        }
    }
    close_group();
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
            fill_random(bytes, rng);
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

void register_dupes_family(context& ctx) {
    ctx.add_family("dupes",
                   "finding duplicate files, whole processes (seconds per run; cold: every "
                   "file's pages evicted, directory metadata still cached)",
                   {"fastread-dupes -r", "fdupes -r", "jdupes -r", "rdfind -dryrun true",
                    "groups agree with fdupes"},
                   unit::seconds_per_run);
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

} // namespace

const family_registration dupes_family{{
    "dupes",
    3,
    "  dupes   fastread-dupes -r against fdupes -r, jdupes -r and rdfind (those installed) as\n"
    "          whole processes, in seconds per run, on a generated tree (4000 files; --quick\n"
    "          500) and on /usr/share (not with --quick); a row says whether fastread-dupes\n"
    "          found the same groups as fdupes.\n",
    "--dupes",
    "also run the duplicate finders on these trees (one column each)",
    {},
    &register_dupes_family,
    "DIR...",
}};

} // namespace fastread_bench
