// examples/csv.cpp (fastread-csv): every subcommand, against Miller (mlr) and csvkit where
// they agree, on csv-spectrum's cases and on a table shaped like the bench's inputs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"

#if defined(FASTREAD_CSV_TOOL) && defined(FASTREAD_CSV_SPECTRUM_DIR) && !defined(_WIN32)
namespace {

std::string sh(const std::string& command) {
    return fastread_test::run_command(command);
}

std::string ours() {
    return std::string("'") + FASTREAD_CSV_TOOL + "'";
}

// A table like the bench's mixed and quoted inputs, small: text, numbers, missing values,
// quoted fields with delimiters, doubled quotes and line ends.
std::string bench_like() {
    std::mt19937_64 rng(57);
    std::string out = "vendor_id,pickup_datetime,passenger_count,fare_amount,tip_amount,text\n";
    static const char* pieces[] = {"fine", "then, later", "\"\"quoted\"\"", "line\nbreak", "ok"};
    for (int i = 0; i < 3000; ++i) {
        out += i % 3 == 0 ? "CMT" : "VTS";
        out += ",2026-0" + std::to_string(rng() % 9 + 1) + "-1" + std::to_string(rng() % 9) +
               " 10:00:0" + std::to_string(rng() % 10) + ",";
        out += std::to_string(rng() % 6 + 1) + "," + std::to_string(rng() % 5000) + "." +
               std::to_string(rng() % 90 + 10) + ",";
        if (rng() % 20 != 0) {
            out += std::to_string(rng() % 12) + ".5";
        }
        out += ",\"" + std::string(pieces[rng() % 5]) + " " + pieces[rng() % 5] + "\"\n";
    }
    return out;
}

} // namespace

TEST_CASE("fastread-csv head and select write what mlr and csvkit write", "[csv][example]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "bench_like.csv", bench_like());
    std::vector<std::filesystem::path> files;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(FASTREAD_CSV_SPECTRUM_DIR) + "/csvs")) {
        files.push_back(e.path());
    }
    REQUIRE(files.size() >= 10);
    files.push_back(dir / "bench_like.csv");
    int compared = 0;
    for (const auto& f : files) {
        const std::string q = "'" + f.string() + "'";
        CAPTURE(f.filename().string());
        const std::string mlr = sh("mlr --csv cat " + q);
        const std::string kit = sh("csvcut -c 1- " + q);
        // newlines_crlf.csv: its quoted fields hold CR LF, which both peers read in text mode
        // as LF; fastread (and Python's csv module, fastread's reference) keep the field's
        // bytes.
        if (mlr != kit || f.filename() == "newlines_crlf.csv") {
            CHECK(f.filename() == "newlines_crlf.csv");
            CHECK(sh(ours() + " head -n 100000 " + q) ==
                  sh("/usr/bin/python3 -c \"import csv,sys;"
                     "w=csv.writer(sys.stdout,lineterminator='\\n');"
                     "[w.writerow(r) for r in csv.reader(open(sys.argv[1],newline=''))]\" " +
                     q));
            continue;
        }
        ++compared;
        CHECK(sh(ours() + " head -n 100000 " + q) == mlr);
        CHECK(sh("cat " + q + " | " + ours() + " head -n 100000 -") == mlr);
        // The first three rows (header included); the columns in another order.
        const std::string names = sh("head -n 1 " + q);
        if (names.find(',') != std::string::npos && names.find('"') == std::string::npos) {
            const std::string first = names.substr(0, names.find(','));
            const std::string rest = names.substr(names.find(',') + 1);
            const std::string second = rest.substr(0, rest.find_first_of(",\r\n"));
            const std::string cols = second + "," + first;
            CHECK(sh(ours() + " select " + cols + " " + q) == sh("csvcut -c '" + cols + "' " + q));
            CHECK(sh(ours() + " select 2,1 " + q) == sh("mlr --csv cut -o -f '" + cols + "' " + q));
        }
        CHECK(sh(ours() + " head -n 2 " + q) == sh("mlr --csv head -n 2 " + q));
        CHECK(sh(ours() + " count " + q) == sh("mlr --icsv --onidx count " + q));
    }
    CHECK(compared >= 10);
}

