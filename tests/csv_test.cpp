#include <fastread/csv.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include "fastread/scan/simd_level.hpp"
#include "test_util.hpp"

namespace {

namespace csv = fastread::csv;
using rows_t = std::vector<std::vector<std::string>>;

// A source handing out `text` in chunks of `n` bytes.
struct chunked_source {
    std::string text;
    std::size_t n;
    std::size_t at = 0;
    std::span<const char> next() {
        const std::size_t k = std::min(n, text.size() - at);
        std::span<const char> r(text.data() + at, k);
        at += k;
        return r;
    }
};

// The rows of `text` read by csv::rows from chunks of `chunk` bytes (0: one memory_source),
// or the error's message prefixed with "ERROR ".
rows_t read_rows(const std::string& text, std::size_t chunk, csv::options o = {}) {
    o.header = false;
    o.ragged = csv::ragged_rows::keep;
    rows_t out;
    auto collect = [&](auto& src) {
        fastread::result<csv::rows> r = csv::try_rows(src, o);
        if (!r) {
            out.push_back({"ERROR " + r.error().message()});
            return;
        }
        for (const csv::row& row : *r) {
            out.emplace_back(row.begin(), row.end());
        }
        if (r->error().code()) {
            out.push_back({"ERROR " + r->error().message()});
        }
    };
    if (chunk == 0) {
        fastread::memory_source src(std::span<const char>(text.data(), text.size()));
        collect(src);
    } else {
        chunked_source src{text, chunk};
        collect(src);
    }
    return out;
}

struct quoting_case {
    std::string input;
    rows_t rows;
    bool open_at_end;
};

const std::vector<quoting_case> quoting_cases = {
#include "csv/quoting_cases.inc"
};

#ifdef FASTREAD_CSV_SPECTRUM_DIR
std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// csv-spectrum's expected JSON: an array of objects of string values.
std::vector<std::vector<std::pair<std::string, std::string>>>
parse_spectrum_json(const std::string& j) {
    std::vector<std::vector<std::pair<std::string, std::string>>> out;
    std::size_t i = 0;
    auto skip = [&] {
        while (i < j.size() && (j[i] == ' ' || j[i] == '\n' || j[i] == '\r' || j[i] == '\t' ||
                                j[i] == ',' || j[i] == ':')) {
            ++i;
        }
    };
    auto str = [&] {
        std::string s;
        ++i; // "
        while (j[i] != '"') {
            if (j[i] == '\\') {
                ++i;
                s += j[i] == 'n' ? '\n' : j[i] == 'r' ? '\r' : j[i];
            } else {
                s += j[i];
            }
            ++i;
        }
        ++i;
        return s;
    };
    skip();
    ++i; // [
    for (;;) {
        skip();
        if (j[i] == ']') {
            break;
        }
        ++i; // {
        std::vector<std::pair<std::string, std::string>> obj;
        for (;;) {
            skip();
            if (j[i] == '}') {
                ++i;
                break;
            }
            std::string k = str();
            skip();
            std::string v = str();
            obj.emplace_back(k, v);
        }
        out.push_back(obj);
    }
    return out;
}
#endif

} // namespace

TEST_CASE("csv: every quoting case reads as Python's csv module reads it", "[csv]") {
    for (const quoting_case& c : quoting_cases) {
        for (std::size_t chunk : {0, 1, 7, 4096}) {
            INFO("input: " << c.input << " chunk " << chunk);
            const rows_t got = read_rows(c.input, chunk);
            if (c.open_at_end) {
                REQUIRE_FALSE(got.empty());
                CHECK(got.back().at(0).find("has no closing quote") != std::string::npos);
                CHECK(rows_t(got.begin(), got.end() - 1) ==
                      rows_t(c.rows.begin(),
                             c.rows.begin() + static_cast<std::ptrdiff_t>(got.size() - 1)));
            } else {
                CHECK(got == c.rows);
            }
        }
    }
}

TEST_CASE("csv: every level of the structural kernel reads the same rows", "[csv]") {
    std::string text;
    for (int i = 0; i < 300; ++i) {
        text += std::to_string(i) + ",\"q,\"\"" +
                std::string(static_cast<std::size_t>(i % 70), 'x') + "\n\",tail" +
                std::to_string(i) + (i % 3 == 0 ? "\r\n" : "\n");
    }
    fastread::detail::force_simd_level(fastread::scan::simd_level::scalar);
    const rows_t reference = read_rows(text, 0);
    REQUIRE(reference.size() == 300);
    CHECK(reference[5] == std::vector<std::string>{"5", "q,\"xxxxx\n", "tail5"});
    for (fastread::scan::simd_level level : fastread::scan::all_levels) {
        fastread::detail::force_simd_level(level);
        CHECK(read_rows(text, 0) == reference);
        CHECK(read_rows(text, 13) == reference);
    }
    fastread::detail::reset_simd_level();
}

#ifdef FASTREAD_CSV_SPECTRUM_DIR
TEST_CASE("csv: csv-spectrum's cases read as its JSON says", "[csv]") {
    const std::filesystem::path dir = FASTREAD_CSV_SPECTRUM_DIR;
    if (!std::filesystem::exists(dir / "csvs")) {
        FAIL("csv-spectrum is not installed (Debian node-csv-spectrum): " << dir);
    }
    int cases = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "csvs")) {
        const std::string name = entry.path().stem().string();
        INFO(name);
        const auto expected = parse_spectrum_json(slurp(dir / "json" / (name + ".json")));
        std::vector<std::vector<std::pair<std::string, std::string>>> got;
        csv::rows r(entry.path());
        for (const csv::row& row : r) {
            std::vector<std::pair<std::string, std::string>> obj;
            for (std::size_t i = 0; i < row.size(); ++i) {
                obj.emplace_back(r.header()[i], std::string(row[i]));
            }
            got.push_back(obj);
        }
        CHECK(got == expected);
        ++cases;
    }
    CHECK(cases == 11);
}
#endif

