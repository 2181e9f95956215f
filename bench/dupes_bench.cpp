// The dupes family: fastread-dupes (without and with its hash cache, first run and re-run)
// against fdupes, jdupes, rdfind, rmlint and duff as whole processes on a generated tree and
// on /usr/share, and whether each finds fdupes' groups.

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>
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

// Groups as sets of files by (device, inode): finders that report one of several hard
// links to a file may pick different names for it.
using identity_groups = std::set<std::set<std::pair<std::uint64_t, std::uint64_t>>>;

identity_groups identities(const group_set& groups) {
    identity_groups out;
    for (const auto& g : groups) {
        std::set<std::pair<std::uint64_t, std::uint64_t>> ids;
        for (const std::string& path : g) {
            struct stat st {};
            if (::stat(path.c_str(), &st) == 0) {
                ids.emplace(st.st_dev, st.st_ino);
            }
        }
        out.insert(std::move(ids));
    }
    return out;
}

// Groups from duff's output with `-f '#'`: a line "#" before each cluster.
group_set parse_duff(const std::string& out) {
    std::string blank_separated;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        blank_separated += (line == "#" ? std::string() : line) + "\n";
    }
    return parse_groups(blank_separated);
}

// Groups from rdfind's results file: "DUPTYPE_... id depth size device inode priority
// name", one group per |id|.
group_set parse_rdfind(const fs::path& results) {
    std::ifstream in(results);
    std::map<long long, std::vector<std::string>> by_id;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream fields(line);
        std::string type, depth, size, device, inode, priority;
        long long id = 0;
        fields >> type >> id >> depth >> size >> device >> inode >> priority;
        std::string name;
        std::getline(fields >> std::ws, name);
        by_id[id < 0 ? -id : id].push_back(name);
    }
    group_set groups;
    for (auto& [id, g] : by_id) {
        if (g.size() >= 2) {
            std::sort(g.begin(), g.end());
            groups.insert(g);
        }
    }
    return groups;
}

// "yes: G groups, F files" when `theirs` are fdupes' groups, else what differs.
std::string agreement(const group_set& ours, const group_set& fdupes) {
    const identity_groups a = identities(ours), b = identities(fdupes);
    if (a == b) {
        std::size_t files = 0;
        for (const auto& g : a) {
            files += g.size();
        }
        return "yes: " + std::to_string(a.size()) + " groups, " + std::to_string(files) + " files";
    }
    std::size_t only_ours = 0, only_theirs = 0;
    for (const auto& g : a) {
        only_ours += b.count(g) == 0;
    }
    for (const auto& g : b) {
        only_theirs += a.count(g) == 0;
    }
    return "NO: " + std::to_string(only_ours) + " groups only its, " + std::to_string(only_theirs) +
           " only fdupes'";
}

// The peak resident memory of `argv` run once (output and errors discarded), in bytes, as
// GNU time reports it (`%M`), or 0 if it could not be measured. Not from our own wait4: a
// child spawned from this process keeps the bench's own peak through exec.
std::uint64_t peak_memory(const std::vector<std::string>& argv, const fs::path& report) {
    if (!fs::exists("/usr/bin/time")) {
        return 0;
    }
    std::vector<std::string> timed{"/usr/bin/time", "-f", "%M", "-o", report.string()};
    timed.insert(timed.end(), argv.begin(), argv.end());
    try {
        (void)run_process(timed, {1});
    } catch (const std::exception&) {
        return 0;
    }
    std::ifstream in(report);
    std::uint64_t kib = 0;
    return in >> kib ? kib * 1024 : 0;
}

// Where the cache rows keep their hash cache: one file per tree, under the data directory.
fs::path cache_file(const options& o, const std::string& column) {
    std::string name;
    for (const char c : column) {
        name += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '-';
    }
    return o.data_dir / ("dupes-cache-" + name);
}

