#include <fastread/csv/sniff.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
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
    CHECK(d.sampled_bytes == std::size_t{1} << 20);
    CHECK(d.sampled_rows == 10000);
    const auto missing = csv::try_sniff(dir.path() / "absent.csv");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
    CHECK_THROWS_AS(csv::sniff(dir.path() / "absent.csv"), std::system_error);
}
