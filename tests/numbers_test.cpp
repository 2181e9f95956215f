#include <fastread/numbers.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

template <class T>
std::vector<T> from_text(const std::string& text, number_options o = {}) {
    memory_source m(std::span<const char>(text.data(), text.size()));
    return numbers<T>(m, o);
}

// The error of reading `text` as T, whole and in chunks of 1, 3 and 64 bytes (the same
// error every way, checked), or an empty error.
template <class T>
fastread::error error_of(const std::string& text, number_options o = {}) {
    memory_source m(std::span<const char>(text.data(), text.size()));
    const result<std::vector<T>> whole = try_numbers<T>(m, o);
    for (std::size_t chunk : {1, 3, 64}) {
        chunked_source c(text, chunk);
        const result<std::vector<T>> streamed = try_numbers<T>(c, o);
        INFO("chunk " << chunk);
        REQUIRE(static_cast<bool>(streamed) == static_cast<bool>(whole));
        if (!whole) {
            CHECK(streamed.error().message() == whole.error().message());
            CHECK(streamed.error().line() == whole.error().line());
            CHECK(streamed.error().column() == whole.error().column());
        } else {
            CHECK(*streamed == *whole);
        }
    }
    return whole ? fastread::error() : whole.error();
}

// number_range<double> over `source` ends with the error whose message is `message`.
template <class Source>
void try_number_range_check(Source& source, const std::string& message) {
    try {
        for (double v : number_range<double>(source)) {
            (void)v;
        }
        FAIL("no error");
    } catch (const parse_error& e) {
        CHECK(std::string(e.what()) == message);
    }
}

template <class T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace

TEST_CASE("numbers: integers with signs, separators, comments, header lines and CR LF") {
    CHECK(from_text<int>("1 2 3\n-4\t+5\r\n\n  6  \n") == std::vector<int>{1, 2, 3, -4, 5, 6});
    CHECK(from_text<int>("") == std::vector<int>{});
    CHECK(from_text<int>("\n \n\t\n") == std::vector<int>{});
    CHECK(from_text<int>("7") == std::vector<int>{7});
    CHECK(from_text<int>("# a header 1 2\n1 # 2 3\n#\n4#5\n", {.comment = '#'}) ==
          std::vector<int>{1, 4});
    CHECK(from_text<int>("x y z\nalso skipped\n10 20\n", {.skip_lines = 2}) ==
          std::vector<int>{10, 20});
    CHECK(from_text<int>("only a header", {.skip_lines = 1}) == std::vector<int>{});
    CHECK(from_text<std::uint32_t>("1,2, 3 ,4\n5;6\n", {.separators = ",;"}) ==
          std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6});
    CHECK(from_text<long>("000000000000000000000000012 -0 +0") == std::vector<long>{12, 0, 0});
}

TEST_CASE("numbers: every integer type's limits, and one past them") {
    CHECK(from_text<std::int8_t>("-128 127") == std::vector<std::int8_t>{-128, 127});
    CHECK(error_of<std::int8_t>("-129").code() == errc::number_out_of_range);
    CHECK(error_of<std::int8_t>("128").code() == errc::number_out_of_range);
    CHECK(from_text<std::uint8_t>("0 255 -0") == std::vector<std::uint8_t>{0, 255, 0});
    CHECK(error_of<std::uint8_t>("256").code() == errc::number_out_of_range);
    CHECK(error_of<std::uint8_t>("-1").code() == errc::number_out_of_range);
    CHECK(from_text<std::uint16_t>("65535") == std::vector<std::uint16_t>{65535});
    CHECK(error_of<std::uint16_t>("65536").code() == errc::number_out_of_range);
    CHECK(from_text<std::int64_t>("-9223372036854775808 9223372036854775807") ==
          std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max()});
    CHECK(error_of<std::int64_t>("9223372036854775808").code() == errc::number_out_of_range);
    CHECK(error_of<std::int64_t>("-9223372036854775809").code() == errc::number_out_of_range);
    CHECK(from_text<std::uint64_t>("18446744073709551615") ==
          std::vector<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()});
    CHECK(error_of<std::uint64_t>("18446744073709551616").code() == errc::number_out_of_range);
    CHECK(error_of<std::uint64_t>("99999999999999999999999").code() == errc::number_out_of_range);
    // Every digit count from 1 to 20, leading zeros too, where 16 bytes or fewer remain.
    std::string text;
    std::vector<std::uint64_t> want;
    for (int n = 1; n <= 20; ++n) {
        for (const std::string& t : {std::string(static_cast<std::size_t>(std::min(n, 19)), '9'),
                                     "1" + std::string(static_cast<std::size_t>(n - 1), '0'),
                                     std::string(static_cast<std::size_t>(n), '0') + "7"}) {
            text += t + (n % 2 ? " " : "\n");
            want.push_back(std::strtoull(t.c_str(), nullptr, 10));
        }
    }
    CHECK(from_text<std::uint64_t>(text) == want);
    CHECK(from_text<std::uint64_t>(text.substr(0, text.size() - 1)) == want);
    const fastread::error e = error_of<std::uint8_t>("1 2\n3 300 4\n");
    CHECK(e.message() == "byte 6: line 2, column 2: \"300\" is out of range 0..255");
}

