// fastread-csv: delimited text from the command line, in the manner of xsv and zsv, the
// dialect of every input found by fastread::csv::sniff.
//
//   fastread-csv [--threads N] schema FILE          the dialect, then each column's name, type
//                                                    (inferred over every value: csv::read),
//                                                    values and missing values
//   fastread-csv [--threads N] count FILE           the rows after the header (a big file in
//                                                    the page cache counted on threads)
//   fastread-csv head [-n N] FILE                   the header and the first N rows (10), as CSV
//   fastread-csv select COLUMNS FILE                the columns (names, or 1-based numbers,
//                                                    separated by ','), as CSV
//   fastread-csv [--threads N] check FILE           exit 0 if the file reads; else 1 and its
//                                                    first error (line, row, column)
//
// FILE '-' is standard input (a pipe is read in one pass: its first MiB sniffed, then read on
// from there). CSV out is RFC 4180: ',' between fields, LF after each row, a field quoted
// (its quotes doubled) where it holds ',', '"', CR or LF, or is a row's only field and empty.
// Exit status: 0, 1 for an input that does not read (its error on stderr), 2 for a usage
// error.

#include <fastread/csv.hpp>
#include <fastread/csv/read.hpp>
#include <fastread/source/read_source.hpp>
#include <fastread/source/stdio_source.hpp>
#include <fastread/threads.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tool_main.hpp"

namespace {

namespace csv = fastread::csv;

int usage() {
    std::fputs("usage: fastread-csv [--threads N] schema|count|check FILE\n"
               "       fastread-csv head [-n N] FILE\n"
               "       fastread-csv select COLUMNS FILE\n"
               "FILE '-' is standard input; COLUMNS: names or 1-based numbers, separated by ','\n",
               stderr);
    return 2;
}

// Standard input as a byte source: the bytes already read (the sniffed head) first, then the
// rest of the stream.
struct replay_source {
    std::string head;
    fastread::stdio_source* rest = nullptr;
    bool handed = false;
    std::span<const char> next() {
        if (!handed) {
            handed = true;
            if (!head.empty()) {
                return {head.data(), head.size()};
            }
        }
        return rest->next();
    }
};

// Writes one CSV field (RFC 4180 quoting where needed).
void put_field(std::string& out, std::string_view f, bool only) {
    if (f.find_first_of(",\"\r\n") == std::string_view::npos && !(only && f.empty())) {
        out += f;
        return;
    }
    out += '"';
    for (const char c : f) {
        out += c;
        if (c == '"') {
            out += '"';
        }
    }
    out += '"';
}

void put_row(std::string& out, std::span<const std::string_view> fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i != 0) {
            out += ',';
        }
        put_field(out, fields[i], fields.size() == 1);
    }
    out += '\n';
}

bool flush(std::string& out) {
    const bool ok = std::fwrite(out.data(), 1, out.size(), stdout) == out.size();
    out.clear();
    return ok;
}

std::string shown(char c) {
    switch (c) {
    case '\t':
        return "TAB";
    case ' ':
        return "space";
    case 0:
        return "none";
    default:
        return std::string(1, c);
    }
}

// The input named on the command line: a path, or standard input ('-') with its sniffed head
// kept to be read again. A file's dialect is sniffed from its head when first asked (schema
// asks csv::read, which sniffs it itself): the rows need the delimiter, quote and header,
// not csv::sniff(path)'s samples from the whole file.
class input {
  public:
    explicit input(const std::string& name) : name_(name) {
        if (name != "-") {
            return;
        }
        stdin_.emplace(stdin);
        replay_.rest = &*stdin_;
        while (replay_.head.size() < (std::size_t{1} << 20)) {
            const std::span<const char> c = stdin_->next();
            if (c.empty()) {
                break;
            }
            replay_.head.append(c.data(), c.size());
        }
        fastread::memory_source head(
            std::span<const char>(replay_.head.data(), replay_.head.size()));
        dialect_ = csv::sniff(head);
    }

    const csv::dialect& dialect() {
        if (!dialect_) {
            fastread::read_source head{std::filesystem::path(name_)};
            dialect_ = csv::sniff(head);
        }
        return *dialect_;
    }

    // The rows, in the sniffed dialect.
    csv::rows rows() {
        const csv::options o = dialect().options();
        if (name_ != "-") {
            return csv::rows(std::filesystem::path(name_), o);
        }
        return csv::rows(replay_, o);
    }

    // The rows' count (csv::count_rows: a file in slices on threads), in the sniffed dialect.
    std::uint64_t count_rows() {
        const csv::options o = dialect().options();
        if (name_ != "-") {
            return csv::count_rows(std::filesystem::path(name_), o);
        }
        return csv::count_rows(replay_, o);
    }

    // The table (csv::read), in the sniffed dialect.
    csv::table table() {
        csv::read_options o;
        if (name_ != "-") {
            return csv::read(std::filesystem::path(name_), o);
        }
        return csv::read(replay_, o);
    }

  private:
    std::string name_;
    std::optional<csv::dialect> dialect_;
    std::optional<fastread::stdio_source> stdin_;
    replay_source replay_;
};

