// fastread-dupes: find duplicate files, with FDUPES' flags and output, and act on them:
// hard-link, dedupe (share extents on a copy-on-write file system) or delete, each file
// checked again right before it is touched (fastread/duplicate_actions.hpp).
//
//   fastread-dupes [options] DIRECTORY|FILE...
//
// Finding:
//   -r --recurse     descend into subdirectories
//   -R --recurse:    descend into the directories given after this option only (fdupes)
//   -s --symlinks    follow symbolic links (files reached through one are never acted on)
//   -H --hardlinks   count hard links to one file as duplicates
//   -n --noempty     ignore empty files
//   -A --nohidden    ignore names starting with '.'
//   -G --minsize=N   ignore files smaller than N bytes
//   -L --maxsize=N   ignore files larger than N bytes
//      --exclude=GLOB leave out files and directories matching GLOB (repeatable; a GLOB
//                    with a '/' is matched against the path under the root, else the name)
//      --name=GLOB   look only at files whose name (or path under the root) matches GLOB
//                    (repeatable)
//      --one-file-system  do not descend into directories on other devices
//      --files-from=FILE  also look at the files named in FILE ('-': standard input), one
//                    per line, or NUL-separated with -0
//   -I --isolate     only files from different roots are duplicates of each other
//   -D --dirs        report duplicate directories (whole trees with the same names and
//                    contents; printed with a trailing '/'), and leave out the file groups
//                    that lie within them
//      --cache[=FILE] keep the files' hashes in FILE (default: fastread/dupes-hashes under
//                    $XDG_CACHE_HOME, else ~/.cache) and group by them: a re-run over
//                    unchanged files reads none of them (duplicate_options::cache)
//      --verify      with --cache, confirm each group byte by byte
// Output:
//   -1 --sameline    list each group on one line, each name followed by a space (spaces
//                    and backslashes in names escaped with '\'), no blank lines
//   -0 --null        end each name with a NUL, and each group with another (no newlines)
//   -S --size        print the size of the files of each group before it
//   -m --summarize   print a summary instead of the groups
//   -f --omitfirst   leave out the first file of each group (the one an action keeps)
//   -u --unique      list the files that have no duplicate instead of the groups
//   -q --quiet       no progress line
//      --json        print the groups and the errors as JSON (with -D, the directories)
// Which copy is kept (the first of each group as printed):
//   -o --order=time|ctime|name  oldest modification, oldest status change, or path first
//                    (default: time, as fdupes; ties by path)
//   -i --reverse     reverse that order
//      --keep-in=DIR files under DIR (also looked at, as a root) are never acted on and are
//                    kept first (repeatable)
// Acting (one line per action on standard output, "link FILE => KEPT", "dedupe FILE =>
// KEPT" or "delete FILE => KEPT"; files not acted on are named on stderr):
//      --link        replace each duplicate with a hard link to the kept copy
//      --dedupe      make each duplicate share the kept copy's extents (Linux
//                    FIDEDUPERANGE: the kernel compares the bytes; file systems without
//                    it are reported, nothing changed)
//   -d --delete      delete the duplicates: with -N --noprompt keep the first of each
//                    group; without, ask on the terminal which to keep (as fdupes -d)
//      --dry-run     print the actions the real run would take, change nothing
//   -h --help
//
// Output as fdupes: one path per line, each group followed by a blank line. A progress line
// goes to stderr while scanning when stderr is a terminal (not with -q).
// Exit status: 0 the scan (and every action) finished; 1 it finished, but some files or
// directories could not be read, or some file was not acted on (changed since the scan, on
// another device, unsupported, a failed call: each is named on stderr), or the output could
// not be written (said on stderr); 2 invalid usage. A hash cache that was corrupt or could
// not be read or written is said on stderr (and rebuilt) without changing the status.

#include <fastread/duplicate_actions.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fastread/detail/posix.hpp> // descriptor limit, terminal check: the OS layer

