#include <fastread/lines.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <ranges>
#include <string>
#include <thread>
#include <vector>

#if !defined(_WIN32)
#include <fcntl.h>
#include <pthread.h>
#include <sys/time.h>
#include <unistd.h>
#endif

#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

using line_list = std::vector<std::string>;

template <class Range>
line_list collect(Range&& range) {
    line_list out;
    for (std::string_view line : range) {
        out.emplace_back(line);
    }
    return out;
}

// The lines of `bytes` through every kind of source; all must agree with `want`.
void check_lines(const std::string& bytes, const line_list& want, line_options opts = {}) {
    CAPTURE(bytes);
    memory_source m(std::span<const char>(bytes.data(), bytes.size()));
    CHECK(collect(lines(m, opts)) == want);
    for (std::size_t chunk : {1, 2, 3, 7, 64}) {
        CAPTURE(chunk);
        chunked_source c(bytes, chunk);
        CHECK(collect(lines(c, opts)) == want);
    }
    temp_dir dir;
    write_file(dir / "f.txt", bytes);
    CHECK(collect(lines(dir / "f.txt", opts)) == want);
    for (io_mode io : {io_mode::read, io_mode::map}) {
        CAPTURE(to_string(io));
        line_options o = opts;
        o.io = io;
        CHECK(collect(lines(dir / "f.txt", o)) == want);
    }
    read_source r(dir / "f.txt", 5);
    CHECK(collect(lines(r, opts)) == want);
    fastread_test::pipe_feeder pipe(bytes);
    std::FILE* f = pipe.take_file();
    CHECK(collect(lines(f, opts)) == want);
    std::fclose(f);
}

} // namespace

static_assert(std::ranges::input_range<line_range<memory_source>>);
static_assert(std::input_iterator<line_range<memory_source>::iterator>);

TEST_CASE("lines: every SIMD level splits the same way", "[lines][scan]") {
    std::string text;
    line_list want;
    // Lines of 0..149 bytes, then of 0..2 bytes: blocks with no delimiter, with a few, and
    // with more than the kernel lists without looping (4).
    for (int i = 0; i < 500; ++i) {
        const std::size_t length = static_cast<std::size_t>(i < 300 ? i * 37 % 150 : i % 3);
        std::string line(length, static_cast<char>('a' + i % 26));
        text += line + (i % 7 == 0 ? "\r\n" : "\n");
        want.push_back(line);
    }
    for (fastread::scan::simd_level level : fastread::scan::all_levels) {
        if (level > fastread::scan::best_level()) {
            continue;
        }
        CAPTURE(fastread::scan::to_string(level));
        fastread::detail::force_simd_level(level);
        check_lines(text, want);
        check_lines("a\nb", {"a", "b"});
        fastread::detail::reset_simd_level();
    }
}

TEST_CASE("lines: empty input, empty lines, and a last line without a delimiter", "[lines]") {
    check_lines("", {});
    check_lines("\n", {""});
    check_lines("\n\n", {"", ""});
    check_lines("a\nb\n", {"a", "b"});
    check_lines("a\nb", {"a", "b"});
    check_lines("one line", {"one line"});
}

TEST_CASE("lines: CRLF is stripped by default, a lone CR is kept", "[lines]") {
    check_lines("a\r\nb\r\n", {"a", "b"});
    check_lines("a\rb\n", {"a\rb"});
    check_lines("a\r", {"a\r"}); // the end of input is no line feed
    check_lines("\r\n", {""});
    check_lines("a\r\r\n", {"a\r"});
    line_options keep_cr;
    keep_cr.strip_cr = false;
    check_lines("a\r\nb", {"a\r", "b"}, keep_cr);
    // A CR and its LF in different chunks: every split point, every source.
    const std::string text = "first\r\nsecond line\r\n\r\nx\r\n";
    for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
        chunked_source c(text, chunk);
        CHECK(collect(lines(c)) == line_list{"first", "second line", "", "x"});
    }
}