TEST_CASE("csv: typed columns by name and index, missing values, conversions", "[csv]") {
    const std::string text = "\xEF\xBB\xBFid,fare,tip,vendor,ok\n"
                             "1,12.5,NA,\"CMT, Inc\",true\n"
                             "2,7.25,,VTS,FALSE\n"
                             "3,1e3,0.5,\"a \"\"b\"\"\",False\n";
    fastread::memory_source src(std::span<const char>(text.data(), text.size()));
    auto [id, fare, tip, vendor, ok] =
        csv::columns<std::uint32_t, double, std::optional<double>, std::string, bool>(
            src, {"id", 1, "tip", "vendor", "ok"});
    CHECK(id == std::vector<std::uint32_t>{1, 2, 3});
    CHECK(fare == std::vector<double>{12.5, 7.25, 1000.0});
    CHECK(tip == std::vector<std::optional<double>>{std::nullopt, std::nullopt, 0.5});
    CHECK(vendor == std::vector<std::string>{"CMT, Inc", "VTS", "a \"b\""});
    CHECK(ok == std::vector<bool>{true, false, false});
}

TEST_CASE("csv: errors name the offset, line, row and column", "[csv]") {
    const std::string text = "a,b\n1,2\n3,\"x\ny\"\n4,zz\n";
    auto err = [&](auto r) {
        REQUIRE_FALSE(r);
        return r.error();
    };
    {
        fastread::memory_source src(std::span<const char>(text.data(), text.size()));
        const fastread::error e = err(csv::try_columns<int, int>(src, {"a", "b"}));
        CHECK(e.message() ==
              "byte 10: line 3, row 2, column 2 (\"b\"): \"x\ny\" is not a 32-bit integer");
        CHECK(e.code() == fastread::errc::invalid_number);
        CHECK(e.line() == 3);
        CHECK(e.column() == 2);
    }
    {
        fastread::memory_source src(std::span<const char>(text.data(), text.size()));
        const fastread::error e = err(csv::try_columns<int>(src, {"c"}));
        CHECK(e.code() == fastread::errc::invalid_argument);
        CHECK(e.message() == "csv::columns: no column named \"c\" in the header");
    }
    {
        const std::string t = "a,b\n1,2\n3\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        const fastread::error e = err(csv::try_columns<int>(src, {"a"}));
        CHECK(e.message() == "byte 8: line 3, row 2: a row of 1 fields, the header has 2");
        CHECK(e.code() == fastread::errc::wrong_column_count);
    }
    {
        const std::string t = "a,b\n1,2\n3,\"open\n\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        const fastread::error e = err(csv::try_columns<int>(src, {"a"}));
        CHECK(e.message() == "byte 10: line 3, row 2, column 2 (\"b\"): the quoted field opened "
                             "here (line 1 of the read) has no closing quote");
    }
    {
        const std::string t = "a\n1\nNA\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        const fastread::error e = err(csv::try_columns<int>(src, {"a"}));
        CHECK(e.code() == fastread::errc::missing_value);
        CHECK(e.message() == "byte 4: line 3, row 2, column 1 (\"a\"): a missing value (\"NA\") in "
                             "a column that is not std::optional");
    }
    {
        const std::string t = "a\n1\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        CHECK_THROWS_AS(csv::columns<int>(src, {"zz"}), std::invalid_argument);
        fastread::memory_source src2(std::span<const char>(t.data(), t.size()));
        CHECK_THROWS_AS(csv::columns<int>(src2, {0}, {.delimiter = '\n'}), std::invalid_argument);
    }
}

TEST_CASE("csv: options: TSV, skip_lines, comment, trim, ragged, strict, escape, limits", "[csv]") {
    auto one = [](const std::string& t, csv::options o) {
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        rows_t out;
        csv::rows r(src, o);
        for (const csv::row& row : r) {
            out.emplace_back(row.begin(), row.end());
        }
        return out;
    };
    CHECK(one("title line\na\tb\n1\t2\n", {.delimiter = '\t', .skip_lines = 1}) ==
          rows_t{{"1", "2"}});
    CHECK(one("a,b\n# note, \"x\n1,2\n", {.comment = '#'}) == rows_t{{"1", "2"}});
    CHECK(one("a,b\n  1 , \"x\"  \n", {.trim = true}) == rows_t{{"1", "x"}});
    CHECK(one("a,b\n1\n2,3\n", {.ragged = csv::ragged_rows::fill}) ==
          rows_t{{"1", ""}, {"2", "3"}});
    CHECK(one("a,b\n1\n2,3\n", {.ragged = csv::ragged_rows::skip}) == rows_t{{"2", "3"}});
    CHECK(one("a,b\n\"x\\\"y\",z\\,w\n", {.escape = '\\'}) == rows_t{{"x\"y", "z,w"}});
    CHECK(one("a\n'x,y'\n", {.quote = '\''}) == rows_t{{"x,y"}});
    CHECK(one("a\n\"x\n", {.quote = 0}) == rows_t{{"\"x"}});
    {
        const std::string t = "a,b\n1,x\"y\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        fastread::result<csv::rows> r = csv::try_rows(src, {.strict = true});
        REQUIRE(r);
        for ([[maybe_unused]] const csv::row& row : *r) {
        }
        CHECK(r->error().message() == "byte 7: line 2, row 1, column 2 (\"b\"): a quote inside an "
                                      "unquoted field (csv::options::strict)");
    }
    {
        const std::string t = "a\n\"" + std::string(100, 'x') + "\"\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        fastread::result<csv::rows> r = csv::try_rows(src, {.max_field_bytes = 50});
        REQUIRE(r);
        for ([[maybe_unused]] const csv::row& row : *r) {
        }
        CHECK(r->error().code() == fastread::errc::over_limit);
        CHECK(r->error().offset() == 2);
    }
    // An empty input, a header alone.
    CHECK(one("", {}).empty());
    CHECK(one("a,b\n", {}).empty());
}