#include "tool_main.hpp"

namespace {

void usage(std::FILE* out) {
    std::fputs("usage: fastread-dupes [-r] [-R] [-s] [-H] [-n] [-A] [-G N] [-L N] [--exclude=GLOB] "
               "[--name=GLOB] [--one-file-system] [--files-from=FILE] [-I] [-D] "
               "[--cache[=FILE] [--verify]] [-1] [-0] [-S] [-m] [-f] [-u] [-q] [--json] "
               "[-o time|ctime|name] [-i] [--keep-in=DIR] [--link | --dedupe | -d [-N]] "
               "[--dry-run] DIRECTORY|FILE...\n",
               out);
}

// --cache without a file: fastread/dupes-hashes under $XDG_CACHE_HOME, else ~/.cache (the
// XDG Base Directory specification; an empty or relative XDG_CACHE_HOME is ignored); empty
// if neither is set.
std::filesystem::path default_cache() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg != nullptr && xdg[0] != '\0' && std::filesystem::path(xdg).is_absolute()) {
        return std::filesystem::path(xdg) / "fastread" / "dupes-hashes";
    }
#if defined(_WIN32)
    const char* home = std::getenv("LOCALAPPDATA");
    if (home != nullptr && home[0] != '\0') {
        return fastread::detail::path_of(home) / "fastread" / "dupes-hashes";
    }
#else
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] != '\0') {
        return std::filesystem::path(home) / ".cache" / "fastread" / "dupes-hashes";
    }
#endif
    return {};
}

bool parse_size(const char* text, std::uint64_t& out) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
        return false;
    }
    out = v;
    return true;
}

// fdupes -1: spaces and backslashes in names are escaped with a backslash.
std::string escape_sameline(const std::string& path) {
    std::string out;
    for (char c : path) {
        if (c == ' ' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out;
}

// A JSON string. Valid UTF-8 passes through; any other byte b >= 0x80 becomes \u00XX (so a
// reader can tell it was not text, though the bytes are not recoverable from the escape).
std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            ++i;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else {
            const std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
            bool valid = len != 0 && c < 0xf5 && i + len <= s.size();
            for (std::size_t k = 1; valid && k < len; ++k) {
                valid = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
            }
            if (valid) {
                out.append(s.substr(i, len));
                i += len;
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
                ++i;
            }
        }
    }
    return out + '"';
}

// Names from --files-from: one per line (a CR before the LF dropped), or NUL-separated.
bool read_names(const std::string& from, bool nul, std::vector<std::filesystem::path>& out) {
    std::string text;
    if (from == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        std::ifstream in(fastread::detail::path_of(from), std::ios::binary);
        if (!in) {
            return false;
        }
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const char end = nul ? '\0' : '\n';
    for (std::size_t at = 0; at < text.size();) {
        std::size_t e = text.find(end, at);
        if (e == std::string::npos) {
            e = text.size();
        }
        std::string name = text.substr(at, e - at);
        if (!nul && !name.empty() && name.back() == '\r') {
            name.pop_back();
        }
        if (!name.empty()) {
            out.push_back(fastread::detail::path_of(name));
        }
        at = e + 1;
    }
    return true;
}

// fdupes -d without -N: the files of a group, numbered, and which to keep ("1 3", "1,3",
// "all"); asked again until the answer names at least one. End of input: keep all.
std::vector<bool> ask_which(const std::vector<fastread::duplicate_file>& group, std::size_t set,
                            std::size_t sets) {
    for (;;) {
        for (std::size_t k = 0; k < group.size(); ++k) {
            std::printf("[%zu] %s\n", k + 1, fastread::detail::string_of(group[k].path).c_str());
        }
        std::printf("\nSet %zu of %zu, preserve files [1 - %zu, all]: ", set, sets, group.size());
        std::fflush(stdout);
        std::string line;
        if (!std::getline(std::cin, line)) {
            std::putchar('\n');
            return std::vector<bool>(group.size(), true);
        }
        std::vector<bool> keep(group.size());
        bool any = false;
        if (line.find("all") != std::string::npos) {
            return std::vector<bool>(group.size(), true);
        }
        for (std::size_t at = 0; at < line.size();) {
            char* end = nullptr;
            const unsigned long n = std::strtoul(line.c_str() + at, &end, 10);
            const auto used = static_cast<std::size_t>(end - (line.c_str() + at));
            if (used == 0) {
                ++at;
                continue;
            }
            at += used;
            if (n >= 1 && n <= group.size()) {
                keep[n - 1] = true;
                any = true;
            }
        }
        if (any) {
            std::putchar('\n');
            return keep;
        }
    }
}

const char* verb_of(fastread::duplicate_action a) {
    return a == fastread::duplicate_action::link     ? "link"
           : a == fastread::duplicate_action::dedupe ? "dedupe"
                                                     : "delete";
}

// Whether `p` lies in the tree of one of `dirs` (the reported duplicate directories).
bool within(const std::filesystem::path& p, const std::set<std::filesystem::path>& dirs) {
    for (std::filesystem::path d = p.parent_path(); !d.empty() && d != d.parent_path();
         d = d.parent_path()) {
        if (dirs.count(d) != 0) {
            return true;
        }
    }
    return false;
}

} // namespace