TEST_CASE("lines: any delimiter byte, and NUL bytes inside lines", "[lines]") {
    line_options nul;
    nul.delimiter = '\0';
    check_lines(std::string("a\0bc\0\0", 6), {"a", "bc", ""}, nul);
    line_options comma;
    comma.delimiter = ',';
    check_lines("x,y\n,z", {"x", "y\n", "z"}, comma);
    check_lines(std::string("ab\0cd\nef\n", 9), {std::string("ab\0cd", 5), "ef"});
}

TEST_CASE("lines: keep_delimiter makes the lines concatenate to the input (property)", "[lines]") {
    std::mt19937 rng(1234);
    const char alphabet[] = {'a', 'b', '\n', '\r', '\0', ' '};
    line_options keep;
    keep.keep_delimiter = true;
    for (int trial = 0; trial < 300; ++trial) {
        std::string bytes(rng() % 200, '\0');
        for (char& c : bytes) {
            c = alphabet[rng() % sizeof alphabet];
        }
        const std::size_t chunk = 1 + rng() % 40;
        chunked_source c(bytes, chunk);
        std::string joined;
        std::size_t count = 0;
        for (std::string_view line : lines(c, keep)) {
            joined += line;
            ++count;
            // Every line but the last ends with the delimiter, and holds no other one.
            CHECK(line.find('\n') == (line.back() == '\n' ? line.size() - 1 : std::string::npos));
        }
        CAPTURE(bytes, chunk);
        REQUIRE(joined == bytes);
        const std::size_t newlines =
            static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
        REQUIRE(count == newlines + (bytes.empty() || bytes.back() == '\n' ? 0 : 1));
    }
}

TEST_CASE("lines: lines longer than the chunk grow the buffer, and max_line_length throws",
          "[lines][error]") {
    const std::string long_line(100000, 'x');
    check_lines(long_line + "\nshort\n" + long_line, {long_line, "short", long_line});

    line_options limited;
    limited.max_line_length = 10;
    check_lines("0123456789\nabc\n", {"0123456789", "abc"}, limited); // exactly at the limit
    const std::string bytes = "short\n0123456789ABC\n";
    for (std::size_t chunk : {1, 4, 100}) {
        chunked_source c(bytes, chunk);
        try {
            collect(lines(c, limited));
            FAIL("accepted a line over max_line_length");
        } catch (const parse_error& e) {
            CHECK(e.offset() == 6 + 10); // line starts at 6; the 11th byte is too many
            CHECK_THAT(e.what(), Catch::Contains("max_line_length (10 bytes)"));
        }
    }
    // The try_ form: the lines before, then the same error kept by the range.
    temp_dir dir;
    write_file(dir / "long.txt", bytes);
    auto range = fastread::try_lines(dir / "long.txt", limited);
    REQUIRE(range);
    CHECK(collect(*range) == std::vector<std::string>{"short"});
    CHECK(range->error().code() == fastread::errc::over_limit);
    CHECK(range->error().offset() == 6 + 10);
    CHECK(range->error().message() ==
          (dir / "long.txt").string() + ": byte 16: line longer than max_line_length (10 bytes)");
    try {
        collect(lines(dir / "long.txt", limited));
        FAIL("accepted a line over max_line_length");
    } catch (const parse_error& e) {
        CHECK(range->error().message() == e.what());
        CHECK(e.code() == fastread::errc::over_limit);
    }
}

