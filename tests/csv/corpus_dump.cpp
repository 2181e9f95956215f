// csv::sniff and csv::read of one file, printed for tests/csv/corpus_test.py to compare with
// CleverCSV and pandas: the dialect, then each column and its values.
//
//   D <delimiter byte> <quote byte> <header 0/1> <lines skipped before the table>
//   C <index> <type> <name as hex>
//   V <row> <value>      int64: decimal; double: %.17g; bool: 0/1; date: days since
//                        1970-01-01; timestamp: nanoseconds since the epoch; text: hex
//   M <row>              a missing value
//   E <message>          csv::read's error (exit status 1)
#include <fastread/csv/read.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

namespace {

std::string hex(std::string_view s) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const char c : s) {
        out += digits[static_cast<unsigned char>(c) >> 4];
        out += digits[static_cast<unsigned char>(c) & 15];
    }
    return out.empty() ? "-" : out;
}

} // namespace

int main(int argc, char** argv) {
    namespace csv = fastread::csv;
    if (argc != 2) {
        std::fputs("usage: corpus_dump FILE\n", stderr);
        return 2;
    }
    try {
        const csv::table t = csv::read(argv[1]);
        const csv::dialect& d = t.dialect();
        std::printf("D %d %d %d %zu %d\n", d.delimiter, d.quote, d.header ? 1 : 0, d.skip_lines,
                    d.escape);
        for (std::size_t k = 0; k < t.columns().size(); ++k) {
            const csv::column& c = t[k];
            std::printf("C %zu %s %s\n", k, to_string(c.type()).c_str(), hex(c.name()).c_str());
            for (std::size_t i = 0; i < c.size(); ++i) {
                if (c.missing(i)) {
                    std::printf("M %zu\n", i);
                    continue;
                }
                switch (c.type()) {
                case csv::type::boolean:
                    std::printf("V %zu %d\n", i, c.values<bool>()[i] ? 1 : 0);
                    break;
                case csv::type::int64:
                    std::printf("V %zu %lld\n", i,
                                static_cast<long long>(c.values<std::int64_t>()[i]));
                    break;
                case csv::type::float64:
                    std::printf("V %zu %.17g\n", i, c.values<double>()[i]);
                    break;
                case csv::type::date:
                    std::printf(
                        "V %zu %lld\n", i,
                        static_cast<long long>(
                            c.values<std::chrono::sys_days>()[i].time_since_epoch().count()));
                    break;
                case csv::type::timestamp:
                    std::printf("V %zu %lld\n", i,
                                static_cast<long long>(
                                    c.values<std::chrono::sys_time<std::chrono::nanoseconds>>()[i]
                                        .time_since_epoch()
                                        .count()));
                    break;
                case csv::type::text:
                    std::printf("V %zu %s\n", i, hex(c.values<std::string_view>()[i]).c_str());
                    break;
                }
            }
        }
    } catch (const std::exception& e) {
        std::printf("E %s\n", e.what());
        return 1;
    }
    return 0;
}
