#include <fastread/csv.hpp>
#include <fastread/csv/sniff.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

namespace csv = fastread::csv;

csv::dialect sniff_text(const std::string& text) {
    fastread::memory_source src(std::span<const char>(text.data(), text.size()));
    return csv::sniff(src);
}

std::vector<std::string> names(const csv::dialect& d) {
    std::vector<std::string> out;
    for (const csv::column_info& c : d.columns) {
        out.push_back(c.name);
    }
    return out;
}

std::vector<csv::type> types(const csv::dialect& d) {
    std::vector<csv::type> out;
    for (const csv::column_info& c : d.columns) {
        out.push_back(c.type);
    }
    return out;
}

} // namespace

TEST_CASE("csv::infer_type: the narrowest type that keeps every value exactly", "[csv]") {
    using csv::type;
    const std::vector<std::pair<std::string, type>> cases = {
        {"true", type::boolean},
        {"FALSE", type::boolean},
        {"True", type::boolean},
        {"False", type::boolean},
        {"TRUE", type::boolean},
        {"tRUE", type::text}, // the spellings are csv::columns<bool>'s, exactly
        {"true ", type::text},
        {"fals", type::text},
        {"falsey", type::text},
        {"yes", type::text},
        {"0", type::int64},
        {"-17", type::int64},
        {"+5", type::int64},
        {"9223372036854775807", type::int64},
        {"-9223372036854775808", type::int64},
        {"9223372036854775808", type::text}, // beyond 64 bits: a double would round it
        {"9007199254740993", type::int64},   // beyond 2^53: kept by int64, not by double
        {"007", type::text},                 // an id with leading zeros
        {"01234", type::text},               // a zip code
        {"-01", type::text},
        {"2.5", type::float64},
        {"0.5", type::float64},
        {"-.5", type::float64},
        {"1e5", type::float64},
        {"00.5", type::text},
        {"123456.5", type::float64},  // 8 bytes: one word
        {"-123456.5", type::float64}, // and a sign
        {"1234567.5", type::float64}, // 9 bytes: the general converter's
        {"12345678.25", type::float64},
        {"1.", type::float64},
        {"-0.50", type::float64},
        {"1.2e-12345", type::float64}, // digits, '.', then '-' at byte 4: not a date
        {"2024-01-3x", type::text},
        {"inf", type::float64},
        {"1.5.2", type::text},
        {"1,5", type::text},
        {"2024-01-31", type::date},
        {"0999-12-31", type::date},
        {"2024-02-30", type::text},
        {"2024-01-31 12:34:56", type::timestamp},
        {"2024-01-31T12:34:56.5+01:00", type::timestamp},
        {"2024-01-31 25:00:00", type::text},
        {"CMT", type::text},
        {"", type::text},
    };
    for (const auto& [field, want] : cases) {
        INFO(field);
        CHECK(csv::infer_type(field) == want);
    }
    CHECK(csv::widen(type::int64, type::float64) == type::float64);
    CHECK(csv::widen(type::float64, type::int64) == type::float64);
    CHECK(csv::widen(type::date, type::timestamp) == type::timestamp);
    CHECK(csv::widen(type::int64, type::date) == type::text);
    CHECK(csv::widen(type::boolean, type::int64) == type::text);
    CHECK(csv::widen(type::text, type::text) == type::text);
    CHECK(csv::to_string(type::float64) == "double");
    CHECK(csv::to_string(type::boolean) == "bool");
    CHECK(csv::to_string(type::timestamp) == "timestamp");
}