TEST_CASE("lines: max_line_length counts the line as handed out, not a CR strip_cr drops",
          "[lines][error]") {
    line_options limited;
    limited.max_line_length = 3;
    // Through every source and chunk size, so that the CR and LF also fall in different
    // chunks.
    check_lines("abc\r\nxyz\n", {"abc", "xyz"}, limited);
    check_lines("ab\r\r\n", {"ab\r"}, limited); // the first CR stays, and counts
    auto rejects = [&](const std::string& bytes, line_options opts, std::uint64_t offset) {
        CAPTURE(bytes);
        for (std::size_t chunk : {1, 2, 3, 4, 100}) {
            CAPTURE(chunk);
            chunked_source c(bytes, chunk);
            try {
                collect(lines(c, opts));
                FAIL("accepted a line over max_line_length");
            } catch (const parse_error& e) {
                CHECK(e.offset() == offset);
            }
        }
        // The try_ form from a file: the same offset, kept by the range.
        temp_dir dir;
        write_file(dir / "t.txt", bytes);
        auto range = fastread::try_lines(dir / "t.txt", opts);
        REQUIRE(range);
        collect(*range);
        CHECK(range->error().code() == fastread::errc::over_limit);
        CHECK(range->error().offset() == offset);
    };
    rejects("abcd\r\n", limited, 3);
    rejects("abc\r", limited, 3);    // a CR at the end of the input is kept
    rejects("abc\rd\n", limited, 3); // so is a lone CR
    line_options kept = limited;     // kept delimiters: nothing is stripped
    kept.keep_delimiter = true;
    rejects("abc\r\n", kept, 3);
}

TEST_CASE("lines: works with std::ranges algorithms and reports line offsets", "[lines]") {
    const std::string text = "E1\nok\nE2\nok\n";
    memory_source m(std::span<const char>(text.data(), text.size()));
    auto range = lines(m);
#if defined(__cpp_lib_ranges) // libc++ before 15 has no std::ranges algorithms
    CHECK(std::ranges::count_if(range, [](std::string_view l) { return l.starts_with("E"); }) == 2);
#else
    std::ptrdiff_t errors = 0;
    for (std::string_view l : range) {
        errors += l.starts_with("E") ? 1 : 0;
    }
    CHECK(errors == 2);
#endif
    memory_source m2(std::span<const char>(text.data(), text.size()));
    auto r2 = lines(m2);
    auto it = r2.begin();
    ++it;
    CHECK(*it == "ok");
    CHECK(r2.line_offset() == 3);
}

TEST_CASE("lines(path) reads /proc files and throws for a missing file", "[lines][error]") {
#if !defined(_WIN32)
    const line_list status = collect(lines("/proc/self/status"));
    REQUIRE_FALSE(status.empty());
    CHECK(status.front().rfind("Name:", 0) == 0);
#endif
    CHECK_THROWS_AS(lines("/nonexistent/file"), std::system_error);
    const auto missing = fastread::try_lines("/nonexistent/file");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
    CHECK(missing.error().message() ==
          "open \"/nonexistent/file\": " + std::generic_category().message(ENOENT));
}