TEST_CASE("numbers: 8- and 16-bit samples through the P3 kernel, as through the scanner") {
    // Long enough for the SIMD kernel (many 64-byte windows), with comments, CR LF, long
    // tokens and leading zeros that it leaves to the scanner.
    std::mt19937_64 rng(11);
    std::string text = "P3\n# a comment 1 2 3\n";
    std::vector<int> want;
    for (int i = 0; i < 20000; ++i) {
        const int v = static_cast<int>(rng() % 256);
        text += (rng() % 50 == 0 ? "000" : "") + std::to_string(v);
        text += rng() % 9 == 0 ? (rng() % 2 ? "\r\n" : "\n") : (rng() % 7 == 0 ? "\t " : " ");
        if (rng() % 500 == 0) {
            text += "# comment 999\n";
        }
        want.push_back(v);
    }
    const number_options o{.comment = '#', .skip_lines = 1};
    const std::vector<std::uint8_t> bytes = from_text<std::uint8_t>(text, o);
    const std::vector<std::uint16_t> words = from_text<std::uint16_t>(text, o);
    const std::vector<int> ints = from_text<int>(text, o);
    CHECK(std::vector<int>(bytes.begin(), bytes.end()) == want);
    CHECK(std::vector<int>(words.begin(), words.end()) == want);
    CHECK(ints == want);
    // A value over 255 deep in the text: the error names its line and column.
    const std::size_t at = text.size() / 2;
    const std::size_t start = text.find_first_of(" \t\n", at) + 1;
    std::string bad = text;
    bad.insert(start, "256 ");
    const fastread::error e = error_of<std::uint8_t>(bad, o);
    CHECK(e.code() == errc::number_out_of_range);
    CHECK(e.offset() == start);
    CHECK(e.line() == static_cast<std::uint64_t>(std::count(
                          bad.begin(), bad.begin() + static_cast<std::ptrdiff_t>(start), '\n')) +
                          1);
}

TEST_CASE("numbers: what is not an integer or not a number") {
    for (const char* bad : {"1.5", "1e3", "0x10", "+", "-", "+-1", "--1", "1-", "12a", "nan"}) {
        INFO(bad);
        const fastread::error e = error_of<int>(std::string("5 ") + bad + " 6");
        CHECK(e.code() == errc::invalid_number);
        CHECK(e.offset() == 2u);
        CHECK(e.column() == 2u);
    }
    for (const char* bad :
         {"0x10", "1.2.3", "1e", "1e+", ".", "+-1", "++1", "e5", "in", "nanx", "1,5", "1_000"}) {
        INFO(bad);
        const fastread::error e = error_of<double>(std::string("5\n") + bad);
        CHECK(e.code() == errc::invalid_number);
        CHECK(e.line() == 2u);
        CHECK(e.column() == 1u);
    }
    const fastread::error e = error_of<double>(std::string("1 2\n3 4 1.2.3 5\n"));
    CHECK(e.message() == "byte 8: line 2, column 3: \"1.2.3\" is not a number");
    CHECK(error_of<int>(std::string("1 \0 2", 5)).message() ==
          "byte 2: line 1, column 2: \"\\x00\" is not an integer");
}

// The reference is the C library's strtod: glibc's is correctly rounded; the Windows C
// runtime's is not the reference there, so these two run on POSIX systems only.
#if !defined(_WIN32)
TEST_CASE("numbers: floating point is strtod's, bit for bit") {
    const std::vector<std::string> texts = {
        "0",
        "-0",
        "+1.5",
        "1.",
        ".5",
        "1e308",
        "1.7976931348623157e308",
        "1e309",
        "-1e400",
        "4.9e-324",
        "2e-324",
        "1e-400",
        "inf",
        "-Infinity",
        "NAN",
        "nan(123)",
        "0.1",
        "9007199254740993",
        "2.2250738585072011e-308",
        "1.00000000000000011102230246251565404236316680908203125",
        "123456789012345678901234567890"};
    std::string joined;
    for (const std::string& t : texts) {
        joined += t + "\n";
    }
    const std::vector<double> got = from_text<double>(joined);
    const std::vector<float> got_f = from_text<float>(joined);
    REQUIRE(got.size() == texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        INFO(texts[i]);
        const double want = std::strtod(texts[i].c_str(), nullptr);
        const float want_f = std::strtof(texts[i].c_str(), nullptr);
        if (std::isnan(want)) {
            CHECK(std::isnan(got[i]));
            CHECK(std::isnan(got_f[i]));
        } else {
            CHECK(same_bits(got[i], want));
            CHECK(same_bits(got_f[i], want_f));
        }
    }
}