void add_dupes_rows(context& ctx, const input& in, const fs::path& root) {
    const std::string family = "dupes";
    ctx.add_column(family, in);
    const std::string dir = root.string();
    const std::string fdupes = tool("fdupes");
    const std::string cache = cache_file(ctx.opts(), in.column).string();
    const fs::path rdfind_results = cache_file(ctx.opts(), in.column + "-rdfind-results");
    const fs::path time_report = cache_file(ctx.opts(), in.column + "-peak-memory");
    // Each finder with the options that give fdupes' groups where it has them: empty files
    // are duplicates, hard links to one file count once, hidden files are looked at.
    struct peer {
        std::string row, program;
        std::vector<std::string> argv;
        std::function<group_set()> groups = {}; // its groups, from one more run
        std::function<void()> before = {};      // before each timed run
    };
    const std::vector<std::string> ours{FASTREAD_DUPES, "-r", "-q", dir};
    std::vector<std::string> cached = ours;
    cached.insert(cached.begin() + 1, "--cache=" + cache);
    const std::vector<peer> peers{
        {"fastread-dupes -r", FASTREAD_DUPES, ours,
         [ours] { return parse_groups(run_process(ours, {1})); }},
        {"fastread-dupes -r --cache, first run", FASTREAD_DUPES, cached,
         [cached] { return parse_groups(run_process(cached, {1})); },
         [cache] { fs::remove(cache); }},
        {"fastread-dupes -r --cache, re-run", FASTREAD_DUPES, cached,
         [cached] { return parse_groups(run_process(cached, {1})); }},
        {"fdupes -r", fdupes, {"fdupes", "-r", "-q", dir}, {}},
        {"jdupes -r -z",
         tool("jdupes"),
         {"jdupes", "-r", "-q", "-z", dir},
         [dir] {
             return parse_groups(run_process({"jdupes", "-r", "-q", "-z", dir}, {1}));
         }},
        {"rdfind -minsize 0",
         tool("rdfind"),
         {"rdfind", "-minsize", "0", "-dryrun", "true", "-outputname", "/dev/null", dir},
         [dir, rdfind_results] {
             run_process({"rdfind", "-minsize", "0", "-dryrun", "true", "-outputname",
                          rdfind_results.string(), dir},
                         {1});
             return parse_rdfind(rdfind_results);
         }},
        {"rmlint -T df,ef --hidden -L",
         tool("rmlint"),
         {"rmlint", "-T", "df,ef", "--hidden", "-L", "-o", "fdupes:stdout", dir},
         [dir] {
             return parse_groups(run_process(
                 {"rmlint", "-T", "df,ef", "--hidden", "-L", "-o", "fdupes:stdout", dir}, {1}));
         }},
        {"duff -r -a -p",
         tool("duff"),
         {"duff", "-r", "-a", "-p", "-f", "#", dir},
         [dir] {
             return parse_duff(run_process({"duff", "-r", "-a", "-p", "-f", "#", dir}, {1}));
         }},
    };
    for (const peer& p : peers) {
        const std::string verdict_row = "same groups as fdupes: " + p.row;
        if (p.program.empty()) {
            ctx.note(family, p.row, in.column, "not installed");
            if (p.groups) {
                ctx.note(family, verdict_row, in.column, "not installed");
            }
            ctx.note(family, "peak memory: " + p.row, in.column, "not installed");
            continue;
        }
        // Each finder is started directly (no shell), standard error discarded. Status 1:
        // some files could not be read (fastread-dupes; reported on stderr).
        // Once per cache mode, untimed: its groups against fdupes' (where they can be read)
        // and its peak memory (the median of 3 runs of its own, each after `before`, so that
        // the first-run row starts without a cache and the re-run row with one).
        const std::string memory_row = "peak memory: " + p.row;
        const std::uint64_t paths = in.also.size() + 1;
        std::function<std::string()> check = [&ctx, family, column = in.column, verdict_row,
                                              memory_row, paths, command = p.argv, fdupes, dir,
                                              time_report, groups = p.groups, before = p.before] {
            if (groups) {
                if (before) {
                    before();
                }
                const group_set theirs = groups();
                ctx.note(family, verdict_row, column,
                         fdupes.empty()
                             ? std::string("fdupes not installed")
                             : agreement(theirs, parse_groups(run_process(
                                                     {"fdupes", "-r", "-q", dir}, {1}))));
            }
            // The median of 3 runs: a process's peak varies from run to run with which
            // thread allocated what (one run of fastread-dupes on /usr/share: 20.5 to 28.4 MiB).
            std::array<std::uint64_t, 3> peaks{};
            for (std::uint64_t& one : peaks) {
                if (before) {
                    before();
                }
                one = peak_memory(command, time_report);
            }
            std::sort(peaks.begin(), peaks.end());
            const std::uint64_t peak = peaks[0] == 0 ? 0 : peaks[1];
            char cell[96] = "not measured";
            if (peak != 0) {
                std::snprintf(cell, sizeof cell, "%.1f MiB, %llu bytes per file",
                              static_cast<double>(peak) / (1 << 20),
                              static_cast<unsigned long long>(peak / paths));
            }
            ctx.note(family, memory_row, column, cell);
            return std::string();
        };
        ctx.add(
            family, p.row, in,
            [command = p.argv, before = p.before] {
                if (before) {
                    before();
                }
                benchmark::DoNotOptimize(run_process(command, {1}));
            },
            check);
    }
}