namespace {

// 10 MiB of numbered lines, and the lines(path) options that keep the delimiters, so that
// what the range hands out concatenates to a prefix of the file.
std::string numbered_text(std::size_t size) {
    std::string text;
    for (std::size_t i = 0; text.size() < size; ++i) {
        text += "line " + std::to_string(i) + " of a file that shrinks\n";
    }
    text.resize(size);
    text.back() = '\n';
    return text;
}

#if !defined(_WIN32) // used by the POSIX-only shrink tests below
// Reads the lines of `path` with `io`, cutting the file to `cut` bytes (truncate(2) by
// path, as logrotate's copytruncate does) right after the first line;
// returns what the range handed out.
std::string read_while_cut(const std::filesystem::path& path, io_mode io, std::size_t cut) {
    line_options o;
    o.keep_delimiter = true;
    o.io = io;
    std::string seen;
    bool first = true;
    for (std::string_view line : lines(path, o)) {
        seen.append(line);
        if (first) {
            first = false;
            REQUIRE(fastread_test::resize_file(path, cut));
        }
    }
    return seen;
}
#endif

// What `range` (made with keep_delimiter) hands out, the file at `path` cut to `cut` bytes
// after the first line unless `cut` is npos.
std::string collect_cutting(line_range<detail::file_source>& range,
                            const std::filesystem::path& path, std::size_t cut) {
    std::string seen;
    bool first = true;
    for (std::string_view line : range) {
        seen.append(line);
        if (first && cut != std::string::npos) {
            first = false;
            REQUIRE(fastread_test::resize_file(path, cut));
        }
    }
    return seen;
}

// A pass over `path` with the file layer's `plan` (stream, ahead or map), cutting the file
// to `cut` bytes after the first line unless `cut` is npos.
std::string read_with_plan(const std::filesystem::path& path, detail::reading_plan plan,
                           std::size_t cut = std::string::npos) {
    line_options o;
    o.keep_delimiter = true;
    detail::unique_fd fd = detail::open_read_only(path);
    const detail::file_info info = detail::stat_fd(fd.get(), path);
    line_range<detail::file_source> range(
        std::make_unique<detail::file_source>(std::move(fd), info, plan, path), o);
    return collect_cutting(range, path, cut);
}

// The pass lines(path) makes over big cached files on two CPUs or more: read by a helper
// thread ahead of the scan (detail::read_ahead). Cuts the file to `cut` bytes after the
// first line unless `cut` is npos.
std::string read_ahead_pass(const std::filesystem::path& path,
                            std::size_t cut = std::string::npos) {
    line_options o;
    o.keep_delimiter = true;
    detail::unique_fd fd = detail::open_read_only(path);
    const detail::file_info info = detail::stat_fd(fd.get(), path);
    line_range<detail::file_source> range(
        std::make_unique<detail::file_source>(std::move(fd), info, detail::reading_plan::ahead,
                                              path),
        o);
    return collect_cutting(range, path, cut);
}

} // namespace

TEST_CASE("lines(path): streamed, read ahead and mapped passes hand out the file exactly",
          "[lines]") {
    // Lines of 1 to 300 bytes, so that lines straddle every kind of boundary: a 64 KiB read,
    // a 1 MiB block read ahead, a 2 MiB mapped window.
    std::mt19937 rng(17);
    std::string text;
    while (text.size() < (std::size_t{9} << 20) + 777) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 299)(rng);
        text.append(n, static_cast<char>('a' + n % 26));
        text += n % 7 == 0 ? "\r\n" : "\n";
    }
    temp_dir dir;
    const auto path = dir / "big.log";
    write_file(path, text);
    using plan = detail::reading_plan;
    for (plan p : {plan::stream, plan::ahead, plan::map}) {
        CAPTURE(static_cast<int>(p));
        CHECK(read_with_plan(path, p) == text);
    }
}

// POSIX only: Windows refuses to shrink a file while it is mapped (ERROR_USER_MAPPED_FILE).
#if !defined(_WIN32)
TEST_CASE("lines(path), mapped windows: a file that shrinks ends where it now ends, or throws",
          "[lines][error]") {
    const std::string text = numbered_text(std::size_t{10} << 20);
    temp_dir dir;
    const auto path = dir / "app.log";
    write_file(path, text);
    const std::size_t cut = (std::size_t{6} << 20) + 12345;
    CHECK(read_with_plan(path, detail::reading_plan::map, cut) == text.substr(0, cut));
    // Below what the first 2 MiB window handed out.
    write_file(path, text);
    CHECK_THROWS_WITH(read_with_plan(path, detail::reading_plan::map, 1000),
                      Catch::Contains(path.string()) && Catch::Contains("shrank to 1000 bytes"));
}