TEST_CASE("csv: a quoted field's end found from the blocks' masks is the byte walk's, at every "
          "level",
          "[csv]") {
    // Quotes, LFs, CRs, delimiters and other bytes at random, in buffers of several lengths
    // (block and window boundaries, a CR at bit 63, a buffer ending in a CR or a quote);
    // from every byte, the closing quote, the line ends counted and `doubled` must be the
    // walk's over every structural byte.
    std::uint64_t state = 7;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<unsigned>(state >> 33);
    };
    using fastread::detail::csv_closing_quote;
    using fastread::detail::csv_closing_quote_walk;
    using fastread::detail::csv_cursor;
    const fastread::detail::csv_dialect d;
    for (const std::size_t size :
         {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{129},
          std::size_t{16384 + 130}, std::size_t{40000}}) {
        for (int density = 0; density < 3; ++density) {
            std::string text;
            for (std::size_t i = 0; i < size; ++i) {
                const unsigned r = next() % (density == 0 ? 10 : density == 1 ? 40 : 400);
                text += r == 0 ? '"' : r == 1 ? '\n' : r == 2 ? '\r' : r == 3 ? ',' : 'a';
            }
            if (size > 64 && density == 1) {
                text[63] = '\r'; // a CR at bit 63, then an LF, then none
                text[64] = '\n';
            }
            for (const auto level :
                 {fastread::scan::simd_level::scalar, fastread::scan::simd_level::sse2,
                  fastread::scan::simd_level::avx2, fastread::scan::simd_level::avx512}) {
                const char* base = text.data();
                const char* end = base + text.size();
                csv_cursor walk(d, level), blocks(d, level);
                walk.reset(base, end);
                blocks.reset(base, end);
                std::size_t mismatches = 0;
                for (std::size_t i = 0; i <= text.size(); i += 1 + next() % 3) {
                    std::uint64_t lines_walk = 0, lines_blocks = 0;
                    bool doubled_walk = false, doubled_blocks = false;
                    walk.rewind();
                    blocks.rewind();
                    const char* a = csv_closing_quote_walk(base + i, end, walk, '"', ',',
                                                           lines_walk, doubled_walk);
                    const char* b = csv_closing_quote(base + i, end, blocks, '"', ',', lines_blocks,
                                                      doubled_blocks);
                    if (a != b || (a != nullptr && (lines_walk != lines_blocks ||
                                                    doubled_walk != doubled_blocks))) {
                        INFO("size " << size << ", density " << density << ", level "
                                     << static_cast<int>(level) << ", from " << i);
                        CHECK(a == b);
                        CHECK(lines_walk == lines_blocks);
                        CHECK(doubled_walk == doubled_blocks);
                        ++mismatches;
                    }
                    if (mismatches > 3) {
                        break;
                    }
                }
                CHECK(mismatches == 0);
            }
        }
    }
    // A dialect with an escape byte takes the walk (the escape ends the fast reading).
    fastread::detail::csv_dialect e;
    e.escape = '\\';
    const std::string text = "ab\\c\"x";
    csv_cursor c(e);
    c.reset(text.data(), text.data() + text.size());
    std::uint64_t lines = 0;
    bool doubled = false;
    CHECK(csv_closing_quote(text.data(), text.data() + text.size(), c, '"', ',', lines, doubled) ==
          nullptr);
    // A field over a window's end: its line ends counted in both.
    std::string big(40000, 'x');
    for (std::size_t i = 100; i < big.size(); i += 997) {
        big[i] = '\n';
    }
    big[39000] = '"';
    big += ",";
    csv_cursor w(d);
    w.reset(big.data(), big.data() + big.size());
    lines = 0;
    CHECK(csv_closing_quote(big.data(), big.data() + big.size(), w, '"', ',', lines, doubled) ==
          big.data() + 39000);
    CHECK(lines == static_cast<std::uint64_t>(std::count(big.begin(), big.begin() + 39000, '\n')));
}