TEST_CASE("numbers: random doubles as %.17g, %.6g and %e, and short integers, are strtod's") {
    // FASTREAD_NUMBERS_DIFFERENTIAL sets the count per format (10000000 for the closing
    // run of the numbers issue); the suite runs 100000.
    std::size_t count = 100000;
    if (const char* n = std::getenv("FASTREAD_NUMBERS_DIFFERENTIAL")) {
        count = static_cast<std::size_t>(std::strtoull(n, nullptr, 10));
    }
    std::mt19937_64 rng(42);
    for (const char* format : {"%.17g", "%.6g", "%e", "%d"}) {
        std::string text;
        text.reserve(count * 24);
        char buffer[64];
        for (std::size_t i = 0; i < count; ++i) {
            int n = 0;
            if (std::strcmp(format, "%d") == 0) {
                n = std::snprintf(buffer, sizeof buffer, "%d",
                                  static_cast<int>(rng() % 20001) - 10000);
            } else {
                // Any bit pattern that is a finite double: every magnitude, subnormals too.
                double d;
                do {
                    const std::uint64_t bits = rng();
                    std::memcpy(&d, &bits, sizeof d);
                } while (!std::isfinite(d));
                n = std::snprintf(buffer, sizeof buffer, format, d);
            }
            text.append(buffer, static_cast<std::size_t>(n));
            text += i % 3 == 2 ? '\n' : ' ';
        }
        const std::vector<double> got = from_text<double>(text);
        REQUIRE(got.size() == count);
        std::size_t differ = 0;
        const char* p = text.c_str();
        for (std::size_t i = 0; i < count; ++i) {
            char* end = nullptr;
            const double want = std::strtod(p, &end);
            differ += !same_bits(got[i], want);
            p = end;
        }
        INFO(format);
        CHECK(differ == 0);
        if (std::strcmp(format, "%d") == 0) {
            const std::vector<std::int64_t> ints = from_text<std::int64_t>(text);
            REQUIRE(ints.size() == count);
            p = text.c_str();
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < count; ++i) {
                char* end = nullptr;
                wrong += ints[i] != std::strtoll(p, &end, 10);
                p = end;
            }
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("numbers: decimals of tables (digits, '.', digits) are strtod's, bit for bit") {
    // The shapes of the short-decimal step and those around it: 1 to 9 digits before the
    // point, 0 to 18 after (over 19 in all, over 15 after, none after, none before), then a
    // separator, a line end, an exponent or a second point.
    std::mt19937_64 rng(7);
    std::string text;
    std::vector<std::string> tokens;
    char buffer[96];
    for (int i = 0; i < 200000; ++i) {
        const int before = static_cast<int>(rng() % 10);
        const int after = static_cast<int>(rng() % 19);
        std::string t = rng() % 4 == 0 ? "-" : "";
        for (int k = 0; k < before; ++k) {
            t += static_cast<char>('0' + rng() % 10);
        }
        t += '.';
        for (int k = 0; k < after; ++k) {
            t += static_cast<char>('0' + rng() % 10);
        }
        if (before + after == 0) {
            t += '5';
        }
        if (rng() % 16 == 0) {
            std::snprintf(buffer, sizeof buffer, "e%d", static_cast<int>(rng() % 41) - 20);
            t += buffer;
        }
        tokens.push_back(t);
        text += t;
        text += i % 4 == 3 ? '\n' : ',';
    }
    const std::vector<double> got = from_text<double>(text, {.separators = ","});
    REQUIRE(got.size() == tokens.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        differ += !same_bits(got[i], std::strtod(tokens[i].c_str(), nullptr));
    }
    CHECK(differ == 0);
    // A second point ends the number there: an error, as before.
    CHECK_THROWS(from_text<double>("1.25.5," + std::string(40, '1') + "\n", {.separators = ","}));
}

#endif

TEST_CASE("numbers: integers of 1 to 20 digits, leading zeros too, are strtoull's") {
    // Every count of digits the 16-byte digit step takes (1-15), the one it hands back (16
    // digits and more), and each followed by a separator, a line end or the input's end.
    std::mt19937_64 rng(16);
    std::string text;
    std::vector<std::string> tokens;
    for (int i = 0; i < 100000; ++i) {
        const int digits = 1 + static_cast<int>(rng() % 20);
        std::string t;
        for (int k = 0; k < digits; ++k) {
            t += static_cast<char>(k == 0 && digits == 20 ? '0'
                                                          : '0' + rng() % 10); // fits in 64 bits
        }
        tokens.push_back(t);
        text += t;
        if (i + 1 < 100000) {
            text += "\t \n,"[rng() % 4];
        }
    }
    const std::vector<std::uint64_t> got = from_text<std::uint64_t>(text, {.separators = " \t\n,"});
    REQUIRE(got.size() == tokens.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        differ += got[i] != std::strtoull(tokens[i].c_str(), nullptr, 10);
    }
    CHECK(differ == 0);
}

TEST_CASE("numbers: field separators, empty fields and missing separators") {
    const number_options csv{.separators = ","};
    CHECK(error_of<int>("1,,2\n", csv).message() ==
          "byte 2: line 1, column 2: no number before the separator");
    CHECK(error_of<int>("1,2\n,3\n", csv).message() ==
          "byte 4: line 2, column 1: no number before the separator");
    CHECK(error_of<int>("1,2,\n3,4\n", csv).message() ==
          "byte 4: line 1, column 3: the line ends after a separator");
    CHECK(error_of<int>("1,2,", csv).message() ==
          "byte 4: line 1, column 3: the input ends after a separator");
    CHECK(error_of<int>("1,2 3\n", csv).message() ==
          "byte 4: line 1, column 3: \"3\" follows a number without a separator");
    CHECK(error_of<int>("1 , 2 ,3\n", csv).code() == fastread::error().code());
    CHECK(error_of<int>("1,2 # three\n", {.separators = ",", .comment = '#'}).code() ==
          fastread::error().code());
}

TEST_CASE("numbers: columns are checked on every line that has a number") {
    const number_options three{.comment = '%', .columns = 3};
    CHECK(from_text<int>("% header\n1 2 3\n\n4 5 6 % six\n", three) ==
          std::vector<int>{1, 2, 3, 4, 5, 6});
    fastread::error e = error_of<int>("1 2 3\n4 5\n7 8 9\n", three);
    CHECK(e.code() == errc::wrong_column_count);
    CHECK(e.message() == "byte 9: line 2, column 3: 2 numbers on the line, 3 expected");
    e = error_of<int>("1 2 3\n4 5 6 7\n", three);
    CHECK(e.message() == "byte 12: line 2, column 4: more than 3 numbers on the line");
    e = error_of<int>("1 2 3\n4", three);
    CHECK(e.message() == "byte 7: line 2, column 2: 1 number on the line, 3 expected");
}

TEST_CASE("columns: one vector per column, each of its type") {
    temp_dir dir;
    write_file(dir / "m.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n"
                              "1 2 0.5\n3 1 -2e3\n");
    auto [i, j, v] = columns<std::uint32_t, std::uint32_t, double>(
        dir / "m.mtx", number_options{.comment = '%', .skip_lines = 0});
    CHECK(i == std::vector<std::uint32_t>{3, 1, 3});
    CHECK(j == std::vector<std::uint32_t>{3, 2, 1});
    CHECK(v == std::vector<double>{2, 0.5, -2000});
    write_file(dir / "bad.mtx", "1 2 0.5\n-3 1 2\n");
    try {
        (void)columns<std::uint32_t, std::uint32_t, double>(dir / "bad.mtx");
        FAIL("no error");
    } catch (const parse_error& err) {
        CHECK(err.offset() == 8u);
        CHECK(err.line() == 2u);
        CHECK(err.column() == 1u);
        CHECK(std::string(err.what()) == (dir / "bad.mtx").string() +
                                             ": byte 8: line 2, column 1: \"-3\" is out of "
                                             "range 0..4294967295");
    }
    auto two_columns = [&] {
        return columns<int, int>(dir / "m.mtx", number_options{.columns = 3});
    };
    CHECK_THROWS_AS(two_columns(), std::invalid_argument);
    const result<std::tuple<std::vector<int>, std::vector<int>>> r =
        try_columns<int, int>(dir / "m.mtx", number_options{.comment = '%'});
    REQUIRE(!r);
    CHECK(r.error().code() == errc::wrong_column_count);
    CHECK(r.error().line() == 3u);
}

TEST_CASE("numbers: options that cannot work are std::invalid_argument, before any read") {
    CHECK_THROWS_AS(numbers<int>("/nonexistent", number_options{.separators = "1"}),
                    std::invalid_argument);
    CHECK_THROWS_AS(numbers<int>("/nonexistent", number_options{.separators = "."}),
                    std::invalid_argument);
    CHECK_THROWS_AS(numbers<int>("/nonexistent", number_options{.separators = ",", .comment = ','}),
                    std::invalid_argument);
    CHECK_THROWS_AS(numbers<int>("/nonexistent", number_options{.comment = '\n'}),
                    std::invalid_argument);
    CHECK_THROWS_AS(numbers<int>("/nonexistent", number_options{.comment = 'e'}),
                    std::invalid_argument);
    CHECK_THROWS_AS(numbers<int>("/nonexistent"), std::system_error);
}

TEST_CASE("numbers: a token longer than 64 KiB is an error, whole or streamed") {
    std::string text = "1 2\n3 " + std::string(70000, '7') + " 4\n";
    const fastread::error e = error_of<std::uint64_t>(text);
    CHECK(e.code() == errc::token_too_long);
    CHECK(e.offset() == 6u);
    CHECK(e.line() == 2u);
    CHECK(e.column() == 2u);
    // Under the limit, a long number is read (leading zeros, many digits).
    text = std::string(60000, '0') + "42 " + "0." + std::string(60000, '0') + "1e60001";
    const std::vector<double> v = from_text<double>(text);
    REQUIRE(v.size() == 2);
    CHECK(v[0] == 42);
    CHECK(v[1] == 1);
}

TEST_CASE("numbers: a file in slices on threads reads as on one thread, errors too") {
    temp_dir dir;
    std::mt19937_64 rng(3);
    std::string text = "x y z\n# generated\n";
    while (text.size() < (std::size_t{5} << 20)) {
        text += std::to_string(rng() % 100000) + ' ' + std::to_string(rng() % 1000) + '.' +
                std::to_string(rng() % 1000) + "\t" + std::to_string(rng() % 70000) + '\n';
        if (rng() % 1000 == 0) {
            text += "# a comment line\n\n";
        }
    }
    write_file(dir / "big.txt", text);
    page_cache::preload(dir / "big.txt");
    const number_options o{.comment = '#', .skip_lines = 1};
    number_options one = o;
    one.threads = 1;
    number_options two = o;
    two.threads = 2;
    const std::vector<double> a = numbers<double>(dir / "big.txt", one);
    const std::vector<double> b = numbers<double>(dir / "big.txt", two);
    CHECK(a.size() > 500000);
    CHECK(a == b);
    auto ca = columns<std::uint32_t, double, std::uint32_t>(dir / "big.txt", one);
    auto cb = columns<std::uint32_t, double, std::uint32_t>(dir / "big.txt", two);
    CHECK(ca == cb);
    CHECK(std::get<0>(ca).size() * 3 == a.size());

    // An error late in the file: the same line and column on one thread and on two.
    const std::size_t at = text.size() - 200;
    const auto lf = static_cast<std::uint64_t>(
        std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    text.insert(at, "\n1 2 bad\n");
    write_file(dir / "bad.txt", text);
    page_cache::preload(dir / "bad.txt");
    const result<std::vector<double>> e1 = try_numbers<double>(dir / "bad.txt", one);
    const result<std::vector<double>> e2 = try_numbers<double>(dir / "bad.txt", two);
    REQUIRE(!e1);
    REQUIRE(!e2);
    CHECK(e1.error().message() == e2.error().message());
    CHECK(e1.error().line() == e2.error().line());
    CHECK(e1.error().line() == lf + 2);
    CHECK(e1.error().column() == 3u);
    CHECK(e1.error().offset() == at + 5);

    // An error early in the file stops the first slice's parse before its end: the parse
    // error on two threads as on one, not a file that shrank (the first slice stopping
    // short of its cut was once taken for a shrink).
    std::string early = text;
    const std::size_t early_at = early.find('\n', 1000) + 1;
    const auto early_lf = static_cast<std::uint64_t>(
        std::count(early.begin(), early.begin() + static_cast<std::ptrdiff_t>(early_at), '\n'));
    early.insert(early_at, "4 5 six\n");
    write_file(dir / "early.txt", early);
    page_cache::preload(dir / "early.txt");
    const result<std::vector<double>> f1 = try_numbers<double>(dir / "early.txt", one);
    const result<std::vector<double>> f2 = try_numbers<double>(dir / "early.txt", two);
    REQUIRE(!f1);
    REQUIRE(!f2);
    CHECK(f2.error().code() == f1.error().code());
    CHECK(f2.error().message() == f1.error().message());
    CHECK(f2.error().line() == early_lf + 1);
    CHECK(f2.error().column() == 3u); // the third field
    CHECK(f2.error().offset() == early_at + 4);
}

TEST_CASE("number_range: streams a source, errors after the numbers before them") {
    const std::string text = "1 2\n3\n4 x 5\n";
    chunked_source c(text, 2);
    std::vector<long> seen;
    try {
        for (long v : number_range<long>(c)) {
            seen.push_back(v);
        }
        FAIL("no error");
    } catch (const parse_error& e) {
        CHECK(e.line() == 3u);
        CHECK(e.column() == 2u);
        CHECK(e.offset() == 8u);
    }
    CHECK(seen == std::vector<long>{1, 2, 3, 4});

    chunked_source d(std::string("1.5,2.5\n3.5,4.5"), 3);
    double sum = 0;
    std::size_t n = 0;
    for (double v : number_range<double>(d, number_options{.separators = ",", .columns = 2})) {
        sum += v;
        ++n;
    }
    CHECK(n == 4);
    CHECK(sum == 12);
}

#if !defined(_WIN32)
TEST_CASE("numbers: from a pipe, through stdio_source and through a path") {
    std::FILE* p = ::popen("printf '1 2\\n3 4\\n5'", "r");
    REQUIRE(p != nullptr);
    stdio_source in(p);
    CHECK(numbers<int>(in) == std::vector<int>{1, 2, 3, 4, 5});
    ::pclose(p);

    temp_dir dir;
    const std::string fifo = (dir / "fifo").string();
    REQUIRE(std::system(("mkfifo " + fifo).c_str()) == 0);
    REQUIRE(std::system(("printf '7 8\\n9' > " + fifo + " &").c_str()) == 0);
    CHECK(numbers<int>(fifo) == std::vector<int>{7, 8, 9});
}
#endif

TEST_CASE("numbers: an empty file gives no numbers, blank and comment lines none either") {
    temp_dir dir;
    write_file(dir / "empty.txt", "");
    CHECK(numbers<double>(dir / "empty.txt").empty());
    write_file(dir / "blank.txt", "\n\n   \n# x\n");
    CHECK(numbers<double>(dir / "blank.txt", number_options{.comment = '#'}).empty());
    auto [a, b] = columns<int, int>(dir / "blank.txt", number_options{.comment = '#'});
    CHECK(a.empty());
    CHECK(b.empty());
}

// The shapes of real files (issue 55): values checked against the numbers written, which
// numpy.loadtxt reads the same (strtod's, correctly rounded).
TEST_CASE("numbers: an ASCII PLY body, its vertex block by max_rows, then its faces") {
    temp_dir dir;
    const std::string header = "ply\nformat ascii 1.0\ncomment made by a scanner\n"
                               "element vertex 3\nproperty float x\nproperty float y\n"
                               "property float z\nproperty float confidence\n"
                               "element face 2\nproperty list uchar int vertex_indices\n"
                               "end_header\n";
    write_file(dir / "bunny.ply", header + "-0.0378297 0.12794 0.00447467 0.850855\n"
                                           "-0.0447794 0.128887 0.00190497 0.900159\n"
                                           "-0.0680095 0.151244 0.0371953 0.398443\n"
                                           "3 0 1 2\n4 2 1 0 1\n");
    const std::size_t header_lines = 11;
    for (unsigned threads : {1u, 2u}) {
        INFO("threads " << threads);
        auto [x, y, z, c] = columns<float, float, float, float>(
            dir / "bunny.ply",
            number_options{.skip_lines = header_lines, .max_rows = 3, .threads = threads});
        CHECK(x == std::vector<float>{-0.0378297f, -0.0447794f, -0.0680095f});
        CHECK(z == std::vector<float>{0.00447467f, 0.00190497f, 0.0371953f});
        CHECK(c == std::vector<float>{0.850855f, 0.900159f, 0.398443f});
    }
    // The faces: a count, then that many indices; read flat after the vertices.
    CHECK(numbers<int>(dir / "bunny.ply", number_options{.skip_lines = header_lines + 3}) ==
          std::vector<int>{3, 0, 1, 2, 4, 2, 1, 0, 1});
    // max_rows counts lines with numbers, not comments or blank lines; the rest of the
    // input is not read (a bad token after the rows is no error), from a source too.
    const std::string text = "# two rows\n1 2\n\n3 4\nnot numbers\n";
    CHECK(from_text<int>(text, {.comment = '#', .max_rows = 2}) == std::vector<int>{1, 2, 3, 4});
    for (std::size_t chunk : {1, 3}) {
        chunked_source s(text, chunk);
        std::vector<int> seen;
        for (int v : number_range<int>(s, {.comment = '#', .max_rows = 1})) {
            seen.push_back(v);
        }
        CHECK(seen == std::vector<int>{1, 2});
    }
    CHECK(from_text<int>("1 2\n3", {.max_rows = 5}) == std::vector<int>{1, 2, 3});
}

TEST_CASE("columns: a pattern Matrix Market file, its values filled by ragged_fill") {
    temp_dir dir;
    write_file(dir / "jgl009.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                   "% a pattern matrix: no values\n9 9 4\n1 1\n4 1\n2 9\n9 9\n");
    auto [i, j, v] = columns<std::uint32_t, std::uint32_t, double>(
        dir / "jgl009.mtx", number_options{.comment = '%', .ragged_fill = 1.0});
    CHECK(i == std::vector<std::uint32_t>{9, 1, 4, 2, 9});
    CHECK(j == std::vector<std::uint32_t>{9, 1, 1, 9, 9});
    CHECK(v == std::vector<double>{4, 1, 1, 1, 1}); // the size line's entry count, then 1.0s
    // Filled in every column type, numbers<T> with columns too; a long line stays an error.
    CHECK(from_text<int>("1\n2 3\n", {.columns = 2, .ragged_fill = -7}) ==
          std::vector<int>{1, -7, 2, 3});
    CHECK(from_text<int>("1", {.columns = 3, .ragged_fill = 0}) == std::vector<int>{1, 0, 0});
    const fastread::error e = error_of<int>("1 2 3\n", {.columns = 2, .ragged_fill = 0});
    CHECK(e.message() == "byte 4: line 1, column 3: more than 2 numbers on the line");
    // A fill that is no value of an integer column, or with no column count: before a read.
    auto mixed = [&] { return columns<int, double>(dir / "jgl009.mtx", {.ragged_fill = 1.5}); };
    CHECK_THROWS_AS(mixed(), std::invalid_argument);
    CHECK_THROWS_AS(columns<std::uint8_t>(dir / "jgl009.mtx", {.ragged_fill = 256}),
                    std::invalid_argument);
    CHECK_THROWS_AS(columns<unsigned>(dir / "jgl009.mtx", {.ragged_fill = -1}),
                    std::invalid_argument);
    CHECK_THROWS_AS(numbers<double>(dir / "jgl009.mtx", {.ragged_fill = 1}), std::invalid_argument);
    // The ends of a 64-bit range: -2^63 fits an int64_t, 2^63 does not.
    CHECK(from_text<std::int64_t>("5", {.columns = 2, .ragged_fill = -0x1p63}) ==
          std::vector<std::int64_t>{5, std::numeric_limits<std::int64_t>::min()});
    CHECK_THROWS_AS(from_text<std::int64_t>("5", {.columns = 2, .ragged_fill = 0x1p63}),
                    std::invalid_argument);
}

TEST_CASE("numbers: a UTF-8 byte order mark at the start of any input is skipped") {
    temp_dir dir;
    const std::string bom = "\xef\xbb\xbf";
    write_file(dir / "bom.txt", bom + "0.950300 1\n2 3\n");
    CHECK(numbers<double>(dir / "bom.txt") == std::vector<double>{0.9503, 1, 2, 3});
    CHECK(from_text<double>(bom + "-1.5") == std::vector<double>{-1.5});
    CHECK(from_text<int>(bom + "7 8") == std::vector<int>{7, 8}); // the integer kernel's path
    CHECK(from_text<int>(bom).empty());
    CHECK(error_of<int>(bom + "7 8").code() == fastread::error().code()); // chunks of 1, 3, 64
    // Not a mark anywhere else; offsets count its bytes.
    CHECK(error_of<int>("1 " + bom + "2").message() ==
          "byte 2: line 1, column 2: \"\\xef\\xbb\\xbf2\" is not an integer");
    CHECK(error_of<int>(bom + "1 x").message() ==
          "byte 5: line 1, column 2: \"x\" is not an integer");
    // A big cached file in slices: the mark is skipped by the first slice.
    std::string big = bom;
    while (big.size() < (std::size_t{5} << 20)) {
        big += "1.25 2.5\n";
    }
    write_file(dir / "big.txt", big);
    page_cache::preload(dir / "big.txt");
    const std::vector<double> one = numbers<double>(dir / "big.txt", {.threads = 1});
    CHECK(numbers<double>(dir / "big.txt", {.threads = 2}) == one);
    CHECK(one.size() == (big.size() - 3) / 9 * 2);
    CHECK(one.front() == 1.25);
}

TEST_CASE("numbers: a decimal comma with semicolon separators, and Fortran D exponents") {
    temp_dir dir;
    write_file(dir / "export.csv", "Temperatur;Druck\n21,5;1013,25\n-3,125;998\n");
    auto [t, p] = columns<double, double>(
        dir / "export.csv", number_options{.separators = ";", .skip_lines = 1, .decimal = ','});
    CHECK(t == std::vector<double>{21.5, -3.125});
    CHECK(p == std::vector<double>{1013.25, 998});
    // Bit for bit what strtod gives for the text with a '.'.
    CHECK(same_bits(from_text<double>("0,1", {.decimal = ','})[0], std::strtod("0.1", nullptr)));
    CHECK(from_text<float>("1,5e3;-0,25", {.separators = ";", .decimal = ','}) ==
          std::vector<float>{1500.0f, -0.25f});
    CHECK(from_text<int>("12;34", {.separators = ";", .decimal = ','}) == std::vector<int>{12, 34});
    // With ',' a '.' is no decimal separator, and ',' is no separator.
    CHECK(error_of<double>("1.5", {.decimal = ','}).message() ==
          "byte 0: line 1, column 1: \"1.5\" is not a number");
    const number_options comma_separates{.separators = ",", .decimal = ','};
    CHECK_THROWS_AS(from_text<double>("1", comma_separates), std::invalid_argument);
    CHECK_THROWS_AS(from_text<double>("1", {.decimal = ';'}), std::invalid_argument);

    write_file(dir / "nist.dat", "  1.0D+03   2.5d-1\n -4.40D0  1.23456789012345D-300\n");
    const std::vector<double> d = numbers<double>(dir / "nist.dat", {.fortran_exponents = true});
    REQUIRE(d.size() == 4);
    CHECK(d[0] == 1000.0);
    CHECK(d[1] == 0.25);
    CHECK(d[2] == -4.4);
    CHECK(same_bits(d[3], std::strtod("1.23456789012345E-300", nullptr)));
    CHECK(error_of<double>("1.0D+03").message() ==
          "byte 0: line 1, column 1: \"1.0D+03\" is not a number");
    CHECK(error_of<double>("1.0D+03 x", {.fortran_exponents = true}).message() ==
          "byte 8: line 1, column 2: \"x\" is not a number");
    CHECK(from_text<double>("1,5D2", {.decimal = ',', .fortran_exponents = true}) ==
          std::vector<double>{150.0});
}

TEST_CASE("numbers: messages name binary formats, separators the options miss, quotes") {
    temp_dir dir;
    write_file(dir / "data.txt.gz", std::string("\x1f\x8b\x08\x00\x12\x34\x56\x78\x00\x03 x", 12));
    result<std::vector<double>> r = try_numbers<double>(dir / "data.txt.gz");
    REQUIRE(!r);
    CHECK(r.error().message() == (dir / "data.txt.gz").string() +
                                     ": byte 0: line 1, column 1: a gzip-compressed file, not "
                                     "text: decompress it first");
    CHECK(r.error().code() == errc::invalid_number);
    const std::pair<std::string, std::string> formats[] = {
        {std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16), "a PNG file, not text"},
        {"\xff\xd8\xff\xe0 JFIF", "a JPEG file, not text"},
        {"GIF89a\x01\x00", "a GIF file, not text"},
        {std::string("II*\0\x08\0\0\0", 8), "a TIFF file, not text"},
        {std::string("RIFF\x24\0\0\0WEBPVP8 ", 16), "a WebP file, not text"},
        {"\x28\xb5\x2f\xfd\x04", "a zstd-compressed file, not text: decompress it first"},
        {"BZh91AY&SY", "a bzip2-compressed file, not text: decompress it first"},
        {std::string("\xfd"
                     "7zXZ\0\0\x04",
                     8),
         "an xz-compressed file, not text: decompress it first"},
        {"PK\x03\x04\x14\x00", "a zip file, not text: decompress it first"},
        {"%PDF-1.7\n", "a PDF file, not text"},
    };
    for (const auto& [bytes, what] : formats) {
        INFO(what);
        write_file(dir / "f", bytes);
        r = try_numbers<double>(dir / "f");
        REQUIRE(!r);
        CHECK(r.error().message() == (dir / "f").string() + ": byte 0: line 1, column 1: " + what);
    }
    // From any source, in chunks of 1, 3 and 64 bytes too (error_of checks they agree), and
    // through number_range.
    for (const auto& [bytes, what] : formats) {
        INFO(what);
        CHECK(error_of<double>(bytes).message() == "byte 0: line 1, column 1: " + what);
        chunked_source s(bytes, 1);
        try_number_range_check(s, "byte 0: line 1, column 1: " + what);
    }
    // Not at the start: the token as it is.
    CHECK(error_of<int>("1 GIF89a").message() ==
          "byte 2: line 1, column 2: \"GIF89a\" is not an integer");

    // iris.csv read without separators = ",": the hint names the byte.
    CHECK(error_of<double>("150,4,setosa,versicolor,virginica\n").message() ==
          "byte 0: line 1, column 1: \"150,4,setosa,versicolor,virginica\" is not a number; the "
          "line holds ',': set separators");
    CHECK(error_of<double>("1 2\n3;4\n").message() ==
          "byte 4: line 2, column 1: \"3;4\" is not a number; the line holds ';': set separators");
    CHECK(
        error_of<int>("1|2").message() ==
        "byte 0: line 1, column 1: \"1|2\" is not an integer; the line holds '|': set separators");
    CHECK(error_of<double>("1,5.5", {.decimal = ','}).message() ==
          "byte 0: line 1, column 1: \"1,5.5\" is not a number");
    // Printable bytes as themselves, '"' and '\' too; others as \xNN.
    CHECK(error_of<double>("1 \"2\"").message() ==
          "byte 2: line 1, column 2: \"\"2\"\" is not a number");
    CHECK(error_of<double>("a\\b\x01").message() ==
          "byte 0: line 1, column 1: \"a\\b\\x01\" is not a number");
}
