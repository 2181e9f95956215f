#include <fastread/csv/read.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include "test_util.hpp"

namespace {

namespace csv = fastread::csv;
using namespace std::chrono_literals;

template <class T>
std::vector<T> as_vector(std::span<const T> s) {
    return {s.begin(), s.end()};
}

std::vector<std::string> texts(const csv::column& c) {
    std::vector<std::string> out;
    for (const std::string_view v : c.values<std::string_view>()) {
        out.emplace_back(v);
    }
    return out;
}

std::vector<bool> missing_rows(const csv::column& c) {
    std::vector<bool> out;
    for (std::size_t i = 0; i < c.size(); ++i) {
        out.push_back(c.missing(i));
    }
    return out;
}

csv::table read_text(const std::string& text, csv::read_options o = {}) {
    fastread::memory_source src(std::span<const char>(text.data(), text.size()));
    return csv::read(src, o);
}

} // namespace

TEST_CASE("csv::read: each column the narrowest type that keeps every value, at 1 and 2 threads",
          "[csv]") {
    // 6 MiB (two slices on 2 threads), the values that widen a column in the last rows, after
    // a sample's reach: an integer column whose last value is 2.5, a date column with a bad
    // date in its last row, a column empty but for its last row, int64 beyond 2^53, zip codes
    // with leading zeros, and a column of int64 beyond 2^53 with a decimal in its last row.
    fastread_test::temp_dir dir;
    const auto path = dir.path() / "infer.csv";
    std::string text = "n,day,late,big,zip,bigmix,flag,when\n";
    std::vector<std::int64_t> n, big;
    std::vector<std::string> day, zip, bigmix;
    std::int64_t i = 0;
    for (; text.size() < (std::size_t{6} << 20); ++i) {
        const std::string d =
            "2024-01-" + std::string(i % 28 < 9 ? "0" : "") + std::to_string(i % 28 + 1);
        const std::int64_t b = (std::int64_t{1} << 53) + 1 + i;
        const std::string z = std::string(i % 7 == 0 ? "0" : "1") + std::to_string(1000 + i % 9000);
        text += std::to_string(i) + "," + d + ",," + std::to_string(b) + "," + z + "," +
                std::to_string(b) + "," + (i % 2 ? "true" : "False") + "," + d + " 10:00:00\n";
        n.push_back(i);
        day.push_back(d);
        big.push_back(b);
        zip.push_back(z);
        bigmix.push_back(std::to_string(b));
    }
    text += "2.5,2023-02-29,42,-9007199254740993,01234,2.5,TRUE,2024-02-01T00:00:00.5+01:00\n";
    day.push_back("2023-02-29");
    zip.push_back("01234");
    bigmix.push_back("2.5");
    big.push_back(-9007199254740993);
    fastread_test::write_file(path, text);
    const std::size_t rows = n.size() + 1;

    for (const unsigned threads : {1u, 2u}) {
        INFO("threads " << threads);
        csv::read_options o;
        o.csv.threads = threads;
        const csv::table t = csv::read(path, o);
        REQUIRE(t.rows() == rows);
        CHECK(t.column_names() ==
              std::vector<std::string>{"n", "day", "late", "big", "zip", "bigmix", "flag", "when"});
        REQUIRE(t["n"].type() == csv::type::float64);
        const std::span<const double> nv = t["n"].values<double>();
        REQUIRE(nv.size() == rows);
        for (std::size_t k = 0; k < n.size(); ++k) {
            REQUIRE(nv[k] == static_cast<double>(n[k]));
        }
        CHECK(nv[rows - 1] == 2.5);
        REQUIRE(t["day"].type() == csv::type::text);
        CHECK(texts(t["day"]) == day);
        REQUIRE(t["late"].type() == csv::type::int64);
        CHECK(t["late"].missing_count() == rows - 1);
        CHECK(t["late"].values<std::int64_t>()[rows - 1] == 42);
        CHECK_FALSE(t["late"].missing(rows - 1));
        CHECK(t["late"].missing(0));
        REQUIRE(t["big"].type() == csv::type::int64);
        CHECK(as_vector(t["big"].values<std::int64_t>()) == big);
        REQUIRE(t["zip"].type() == csv::type::text);
        CHECK(texts(t["zip"]) == zip);
        REQUIRE(t["bigmix"].type() == csv::type::text); // no double keeps 2^53 + 1
        CHECK(texts(t["bigmix"]) == bigmix);
        REQUIRE(t["flag"].type() == csv::type::boolean);
        CHECK(t["flag"].values<bool>()[0] == false);
        CHECK(t["flag"].values<bool>()[1] == true);
        CHECK(t["flag"].values<bool>()[rows - 1] == true);
        REQUIRE(t["when"].type() == csv::type::timestamp);
        const auto when = t["when"].values<std::chrono::sys_time<std::chrono::nanoseconds>>();
        CHECK(when[0] == std::chrono::sys_days{2024y / 1 / 1} + 10h);
        CHECK(when[rows - 1] == std::chrono::sys_days{2024y / 1 / 31} + 23h + 500ms);
        // The dialect says what every value gave.
        CHECK(t.dialect().columns.size() == 8);
        CHECK(t.dialect().columns[2].missing == rows - 1);
        CHECK(t.dialect().columns[2].values == 1);
    }
}