TEST_CASE("csv: the parity pass counts as a byte-by-byte reading, at every level", "[csv]") {
    // Quotes, LFs and other bytes at random; each part read from several offsets in pieces
    // of several sizes (whole 64-byte blocks and tails), against the count byte by byte.
    std::uint64_t state = 99;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<unsigned>(state >> 33);
    };
    std::string text;
    for (int i = 0; i < 20000; ++i) {
        const unsigned r = next() % 10;
        text += r < 2 ? '"' : r < 4 ? '\n' : r < 5 ? ',' : 'a';
    }
    using fastread::detail::csv_part_parity;
    for (const std::size_t from :
         {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{4097}}) {
        {
            csv_part_parity want;
            for (std::size_t i = from; i < text.size(); ++i) {
                if (text[i] == '"') {
                    want.odd = !want.odd;
                } else if (text[i] == '\n') {
                    // Inside quotes, had the part started outside them.
                    const bool inside = want.odd;
                    (inside ? want.lf_odd : want.lf_even) += 1;
                    std::uint64_t& first = inside ? want.first_odd : want.first_even;
                    if (first == UINT64_MAX) {
                        first = i;
                    }
                }
            }
            for (const auto level :
                 {fastread::scan::simd_level::scalar, fastread::scan::simd_level::sse2,
                  fastread::scan::simd_level::avx2, fastread::scan::simd_level::avx512}) {
                for (const std::size_t piece : {std::size_t{64 * 64 * 3}, std::size_t{100}}) {
                    csv_part_parity got;
                    const auto add = fastread::detail::csv_parity_add_for(level);
                    const auto masks = fastread::detail::byte_set_masks_for(level);
                    for (std::size_t at = from; at < text.size(); at += piece) {
                        const std::size_t n = std::min(piece, text.size() - at);
                        add(got, text.data() + at, text.data() + at + n, at, '"', masks);
                    }
                    INFO("from " << from << ", level " << static_cast<int>(level) << ", piece "
                                 << piece);
                    CHECK(got.odd == want.odd);
                    CHECK(got.lf_even == want.lf_even);
                    CHECK(got.lf_odd == want.lf_odd);
                    CHECK(got.first_even == want.first_even);
                    CHECK(got.first_odd == want.first_odd);
                }
            }
        }
    }
}

TEST_CASE("csv: a file cut for 2 threads where a guess would go wrong reads as on 1 thread",
          "[csv]") {
    // Every record holds quoted line ends, so the first LF after any cut is inside quotes
    // two times in three; quotes inside unquoted fields in the second file break the parity.
    // The third file's head (its first 64 KiB and more) has no quote, so its cuts are
    // guessed and checked: the first LF after the cut is inside quotes there.
    for (int variant = 0; variant < 3; ++variant) {
        fastread_test::temp_dir dir;
        const auto path = dir.path() / "quoted.csv";
        std::string text = "id,text,value\n";
        std::int64_t id_sum = 0;
        for (std::int64_t i = 0; variant == 2 && text.size() < (std::size_t{1} << 20); ++i) {
            text += std::to_string(i) + ",plain," + std::to_string(i) + ".5\n";
        }
        for (std::int64_t i = 0; text.size() < (std::size_t{6} << 20); ++i) {
            text += std::to_string(i) + ",\"line one\nline, two\n" +
                    (variant == 1 && i % 1000 == 7 ? std::string("x") : std::string()) + "\"," +
                    std::to_string(i) + ".5\n";
            if (variant == 1 && i == 1000) { // one quote: the parity after it is wrong
                text += std::to_string(i) + "b,a\"b,1\n";
            }
            id_sum += i;
        }
        { std::ofstream(path, std::ios::binary) << text; }
        auto read = [&](unsigned threads) {
            return csv::try_columns<std::string, std::string, double>(path, {"id", "text", "value"},
                                                                      {.threads = threads});
        };
        const auto one = read(1);
        const auto two = read(2);
        REQUIRE(one);
        REQUIRE(two);
        CHECK(*one == *two);
        CHECK(std::get<1>(*one)[3] == (variant == 2 ? "plain" : "line one\nline, two\n"));
        // The same columns stored flat: the slices' text columns joined in order.
        const auto flat = csv::try_columns<csv::text, csv::text, double>(
            path, {"id", "text", "value"}, {.threads = 2});
        REQUIRE(flat);
        const csv::text_column& texts = std::get<1>(*flat);
        CHECK(std::vector<std::string>(texts.begin(), texts.end()) == std::get<1>(*one));
        CHECK(std::vector<std::string>(std::get<0>(*flat).begin(), std::get<0>(*flat).end()) ==
              std::get<0>(*one));
        // An error near the end: the same message on both.
        text += "oops,\"x\",y\n";
        { std::ofstream(path, std::ios::binary) << text; }
        const auto e1 =
            csv::try_columns<std::string, std::string, double>(path, {0, 1, 2}, {.threads = 1});
        const auto e2 =
            csv::try_columns<std::string, std::string, double>(path, {0, 1, 2}, {.threads = 2});
        REQUIRE_FALSE(e1);
        REQUIRE_FALSE(e2);
        CHECK(e1.error().message() == e2.error().message());
        CHECK(e1.error().line() == e2.error().line());
        (void)id_sum;
    }
}