TEST_CASE("csv::sniff: delimiter, header, line end, BOM, names and types", "[csv]") {
    using csv::type;
    {
        const csv::dialect d = sniff_text("\xEF\xBB\xBFid,fare,tip,vendor,when,zip,ok\r\n"
                                          "1,12.5,NA,\"CMT, Inc\",2024-01-31,01234,true\r\n"
                                          "2,7,,VTS,2024-02-01 10:00:00,10001,false\r\n"
                                          "3,30,2.5,DDS,2024-02-02,94105,TRUE\r\n");
        CHECK(d.delimiter == ',');
        CHECK(d.header);
        CHECK(d.bom);
        CHECK(d.line_end == "\r\n");
        CHECK(d.sampled_rows == 3);
        CHECK(names(d) ==
              std::vector<std::string>{"id", "fare", "tip", "vendor", "when", "zip", "ok"});
        CHECK(types(d) == std::vector<type>{type::int64, type::float64, type::float64, type::text,
                                            type::timestamp, type::text, type::boolean});
        CHECK(d.columns[2].missing == 2);
        CHECK(d.columns[2].values == 1);
        const csv::options o = d.options();
        CHECK(o.delimiter == ',');
        CHECK(o.header);
    }
    {
        // A European export: ';' splits, the decimal commas stay inside fields (text).
        const csv::dialect d =
            sniff_text("Temperatur;Druck;Ort\n21,5;1013;Bonn\n-3,125;998;Jena\n");
        CHECK(d.delimiter == ';');
        CHECK(d.header);
        CHECK(types(d) == std::vector<type>{type::text, type::int64, type::text});
    }
    {
        const csv::dialect d = sniff_text("gene\tcount\nBRCA1\t12\nTP53\t7\n");
        CHECK(d.delimiter == '\t');
        CHECK(d.header);
        CHECK(names(d) == std::vector<std::string>{"gene", "count"});
        CHECK(types(d) == std::vector<type>{type::text, type::int64});
    }
    {
        // No header: every row fits the columns' types.
        const csv::dialect d = sniff_text("1|2.5|x\n2|3|y\n3|4.25|z\n");
        CHECK(d.delimiter == '|');
        CHECK_FALSE(d.header);
        CHECK(d.sampled_rows == 3);
        CHECK(names(d) == std::vector<std::string>{"column_1", "column_2", "column_3"});
        CHECK(types(d) == std::vector<type>{type::int64, type::float64, type::text});
    }
    {
        // Quoted fields with delimiters and line ends inside; an integer column whose last
        // value is 2.5; a column empty but for its last row.
        const csv::dialect d = sniff_text("n,text,late\n1,\"a, b\nc\",\n2,\"d;e|f\",\n2.5,g,7\n");
        CHECK(d.delimiter == ',');
        CHECK(d.header);
        CHECK(types(d) == std::vector<type>{type::float64, type::text, type::int64});
        CHECK(d.columns[2].missing == 2);
    }
    {
        // One column of text, and nothing at all: valid answers.
        const csv::dialect d = sniff_text("alpha\nbeta\ngamma\n");
        CHECK(d.delimiter == ',');
        CHECK(d.columns.size() == 1);
        CHECK(d.columns[0].type == type::text);
        // Prose: its spaces split the lines into unequal counts, so they are not a delimiter.
        const csv::dialect p = sniff_text("the quick brown fox\njumps\nover the lazy dog today\n");
        CHECK(p.columns.size() == 1);
        const csv::dialect e = sniff_text("");
        CHECK(e.columns.empty());
        CHECK(e.sampled_rows == 0);
        CHECK(e.line_end == "\n");
    }
}

TEST_CASE("csv::sniff: a path, a pipe-like source in chunks, a missing file", "[csv]") {
    fastread_test::temp_dir dir;
    const std::filesystem::path file = dir.path() / "t.csv";
    std::string text = "a:b\n";
    for (int i = 0; i < 200000; ++i) { // 2.6 MB: more than the sniffed head
        text += std::to_string(i) + ":" + std::to_string(i) + ".5\n";
    }
    fastread_test::write_file(file, text);
    const csv::dialect d = csv::sniff(file);
    CHECK(d.delimiter == ':');
    CHECK(d.header);
    CHECK(types(d) == std::vector<csv::type>{csv::type::int64, csv::type::float64});
    // The head, then 8 points of 64 KiB after it, 1250 records at each.
    CHECK(d.sampled_bytes == (std::size_t{1} << 20) + 8 * (std::size_t{64} << 10));
    CHECK(d.sampled_rows == 10000 + 8 * 1250);
    // From a source read once: its head alone.
    const csv::dialect h = sniff_text(text);
    CHECK(h.sampled_bytes == std::size_t{1} << 20);
    CHECK(h.sampled_rows == 10000);
    CHECK(types(h) == types(d));
    const auto missing = csv::try_sniff(dir.path() / "absent.csv");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
    CHECK_THROWS_AS(csv::sniff(dir.path() / "absent.csv"), std::system_error);
}

