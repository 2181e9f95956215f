#include <fastread/scan/decimal_list.hpp>

#include <catch2/catch.hpp>

#include "../test_bytes.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using fastread::scan::simd_level;
using fastread_test::supported_levels;

namespace {

bool is_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// The values of the whole tokens in [begin, end), by the definition: digit runs, each
// followed by whitespace. Only called on ranges a kernel consumed, which hold nothing else.
std::vector<std::uint32_t> naive_values(const char* begin, const char* end) {
    std::vector<std::uint32_t> out;
    for (const char* p = begin; p != end;) {
        if (is_space(*p)) {
            ++p;
            continue;
        }
        REQUIRE(is_digit(*p));
        std::uint64_t v = 0;
        while (p != end && is_digit(*p)) {
            v = v * 10 + static_cast<unsigned>(*p++ - '0');
        }
        REQUIRE(v <= 0xFFFFFFFFu);
        out.push_back(static_cast<std::uint32_t>(v));
    }
    return out;
}

// Runs the kernel of `level` over [begin, end) the way a parser does: call it, check what
// it did, and when it stops, step over one token or byte by hand. Every call must consume
// only whole tokens each followed by whitespace (inside the range), return exactly their
// values in order (each at most max_value), leave the position outside a token and store
// nothing beyond max_values. Returns the number of values the kernel produced.
template <class Value>
std::size_t drive(simd_level level, const char* begin, const char* end, std::uint32_t max_value,
                  std::size_t max_values = 40) {
    const auto kernel = fastread::scan::decimal_list_for<Value>(level);
    std::size_t produced = 0;
    const char* p = begin;
    while (p != end) {
        // An allocation of exactly max_values: AddressSanitizer sees a store past it.
        std::vector<Value> out(max_values);
        const char* before = p;
        const std::size_t n = kernel(&p, end, out.data(), max_values, max_value);
        REQUIRE(n <= max_values);
        REQUIRE(p >= before);
        REQUIRE(p <= end);
        if (p != before) {
            // The byte before the new position ends a token's separator or a whitespace run.
            REQUIRE(is_space(p[-1]));
            const std::vector<std::uint32_t> want = naive_values(before, p);
            REQUIRE(want.size() == n);
            for (std::size_t i = 0; i < n; ++i) {
                CAPTURE(i, want[i]);
                REQUIRE(out[i] == want[i]);
                REQUIRE(want[i] <= max_value);
            }
        } else {
            REQUIRE(n == 0);
        }
        produced += n;
        if (p == before) {
            // Step over what the kernel left: a whitespace byte, a token, or another byte.
            if (is_digit(*p)) {
                while (p != end && is_digit(*p)) {
                    ++p;
                }
            } else {
                ++p;
            }
        }
    }
    return produced;
}

// Random plain-PPM-like text: tokens of 1..max_digits digits (leading zeros included),
// whitespace runs of every kind, and at the given per-mille rates comments, stray bytes,
// tokens longer than max_digits and tokens glued to a '#'.
std::string random_text(std::mt19937& rng, std::size_t bytes, int max_digits, int odd_per_mille) {
    static const char spaces[] = {' ', '\t', '\n', '\v', '\f', '\r'};
    std::string s;
    while (s.size() < bytes) {
        const int odd =
            static_cast<int>(rng() % 1000) < odd_per_mille ? static_cast<int>(rng() % 4) : -1;
        const int digits = odd == 2 ? max_digits + 1 + static_cast<int>(rng() % 4)
                                    : 1 + static_cast<int>(rng() % max_digits);
        for (int i = 0; i < digits; ++i) {
            s += static_cast<char>('0' + rng() % 10);
        }
        if (odd == 0) {
            s += " # a comment 123 45\n";
        } else if (odd == 1) {
            s += static_cast<char>("x-+#\x80\xff\0"[rng() % 7]);
        } else if (odd == 3) {
            s += "#c\n";
        }
        const int run = rng() % 8 == 0 ? 1 + static_cast<int>(rng() % 70) : 1;
        for (int i = 0; i < run; ++i) {
            s += spaces[rng() % 8 < 5 ? 0 : rng() % 6];
        }
    }
    return s;
}

} // namespace

TEST_CASE("decimal_list: every level takes exactly the whole tokens it may", "[scan]") {
    std::mt19937 rng(11);
    for (simd_level level : supported_levels()) {
        CAPTURE(fastread::scan::to_string(level));
        for (int odd : {0, 2, 20, 200}) {
            CAPTURE(odd);
            for (int round = 0; round < 20; ++round) {
                const std::string text8 = random_text(rng, 1 + rng() % 2000, 3, odd);
                for (std::uint32_t max : {255u, 200u, 100u, 15u, 1u}) {
                    CAPTURE(max);
                    drive<std::uint8_t>(level, text8.data(), text8.data() + text8.size(), max);
                }
                const std::string text16 = random_text(rng, 1 + rng() % 2000, 5, odd);
                for (std::uint32_t max : {65535u, 65000u, 1023u, 255u, 1u}) {
                    CAPTURE(max);
                    drive<std::uint16_t>(level, text16.data(), text16.data() + text16.size(), max);
                }
            }
        }
    }
}