TEST_CASE("csv: numeric columns read the same through the fast path and the tokenizer", "[csv]") {
    // Fields of every shape a number column meets; a column asked for twice keeps the
    // second read off the fast path, so both readings are compared field for field.
    const char* doubles[] = {"1",   "-2.5", "+3",   "1e5", "NaN", "inf",  "",    "\"4\"",
                             "nan", "NA",   "-0.0", ".5",  "8.",  "1E-3", "null"};
    const char* integers[] = {"1", "+3", "", "NA", "\"4\"", "-17", "007"};
    auto text_of = [&](const char* bad) {
        std::string text = "a,b,c\n";
        std::uint64_t state = 12345;
        for (int i = 0; i < 3000; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const std::size_t pick = (state >> 33) % 40;
            text +=
                pick < std::size(doubles) ? doubles[pick] : std::to_string(state % 100000) + ".25";
            text += ',';
            text +=
                pick % 9 < std::size(integers) ? integers[pick % 9] : std::to_string(state % 977);
            text += ',';
            text += i == 2000 && bad != nullptr ? bad : std::to_string(i);
            text += i % 7 == 0 ? "\r\n" : "\n";
            if (i % 500 == 0) {
                text += "\n";
            }
        }
        return text;
    };
    struct fast {};
    struct slow {};
    auto read = [&](const std::string& text, auto path, std::size_t chunk) {
        chunked_source src{text, chunk};
        using D = std::optional<double>;
        using I = std::optional<std::int64_t>;
        if constexpr (std::is_same_v<decltype(path), slow>) {
            auto r = csv::try_columns<D, I, D, D>(src, {"a", "b", "c", "c"});
            return r ? fastread::result<std::tuple<std::vector<D>, std::vector<I>, std::vector<D>>>(
                           std::tuple{std::get<0>(*r), std::get<1>(*r), std::get<2>(*r)})
                     : fastread::result<std::tuple<std::vector<D>, std::vector<I>, std::vector<D>>>(
                           r.error());
        } else {
            return csv::try_columns<D, I, D>(src, {"a", "b", "c"});
        }
    };
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{7}}) {
        const std::string text = text_of(nullptr);
        const auto a = read(text, fast{}, chunk);
        const auto b = read(text, slow{}, chunk);
        REQUIRE(a);
        REQUIRE(b);
        const auto& x = std::get<0>(*a);
        const auto& y = std::get<0>(*b);
        REQUIRE(x.size() == 3000);
        REQUIRE(y.size() == 3000);
        bool same = true;
        for (std::size_t i = 0; i < x.size(); ++i) {
            same = same && x[i].has_value() == y[i].has_value() &&
                   (!x[i] || std::memcmp(&*x[i], &*y[i], sizeof(double)) == 0);
        }
        CHECK(same);
        CHECK(std::get<1>(*a) == std::get<1>(*b));
        CHECK(std::get<2>(*a)[2999] == 2999.0);
        // A field that does not convert: the same error either way.
        for (const char* bad : {"0x10", " 6", "7 ", "5\"", "1.5e", "\"x\"y", "1,2"}) {
            INFO(bad);
            const std::string broken = text_of(bad);
            const auto e = read(broken, fast{}, chunk);
            REQUIRE_FALSE(e);
            chunked_source src{broken, chunk};
            const auto f = csv::try_columns<std::optional<double>, std::optional<std::int64_t>,
                                            double, std::string>(src, {"a", "b", "c", "c"});
            REQUIRE_FALSE(f);
            CHECK(e.error().message() == f.error().message());
        }
    }
}