int schema(input& in, const std::string& name) {
    const csv::table t = in.table();
    const csv::dialect& d = t.dialect();
    std::printf("file: %s\n", name.c_str());
    std::printf("delimiter: %s\nquote: %s\nheader: %s\nline end: %s\nencoding: %s\nbom: %s\n"
                "rows: %zu\n",
                shown(d.delimiter).c_str(), shown(d.quote).c_str(), d.header ? "yes" : "no",
                d.line_end == "\r\n" ? "CRLF"
                : d.line_end == "\r" ? "CR"
                                     : "LF",
                d.encoding == csv::text_encoding::utf16le   ? "UTF-16LE"
                : d.encoding == csv::text_encoding::utf16be ? "UTF-16BE"
                                                            : "UTF-8",
                d.bom ? "yes" : "no", t.rows());
    std::printf("column\ttype\tvalues\tmissing\tname\n");
    for (std::size_t i = 0; i < d.columns.size(); ++i) {
        const csv::column_info& c = d.columns[i];
        std::printf("%zu\t%s\t%llu\t%llu\t%s\n", i + 1, to_string(c.type).c_str(),
                    static_cast<unsigned long long>(c.values),
                    static_cast<unsigned long long>(c.missing), c.name.c_str());
    }
    return 0;
}

int count(input& in) {
    const std::uint64_t n = in.count_rows();
    std::printf("%llu\n", static_cast<unsigned long long>(n));
    return 0;
}

int head(input& in, std::uint64_t n) {
    csv::rows rows = in.rows();
    std::string out;
    std::vector<std::string_view> fields(rows.header().begin(), rows.header().end());
    if (!fields.empty()) {
        put_row(out, fields);
    }
    if (n != 0) {
        std::uint64_t k = 0;
        for (const csv::row& r : rows) { // no row read past the n-th
            put_row(out, std::span<const std::string_view>(r.begin(), r.end()));
            if (++k == n) {
                break;
            }
        }
    }
    return flush(out) ? 0 : 1;
}

int select(input& in, const std::string& spec) {
    csv::rows rows = in.rows();
    const std::vector<std::string>& names = rows.header();
    std::vector<std::size_t> index;
    for (std::size_t at = 0; at <= spec.size();) {
        std::size_t end = spec.find(',', at);
        if (end == std::string::npos) {
            end = spec.size();
        }
        const std::string key = spec.substr(at, end - at);
        at = end + 1;
        std::optional<std::size_t> i = rows.column(key);
        if (!i && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
            const unsigned long v = std::strtoul(key.c_str(), nullptr, 10);
            const std::size_t width = names.empty() ? in.dialect().columns.size() : names.size();
            if (v >= 1 && v <= width) {
                i = v - 1;
            }
        }
        if (!i) {
            std::fprintf(stderr, "fastread-csv: no column \"%s\"\n", key.c_str());
            return 2;
        }
        index.push_back(*i);
    }
    std::string out;
    std::vector<std::string_view> fields(index.size());
    if (!names.empty()) {
        for (std::size_t k = 0; k < index.size(); ++k) {
            fields[k] = names[index[k]];
        }
        put_row(out, fields);
    }
    for (const csv::row& r : rows) {
        for (std::size_t k = 0; k < index.size(); ++k) {
            fields[k] = index[k] < r.size() ? r[index[k]] : std::string_view();
        }
        put_row(out, fields);
        if (out.size() >= (std::size_t{1} << 16) && !flush(out)) {
            return 1;
        }
    }
    return flush(out) ? 0 : 1;
}

int check(input& in, const std::string& name) {
    const std::uint64_t n = in.count_rows();
    std::printf("%s: %llu rows, %zu columns: OK\n", name.c_str(),
                static_cast<unsigned long long>(n), in.dialect().columns.size());
    return 0;
}

} // namespace

int tool_main(const std::vector<std::string>& args) {
    std::size_t a = 1;
    if (a + 1 < args.size() && args[a] == "--threads") {
        const unsigned long n = std::strtoul(args[a + 1].c_str(), nullptr, 10);
        if (n == 0) {
            return usage();
        }
        fastread::set_max_threads(static_cast<unsigned>(n));
        a += 2;
    }
    if (a >= args.size()) {
        return usage();
    }
    const std::string command = args[a++];
    std::uint64_t n = 10;
    std::string columns;
    if (command == "head" && a + 1 < args.size() && args[a] == "-n") {
        char* end = nullptr;
        n = std::strtoull(args[a + 1].c_str(), &end, 10);
        if (end == args[a + 1].c_str() || *end != 0) {
            return usage();
        }
        a += 2;
    }
    if (command == "select") {
        if (a >= args.size()) {
            return usage();
        }
        columns = args[a++];
    }
    if (a + 1 != args.size()) {
        return usage();
    }
    const std::string name = args[a];
    try {
        input in(name);
        if (command == "schema") {
            return schema(in, name);
        }
        if (command == "count") {
            return count(in);
        }
        if (command == "head") {
            return head(in, n);
        }
        if (command == "select") {
            return select(in, columns);
        }
        if (command == "check") {
            return check(in, name);
        }
        return usage();
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "fastread-csv: %s\n", e.what());
        return 1;
    }
}
