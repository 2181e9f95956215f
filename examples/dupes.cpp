// fastread-dupes: find duplicate files, with FDUPES' flags and output. Never deletes.
//
//   fastread-dupes [options] DIRECTORY|FILE...
//
//   -r --recurse     descend into subdirectories
//   -s --symlinks    follow symbolic links
//   -H --hardlinks   count hard links to one file as duplicates
//   -n --noempty     ignore empty files
//   -A --nohidden    ignore names starting with '.'
//   -G --minsize=N   ignore files smaller than N bytes
//   -L --maxsize=N   ignore files larger than N bytes
//   -1 --sameline    list each group on one line, each name followed by a space (spaces
//                    and backslashes in names escaped with '\'), no blank lines
//   -S --size        print the size of the files of each group before it
//   -m --summarize   print a summary instead of the groups
//   -q --quiet       no progress line
//      --json        print the groups and the errors as JSON
//      --cache[=FILE] keep the files' hashes in FILE (default: fastread/dupes-hashes under
//                    $XDG_CACHE_HOME, else ~/.cache) and group by them: a re-run over
//                    unchanged files reads none of them (duplicate_options::cache)
//      --verify      with --cache, confirm each group byte by byte
//   -h --help
//
// Output as fdupes: one path per line, each group followed by a blank line. A progress line
// goes to stderr while scanning when stderr is a terminal (not with -q).
// Exit status: 0 the scan finished; 1 it finished, but some files or directories could not
// be read (each is named on stderr and skipped), or the output could not be written (said
// on stderr); 2 invalid usage. A hash cache that was corrupt or could not be read or written
// is said on stderr (and rebuilt) without changing the status.

#include <fastread/duplicates.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fastread/detail/posix.hpp> // descriptor limit, terminal check: the OS layer

#include "tool_main.hpp"

namespace {

void usage(std::FILE* out) {
    std::fputs("usage: fastread-dupes [-r] [-s] [-H] [-n] [-A] [-G N] [-L N] [-1] [-S] [-m] "
               "[-q] [--json] [--cache[=FILE] [--verify]] DIRECTORY|FILE...\n",
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

std::uint64_t size_of(const std::filesystem::path& p) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(p, ec);
    return ec ? 0 : static_cast<std::uint64_t>(size);
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
    std::vector<std::filesystem::path> roots;
    bool options_done = false;
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
        if (options_done || a.empty() || a[0] != '-' || a == "-") {
            roots.push_back(fastread::detail::path_of(a));
        } else if (a == "--") {
            options_done = true;
        } else if (a == "--recurse") {
            options.recursive = true;
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
        } else if (a == "--sameline") {
            sameline = true;
        } else if (a == "--size") {
            show_size = true;
        } else if (a == "--summarize") {
            summarize = true;
        } else if (a == "--quiet") {
            quiet = true;
        } else if (a == "--json") {
            json = true;
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
                case '1':
                    sameline = true;
                    break;
                case 'S':
                    show_size = true;
                    break;
                case 'm':
                    summarize = true;
                    break;
                case 'q':
                    quiet = true;
                    break;
                case 'h':
                    usage(stdout);
                    return 0;
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
    if (roots.empty()) {
        usage(stderr);
        return 2;
    }

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
    const auto groups = fastread::find_duplicates(roots, options);
    if (show_progress) {
        std::fputs("\r\033[K", stderr);
    }

    if (json) {
        std::string out = "{\"groups\": [";
        for (std::size_t g = 0; g < groups.size(); ++g) {
            out += g == 0 ? "\n" : ",\n";
            out += "  {\"size\": " + std::to_string(size_of(groups[g][0])) + ", \"files\": [";
            for (std::size_t k = 0; k < groups[g].size(); ++k) {
                out +=
                    (k == 0 ? "" : ", ") + json_string(fastread::detail::string_of(groups[g][k]));
            }
            out += "]}";
        }
        out += groups.empty() ? "],\n \"errors\": [" : "\n ],\n \"errors\": [";
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
        for (const auto& g : groups) {
            files += g.size() - 1;
            bytes += (g.size() - 1) * size_of(g[0]);
        }
        // fdupes' wording and units: bytes below 1024, then kilo- and megabytes of 1000.
        if (groups.empty()) {
            // nothing, as fdupes
        } else if (bytes < 1024) {
            std::printf("%llu duplicate files (in %zu sets), occupying %llu bytes.\n\n",
                        static_cast<unsigned long long>(files), groups.size(),
                        static_cast<unsigned long long>(bytes));
        } else if (bytes <= 1000000) {
            std::printf("%llu duplicate files (in %zu sets), occupying %.1f kilobytes\n\n",
                        static_cast<unsigned long long>(files), groups.size(),
                        static_cast<double>(bytes) / 1000.0);
        } else {
            std::printf("%llu duplicate files (in %zu sets), occupying %.1f megabytes\n\n",
                        static_cast<unsigned long long>(files), groups.size(),
                        static_cast<double>(bytes) / 1000000.0);
        }
    } else {
        for (const auto& g : groups) {
            if (show_size) {
                const std::uint64_t size = size_of(g[0]);
                std::printf("%llu byte%s each:\n", static_cast<unsigned long long>(size),
                            size == 1 ? "" : "s");
            }
            if (sameline) { // fdupes -1: each name followed by a space; no blank line
                for (const auto& p : g) {
                    std::printf("%s ", escape_sameline(fastread::detail::string_of(p)).c_str());
                }
                std::putchar('\n');
            } else {
                for (const auto& p : g) {
                    std::printf("%s\n", fastread::detail::string_of(p).c_str());
                }
                std::putchar('\n');
            }
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
    return 0;
}