TEST_CASE("csv: ISO 8601 dates and timestamps, exact, through the fast path and the tokenizer",
          "[csv]") {
    using namespace std::chrono;
    using stamp = sys_time<nanoseconds>;
    const sys_days d = sys_days{year{2024} / 1 / 31};
    // Each good field with the value std::chrono's arithmetic gives it.
    const std::vector<std::pair<std::string, stamp>> stamps = {
        {"2024-01-31 12:34:56", d + 12h + 34min + 56s},
        {"2024-01-31T12:34:56.123456789Z", d + 12h + 34min + 56s + 123456789ns},
        {"2024-01-31t12:34:56,5+01:00", d + 11h + 34min + 56s + 500ms},
        {"2024-01-31T00:00:00-05:30", d + 5h + 30min},
        {"2024-01-31T23:30:00-01:00", d + 24h + 30min},
        {"2024-01-31", stamp(d)},
        {"1969-12-31T23:59:59.5Z", sys_days{year{1970} / 1 / 1} - 500ms},
        {"2262-04-11T23:47:16.854775807Z", stamp(nanoseconds(INT64_MAX))},
        {"1677-09-21T00:12:43.145224192Z", stamp(nanoseconds(INT64_MIN))},
    };
    const std::vector<std::pair<std::string, sys_days>> dates = {
        {"2024-02-29", sys_days{year{2024} / 2 / 29}},
        {"2000-02-29", sys_days{year{2000} / 2 / 29}},
        {"1970-01-01", sys_days{}},
        {"0000-01-01", sys_days{year{0} / 1 / 1}},
        {"9999-12-31", sys_days{year{9999} / 12 / 31}},
        {"1899-12-31", sys_days{year{1899} / 12 / 31}},
    };
    std::string text = "t,d,t2,d2\n";
    std::vector<stamp> want_t;
    std::vector<sys_days> want_d;
    for (int i = 0; i < 2000; ++i) {
        const auto& [ts, tv] = stamps[static_cast<std::size_t>(i) % stamps.size()];
        const auto& [ds, dv] = dates[static_cast<std::size_t>(i * 7) % dates.size()];
        const std::string field = ts.find(',') != std::string::npos ? '"' + ts + '"' : ts;
        text += field + "," + ds + "," + field + "," + ds + (i % 5 == 0 ? "\r\n" : "\n");
        want_t.push_back(tv);
        want_d.push_back(dv);
    }
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{7}}) {
        INFO(chunk);
        chunked_source fast_src{text, chunk};
        auto [t, dd] = csv::columns<stamp, sys_days>(fast_src, {"t", "d"});
        CHECK(t == want_t);
        CHECK(dd == want_d);
        // A column asked for twice keeps the record off the fast path: the tokenizer's reading.
        chunked_source slow_src{text, chunk};
        auto [t1, t2, d1, d2] =
            csv::columns<stamp, stamp, sys_days, sys_days>(slow_src, {"t", 2, "d", "d"});
        CHECK(t1 == want_t);
        CHECK(t2 == want_t);
        CHECK(d2 == want_d);
    }
    // Missing values in optional columns; quoted fields.
    {
        const std::string t = "a,b\n2024-01-31,NA\n,\"2024-02-01 10:00:00\"\n\"2024-03-01\",\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        auto [a, b] = csv::columns<std::optional<sys_days>, std::optional<stamp>>(src, {"a", "b"});
        CHECK(a ==
              std::vector<std::optional<sys_days>>{d, std::nullopt, sys_days{year{2024} / 3 / 1}});
        CHECK(b == std::vector<std::optional<stamp>>{
                       std::nullopt, sys_days{year{2024} / 2 / 1} + 10h, std::nullopt});
    }
    // What is not one: an error naming row and column, the same on both paths.
    for (const char* bad : {"2023-02-29",
                            "2024-13-01",
                            "2024-04-31",
                            "2024-00-10",
                            "2024-1-01",
                            "24-01-01",
                            "2024/01/01",
                            "2024-01-31x",
                            "2024-01-31 24:00:00",
                            "2024-01-31 12:60:00",
                            "2024-01-31 12:00:60",
                            "2024-01-31 12:00",
                            "2024-01-31T12:00:00.",
                            "2024-01-31T12:00:00.1234567891",
                            "2024-01-31T12:00:00+1:00",
                            "2024-01-31T12:00:00+01",
                            "2024-01-31T12:00:00+01:00x",
                            "2024-01-31_12:00:00",
                            "2262-04-11T23:47:16.854775808Z",
                            "1677-09-21T00:12:43.145224191Z",
                            "-2024-01-31",
                            " 2024-01-31"}) {
        INFO(bad);
        const std::string t = "a,b\n2024-01-31,1\n" + std::string(bad) + ",2\n";
        fastread::memory_source s1(std::span<const char>(t.data(), t.size()));
        const auto fast_read = csv::try_columns<stamp>(s1, {"a"});
        fastread::memory_source s2(std::span<const char>(t.data(), t.size()));
        const auto slow_read = csv::try_columns<stamp, stamp>(s2, {"a", "a"});
        REQUIRE_FALSE(fast_read);
        REQUIRE_FALSE(slow_read);
        CHECK(fast_read.error().code() == fastread::errc::invalid_date);
        CHECK(fast_read.error().message() ==
              "byte 17: line 3, row 2, column 1 (\"a\"): \"" + std::string(bad) +
                  "\" is not a timestamp (ISO 8601, years 1678 to 2261)");
        CHECK(slow_read.error().message() == fast_read.error().message());
    }
    {
        const std::string t = "a\n2024-01-31 00:00:00\n";
        fastread::memory_source src(std::span<const char>(t.data(), t.size()));
        const auto r = csv::try_columns<sys_days>(src, {"a"});
        REQUIRE_FALSE(r);
        CHECK(r.error().message() ==
              "byte 2: line 2, row 1, column 1 (\"a\"): \"2024-01-31 00:00:00\" is not a date "
              "(YYYY-MM-DD)");
    }
}

TEST_CASE("csv: every YYYY-MM-DD of years 0000 to 9999 is std::chrono's date, or none where it "
          "names no day",
          "[csv]") {
    // Months 00 to 13 and days 00 to 32 of every year: what the date parser says is
    // year_month_day's ok(), and its day count is sys_days'.
    using namespace std::chrono;
    std::size_t wrong = 0, days = 0;
    char text[11] = "0000-00-00";
    for (int y = 0; y <= 9999; ++y) {
        for (int k = 0, v = y; k < 4; ++k, v /= 10) {
            text[3 - k] = static_cast<char>('0' + v % 10);
        }
        for (unsigned m = 0; m <= 13; ++m) {
            for (unsigned d = 0; d <= 32; ++d) {
                text[5] = static_cast<char>('0' + m / 10);
                text[6] = static_cast<char>('0' + m % 10);
                text[7] = '-';
                text[8] = static_cast<char>('0' + d / 10);
                text[9] = static_cast<char>('0' + d % 10);
                const year_month_day ymd{year{y}, month{m}, day{d}};
                sys_days got{};
                const bool ok = fastread::detail::parse_csv_date(std::string_view(text, 10), got);
                wrong += ok != ymd.ok() || (ok && got != sys_days{ymd});
                days += ok;
            }
        }
    }
    CHECK(wrong == 0);
    CHECK(days == 3652425); // 10,000 Gregorian years: 146,097 days every 400
}