TEST_CASE("csv::read: decimals of every short shape are strtod's, bit for bit, at 1 and 2 threads",
          "[csv]") {
    // The short decimals (a sign, at most 8 bytes with one '.') take a path of their own:
    // every position of the '.', 2 to 8 bytes, signs, and around them the shapes it leaves to
    // the general converter (no digit on a side of the '.', 9 bytes, an exponent, an integer),
    // with a last field at the input's end (no bytes after it to read a word from).
    fastread_test::temp_dir dir;
    const auto path = dir.path() / "decimals.csv";
    std::mt19937_64 rng(57);
    std::string text = "x,y\n";
    std::vector<std::string> xs;
    while (text.size() < (std::size_t{5} << 20)) {
        std::string x = rng() % 4 == 0 ? "-" : rng() % 16 == 0 ? "+" : "";
        const unsigned shape = static_cast<unsigned>(rng() % 16);
        const unsigned digits = 1 + static_cast<unsigned>(rng() % (shape == 0 ? 9 : 7));
        const unsigned dot = static_cast<unsigned>(rng() % (digits + 1)); // 0: ".5", digits: "5."
        for (unsigned k = 0; k < digits; ++k) {
            if (k == dot && shape != 1) {
                x += '.';
            }
            x += static_cast<char>('0' + rng() % 10);
        }
        if (dot == digits && shape != 1) {
            x += '.';
        }
        if (shape == 2) {
            x += "e-3";
        }
        xs.push_back(x);
        text += x + "," + std::to_string(xs.size() % 7) + "\n";
    }
    xs.push_back("1");
    text += "1,-12.5"; // the last field ends the input
    fastread_test::write_file(path, text);
    for (const unsigned threads : {1u, 2u}) {
        INFO("threads " << threads);
        csv::read_options o;
        o.csv.threads = threads;
        o.types = {{"x", csv::type::float64}}; // leading zeros too (`00.5`), as fixed
        const csv::table t = csv::read(path, o);
        REQUIRE(t.rows() == xs.size());
        REQUIRE(t["x"].type() == csv::type::float64);
        REQUIRE(t["y"].type() == csv::type::float64);
        const std::span<const double> v = t["x"].values<double>();
        std::size_t differ = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double want = std::strtod(xs[i].c_str(), nullptr);
            differ += std::memcmp(&v[i], &want, sizeof want) != 0;
        }
        CHECK(differ == 0);
        CHECK(t["y"].values<double>()[xs.size() - 1] == -12.5);
    }
}

TEST_CASE("csv::read: widening within a part and across parts", "[csv]") {
    // date then timestamp: timestamp (the dates their midnight); int then bool: text; a
    // column of missing values only: text, all missing; NA among integers: missing.
    const csv::table t = read_text("a,b,c,d,e\n"
                                   "2024-01-31,1,,7,x\n"
                                   "2024-02-01 12:00:00Z,true,,NA,y\n"
                                   "2024-02-02,3,NA,9,\n");
    REQUIRE(t.rows() == 3);
    REQUIRE(t["a"].type() == csv::type::timestamp);
    const auto a = t["a"].values<std::chrono::sys_time<std::chrono::nanoseconds>>();
    CHECK(a[0] == std::chrono::sys_days{2024y / 1 / 31});
    CHECK(a[1] == std::chrono::sys_days{2024y / 2 / 1} + 12h);
    CHECK(a[2] == std::chrono::sys_days{2024y / 2 / 2});
    REQUIRE(t["b"].type() == csv::type::text);
    CHECK(texts(t["b"]) == std::vector<std::string>{"1", "true", "3"});
    REQUIRE(t["c"].type() == csv::type::text);
    CHECK(t["c"].missing_count() == 3);
    CHECK(texts(t["c"]) == std::vector<std::string>{"", "", ""});
    REQUIRE(t["d"].type() == csv::type::int64);
    CHECK(as_vector(t["d"].values<std::int64_t>()) == std::vector<std::int64_t>{7, 0, 9});
    CHECK(missing_rows(t["d"]) == std::vector<bool>{false, true, false});
    REQUIRE(t["e"].type() == csv::type::text);
    CHECK(missing_rows(t["e"]) == std::vector<bool>{false, false, true});
    // A date beyond the timestamps' range beside a timestamp: text.
    const csv::table u = read_text("a\n2300-01-01\n2024-01-01 00:00:00\n");
    CHECK(u["a"].type() == csv::type::text);
    CHECK(texts(u["a"]) == std::vector<std::string>{"2300-01-01", "2024-01-01 00:00:00"});
}