TEST_CASE("fastread-csv schema, check, a pipe and errors", "[csv][example]") {
    fastread_test::temp_dir dir;
    fastread_test::write_file(dir / "t.tsv", "id\tzip\tfare\twhen\n1\t01234\t2.5\t2024-01-31\n"
                                             "2\t00501\tNA\t2024-02-01\n");
    const std::string cd = "cd '" + dir.path().string() + "' && ";
    CHECK(sh(cd + ours() + " schema t.tsv") == "file: t.tsv\n"
                                               "delimiter: TAB\n"
                                               "quote: \"\n"
                                               "header: yes\n"
                                               "line end: LF\n"
                                               "encoding: UTF-8\n"
                                               "bom: no\n"
                                               "rows: 2\n"
                                               "column\ttype\tvalues\tmissing\tname\n"
                                               "1\tint64\t2\t0\tid\n"
                                               "2\ttext\t2\t0\tzip\n"
                                               "3\tdouble\t1\t1\tfare\n"
                                               "4\tdate\t2\t0\twhen\n");
    CHECK(sh(cd + "cat t.tsv | " + ours() + " --threads 1 schema -") ==
          sh(cd + ours() + " schema t.tsv").replace(6, 5, "-"));
    CHECK(sh(cd + "cat t.tsv | " + ours() + " count -") == "2\n");
    // UTF-16 LE with its BOM: the same schema, its encoding and BOM said.
    std::string le = "\xFF\xFE";
    for (const char c : std::string("a,b\n1,x\n")) {
        le += c;
        le += '\0';
    }
    fastread_test::write_file(dir / "le.csv", le);
    CHECK(sh(cd + ours() + " schema le.csv") == "file: le.csv\n"
                                                "delimiter: ,\n"
                                                "quote: \"\n"
                                                "header: yes\n"
                                                "line end: LF\n"
                                                "encoding: UTF-16LE\n"
                                                "bom: yes\n"
                                                "rows: 1\n"
                                                "column\ttype\tvalues\tmissing\tname\n"
                                                "1\tint64\t1\t0\ta\n"
                                                "2\ttext\t1\t0\tb\n");
    CHECK(sh(cd + ours() + " select zip,3 t.tsv") == "zip,fare\n01234,2.5\n00501,NA\n");
    CHECK(sh(cd + ours() + " head -n 0 t.tsv") == "id,zip,fare,when\n");
    CHECK(sh(cd + ours() + " check t.tsv; echo $?") == "t.tsv: 2 rows, 4 columns: OK\n0\n");
    // A file with an error: exit 1 and the first error with its line, row and column.
    fastread_test::write_file(dir / "bad.csv", "a,b,c\n1,2,3\n4,5,6\n7,8\n9,\"x\n");
    CHECK(sh(cd + ours() + " check bad.csv 2>&1; echo $?") ==
          "fastread-csv: bad.csv: byte 18: line 4, row 3: a row of 2 fields, the header has "
          "3\n1\n");
    fastread_test::write_file(dir / "open.csv", "a,b\n1,\"x\n");
    CHECK(sh(cd + "cat open.csv | " + ours() + " check - 2>&1; echo $?") ==
          "fastread-csv: byte 6: line 2, row 1, column 2 (\"b\"): the quoted field opened here "
          "(line 1 of the read) has no closing quote\n1\n");
    CHECK(sh(cd + ours() + " select nope t.tsv 2>&1; echo $?") ==
          "fastread-csv: no column \"nope\"\n2\n");
    CHECK(sh(cd + ours() + " count missing.csv 2>/dev/null; echo $?") == "1\n");
    CHECK(sh(cd + ours() + " frobnicate t.tsv 2>/dev/null; echo $?") == "2\n");
}
#endif