TEST_CASE("csv: text_column holds fields flat, views stable across moves", "[csv]") {
    csv::text_column c;
    CHECK(c.empty());
    CHECK(c.begin() == c.end());
    const std::vector<std::string> fields = {"", "a", std::string(100, 'x'), "tail", ""};
    for (const std::string& f : fields) {
        c.push_back(f);
    }
    REQUIRE(c.size() == 5);
    CHECK(c[0].empty());
    CHECK(c[2] == std::string(100, 'x'));
    CHECK(c.at(3) == "tail");
    CHECK_THROWS_AS(c.at(5), std::out_of_range);
    CHECK(c.bytes().size() == 105);
    CHECK(std::vector<std::string>(c.begin(), c.end()) == fields);
    CHECK(c.end() - c.begin() == 5);
    CHECK(c.begin()[3] == "tail");
    static_assert(std::random_access_iterator<csv::text_column::iterator>);
    const std::string_view view = c[2];
    csv::text_column moved = std::move(c);
    CHECK(c.empty()); // NOLINT(bugprone-use-after-move): a move leaves it empty
    CHECK(c.bytes().empty());
    CHECK(view.data() == moved[2].data()); // the bytes did not move
    csv::text_column copy = moved;
    CHECK(copy == moved);
    CHECK(copy[2].data() != moved[2].data());
    copy.append(moved);
    REQUIRE(copy.size() == 10);
    CHECK(copy[8] == "tail");
    CHECK(copy[7] == std::string(100, 'x'));
    // A field written in place (at most `max` bytes), the last one taken back.
    const std::string_view w = copy.push_back_written(5, [](char* dst) {
        std::memcpy(dst, "abc", 3);
        return 3;
    });
    CHECK(w == "abc");
    REQUIRE(copy.size() == 11);
    CHECK(copy.back() == "abc");
    CHECK(copy.bytes().size() == 2 * 105 + 3);
    CHECK(copy.push_back_written(0, [](char*) { return 7; }).empty()); // max 0: nothing written
    CHECK(copy.size() == 12);
    copy.pop_back();
    copy.pop_back();
    CHECK(copy.size() == 10);
    CHECK(copy.back().empty());
    CHECK(copy.bytes().size() == 2 * 105);
    copy.push_back("z");
    CHECK(copy[10] == "z");
    CHECK(copy[9].empty());
    copy.clear();
    CHECK(copy.empty());
    CHECK_FALSE(copy == moved);
    csv::text_column one;
    one.push_back("only");
    one.pop_back();
    CHECK(one.empty());
    CHECK(one.bytes().empty());
}

TEST_CASE("csv: text columns read the same through the fast path and the tokenizer", "[csv]") {
    // Fields of every shape a text column meets: quoted (line ends, delimiters, doubled
    // quotes inside), empty, missing spellings, a quote inside an unquoted field, CR LF.
    const char* shapes[] = {"plain",
                            "",
                            "NA",
                            "\"q,1\"",
                            "\"a\"\"b\"",
                            "x\"y",
                            "\"\"",
                            "null",
                            "\"l\nm\"",
                            "N/A",
                            "ab cd",
                            "-1.5",
                            "\"c\rd\r\ne\"",
                            "\"e\"f",
                            "\"NA\"",
                            "\"\"\"\"",
                            "\"long text, quoted\""};
    std::string text = "s,t,n\n";
    std::uint64_t state = 99;
    for (int i = 0; i < 4000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        text += shapes[(state >> 33) % std::size(shapes)];
        text += ',';
        text += shapes[(state >> 40) % std::size(shapes)];
        text += ',' + std::to_string(i) + (i % 5 == 0 ? "\r\n" : "\n");
    }
    using S = std::optional<std::string>;
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{7}}) {
        INFO(chunk);
        chunked_source a_src{text, chunk};
        const auto fast = csv::try_columns<S, S, int>(a_src, {"s", "t", "n"});
        chunked_source b_src{text, chunk};
        // A column asked for twice keeps this read off the fast path.
        const auto slow = csv::try_columns<S, S, int, int>(b_src, {"s", "t", "n", "n"});
        REQUIRE(fast);
        REQUIRE(slow);
        CHECK(std::get<0>(*fast) == std::get<0>(*slow));
        CHECK(std::get<1>(*fast) == std::get<1>(*slow));
        CHECK(std::get<2>(*fast) == std::get<2>(*slow));
        // Without missing spellings every field is text: flat, as strings, either path.
        const csv::options none{.missing = {}};
        chunked_source c_src{text, chunk};
        const auto flat = csv::try_columns<csv::text, std::string>(c_src, {"s", "t"}, none);
        chunked_source d_src{text, chunk};
        const auto strings =
            csv::try_columns<std::string, std::string, int, int>(d_src, {"s", "t", "n", "n"}, none);
        REQUIRE(flat);
        REQUIRE(strings);
        const csv::text_column& s = std::get<0>(*flat);
        CHECK(std::vector<std::string>(s.begin(), s.end()) == std::get<0>(*strings));
        CHECK(std::get<1>(*flat) == std::get<1>(*strings));
        // A missing value in a column that is not optional: the same error either way.
        chunked_source e_src{text, chunk};
        const auto e = csv::try_columns<csv::text, std::string>(e_src, {"s", "t"});
        chunked_source f_src{text, chunk};
        const auto f =
            csv::try_columns<csv::text, std::string, int, int>(f_src, {"s", "t", "n", "n"});
        REQUIRE_FALSE(e);
        REQUIRE_FALSE(f);
        CHECK(e.error().code() == fastread::errc::missing_value);
        CHECK(e.error().message() == f.error().message());
        // A field over the limit, quoted or not: the same error either way.
        const csv::options small{.missing = {}, .max_field_bytes = 8};
        chunked_source g_src{text, chunk};
        const auto g = csv::try_columns<csv::text, std::string>(g_src, {"s", "t"}, small);
        chunked_source h_src{text, chunk};
        const auto h =
            csv::try_columns<csv::text, std::string, int, int>(h_src, {"s", "t", "n", "n"}, small);
        REQUIRE_FALSE(g);
        REQUIRE_FALSE(h);
        CHECK(g.error().code() == fastread::errc::over_limit);
        CHECK(g.error().message() == h.error().message());
    }
}