TEST_CASE("lines(path): a file that shrinks while its lines are read ends where it now ends",
          "[lines][error]") {
    const std::string text = numbered_text(std::size_t{10} << 20);
    temp_dir dir;
    const auto path = dir / "app.log";
    for (io_mode io : {io_mode::read, io_mode::map}) {
        CAPTURE(to_string(io));
        // Cut past what a map hands out first (2 MiB windows) and past the first read chunk:
        // the lines up to the new end, then the end, whichever way the file is read.
        write_file(path, text);
        const std::size_t cut = (std::size_t{6} << 20) + 12345;
        CHECK(read_while_cut(path, io, cut) == text.substr(0, cut));
    }
    // A cut below what was already handed out (the first 64 KiB chunk, or the first 2 MiB
    // window, where pages past the new end read as zeros): an error that names the file
    // (at the end of input when reading), never SIGBUS.
    for (io_mode io : {io_mode::read, io_mode::map}) {
        CAPTURE(to_string(io));
        write_file(path, text);
        CHECK_THROWS_WITH(read_while_cut(path, io, 1000),
                          Catch::Contains(path.string()) &&
                              Catch::Contains("shrank to 1000 bytes"));
        // The try_ form: the iteration ends, the range keeps the error.
        write_file(path, text);
        line_options options;
        options.io = io;
        auto range = fastread::try_lines(path, options);
        REQUIRE(range);
        std::size_t handed_out = 0;
        for (std::string_view line : *range) {
            if (handed_out == 0) {
                std::filesystem::resize_file(path, 1000);
            }
            handed_out += line.size() + 1;
        }
        CHECK(range->error().code() == std::errc::io_error);
        CHECK_THAT(range->error().message(),
                   Catch::Contains(path.string()) && Catch::Contains("shrank to 1000 bytes"));
    }
}

#endif

#if !defined(_WIN32) // sysfs (Wine shows Linux's /sys through its Z: drive)
TEST_CASE("lines(path) reads sysfs files, which cannot be mapped, whatever the mode", "[lines]") {
    const std::filesystem::path sysfs = "/sys/devices/system/cpu/online";
    if (!std::filesystem::exists(sysfs)) {
        WARN("skipped: no " << sysfs);
        return;
    }
    const std::string want = fastread_test::read_file(sysfs);
    REQUIRE_FALSE(want.empty());
    for (io_mode io : {io_mode::read, io_mode::map}) {
        CAPTURE(to_string(io));
        line_options o;
        o.keep_delimiter = true;
        o.io = io;
        std::string seen;
        for (std::string_view line : lines(sysfs, o)) {
            seen.append(line);
        }
        CHECK(seen == want);
    }
}
#endif

// POSIX only: signals interrupting reads, and a pipe's descriptors used directly.
#if !defined(_WIN32)
namespace {
volatile std::sig_atomic_t alarms = 0;
extern "C" void count_alarm(int) {
    alarms = alarms + 1;
}
} // namespace

