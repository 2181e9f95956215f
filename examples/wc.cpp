// fastread-wc: line, word and byte counts like wc(1), read with fastread::read_source.
//
//   fastread-wc [-l] [-w] [-c] [--] [FILE...]     ('-' or no FILE: stdin; after '--'
//                                                  every argument is a file)
//
// Counts as GNU wc does in the C locale: lines are newline bytes (a last line without one
// is not counted), a word starts at a printable byte and ends at whitespace (other bytes
// neither start nor end one), bytes are bytes. Output columns follow GNU wc's layout.
// The input is counted chunk by chunk (64 KiB), never held as lines, so memory stays flat
// whatever the input (a 1 GB line, /dev/zero).

#include <fastread/source/read_source.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tool_main.hpp"

namespace {

struct counts {
    std::uint64_t lines = 0, words = 0, bytes = 0;
};

// Counts what `source` delivers; words only when `words` (a byte-by-byte pass).
counts count(fastread::read_source& source, bool words) {
    counts c;
    bool in_word = false;
    for (std::span<const char> chunk = source.next(); !chunk.empty(); chunk = source.next()) {
        c.bytes += chunk.size();
        c.lines += static_cast<std::uint64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
        if (!words) {
            continue;
        }
        for (const char byte : chunk) {
            const auto ch = static_cast<unsigned char>(byte);
            if (ch == ' ' || (ch >= '\t' && ch <= '\r')) {
                in_word = false;
            } else if (ch > ' ' && ch < 127 && !in_word) {
                in_word = true;
                ++c.words;
            }
        }
    }
    return c;
}

int digits(std::uint64_t v) {
    int n = 1;
    for (; v >= 10; v /= 10) {
        ++n;
    }
    return n;
}

} // namespace

int tool_main(const std::vector<std::string>& args) {
    const int argc = static_cast<int>(args.size());
    bool want_lines = false, want_words = false, want_bytes = false;
    std::vector<std::string> files;
    bool options_end = false; // after "--", every argument is a file
    for (int i = 1; i < argc; ++i) {
        std::string a = args[i];
        if (!options_end && a == "--") {
            options_end = true;
        } else if (!options_end && a.size() > 1 && a[0] == '-') {
            for (char o : a.substr(1)) {
                if (o == 'l') {
                    want_lines = true;
                } else if (o == 'w') {
                    want_words = true;
                } else if (o == 'c') {
                    want_bytes = true;
                } else {
                    std::fprintf(stderr, "usage: fastread-wc [-l] [-w] [-c] [--] [FILE...]\n");
                    return 2;
                }
            }
        } else {
            files.push_back(a);
        }
    }
    if (!want_lines && !want_words && !want_bytes) {
        want_lines = want_words = want_bytes = true;
    }
    const bool named = !files.empty();
    if (!named) {
        files.push_back("-");
    }

    // GNU wc's column width: 1 for a single count of a single input; else wide enough for
    // the total size of the regular files, and at least 7 if any input is not one.
    const int columns = int{want_lines} + int{want_words} + int{want_bytes};
    int width = 1;
    if (columns > 1 || files.size() > 1) {
        std::uint64_t total_size = 0;
        int minimum = 1;
        for (const std::string& f : files) {
            if (f == "-") {
                try {
                    const fastread::detail::file_info in = fastread::detail::stat_fd(0);
                    if (in.regular) {
                        total_size += in.size;
                    } else {
                        minimum = 7;
                    }
                } catch (const std::system_error&) {
                    // no standard input: reading it reports the error
                }
                continue;
            }
            fastread::detail::path_facts facts;
            if (fastread::detail::stat_path(f, true, facts) == 0) {
                if (facts.info.regular) {
                    total_size += facts.info.size;
                } else {
                    minimum = 7;
                }
            }
        }
        width = std::max(digits(total_size), minimum);
    }

    auto print = [&](const counts& c, const char* name) {
        const char* sep = "";
        if (want_lines) {
            std::printf("%s%*llu", sep, width, static_cast<unsigned long long>(c.lines));
            sep = " ";
        }
        if (want_words) {
            std::printf("%s%*llu", sep, width, static_cast<unsigned long long>(c.words));
            sep = " ";
        }
        if (want_bytes) {
            std::printf("%s%*llu", sep, width, static_cast<unsigned long long>(c.bytes));
        }
        if (name != nullptr) {
            std::printf(" %s", name);
        }
        std::printf("\n");
    };

    counts total;
    int status = 0;
    for (const std::string& f : files) {
        try {
            fastread::read_source source =
                f == "-" ? fastread::read_source(0)
                         : fastread::read_source(fastread::detail::path_of(f));
            const counts c = count(source, want_words);
            total.lines += c.lines;
            total.words += c.words;
            total.bytes += c.bytes;
            print(c, named ? f.c_str() : nullptr);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "fastread-wc: %s\n", e.what());
            status = 1;
        }
    }
    if (files.size() > 1) {
        print(total, "total");
    }
    // Counts that never arrived are a failure (a full disk, a closed pipe), as for GNU wc.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
        std::fprintf(stderr, "fastread-wc: write error: %s\n", std::strerror(errno));
        return 1;
    }
    return status;
}
