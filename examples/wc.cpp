// fastread-wc: line, word and byte counts like wc(1), read with fastread::read_source.
//
//   fastread-wc [-l] [-w] [-c] [--] [FILE...]     ('-' or no FILE: stdin; after '--'
//                                                  every argument is a file)
//
// Counts as GNU wc does in the locale of the environment (LC_ALL, LC_CTYPE, LANG): lines
// are newline bytes (a last line without one is not counted), bytes are bytes, and a word
// is a run of printable characters between whitespace:
// - a character that is whitespace (the C library's isspace/iswspace of the locale, and the
//   no-break spaces U+00A0, U+2007, U+202F, U+2060 unless POSIXLY_CORRECT is set, as GNU wc
//   9.1) ends a word; tab, LF, VT, FF, CR and space always do;
// - another printable character (isprint/iswprint) starts or continues one;
// - anything else (control characters, U+2028, bytes that are no valid character of the
//   locale's encoding) neither starts nor ends one.
// In the C locale that is bytes; in a UTF-8 locale (Debian's default C.UTF-8) characters
// decoded from UTF-8 (RFC 3629: no overlong forms, surrogates or values past U+10FFFF), the
// classes of U+0080..U+FFFF asked of the C library once, at the first such character.
// Output columns follow GNU wc's layout; a directory gets wc's message and a row of zeros.
// The input is counted chunk by chunk (64 KiB), never held as lines, so memory stays flat
// whatever the input (a 1 GB line, /dev/zero).

#include <fastread/source/read_source.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <clocale>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <cwctype>
#include <exception>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#if !defined(_WIN32)
#include <langinfo.h>
#endif

#include "tool_main.hpp"

namespace {

struct counts {
    std::uint64_t lines = 0, words = 0, bytes = 0;
};

// What a character does to a word.
enum char_class : unsigned char {
    neutral = 0, // neither starts nor ends one
    word = 1,    // printable: starts or continues one
    space = 2,   // ends one
};

bool no_break_space(std::wint_t c) {
    return c == 0x00A0 || c == 0x2007 || c == 0x202F || c == 0x2060;
}

// The classes of the locale's characters: bytes in a single-byte locale, code points in a
// UTF-8 one.
class word_rules {
  public:
    // The rules of the current C locale (setlocale already called).
    word_rules() {
        nbsp_ = std::getenv("POSIXLY_CORRECT") == nullptr;
#if !defined(_WIN32)
        utf8_ = MB_CUR_MAX > 1 && std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
#endif
        for (int b = 0; b < 256; ++b) {
            if (utf8_ && b >= 0x80) {
                bytes_[b] = neutral; // decoded, not classed alone
            } else if (b == ' ' || (b >= '\t' && b <= '\r')) {
                bytes_[b] = space;
            } else if (std::isprint(b)) {
                const std::wint_t w = std::btowc(b);
                bytes_[b] =
                    std::isspace(b) || (nbsp_ && w != WEOF && no_break_space(w)) ? space : word;
            } else {
                bytes_[b] = neutral;
            }
        }
    }

    bool utf8() const noexcept {
        return utf8_;
    }
    // The class of a byte (single-byte locale), or of an ASCII byte (UTF-8).
    char_class of_byte(unsigned char b) const noexcept {
        return bytes_[b];
    }
    // The class of the code point c >= 0x80 (UTF-8 locale).
    char_class of_code_point(char32_t c) {
        if (c < 0x10000) {
            if (bmp_.empty()) {
                bmp_.resize(0x10000);
                for (char32_t k = 0x80; k < 0x10000; ++k) {
                    bmp_[k] = ask(k);
                }
            }
            return bmp_[c];
        }
        return ask(c);
    }

  private:
    char_class ask(char32_t c) const {
        const auto w = static_cast<std::wint_t>(c);
        if (!std::iswprint(w)) {
            return neutral;
        }
        return std::iswspace(w) || (nbsp_ && no_break_space(w)) ? space : word;
    }

    char_class bytes_[256];
    std::vector<char_class> bmp_; // U+0000..U+FFFF, filled at the first one past ASCII
    bool utf8_ = false;
    bool nbsp_ = true;
};

// Counts words over chunks; a UTF-8 sequence cut by a chunk's end waits for the next.
class word_counter {
  public:
    explicit word_counter(word_rules& rules) : rules_(&rules) {}