TEST_CASE("csv::sniff: a backslash escape where it reads the records better, else none", "[csv]") {
    // MySQL's dump: \" inside quoted fields. Without the escape the fields run on past a
    // delimiter; with it every record has 3 fields.
    const std::string dump = "id,name,note\n"
                             "1,\"a \\\"big\\\" one, really\",x\n"
                             "2,\"plain\",y\n"
                             "3,\"say \\\"hi\\\", then go\",z\n"
                             "4,\"b\",w\n";
    const csv::dialect d = sniff_text(dump);
    CHECK(d.escape == '\\');
    CHECK(d.options().escape == '\\');
    CHECK(names(d) == std::vector<std::string>{"id", "name", "note"});
    CHECK(d.sampled_rows == 4);
    // Read with it: the escaped quotes are text.
    fastread::memory_source src(std::span<const char>(dump.data(), dump.size()));
    csv::rows rows(src, d.options());
    std::vector<std::string> got;
    for (const csv::row& r : rows) {
        got.emplace_back(r[1]);
    }
    CHECK(got ==
          std::vector<std::string>{"a \"big\" one, really", "plain", "say \"hi\", then go", "b"});
    // A path that ends in a backslash is no escape: with it the field would run on.
    const csv::dialect w = sniff_text("id,path\n1,\"C:\\dir\\\"\n2,\"D:\\\"\n3,\"E:\\x\"\n");
    CHECK(w.escape == 0);
    CHECK(names(w) == std::vector<std::string>{"id", "path"});
    CHECK(w.sampled_rows == 3);
    // No backslash before a quote: none.
    CHECK(sniff_text("a,b\n1,\"x\\y\"\n").escape == 0);
}

TEST_CASE("csv::sniff(path): samples after the head, from record starts exact about quotes",
          "[csv]") {
    // Every record's text holds quoted line ends before lines that look like records (of
    // text: `abc,def,ghi`), so a sample started at the first line end after a point would
    // read them, and id would be text: the point's record start must come from the quotes
    // counted before it. The v column is integers in the head and in most samples, 2.5 in
    // the file's last rows.
    fastread_test::temp_dir dir;
    const std::filesystem::path file = dir.path() / "q.csv";
    std::string text = "id,text,v\n";
    const std::size_t size = std::size_t{6} << 20;
    for (std::int64_t i = 0; text.size() < size; ++i) {
        const bool last_rows = text.size() > size - (std::size_t{32} << 10);
        text += std::to_string(i) + ",\"words \"\"quoted\"\"\nabc,def,ghi\nxyz\"," +
                (last_rows ? std::string("2.5") : std::to_string(i % 100)) + "\n";
    }
    fastread_test::write_file(file, text);
    const csv::dialect d = csv::sniff(file);
    CHECK(d.delimiter == ',');
    CHECK(d.header);
    CHECK(names(d) == std::vector<std::string>{"id", "text", "v"});
    // The last point's 64 KiB hold the 2.5s; every record read whole: id stays int64.
    CHECK(types(d) ==
          std::vector<csv::type>{csv::type::int64, csv::type::text, csv::type::float64});
    CHECK(d.sampled_rows == 10000 + 8 * 1250);
    for (const csv::column_info& c : d.columns) {
        CHECK(c.missing == 0);
        CHECK(c.values == d.sampled_rows);
    }
    // The head alone (a source read once): v is int64 there.
    CHECK(types(sniff_text(text)) ==
          std::vector<csv::type>{csv::type::int64, csv::type::text, csv::type::int64});
}