TEST_CASE("decimal_list: the kernels convert all but a short tail of clean text", "[scan]") {
    // Every value 0..255 and 0..65535 in a row with single separators: each kernel must
    // take every token but those within its lookahead of the end.
    std::string text8, text16;
    for (unsigned v = 0; v < 256 * 8; ++v) {
        text8 += std::to_string(v % 256) + (v % 17 == 0 ? "\n" : " ");
    }
    for (unsigned v = 0; v < 65536; v += 7) {
        text16 += std::to_string(v) + (v % 23 == 0 ? "\r\n" : " ");
    }
    for (simd_level level : supported_levels()) {
        CAPTURE(fastread::scan::to_string(level));
        const std::size_t tail = fastread::scan::decimal_list_lookahead(level);
        const std::size_t all8 = naive_values(text8.data(), text8.data() + text8.size()).size();
        const std::size_t short8 =
            naive_values(text8.data() + text8.size() - tail, text8.data() + text8.size()).size();
        CHECK(drive<std::uint8_t>(level, text8.data(), text8.data() + text8.size(), 255, 1 << 20) >=
              all8 - short8 - 1);
        const std::size_t all16 = naive_values(text16.data(), text16.data() + text16.size()).size();
        const std::size_t short16 =
            naive_values(text16.data() + text16.size() - tail, text16.data() + text16.size())
                .size();
        CHECK(drive<std::uint16_t>(level, text16.data(), text16.data() + text16.size(), 65535,
                                   1 << 20) >= all16 - short16 - 1);
    }
}

TEST_CASE("decimal_list: values at the limit are taken, one above stops the kernel", "[scan]") {
    for (simd_level level : supported_levels()) {
        CAPTURE(fastread::scan::to_string(level));
        for (std::uint32_t max : {1u, 9u, 10u, 99u, 100u, 199u, 200u, 254u, 255u}) {
            CAPTURE(max);
            std::string text;
            for (int i = 0; i < 40; ++i) {
                text += std::to_string(max) + " ";
            }
            const std::size_t at = text.size();
            text += std::to_string(max + 1) + " " + std::string(200, ' ');
            std::vector<std::uint8_t> out(64);
            const char* p = text.data();
            const auto kernel = fastread::scan::decimal_list_for<std::uint8_t>(level);
            std::size_t n = 0;
            for (int call = 0; call < 4; ++call) { // a kernel may stop at each window's end
                n += kernel(&p, text.data() + text.size(), out.data() + n, out.size() - n, max);
            }
            CHECK(n == 40);
            CHECK(p == text.data() + at);
            CHECK(out[39] == max);
        }
        for (std::uint32_t max : {256u, 999u, 1000u, 65534u, 65535u}) {
            CAPTURE(max);
            std::string text;
            for (int i = 0; i < 30; ++i) {
                text += "0" + std::to_string(max) + "\t"; // a leading zero, 4 to 6 digits
            }
            text += std::to_string(max + 1) + "\n" + std::string(200, '\n');
            std::vector<std::uint16_t> out(64);
            const char* p = text.data();
            std::size_t n = 0;
            const auto kernel = fastread::scan::decimal_list_for<std::uint16_t>(level);
            for (int call = 0; call < 40; ++call) {
                const char* before = p;
                n += kernel(&p, text.data() + text.size(), out.data() + n, out.size() - n, max);
                if (p == before) { // a token the kernel leaves: step over it by hand
                    while (is_digit(*p)) {
                        ++p;
                    }
                    out[n++] = static_cast<std::uint16_t>(max);
                }
                if (n >= 30) {
                    break;
                }
            }
            CHECK(n == 30);
            const char* stop = p;
            CHECK(kernel(&p, text.data() + text.size(), out.data(), 64, max) == 0);
            CHECK(p == stop);
        }
    }
}

TEST_CASE("decimal_list: no level reads past the end, wherever a page ends", "[scan]") {
    // Two pages, the second inaccessible: text placed to end exactly at the boundary.
    const fastread_test::guarded_page pages;
    char* boundary = pages.boundary();
    std::mt19937 rng(5);
    const std::string text = random_text(rng, 400, 3, 0);
    for (simd_level level : supported_levels()) {
        CAPTURE(fastread::scan::to_string(level));
        for (std::size_t cut = 0; cut < 64; ++cut) {
            for (std::size_t length : {cut, cut + 64, cut + 128, cut + 200}) {
                CAPTURE(cut, length);
                char* begin = boundary - length;
                std::memcpy(begin, text.data(), length);
                // Start at a token boundary: skip a partial first token.
                const char* start = begin;
                drive<std::uint8_t>(level, start, boundary, 255);
                drive<std::uint16_t>(level, start, boundary, 65535);
            }
        }
    }
}

TEST_CASE("decimal_list: a kernel stores at most max_values values", "[scan]") {
    std::string text;
    for (int i = 0; i < 100; ++i) {
        text += std::to_string(i) + " ";
    }
    for (simd_level level : supported_levels()) {
        CAPTURE(fastread::scan::to_string(level));
        for (std::size_t max_values = 0; max_values <= 40; ++max_values) {
            CAPTURE(max_values);
            std::vector<std::uint8_t> out8(max_values);
            const char* p = text.data();
            const std::size_t n = fastread::scan::decimal_list_for<std::uint8_t>(level)(
                &p, text.data() + text.size(), out8.data(), max_values, 255);
            CHECK(n <= max_values);
            for (std::size_t i = 0; i < n; ++i) {
                CHECK(out8[i] == i);
            }
            // Where it stopped: right after the separator of its last value.
            CHECK(naive_values(text.data(), p).size() == n);
            drive<std::uint16_t>(level, text.data(), text.data() + text.size(), 65535,
                                 max_values + 1);
        }
    }
}