    void feed(const unsigned char* p, const unsigned char* e) {
        if (!rules_->utf8() || (pending_ == 0 && ascii(p, e))) {
            for (; p != e; ++p) {
                take(rules_->of_byte(*p)); // bytes, or ASCII in UTF-8
            }
            return;
        }
        if (pending_ != 0) {
            // The bytes that waited, and up to 3 of this chunk.
            unsigned char joined[8];
            std::memcpy(joined, waiting_, pending_);
            const auto extra = static_cast<unsigned>(std::min<std::ptrdiff_t>(3, e - p));
            std::memcpy(joined + pending_, p, extra);
            const unsigned n = pending_ + extra;
            unsigned i = 0;
            while (i < pending_) {
                const unsigned len = step(joined + i, joined + n);
                if (len == 0) { // still cut: this chunk was all of it
                    pending_ = n - i;
                    std::memmove(waiting_, joined + i, pending_);
                    return;
                }
                i += len;
            }
            p += i - pending_;
            pending_ = 0;
        }
        while (p != e) {
            if (*p < 0x80) {
                take(rules_->of_byte(*p));
                ++p;
                continue;
            }
            const unsigned len = step(p, e);
            if (len == 0) {
                pending_ = static_cast<unsigned>(e - p);
                std::memcpy(waiting_, p, pending_);
                return;
            }
            p += len;
        }
    }

    // The end of the input: bytes of a cut sequence are no character (neutral).
    std::uint64_t words() const noexcept { return words_; }

  private:
    // Whether [p, e) is all ASCII (an OR of every byte, which the compiler vectorizes).
    static bool ascii(const unsigned char* p, const unsigned char* e) noexcept {
        unsigned char any = 0;
        for (; p != e; ++p) {
            any |= *p;
        }
        return any < 0x80;
    }

    void take(char_class c) noexcept {
        words_ += c == word && !in_word_;
        in_word_ = c == word || (in_word_ && c == neutral);
    }

    // Takes the character at p (p < e): returns its length in bytes, 1 for a byte that
    // starts no valid UTF-8 sequence, 0 when [p, e) holds a valid start that e cuts.
    unsigned step(const unsigned char* p, const unsigned char* e) {
        const unsigned char b = *p;
        if (b < 0x80) {
            take(rules_->of_byte(b));
            return 1;
        }
        unsigned len = 0;
        char32_t c = 0;
        unsigned char low = 0x80, high = 0xBF; // the second byte's range
        if (b >= 0xC2 && b <= 0xDF) {
            len = 2;
            c = b & 0x1F;
        } else if (b >= 0xE0 && b <= 0xEF) {
            len = 3;
            c = b & 0x0F;
            low = b == 0xE0 ? 0xA0 : 0x80;
            high = b == 0xED ? 0x9F : 0xBF;
        } else if (b >= 0xF0 && b <= 0xF4) {
            len = 4;
            c = b & 0x07;
            low = b == 0xF0 ? 0x90 : 0x80;
            high = b == 0xF4 ? 0x8F : 0xBF;
        } else {
            return 1; // a continuation byte or a byte no UTF-8 holds: neutral
        }
        for (unsigned i = 1; i < len; ++i) {
            if (p + i == e) {
                return 0;
            }
            const unsigned char k = p[i];
            if (k < (i == 1 ? low : 0x80) || k > (i == 1 ? high : 0xBF)) {
                return 1; // an invalid sequence: its first byte is neutral
            }
            c = (c << 6) | (k & 0x3F);
        }
        take(rules_->of_code_point(c));
        return len;
    }

    word_rules* rules_;
    std::uint64_t words_ = 0;
    bool in_word_ = false;
    unsigned char waiting_[4] = {};
    unsigned pending_ = 0;
};

// Counts what `source` delivers; words only when `words`.
counts count(fastread::read_source& source, word_rules* words) {
    counts c;
    std::optional<word_counter> counter;
    if (words != nullptr) {
        counter.emplace(*words);
    }
    for (std::span<const char> chunk = source.next(); !chunk.empty(); chunk = source.next()) {
        c.bytes += chunk.size();
        c.lines += static_cast<std::uint64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
        if (counter) {
            const auto* p = reinterpret_cast<const unsigned char*>(chunk.data());
            counter->feed(p, p + chunk.size());
        }
    }
    if (counter) {
        c.words = counter->words();
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
    std::setlocale(LC_ALL, ""); // the environment's, as wc: its words are the locale's
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

    std::optional<word_rules> rules;
    if (want_words) {
        rules.emplace();
    }
    counts total;
    int status = 0;
    for (const std::string& f : files) {
        fastread::detail::path_facts facts;
        if (f != "-" && fastread::detail::stat_path(f, true, facts) == 0 && facts.info.directory) {
            // GNU wc: the error, then a row of zeros for it.
            std::fflush(stdout);
            std::fprintf(stderr, "fastread-wc: %s: Is a directory\n", f.c_str());
            print(counts{}, f.c_str());
            status = 1;
            continue;
        }
        try {
            fastread::read_source source =
                f == "-" ? fastread::read_source(0)
                         : fastread::read_source(fastread::detail::path_of(f));
            const counts c = count(source, rules ? &*rules : nullptr);
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