int tool_main(const std::vector<std::string>& args) {
    const int argc = static_cast<int>(args.size());
    // As other duplicate finders do, allow every descriptor the hard limit allows:
    // find_duplicates sizes the sets it compares at once from what the process may open.
    fastread::detail::raise_descriptor_limit();
    fastread::duplicate_options options;
    options.recursive = false; // as fdupes: subdirectories only with -r
    bool sameline = false, show_size = false, summarize = false, quiet = false, json = false;
    bool nul = false, omit_first = false, unique = false, reverse = false, noprompt = false;
    bool dry_run = false;
    std::optional<fastread::duplicate_action> action;
    fastread::duplicate_order order = fastread::duplicate_order::time; // fdupes'
    std::vector<std::filesystem::path> roots, keep_in;
    std::vector<std::string> files_from;
    bool options_done = false;
    auto set_action = [&](fastread::duplicate_action a) {
        if (action && *action != a) {
            std::fputs("fastread-dupes: choose one of --link, --dedupe and -d\n", stderr);
            std::exit(2);
        }
        action = a;
    };
    auto set_order = [&](const std::string& by) {
        if (by == "time") {
            order = fastread::duplicate_order::time;
        } else if (by == "ctime") {
            order = fastread::duplicate_order::ctime;
        } else if (by == "name") {
            order = fastread::duplicate_order::name;
        } else {
            std::fprintf(stderr, "fastread-dupes: invalid order '%s' (time, ctime or name)\n",
                         by.c_str());
            std::exit(2);
        }
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = args[i];
        auto size_value = [&](std::string_view name, std::uint64_t& out) {
            std::string text;
            if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 &&
                a[name.size()] == '=') {
                text = a.substr(name.size() + 1);
            } else if (i + 1 < argc) {
                text = args[++i];
            } else {
                std::fprintf(stderr, "fastread-dupes: %s needs a size\n", a.c_str());
                std::exit(2);
            }
            if (!parse_size(text.c_str(), out)) {
                std::fprintf(stderr, "fastread-dupes: invalid size '%s'\n", text.c_str());
                std::exit(2);
            }
        };
        // --name=VALUE or --name VALUE.
        auto text_value = [&](std::string_view name) {
            if (a.size() > name.size() && a[name.size()] == '=') {
                return a.substr(name.size() + 1);
            }
            if (a.size() == name.size() && i + 1 < argc) {
                return args[++i];
            }
            std::fprintf(stderr, "fastread-dupes: %s needs a value\n", std::string(name).c_str());
            std::exit(2);
        };
        auto is = [&](std::string_view name) {
            return a.compare(0, name.size(), name) == 0 &&
                   (a.size() == name.size() || a[name.size()] == '=');
        };
        if (options_done || a.empty() || a[0] != '-' || a == "-") {
            roots.push_back(fastread::detail::path_of(a));
        } else if (a == "--") {
            options_done = true;
        } else if (a == "--recurse") {
            options.recursive = true;
        } else if (a == "--recurse:") {
            options.recursive = true;
            options.first_recursive_root = roots.size();
        } else if (a == "--symlinks") {
            options.follow_symlinks = true;
        } else if (a == "--hardlinks") {
            options.hardlinks_are_duplicates = true;
        } else if (a == "--noempty") {
            options.include_empty = false;
        } else if (a == "--nohidden") {
            options.include_hidden = false;
        } else if (a.starts_with("--minsize")) {
            size_value("--minsize", options.min_size);
        } else if (a.starts_with("--maxsize")) {
            size_value("--maxsize", options.max_size);
        } else if (is("--exclude")) {
            options.exclude.push_back(text_value("--exclude"));
        } else if (is("--name")) {
            options.names.push_back(text_value("--name"));
        } else if (a == "--one-file-system") {
            options.one_file_system = true;
        } else if (is("--files-from")) {
            files_from.push_back(text_value("--files-from"));
        } else if (a == "--isolate") {
            options.isolate = true;
        } else if (a == "--dirs") {
            options.directories = true;
        } else if (a == "--sameline") {
            sameline = true;
        } else if (a == "--null") {
            nul = true;
        } else if (a == "--size") {
            show_size = true;
        } else if (a == "--summarize") {
            summarize = true;
        } else if (a == "--omitfirst") {
            omit_first = true;
        } else if (a == "--unique") {
            unique = true;
        } else if (a == "--quiet") {
            quiet = true;
        } else if (a == "--json") {
            json = true;
        } else if (is("--order")) {
            set_order(text_value("--order"));
        } else if (a == "--reverse") {
            reverse = true;
        } else if (is("--keep-in")) {
            keep_in.push_back(fastread::detail::path_of(text_value("--keep-in")));
        } else if (a == "--link") {
            set_action(fastread::duplicate_action::link);
        } else if (a == "--dedupe") {
            set_action(fastread::duplicate_action::dedupe);
        } else if (a == "--delete") {
            set_action(fastread::duplicate_action::remove);
        } else if (a == "--noprompt") {
            noprompt = true;
        } else if (a == "--dry-run") {
            dry_run = true;
        } else if (a == "--cache") {
            options.cache = default_cache();
            if (options.cache.empty()) {
                std::fputs("fastread-dupes: --cache needs XDG_CACHE_HOME or HOME, or a file: "
                           "--cache=FILE\n",
                           stderr);
                return 2;
            }
        } else if (a.starts_with("--cache=") && a.size() > 8) {
            options.cache = fastread::detail::path_of(a.substr(8));
        } else if (a == "--verify") {
            options.verify = true;
        } else if (a == "--help") {
            usage(stdout);
            return 0;
        } else if (a[1] == '-') {
            std::fprintf(stderr, "fastread-dupes: unknown option %s\n", a.c_str());
            usage(stderr);
            return 2;
        } else {
            for (std::size_t k = 1; k < a.size(); ++k) {
                switch (a[k]) {
                case 'r':
                    options.recursive = true;
                    break;
                case 'R':
                    options.recursive = true;
                    options.first_recursive_root = roots.size();
                    break;
                case 's':
                    options.follow_symlinks = true;
                    break;
                case 'H':
                    options.hardlinks_are_duplicates = true;
                    break;
                case 'n':
                    options.include_empty = false;
                    break;
                case 'A':
                    options.include_hidden = false;
                    break;
                case 'I':
                    options.isolate = true;
                    break;
                case 'D':
                    options.directories = true;
                    break;
                case '1':
                    sameline = true;
                    break;
                case '0':
                    nul = true;
                    break;
                case 'S':
                    show_size = true;
                    break;
                case 'm':
                    summarize = true;
                    break;
                case 'f':
                    omit_first = true;
                    break;
                case 'u':
                    unique = true;
                    break;
                case 'q':
                    quiet = true;
                    break;
                case 'i':
                    reverse = true;
                    break;
                case 'd':
                    set_action(fastread::duplicate_action::remove);
                    break;
                case 'N':
                    noprompt = true;
                    break;
                case 'h':
                    usage(stdout);
                    return 0;
                case 'o': {
                    const std::string rest = a.substr(k + 1);
                    const std::string text = !rest.empty() ? rest : i + 1 < argc ? args[++i] : "";
                    set_order(text);
                    k = a.size();
                    break;
                }
                case 'G':
                case 'L': {
                    std::uint64_t& out = a[k] == 'G' ? options.min_size : options.max_size;
                    const std::string rest = a.substr(k + 1);
                    const std::string text = !rest.empty() ? rest : i + 1 < argc ? args[++i] : "";
                    if (!parse_size(text.c_str(), out)) {
                        std::fprintf(stderr, "fastread-dupes: invalid size '%s'\n", text.c_str());
                        return 2;
                    }
                    k = a.size();
                    break;
                }
                default:
                    std::fprintf(stderr, "fastread-dupes: unknown option -%c\n", a[k]);
                    usage(stderr);
                    return 2;
                }
            }
        }
    }
    for (const std::string& from : files_from) {
        if (!read_names(from, nul, roots)) {
            std::fprintf(stderr, "fastread-dupes: %s: %s\n", from.c_str(), std::strerror(errno));
            return 2;
        }
    }
    // --keep-in directories are roots too (those not given already).
    const std::size_t first_keep_root = roots.size();
    for (const std::filesystem::path& d : keep_in) {
        if (std::find(roots.begin(), roots.end(), d) == roots.end()) {
            roots.push_back(d);
        }
    }
    if (roots.empty()) {
        usage(stderr);
        return 2;
    }
    const bool deleting = action == fastread::duplicate_action::remove;
    if (action && (json || unique || summarize)) {
        std::fputs("fastread-dupes: --json, -u and -m only report; drop them to act\n", stderr);
        return 2;
    }
    if (dry_run && !action) {
        std::fputs("fastread-dupes: --dry-run needs --link, --dedupe or -d\n", stderr);
        return 2;
    }
    if (noprompt && !deleting) {
        std::fputs("fastread-dupes: -N goes with -d\n", stderr);
        return 2;
    }
    const bool interactive = deleting && !noprompt;
    if (interactive && (!fastread::detail::is_terminal(stdin) || dry_run)) {
        std::fputs("fastread-dupes: -d asks which files to keep on a terminal: standard input is "
                   "not one (or --dry-run); add -N to keep the first of each group\n",
                   stderr);
        return 2;
    }
    options.list_unique = unique;

    std::vector<fastread::duplicate_error> errors;
    options.on_error = [&](const fastread::duplicate_error& e) {
        // find_duplicates says EILSEQ for a cache file that is damaged or not a cache.
        const bool damaged = e.operation == "cache" && e.error == std::errc::illegal_byte_sequence;
        std::fprintf(stderr, "fastread-dupes: %s: %s (%s)\n",
                     fastread::detail::string_of(e.path).c_str(),
                     damaged ? "damaged or not a hash cache, rebuilt" : e.error.message().c_str(),
                     e.operation.c_str());
        errors.push_back(e);
    };
    const bool show_progress = !quiet && fastread::detail::is_terminal(stderr);
    if (show_progress) {
        options.on_progress = [](const fastread::duplicate_progress& p) {
            if (p.total != 0) {
                std::fprintf(stderr, "\rProgress [%llu/%llu] %s %3d%%  ",
                             static_cast<unsigned long long>(p.done),
                             static_cast<unsigned long long>(p.total), std::string(p.stage).c_str(),
                             static_cast<int>(100 * p.done / p.total));
            }
        };
    }
    fastread::duplicate_report found = fastread::find_duplicate_files(roots, options);
    if (show_progress) {
        std::fputs("\r\033[K", stderr);
    }

    // Which copy is kept: files under --keep-in first (in the order asked), then the order.
    auto protected_file = [&](const fastread::duplicate_file& f) {
        if (f.root >= first_keep_root) {
            return true;
        }
        for (const std::filesystem::path& d : keep_in) {
            const std::string dir = fastread::detail::string_of(d);
            const std::string p = fastread::detail::string_of(f.path);
            if (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 &&
                (fastread::detail::ends_with_separator(dir) ||
                 p[dir.size()] == fastread::detail::path_separator)) {
                return true;
            }
        }
        return false;
    };
    fastread::order_duplicates(found.groups, order, reverse);
    if (!keep_in.empty()) {
        for (auto& g : found.groups) {
            std::stable_partition(g.begin(), g.end(), protected_file);
        }
    }
    std::set<std::filesystem::path> dup_dirs;
    for (const auto& d : found.directories) {
        dup_dirs.insert(d.begin(), d.end());
    }

    bool acted_fully = true;
    const char end_name = nul ? '\0' : '\n';
    if (action) {
        fastread::action_options act;
        act.action = *action;
        act.dry_run = dry_run;
        std::size_t set = 0;
        act.choose = [&](const std::vector<fastread::duplicate_file>& g) {
            ++set;
            if (interactive) {
                return ask_which(g, set, found.groups.size());
            }
            std::vector<bool> keep(g.size());
            for (std::size_t k = 0; k < g.size(); ++k) {
                // -I: a file of the kept copy's root is not its duplicate.
                keep[k] =
                    k == 0 || protected_file(g[k]) || (options.isolate && g[k].root == g[0].root);
            }
            return keep;
        };
        act.on_action = [&](const fastread::action_record& r) {
            const std::string file = fastread::detail::string_of(r.file);
            const std::string kept = fastread::detail::string_of(r.kept);
            if (r.outcome == fastread::action_outcome::done ||
                r.outcome == fastread::action_outcome::planned) {
                std::printf("%s %s => %s%c", verb_of(r.action), file.c_str(), kept.c_str(),
                            end_name);
            } else {
                acted_fully = false;
                const char* what = r.outcome == fastread::action_outcome::skipped ? "not acted on"
                                   : r.outcome == fastread::action_outcome::unsupported
                                       ? "unsupported"
                                       : "failed";
                std::fprintf(stderr, "fastread-dupes: %s: %s %s: %s%s%s\n", file.c_str(),
                             verb_of(r.action), what, r.reason.c_str(), r.error ? ": " : "",
                             r.error ? r.error.message().c_str() : "");
            }
        };
        fastread::act_on_duplicates(roots, found.groups, act);
    } else if (unique) {
        for (const auto& f : found.unique) {
            std::printf("%s%c", fastread::detail::string_of(f.path).c_str(), end_name);
        }
    } else if (json) {
        std::string out = "{\"groups\": [";
        for (std::size_t g = 0; g < found.groups.size(); ++g) {
            const auto& group = found.groups[g];
            out += g == 0 ? "\n" : ",\n";
            out += "  {\"size\": " + std::to_string(group[0].size) + ", \"files\": [";
            for (std::size_t k = 0; k < group.size(); ++k) {
                out +=
                    (k == 0 ? "" : ", ") + json_string(fastread::detail::string_of(group[k].path));
            }
            out += "]}";
        }
        out += found.groups.empty() ? "]," : "\n ],";
        if (options.directories) { // -D: the duplicate directories, each a list of paths
            out += "\n \"directories\": [";
            for (std::size_t g = 0; g < found.directories.size(); ++g) {
                out += g == 0 ? "\n  [" : ",\n  [";
                for (std::size_t k = 0; k < found.directories[g].size(); ++k) {
                    out += (k == 0 ? "" : ", ") +
                           json_string(fastread::detail::string_of(found.directories[g][k]));
                }
                out += "]";
            }
            out += found.directories.empty() ? "]," : "\n ],";
        }
        out += "\n \"errors\": [";
        for (std::size_t k = 0; k < errors.size(); ++k) {
            out += k == 0 ? "\n" : ",\n";
            out += "  {\"path\": " + json_string(fastread::detail::string_of(errors[k].path)) +
                   ", \"error\": " + json_string(errors[k].error.message()) +
                   ", \"operation\": " + json_string(errors[k].operation) + "}";
        }
        out += errors.empty() ? "]}\n" : "\n ]}\n";
        std::fputs(out.c_str(), stdout);
    } else if (summarize) {
        std::uint64_t files = 0, bytes = 0;
        for (const auto& g : found.groups) {
            files += g.size() - 1;
            bytes += (g.size() - 1) * g[0].size;
        }
        // fdupes' wording and units: bytes below 1024, then kilo- and megabytes of 1000.
        if (found.groups.empty()) {
            // nothing, as fdupes
        } else if (bytes < 1024) {
            std::printf("%llu duplicate files (in %zu sets), occupying %llu bytes.\n\n",
                        static_cast<unsigned long long>(files), found.groups.size(),
                        static_cast<unsigned long long>(bytes));
        } else if (bytes <= 1000000) {
            std::printf("%llu duplicate files (in %zu sets), occupying %.1f kilobytes\n\n",
                        static_cast<unsigned long long>(files), found.groups.size(),
                        static_cast<double>(bytes) / 1000.0);
        } else {
            std::printf("%llu duplicate files (in %zu sets), occupying %.1f megabytes\n\n",
                        static_cast<unsigned long long>(files), found.groups.size(),
                        static_cast<double>(bytes) / 1000000.0);
        }
    } else {
        auto print_group = [&](const std::vector<std::string>& names, std::uint64_t size,
                               bool files) {
            if (show_size && files) {
                std::printf("%llu byte%s each:\n", static_cast<unsigned long long>(size),
                            size == 1 ? "" : "s");
            }
            for (std::size_t k = omit_first ? 1 : 0; k < names.size(); ++k) {
                if (sameline && !nul) { // fdupes -1: each name followed by a space
                    std::printf("%s ", escape_sameline(names[k]).c_str());
                } else {
                    std::printf("%s%c", names[k].c_str(), end_name);
                }
            }
            std::putchar(sameline && !nul ? '\n' : end_name);
        };
        for (const auto& d : found.directories) {
            std::vector<std::string> names;
            for (const auto& p : d) {
                std::string n = fastread::detail::string_of(p);
                if (!fastread::detail::ends_with_separator(n)) {
                    n += fastread::detail::path_separator;
                }
                names.push_back(std::move(n));
            }
            print_group(names, 0, false);
        }
        for (const auto& g : found.groups) {
            if (!dup_dirs.empty() && std::all_of(g.begin(), g.end(), [&](const auto& f) {
                    return within(f.path, dup_dirs);
                })) {
                continue; // in the trees of duplicate directories, printed above
            }
            std::vector<std::string> names;
            for (const auto& f : g) {
                names.push_back(fastread::detail::string_of(f.path));
            }
            print_group(names, g[0].size, true);
        }
    }
    // Groups that never arrived are a failure (a full disk, a closed pipe): say so.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
        std::fprintf(stderr, "fastread-dupes: write error: %s\n", std::strerror(errno));
        return 1;
    }
    for (const fastread::duplicate_error& e : errors) {
        if (e.operation != "cache") {
            return 1;
        }
    }
    return acted_fully ? 0 : 1;
}