TEST_CASE("csv::read: the wrong type, a name not there, fixed types and select", "[csv]") {
    const std::string text = "id;zip;fare\n1;01234;2.5\n2;00501;3\n";
    const csv::table t = read_text(text);
    CHECK(t.dialect().delimiter == ';');
    CHECK(t["zip"].type() == csv::type::text);
    CHECK_THROWS_WITH(t["fare"].values<std::int64_t>(),
                      "csv::column::values<std::int64_t>: column \"fare\" is of type double");
    CHECK_THROWS_AS(t["fare"].values<bool>(), std::invalid_argument);
    CHECK_THROWS_AS(t["nope"], std::out_of_range);
    CHECK_THROWS_AS(t[3], std::out_of_range);

    csv::read_options o;
    o.types = {{"zip", csv::type::int64}};
    o.select = {"fare", "zip"};
    const csv::table s = read_text(text, o);
    CHECK(s.column_names() == std::vector<std::string>{"fare", "zip"});
    CHECK(as_vector(s["zip"].values<std::int64_t>()) == std::vector<std::int64_t>{1234, 501});
    CHECK(as_vector(s["fare"].values<double>()) == std::vector<double>{2.5, 3});

    o.types = {{"fare", csv::type::int64}};
    o.select = {};
    fastread::memory_source src(std::span<const char>(text.data(), text.size()));
    const auto bad = csv::try_read(src, o);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code() == fastread::errc::invalid_number);
    CHECK(bad.error().offset() == 20);
    CHECK(bad.error().line() == 2);
    CHECK(bad.error().column() == 3);
    CHECK(bad.error().message() == "byte 20: line 2, row 1, column 3 (\"fare\"): \"2.5\" is not a "
                                   "64-bit integer");
    o.types = {{"tip", csv::type::float64}};
    fastread::memory_source src2(std::span<const char>(text.data(), text.size()));
    CHECK(csv::try_read(src2, o).error().code() == fastread::errc::invalid_argument);
    csv::read_options sel;
    sel.select = {"id", 7};
    fastread::memory_source src3(std::span<const char>(text.data(), text.size()));
    CHECK(csv::try_read(src3, sel).error().code() == fastread::errc::invalid_argument);
}

TEST_CASE("csv::read: records converted in batches, the first bad value in row then column order",
          "[csv]") {
    // 600 rows (batches of 256): row 300's second field and row 301's first do not convert
    // to the fixed int64; the error is row 300's, at its byte. A quoted value with a doubled
    // quote in an inferred column, and a column that widens at row 257 (a batch's first).
    std::string text = "a,b,c,d\n";
    std::uint64_t bad_at = 0;
    for (int i = 1; i <= 600; ++i) {
        const std::string a = i == 301 ? "y" : std::to_string(i);
        const std::string b = i == 300 ? "x" : std::to_string(2 * i);
        if (i == 300) {
            bad_at = text.size() + a.size() + 1;
        }
        text += a + "," + b + "," + (i == 257 ? "2.5" : std::to_string(i)) + "," +
                (i == 5 ? "\"say \"\"hi\"\"\"" : "w" + std::to_string(i)) + "\n";
    }
    csv::read_options o;
    o.types = {{"a", csv::type::int64}, {"b", csv::type::int64}};
    for (const unsigned threads : {1u, 2u}) {
        o.csv.threads = threads;
        fastread::memory_source src(std::span<const char>(text.data(), text.size()));
        const auto bad = csv::try_read(src, o);
        REQUIRE_FALSE(bad);
        CHECK(bad.error().code() == fastread::errc::invalid_number);
        CHECK(bad.error().offset() == bad_at);
        CHECK(bad.error().line() == 301);
        CHECK(bad.error().column() == 2);
        CHECK(bad.error().message() == "byte " + std::to_string(bad_at) +
                                           ": line 301, row 300, column 2 (\"b\"): \"x\" is not a "
                                           "64-bit integer");
    }
    const csv::table t = read_text(text);
    REQUIRE(t.rows() == 600);
    CHECK(t["a"].type() == csv::type::text);
    CHECK(t["b"].type() == csv::type::text);
    REQUIRE(t["c"].type() == csv::type::float64);
    const auto c = t["c"].values<double>();
    CHECK(c[255] == 256);
    CHECK(c[256] == 2.5);
    CHECK(c[599] == 600);
    REQUIRE(t["d"].type() == csv::type::text);
    CHECK(t["d"].values<std::string_view>()[4] == "say \"hi\"");
    CHECK(t["d"].values<std::string_view>()[599] == "w600");
}

