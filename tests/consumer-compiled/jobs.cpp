// A third translation unit of the compiled-mode consumer: the other jobs the compiled
// library holds (numbers and columns from a path, files_equal, find_duplicates,
// act_on_duplicates, lines from a path, string_table::view, read_at and update_at), each
// checked against the exact expected result.
#include <fastread/duplicate_actions.hpp>
#include <fastread/duplicates.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/numbers.hpp>
#include <fastread/records.hpp>
#include <fastread/string_table.hpp>
#include <fastread/string_table/writer.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

bool check(bool ok, const char* what) {
    if (!ok) {
        std::printf("compiled mode: %s: WRONG\n", what);
    }
    return ok;
}

} // namespace

bool jobs_in_compiled_mode(const std::filesystem::path& dir) {
    const std::filesystem::path root = dir / "fastread-compiled-jobs";
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "d");
    write(root / "cloud.xyz", "# x y n\n1.5 -2 7\n0.25 3e2 255\n");
    write(root / "d" / "a", "same bytes\n");
    write(root / "d" / "b", "same bytes\n");
    write(root / "d" / "c", "other bytes\n");

    bool ok = true;
    fastread::number_options commented;
    commented.comment = '#';
    ok &= check(fastread::numbers<double>(root / "cloud.xyz", commented) ==
                    std::vector<double>{1.5, -2, 7, 0.25, 300, 255},
                "numbers<double>");
    const fastread::result<std::vector<std::int64_t>> words =
        fastread::try_numbers<std::int64_t>(root / "d" / "a");
    ok &= check(!words && words.error().code() == fastread::errc::invalid_number,
                "try_numbers of text");
    const auto [x, y, n] =
        fastread::columns<float, double, std::uint8_t>(root / "cloud.xyz", commented);
    ok &= check(x == std::vector<float>{1.5f, 0.25f} && y == std::vector<double>{-2, 300} &&
                    n == std::vector<std::uint8_t>{7, 255},
                "columns<float, double, std::uint8_t>");
    fastread::number_options two = commented;
    two.columns = 2;
    const auto contradiction =
        fastread::try_columns<double, double, double>(root / "cloud.xyz", two);
    ok &= check(!contradiction && contradiction.error().code() == fastread::errc::invalid_argument,
                "try_columns with options.columns = 2");

    std::vector<std::string> lines;
    for (std::string_view line : fastread::lines(root / "cloud.xyz")) {
        lines.emplace_back(line);
    }
    ok &= check(lines == std::vector<std::string>{"# x y n", "1.5 -2 7", "0.25 3e2 255"},
                "lines(path)");
    const auto no_lines = fastread::try_lines(root / "none");
    ok &= check(!no_lines && no_lines.error().code() == std::errc::no_such_file_or_directory,
                "try_lines of a missing file");

    const std::vector<std::string> strings{"", "alpha", std::string("nul\0byte", 8)};
    fastread::string_table::write(root / "strings.bin", strings);
    const auto table = fastread::string_table::view::open(root / "strings.bin");
    ok &= check(table.size() == 3 && table[0].empty() && table[1] == "alpha" &&
                    table.at(2) == std::string_view("nul\0byte", 8),
                "string_table::view::open");
    const auto not_table = fastread::string_table::view::try_open(root / "cloud.xyz");
    ok &= check(!not_table && not_table.error().code() == fastread::errc::malformed_input,
                "string_table::view::try_open of a text file");

    ok &= check(fastread::files_equal(root / "d" / "a", root / "d" / "b") &&
                    !fastread::files_equal(root / "d" / "a", root / "d" / "c"),
                "files_equal");
    const fastread::result<bool> missing =
        fastread::try_files_equal(root / "none", root / "d" / "a");
    ok &= check(!missing && missing.error().code() == std::errc::no_such_file_or_directory,
                "try_files_equal of a missing file");

    const std::vector<std::vector<std::filesystem::path>> groups =
        fastread::find_duplicates(root / "d");
    ok &= check(groups == std::vector<std::vector<std::filesystem::path>>{{root / "d" / "a",
                                                                           root / "d" / "b"}},
                "find_duplicates");
    const std::filesystem::path roots[] = {root / "d"};
    fastread::duplicate_report report = fastread::find_duplicate_files(roots);
    fastread::order_duplicates(report.groups, fastread::duplicate_order::name, true);
    fastread::action_options dry;
    dry.action = fastread::duplicate_action::remove;
    dry.dry_run = true;
    const std::vector<fastread::action_record> records =
        fastread::act_on_duplicates(roots, report.groups, dry);
    ok &= check(records.size() == 1 && records[0].file == root / "d" / "a" &&
                    records[0].kept == root / "d" / "b" &&
                    records[0].outcome == fastread::action_outcome::planned &&
                    std::filesystem::exists(root / "d" / "a"),
                "act_on_duplicates (dry run)");
    // Records of three sizes through the compiled core (its record size known at run time).
    struct point {
        float x, y, z;
    };
    const std::vector<point> points{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    write(root / "points.bin",
          std::string(reinterpret_cast<const char*>(points.data()), points.size() * sizeof(point)));
    const std::uint64_t at[] = {2, 0, 2};
    const std::vector<point> got = fastread::read_at<point>(root / "points.bin", at);
    ok &= check(got.size() == 3 && got[0].x == 7 && got[0].z == 9 && got[1].y == 2 && got[2].x == 7,
                "read_at<point>");
    fastread::update_at(root / "points.bin", at, [](point p) {
        p.x += 10;
        return p;
    });
    std::array<float, 2> firsts{};
    const std::uint64_t x_of[] = {0, 6}; // the x of records 0 and 2, as floats
    fastread::read_at(root / "points.bin", x_of, firsts);
    ok &= check(firsts == std::array<float, 2>{11, 27}, "update_at<point>, then read_at<float>");
    const std::uint64_t past[] = {18}; // 36 bytes: 18 records of 2 bytes
    const fastread::result<std::vector<std::uint16_t>> beyond =
        fastread::try_read_at<std::uint16_t>(root / "points.bin", past);
    ok &= check(!beyond && beyond.error().code() == fastread::errc::out_of_range,
                "try_read_at past the end");

    std::filesystem::remove_all(root);
    return ok;
}