TEST_CASE("lines(FILE*) reads on when signals interrupt its reads (no SA_RESTART)",
          "[lines][error]") {
    // A handler installed without SA_RESTART makes a read(2) waiting on a slow pipe fail
    // with EINTR; the range must read on, not throw.
    struct sigaction action {
    }, old_action{};
    action.sa_handler = count_alarm;
    action.sa_flags = 0; // no SA_RESTART
    sigemptyset(&action.sa_mask);
    REQUIRE(::sigaction(SIGALRM, &action, &old_action) == 0);
    // The writer thread must not take the signals: it starts with SIGALRM blocked.
    sigset_t alarm_set;
    sigemptyset(&alarm_set);
    sigaddset(&alarm_set, SIGALRM);
    REQUIRE(::pthread_sigmask(SIG_BLOCK, &alarm_set, nullptr) == 0);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::string want;
    for (int i = 0; i < 30; ++i) {
        want += "line " + std::to_string(i) + "\n";
    }
    std::thread writer([fd = fds[1], &want] {
        for (std::size_t at = 0; at < want.size();) {
            const std::size_t end = want.find('\n', at) + 1;
            const ssize_t n = ::write(fd, want.data() + at, end - at);
            if (n > 0) {
                at += static_cast<std::size_t>(n);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ::close(fd);
    });
    REQUIRE(::pthread_sigmask(SIG_UNBLOCK, &alarm_set, nullptr) == 0);
    itimerval every_ms{};
    every_ms.it_interval.tv_usec = 1000;
    every_ms.it_value.tv_usec = 1000;
    REQUIRE(::setitimer(ITIMER_REAL, &every_ms, nullptr) == 0);
    std::FILE* f = ::fdopen(fds[0], "rb");
    std::string seen;
    std::string error;
    line_options o;
    o.keep_delimiter = true;
    try {
        for (std::string_view line : lines(f, o)) {
            seen.append(line);
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    itimerval off{};
    (void)::setitimer(ITIMER_REAL, &off, nullptr);
    writer.join();
    std::fclose(f);
    (void)::sigaction(SIGALRM, &old_action, nullptr);
    CHECK(error.empty());
    CHECK(seen == want);
    CHECK(alarms > 0); // the signals came
}

TEST_CASE("lines(FILE*) hands out each line of a pipe as soon as it has arrived",
          "[lines][source]") {
    // The writer sends the second line only once the reader has the first (or after 10 s,
    // so that a reader waiting for a whole chunk cannot hang the test: it then fails).
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::atomic<bool> first_seen{false}, second_sent{false};
    std::thread writer([&] {
        (void)!::write(fds[1], "first\n", 6);
        for (int i = 0; i < 10000 && !first_seen.load(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        second_sent = true;
        (void)!::write(fds[1], "second\nthird", 12);
        ::close(fds[1]);
    });
    std::FILE* f = ::fdopen(fds[0], "r");
    REQUIRE(f != nullptr);
    std::vector<std::string> got;
    bool first_before_second = false;
    for (std::string_view line : fastread::lines(f)) {
        got.emplace_back(line);
        if (got.size() == 1) {
            first_before_second = !second_sent.load();
            first_seen = true;
        }
    }
    writer.join();
    std::fclose(f);
    CHECK(got == std::vector<std::string>{"first", "second", "third"});
    CHECK(first_before_second);
}

#endif

TEST_CASE("lines(FILE*) of a pipe starts with what stdio has buffered and what was pushed back",
          "[lines][source]") {
    fastread_test::pipe_feeder pipe("abc\ndef\n" + std::string(100000, 'x') + "\nlast\n");
    std::FILE* f = pipe.take_file();
    REQUIRE(std::fgetc(f) == 'a'); // stdio now holds a buffer of the pipe's bytes
    REQUIRE(std::ungetc('A', f) == 'A');
    std::vector<std::string> got;
    for (std::string_view line : fastread::lines(f)) {
        got.emplace_back(line);
    }
    std::fclose(f);
    CHECK(got == std::vector<std::string>{"Abc", "def", std::string(100000, 'x'), "last"});
}

TEST_CASE("lines(path), read ahead: the file exactly, and a shrink ends the lines or throws",
          "[lines][error]") {
    // 10 MiB: the helper reads 1 MiB blocks, at most 4 ahead of the scan. A cut at 6 MiB
    // after the first line lies past what it can have read by then: the lines end where the
    // file now ends. A cut at 1000 bytes lies below what was handed out: the pass ends with
    // an error naming the file, as a streamed pass does.
    const std::string text = numbered_text((std::size_t{10} << 20) + 777);
    temp_dir dir;
    const auto path = dir / "app.log";
    write_file(path, text);
    CHECK(read_ahead_pass(path) == text);
    const std::size_t cut = (std::size_t{6} << 20) + 12345;
    CHECK(read_ahead_pass(path, cut) == text.substr(0, cut));
    write_file(path, text);
    CHECK_THROWS_WITH(read_ahead_pass(path, 1000),
                      Catch::Contains(path.string()) && Catch::Contains("shrank to 1000 bytes"));
    // A loop left early: the range and its helper go away without waiting for the end.
    write_file(path, text);
    {
        detail::unique_fd fd = detail::open_read_only(path);
        const detail::file_info info = detail::stat_fd(fd.get(), path);
        line_range<detail::file_source> range(
            std::make_unique<detail::file_source>(std::move(fd), info, detail::reading_plan::ahead,
                                                  path),
            line_options{});
        std::size_t n = 0;
        for (std::string_view line : range) {
            CHECK(line.starts_with("line " + std::to_string(n) + " "));
            if (++n == 3) {
                break;
            }
        }
        CHECK(n == 3);
    }
}