TEST_CASE("csv::read: UTF-16 with a BOM reads as its UTF-8 twin, and no BOM is in a name",
          "[csv]") {
    const std::u32string text =
        U"caf\u00e9,n\u00b0,\U0001F600\nb\u00e9b\u00e9,1,\"x,\U0001F600\"\n";
    std::string utf8;
    for (const char32_t c : text) {
        fastread::detail::csv_put_utf8(utf8, static_cast<std::uint32_t>(c));
    }
    auto utf16 = [&](bool le) { return fastread_test::utf16_with_bom(text, le); };
    fastread_test::temp_dir dir;
    const csv::table want = read_text(utf8);
    REQUIRE(want.column_names() ==
            std::vector<std::string>{"caf\xC3\xA9", "n\xC2\xB0", "\xF0\x9F\x98\x80"});
    for (const bool le : {true, false}) {
        const auto path = dir.path() / (le ? "le.csv" : "be.csv");
        fastread_test::write_file(path, utf16(le));
        const csv::table t = csv::read(path);
        CHECK(t.column_names() == want.column_names());
        CHECK(texts(t[0]) == texts(want[0]));
        CHECK(texts(t[2]) == std::vector<std::string>{"x,\xF0\x9F\x98\x80"});
        CHECK(t[1].values<std::int64_t>()[0] == 1);
        CHECK(t.dialect().bom);
        CHECK(t.dialect().encoding ==
              (le ? csv::text_encoding::utf16le : csv::text_encoding::utf16be));
    }
    CHECK(want.dialect().encoding == csv::text_encoding::utf8);
    // A UTF-8 BOM: skipped, not part of the first name.
    const csv::table b = read_text("\xEF\xBB\xBF"
                                   "id,v\n1,2\n");
    CHECK(b.column_names() == std::vector<std::string>{"id", "v"});
    CHECK(b.dialect().bom);
    // An unpaired surrogate and an odd byte count: errors at their offsets.
    const auto lone = dir.path() / "lone.csv";
    fastread_test::write_file(lone, std::string("\xFF\xFE"
                                                "a\0\n\0\x00\xD8"
                                                "b\0",
                                                10));
    const auto r = csv::try_read(lone);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == fastread::errc::invalid_data_byte);
    CHECK(r.error().offset() == 6);
    fastread_test::write_file(lone, std::string("\xFF\xFE"
                                                "a\0\n",
                                                5));
    CHECK(csv::try_read(lone).error().offset() == 4);
    // Latin-1 when asked.
    csv::read_options latin;
    latin.encoding = csv::encoding::latin1;
    const csv::table l = read_text("nom\ncaf\xE9\n", latin);
    CHECK(texts(l["nom"]) == std::vector<std::string>{"caf\xC3\xA9"});
}

TEST_CASE("csv::read: validate_utf8 names the first invalid byte, empty input, a FIFO", "[csv]") {
    csv::read_options o;
    o.validate_utf8 = true;
    const std::string text = "a,b\nok,\xC3\xA9\nx,ab\xC3(\n";
    fastread::memory_source src(std::span<const char>(text.data(), text.size()));
    const auto r = csv::try_read(src, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == fastread::errc::invalid_data_byte);
    CHECK(r.error().offset() == 15);
    CHECK(r.error().line() == 3);
    CHECK(r.error().column() == 6);
    CHECK(r.error().message() == "byte 15: line 3, column 6: byte 0x28 is not valid UTF-8");
    // Without the check the same text reads (the bytes as they are).
    CHECK(texts(read_text(text)["b"]) == std::vector<std::string>{"\xC3\xA9", "ab\xC3("});

    const csv::table e = read_text("");
    CHECK(e.rows() == 0);
    CHECK(e.columns().empty());

    fastread_test::temp_dir dir;
    const auto fifo = dir.path() / "fifo.csv";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << "a\tb\n1\tx\n3\ty\n"; });
    const csv::table t = csv::read(fifo);
    writer.join();
    CHECK(t.dialect().delimiter == '\t');
    CHECK(as_vector(t["a"].values<std::int64_t>()) == std::vector<std::int64_t>{1, 3});
    CHECK(texts(t["b"]) == std::vector<std::string>{"x", "y"});
}