TEST_CASE("csv: a FIFO is streamed and a directory is an error naming it", "[csv]") {
    fastread_test::temp_dir dir;
    const auto fifo = dir.path() / "fifo.csv";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << "a,b\n1,2\n3,4\n"; });
    const auto [a, b] = csv::columns<int, int>(fifo, {"a", "b"}, {.threads = 2});
    writer.join();
    CHECK(a == std::vector<int>{1, 3});
    CHECK(b == std::vector<int>{2, 4});
    const auto r = csv::try_columns<int>(dir.path(), {0});
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == std::errc::is_a_directory);
    CHECK_THROWS_AS(csv::rows(dir.path()), std::system_error);
}

TEST_CASE("csv::count_rows: what iterating csv::rows counts, from a source, a file and slices",
          "[csv]") {
    // The rows csv::rows hands out of `text` (or of the file `path`: its errors name it), or
    // its error's message.
    auto by_rows = [](const std::string& text, const csv::options& o,
                      const std::filesystem::path& path = {}) -> std::string {
        fastread::memory_source src(std::span<const char>(text.data(), text.size()));
        fastread::result<csv::rows> r =
            path.empty() ? csv::try_rows(src, o) : csv::try_rows(path, o);
        if (!r) {
            return "ERROR " + r.error().message();
        }
        std::uint64_t n = 0;
        for (const csv::row& row : *r) {
            (void)row;
            ++n;
        }
        return r->error().code() ? "ERROR " + r->error().message() : std::to_string(n);
    };
    auto counted = [](const fastread::result<std::uint64_t>& r) {
        return r ? std::to_string(*r) : "ERROR " + r.error().message();
    };
    struct item {
        std::string text;
        csv::options o;
        std::string want;
    };
    const std::vector<item> cases = {
        {"a,b\n1,2\n3,4\n", {}, "2"},
        {"a,b\n1,2\n3,4", {}, "2"}, // the last line without LF
        {"a,b\r\n1,2\r\n\r\n\n3,4\r\n", {}, "2"},
        {"a,b\n\"1\n2\",x\n\"\"\"\",y\n", {}, "2"},
        {"a,b\n# note, \"x\n1,2\n", {.comment = '#'}, "1"},
        {"a,b\n1\n2,3\n", {.ragged = csv::ragged_rows::skip}, "1"},
        {"a,b\n1\n2,3\n", {.ragged = csv::ragged_rows::fill}, "2"},
        {"a,b\n1,2\n", {.header = false}, "2"},
        {"a,b\n  1 , \"x\"  \n", {.trim = true}, "1"},
        {"a,b\n\"x\\\"y\",z\\,w\n", {.escape = '\\'}, "1"},
        {"a,b\n", {}, "0"},
        {"", {}, "0"},
        {"a,b\n1,2,3\n", {}, ""}, // an error: csv::rows' own
        {"a,b\n1,\"2\n", {}, ""}, // an unclosed quote
    };
    for (const item& c : cases) {
        INFO(c.text);
        const std::string want = c.want.empty() ? by_rows(c.text, c.o) : c.want;
        CHECK(by_rows(c.text, c.o) == want);
        CHECK(want.starts_with("ERROR") == c.want.empty());
        fastread::memory_source src(std::span<const char>(c.text.data(), c.text.size()));
        CHECK(counted(csv::try_count_rows(src, c.o)) == want);
        fastread_test::temp_dir dir;
        { std::ofstream(dir.path() / "t.csv", std::ios::binary) << c.text; }
        const std::string file_want =
            c.want.empty() ? by_rows(c.text, c.o, dir.path() / "t.csv") : c.want;
        CHECK(counted(csv::try_count_rows(dir.path() / "t.csv", c.o)) == file_want);
    }

    // Big files, cut for 2 threads: quoted line ends after every cut; quotes inside unquoted
    // fields that break the parity (read on from the record past the cut); an error near the
    // end, at the same row on 1 and 2 threads.
    for (int variant = 0; variant < 3; ++variant) {
        fastread_test::temp_dir dir;
        const auto path = dir.path() / "quoted.csv";
        std::string text = "id,text,value\n";
        std::uint64_t records = 0;
        for (std::int64_t i = 0; text.size() < (std::size_t{6} << 20); ++i) {
            text += std::to_string(i) + ",\"line one\nline, two\n\"," + std::to_string(i) + ".5\n";
            ++records;
            if (i % 997 == 3) {
                text += variant == 1 ? std::to_string(i) + "b,a\"b,1\n" : "\n";
                records += variant == 1 ? 1 : 0;
            }
        }
        if (variant == 2) {
            text += "oops,\"x\"\n1,2,3\n";
        }
        { std::ofstream(path, std::ios::binary) << text; }
        const auto one = csv::try_count_rows(path, {.threads = 1});
        const auto two = csv::try_count_rows(path, {.threads = 2});
        INFO("variant " << variant);
        CHECK(counted(one) == counted(two));
        CHECK(counted(two) == by_rows(text, {}, path));
        if (variant == 2) {
            REQUIRE_FALSE(two);
            CHECK(two.error().code() == fastread::errc::wrong_column_count);
            CHECK(two.error().line() == one.error().line());
        } else {
            REQUIRE(two);
            CHECK(*two == records);
        }
    }
    CHECK_THROWS_AS(csv::count_rows(std::filesystem::path("/nonexistent/t.csv")),
                    std::system_error);
}