TEST_CASE("csv::sniff: UTF-16 LE and BE with a BOM sniff as their UTF-8 twin", "[csv]") {
    // A table of non-ASCII names and values; its head (1 MiB of UTF-16) ends inside a
    // surrogate pair in one file, between the halves of a unit in another.
    const std::u32string head = U"caf\u00e9;n\u00b0;\U0001F600\n";
    std::u32string rows;
    for (int i = 0; rows.size() < 600000; ++i) {
        rows += U"x" + std::u32string(1, U'a' + static_cast<char32_t>(i % 26)) + U";" +
                std::u32string(1, U'0' + static_cast<char32_t>(i % 10)) + U";\U0001F600\n";
    }
    auto utf8 = [](const std::u32string& text) {
        std::string out;
        for (const char32_t c : text) {
            fastread::detail::csv_put_utf8(out, static_cast<std::uint32_t>(c));
        }
        return out;
    };
    auto utf16 = [](const std::u32string& text, bool le) {
        return fastread_test::utf16_with_bom(text, le);
    };
    for (const std::size_t size : {std::size_t{0}, std::size_t{1} << 20}) {
        const std::u32string text = head + (size == 0 ? rows.substr(0, 60) : rows);
        const csv::dialect want = sniff_text(utf8(text));
        REQUIRE(names(want) ==
                std::vector<std::string>{"caf\xC3\xA9", "n\xC2\xB0", "\xF0\x9F\x98\x80"});
        CHECK(types(want) ==
              std::vector<csv::type>{csv::type::text, csv::type::int64, csv::type::text});
        CHECK(want.encoding == csv::text_encoding::utf8);
        CHECK_FALSE(want.bom);
        for (const bool le : {true, false}) {
            std::string bytes = utf16(text, le);
            std::size_t shift = 0; // the units padded in, in bytes
            // Cut the 1 MiB head inside a surrogate pair: the pair's high half ends it.
            if (size != 0) {
                const std::size_t at = std::size_t{1} << 20;
                REQUIRE(bytes.size() > at + 4);
                const std::size_t high = le ? 1 : 0;
                // ASCII units padded into the first name so that the head's last unit is a
                // high surrogate (a pair whose low half is past the head).
                std::size_t p = at - 2;
                while (!(static_cast<unsigned char>(bytes[p + high]) >= 0xD8 &&
                         static_cast<unsigned char>(bytes[p + high]) <= 0xDB)) {
                    p -= 2;
                }
                shift = at - 2 - p;
                bytes.insert(2 + 2 * 3, shift, '\0'); // after "caf"
                for (std::size_t i = 0; i < shift; i += 2) {
                    bytes[2 + 2 * 3 + i + (le ? 0 : 1)] = 'z';
                }
                REQUIRE(static_cast<unsigned char>(bytes[at - 2 + high]) >= 0xD8);
                REQUIRE(static_cast<unsigned char>(bytes[at - 2 + high]) <= 0xDB);
            }
            fastread::memory_source src(std::span<const char>(bytes.data(), bytes.size()));
            const csv::dialect d = csv::sniff(src);
            INFO((le ? "LE" : "BE") << ", " << size);
            CHECK(d.encoding == (le ? csv::text_encoding::utf16le : csv::text_encoding::utf16be));
            CHECK(d.bom);
            CHECK(d.delimiter == ';');
            CHECK(d.header);
            CHECK(types(d) == types(want));
            CHECK(d.columns.size() == 3);
            if (size == 0) {
                CHECK(names(d) == names(want));
                CHECK(d.sampled_rows == want.sampled_rows);
            } else {
                CHECK(d.columns[0].name == "caf" + std::string(shift / 2, 'z') + "\xC3\xA9");
                CHECK(d.columns[1].name == "n\xC2\xB0");
                CHECK(d.sampled_bytes == (std::size_t{1} << 20) - 2);
            }
        }
    }
    // An unpaired surrogate: an error at its byte offset.
    const std::string lone("\xFF\xFE"
                           "a\0\n\0\x00\xDC"
                           "b\0",
                           10);
    fastread::memory_source src(std::span<const char>(lone.data(), lone.size()));
    const auto r = csv::try_sniff(src);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == fastread::errc::invalid_data_byte);
    CHECK(r.error().offset() == 6);
}