// The actions, each on a fresh copy of the tree (made and written back untimed before every
// run, so its pages are cached: these rows are cached only): --link against jdupes -L and rdfind
// -makehardlinks, and --dedupe against jdupes -B on a copy-on-write file system (the
// directory FASTREAD_REFLINK_DIR names: scripts/test mounts an XFS image there as root).
// Each row is checked once: afterwards fastread-dupes -r finds no group left (linked files
// are one file), or (dedupe) the same groups as in the original tree.
void add_action_rows(context& ctx, const input& in, const fs::path& root) {
    const std::string family = "dupes";
    input copy_in = in;
    copy_in.cached_only = true;
    const char* cow = std::getenv("FASTREAD_REFLINK_DIR");
    const fs::path link_copy = ctx.opts().data_dir / "dupes-action-copy";
    const fs::path cow_copy =
        cow != nullptr && cow[0] != '\0' ? fs::path(cow) / "fastread-bench-copy" : fs::path();
    struct action_row {
        std::string row, program;
        std::vector<std::string> argv; // the copy's path appended
        bool dedupe;
    };
    const std::string jdupes = tool("jdupes");
    const bool jdupes_dedupes =
        !jdupes.empty() && run_shell("jdupes -v 2>&1 | grep -c fsdedup || true") != "0\n";
    const std::vector<action_row> rows{
        {"fastread-dupes -r --link", FASTREAD_DUPES, {FASTREAD_DUPES, "-r", "-q", "--link"}, false},
        {"jdupes -r -z -L", jdupes, {"jdupes", "-r", "-q", "-z", "-L"}, false},
        {"rdfind -minsize 0 -makehardlinks true",
         tool("rdfind"),
         {"rdfind", "-minsize", "0", "-makehardlinks", "true", "-outputname", "/dev/null"},
         false},
        {"fastread-dupes -r --dedupe",
         FASTREAD_DUPES,
         {FASTREAD_DUPES, "-r", "-q", "--dedupe"},
         true},
        {"jdupes -r -z -B",
         jdupes_dedupes ? jdupes : std::string(),
         {"jdupes", "-r", "-q", "-z", "-B"},
         true},
    };
    const std::string tree = root.string();
    for (const action_row& r : rows) {
        if (r.program.empty()) {
            ctx.note(family, r.row, in.column, "not installed (or built without dedupe)");
            continue;
        }
        if (r.dedupe && cow_copy.empty()) {
            ctx.note(family, r.row, in.column,
                     "no copy-on-write file system (FASTREAD_REFLINK_DIR not set)");
            continue;
        }
        const fs::path copy = r.dedupe ? cow_copy : link_copy;
        std::vector<std::string> argv = r.argv;
        argv.push_back(copy.string());
        auto fresh = [copy, tree] {
            fs::remove_all(copy);
            run_process({"cp", "-a", "--reflink=never", tree, copy.string()});
            // Written back before the timed run: the action, not the copy's writeback
            // (which FIDEDUPERANGE would otherwise wait for), is timed.
            run_process({"sync", "-f", copy.string()});
        };
        auto check = [fresh, argv, copy, tree, dedupe = r.dedupe]() -> std::string {
            fresh();
            const std::string before =
                run_process({FASTREAD_DUPES, "-r", "-q", "-m", copy.string()}, {1});
            run_process(argv, {1});
            const std::string after =
                run_process({FASTREAD_DUPES, "-r", "-q", "-m", copy.string()}, {1});
            if (dedupe ? after != before : !after.empty()) {
                return "left: " + after;
            }
            return std::string();
        };
        ctx.add(
            family, r.row, copy_in, [argv] { benchmark::DoNotOptimize(run_process(argv, {1})); },
            check, fresh);
    }
}

