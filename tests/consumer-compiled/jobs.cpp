// A third translation unit of the compiled-mode consumer: the other jobs the compiled
// library holds (numbers and columns from a path, files_equal, find_duplicates,
// act_on_duplicates, lines from a path, string_table::view), each checked against the exact
// expected result.
#include <fastread/duplicate_actions.hpp>
#include <fastread/duplicates.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/numbers.hpp>
#include <fastread/string_table.hpp>
#include <fastread/string_table/writer.hpp>

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
    std::filesystem::remove_all(root);
    return ok;
}