TEST_CASE("csv::read: without sniff, the options' dialect, and no header names column_N", "[csv]") {
    csv::read_options o;
    o.sniff = false;
    o.csv.header = false;
    o.csv.delimiter = '|';
    const csv::table t = read_text("1|a\n2|b\n", o);
    CHECK(t.column_names() == std::vector<std::string>{"column_1", "column_2"});
    CHECK(as_vector(t["column_1"].values<std::int64_t>()) == std::vector<std::int64_t>{1, 2});
    // A short row gets missing values (as pandas reads it); a long one is an error.
    csv::read_options d;
    d.sniff = false;
    const csv::table s = read_text("a,b\n1\n2,3\n", d);
    CHECK(as_vector(s["a"].values<std::int64_t>()) == std::vector<std::int64_t>{1, 2});
    CHECK(missing_rows(s["b"]) == std::vector<bool>{true, false});
    const auto bad = [&] {
        fastread::memory_source src(std::span<const char>("a,b\n1,2,3\n", 10));
        return csv::try_read(src, d);
    }();
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code() == fastread::errc::wrong_column_count);
    // A first row narrower than the sniffed columns, without a header (gdal-data's
    // s57agencies.csv: a comment line of names, then unquoted delimiters in names): the
    // first row wider than the first one is the error, with its line and row (as pandas
    // says it), not an argument error about a column index the caller never gave.
    const auto narrow = [&] {
        const std::string text = "#AgencyID,Token,Code,AgencyName\n"
                                 "1,AE,530,Ministry, Emirates\n"
                                 "2,AR,1,Naval, Argentina\n"
                                 "3,AU,10,Service, Navy, Australia\n"
                                 "4,BH,20,Section, Directorate, Bahrain\n"
                                 "5,BE,30,Hydrografie, Belgium\n";
        fastread::memory_source src(std::span<const char>(text.data(), text.size()));
        return csv::try_read(src);
    }();
    REQUIRE_FALSE(narrow);
    CHECK(narrow.error().code() == fastread::errc::wrong_column_count);
    CHECK(narrow.error().message() == "byte 84: line 4, row 3: a row of 6 fields, the first row "
                                      "has 5");
    // A sniffed backslash escape (MySQL's dump): the escaped quotes are text.
    const csv::table dump = read_text("id,name\n1,\"a \\\"big\\\" one, really\"\n"
                                      "2,\"say \\\"hi\\\", then go\"\n3,\"b\"\n");
    CHECK(dump.dialect().escape == '\\');
    CHECK(texts(dump["name"]) ==
          std::vector<std::string>{"a \"big\" one, really", "say \"hi\", then go", "b"});
    // Numbers with spaces around them are numbers; text keeps its spaces; a quote of '.
    const csv::table sp = read_text("'n' 'x'\n1 ' .5'\n2 ' a '\n");
    CHECK(sp.dialect().quote == '\'');
    CHECK(sp.column_names() == std::vector<std::string>{"n", "x"});
    CHECK(texts(sp["x"]) == std::vector<std::string>{" .5", " a "});
    const csv::table num = read_text("id,v\n1, .01138\n2,3088 \n");
    CHECK(as_vector(num["v"].values<double>()) == std::vector<double>{0.01138, 3088});
    // Spaces and tabs around ints, timestamps and bools too; inside a value they make it text.
    const csv::table spaced = read_text(
        "i,t,b,s\n 7 ,\t2024-01-31 10:00:00, true,1 2\n-8\t,2024-02-01 00:00:00 ,False,3\n");
    REQUIRE(spaced["i"].type() == csv::type::int64);
    CHECK(as_vector(spaced["i"].values<std::int64_t>()) == std::vector<std::int64_t>{7, -8});
    CHECK(spaced["t"].type() == csv::type::timestamp);
    CHECK(spaced["b"].type() == csv::type::boolean);
    CHECK(texts(spaced["s"]) == std::vector<std::string>{"1 2", "3"});
    // The header of a table of decimals under integer names (years): found by its votes.
    const csv::table years = read_text("name,1960,1961\nAruba,4.82,4.655\nPeru,6.9,6.85\n");
    CHECK(years.dialect().header);
    CHECK(years.column_names() == std::vector<std::string>{"name", "1960", "1961"});
}