void register_dupes_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv): rmlint over /usr/share
    // takes 15 s a run.
    ctx.set_estimate_scale("dupes", 1.79, 0.94);
    ctx.add_family("dupes",
                   "finding duplicate files, whole processes (time per run; cold: every "
                   "file's pages evicted, directory metadata still cached)",
                   {"fastread-dupes -r",
                    "fastread-dupes -r --cache, first run",
                    "fastread-dupes -r --cache, re-run",
                    "fdupes -r",
                    "jdupes -r -z",
                    "rdfind -minsize 0",
                    "rmlint -T df,ef --hidden -L",
                    "duff -r -a -p",
                    "fastread-dupes -r --link",
                    "jdupes -r -z -L",
                    "rdfind -minsize 0 -makehardlinks true",
                    "fastread-dupes -r --dedupe",
                    "jdupes -r -z -B",
                    "same groups as fdupes: fastread-dupes -r",
                    "same groups as fdupes: fastread-dupes -r --cache, first run",
                    "same groups as fdupes: fastread-dupes -r --cache, re-run",
                    "same groups as fdupes: jdupes -r -z",
                    "same groups as fdupes: rdfind -minsize 0",
                    "same groups as fdupes: rmlint -T df,ef --hidden -L",
                    "same groups as fdupes: duff -r -a -p",
                    "peak memory: fastread-dupes -r",
                    "peak memory: fastread-dupes -r --cache, first run",
                    "peak memory: fastread-dupes -r --cache, re-run",
                    "peak memory: fdupes -r",
                    "peak memory: jdupes -r -z",
                    "peak memory: rdfind -minsize 0",
                    "peak memory: rmlint -T df,ef --hidden -L",
                    "peak memory: duff -r -a -p"},
                   unit::seconds_per_run);
    ctx.add_task("dupes",
                 {"finding",
                  "fastread-dupes -r",
                  {"fastread-dupes -r --cache, first run", "fastread-dupes -r --cache, re-run"},
                  {"fastread-dupes -r", "fastread-dupes -r --cache, first run",
                   "fastread-dupes -r --cache, re-run", "fdupes -r", "jdupes -r -z",
                   "rdfind -minsize 0", "rmlint -T df,ef --hidden -L", "duff -r -a -p"}});
    ctx.add_task("dupes", {"hard-linking",
                           "fastread-dupes -r --link",
                           {},
                           {"fastread-dupes -r --link", "jdupes -r -z -L",
                            "rdfind -minsize 0 -makehardlinks true"}});
    ctx.add_task("dupes", {"deduping",
                           "fastread-dupes -r --dedupe",
                           {},
                           {"fastread-dupes -r --dedupe", "jdupes -r -z -B"}});
    // A re-run over a warm hash cache reads no file: less than the job, never "fastest".
    ctx.mark_rows("dupes", row_kind::floor, {"fastread-dupes -r --cache, re-run"});
    ctx.mark_rows("dupes", row_kind::peer,
                  {"fdupes -r", "jdupes -r -z", "rdfind -minsize 0", "rmlint -T df,ef --hidden -L",
                   "duff -r -a -p", "jdupes -r -z -L", "rdfind -minsize 0 -makehardlinks true",
                   "jdupes -r -z -B"});
    const options& o = ctx.opts();
    std::vector<std::pair<std::string, fs::path>> trees;
    const int files = o.quick ? 500 : 4000;
    const fs::path tree = o.data_dir / ("tree-v1-" + std::to_string(files));
    if (!fs::exists(tree)) {
        std::cerr << "fastread-bench: generating " << tree.string() << std::endl;
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
        if (root == tree) {
            add_action_rows(ctx, in, root);
        } else {
            for (const char* row : {"fastread-dupes -r --link", "jdupes -r -z -L",
                                    "rdfind -minsize 0 -makehardlinks true",
                                    "fastread-dupes -r --dedupe", "jdupes -r -z -B"}) {
                ctx.note("dupes", row, column, "n/a (the generated tree only)");
            }
        }
    }
}

} // namespace

const family_registration dupes_family{{
    "dupes",
    3,
    "  dupes   fastread-dupes -r (also with --cache: first run, re-run) against fdupes,\n"
    "          jdupes, rdfind, rmlint and duff (those installed) as whole processes, in\n"
    "          seconds per run, on a generated tree (4000 files; --quick 500) and on\n"
    "          /usr/share (not with --quick); rows say whether each found fdupes' groups.\n"
    "          Actions on a fresh copy of the generated tree (cached): --link against\n"
    "          jdupes -L and rdfind -makehardlinks; --dedupe against jdupes -B on the\n"
    "          copy-on-write file system FASTREAD_REFLINK_DIR names.\n",
    "--dupes",
    "also run the duplicate finders on these trees (one column each)",
    {},
    &register_dupes_family,
    "DIR...",
}};

} // namespace fastread_bench
