// What fastread does to the process it runs in: after every default entry point has run on
// big cached files, no SIGBUS handler is installed, no memfd was made and (where the page
// cache can be asked without one) no file was mapped; with one thread allowed (the
// environment, set_max_threads or the call's options), no thread was started at all.
//
// Its own executable, built without sanitizers (AddressSanitizer installs a SIGBUS handler
// of its own), and each test case runs in a fresh process (catch_discover_tests). The
// system calls are counted by definitions in this executable that take the place of the C
// library's (pthread_create, memfd_create, mmap) and pass the calls on.

#include <fastread/csv.hpp>
#include <fastread/csv/read.hpp>
#include <fastread/duplicates.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/numbers.hpp>
#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>
#include <fastread/records.hpp>
#include <fastread/threads.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_util.hpp"

namespace {
std::atomic<unsigned> threads_created{0};
std::atomic<unsigned> memfds_created{0};
std::atomic<unsigned> files_mapped{0};
} // namespace

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                              void* arg) noexcept {
    using fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
    static const fn next = reinterpret_cast<fn>(::dlsym(RTLD_NEXT, "pthread_create"));
    threads_created.fetch_add(1);
    return next(thread, attr, start, arg);
}

extern "C" int memfd_create(const char* name, unsigned int flags) noexcept {
    memfds_created.fetch_add(1);
    return static_cast<int>(::syscall(SYS_memfd_create, name, flags));
}

extern "C" void* mmap(void* addr, std::size_t length, int prot, int flags, int fd,
                      off_t offset) noexcept {
    if (fd >= 0) {
        files_mapped.fetch_add(1);
    }
    return reinterpret_cast<void*>(::syscall(SYS_mmap, addr, length, prot, flags, fd, offset));
}

namespace {

namespace fs = std::filesystem;
using fastread_test::temp_dir;

// Big files in the page cache (just written), one per default entry point, and what each
// holds.
struct big_files {
    temp_dir dir;
    fs::path text = dir / "log.txt";        // 64 MiB of lines: read ahead
    fs::path raw = dir / "big.ppm";         // a 16.6 MB P6: raw slices
    fs::path plain = dir / "big-plain.ppm"; // a 9.7 MB P3: plain slices
    fs::path pfm = dir / "small.pfm";       // a PFM
    fs::path copy_a = dir / "same-a.bin";   // two equal 40 MiB files: read ahead
    fs::path copy_b = dir / "same-b.bin";
    fs::path records = dir / "records.bin"; // 16 Mi int32 records: record i holds i
    fs::path table = dir / "table.txt";     // 8 MiB of "i 3i" lines: numbers in slices
    fs::path csv = dir / "table.csv";       // the same as "i,3i" under a header: csv slices
    std::uint64_t text_lines = 0;
    std::uint64_t table_rows = 0;
    static constexpr std::uint32_t raw_side = 2350, plain_side = 1000;
    static constexpr std::uint64_t record_count = std::uint64_t{16} << 20;

    big_files() {
        std::string text;
        text.reserve(std::size_t{64} << 20);
        while (text.size() < (std::size_t{64} << 20)) {
            text += "2026-11-26 23:00:00 request " + std::to_string(text_lines++) + " served\n";
        }
        fastread_test::write_file(text_path(), text);

        std::string p6 =
            "P6\n" + std::to_string(raw_side) + " " + std::to_string(raw_side) + "\n255\n";
        for (std::uint64_t i = 0; i < std::uint64_t{raw_side} * raw_side * 3; ++i) {
            p6 += static_cast<char>(i * 7 % 256);
        }
        fastread_test::write_file(raw, p6);

        std::string p3 =
            "P3\n" + std::to_string(plain_side) + " " + std::to_string(plain_side) + "\n255\n";
        for (std::uint64_t i = 0; i < std::uint64_t{plain_side} * plain_side * 3; ++i) {
            p3 += std::to_string(i % 256);
            p3 += i % 12 == 11 ? '\n' : ' ';
        }
        fastread_test::write_file(plain, p3);

        fastread::pfm::image img;
        img.width = 3;
        img.height = 2;
        img.depth = 1;
        img.samples = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f};
        fastread::pfm::save(pfm, img);

        std::string same(std::size_t{40} << 20, '\0');
        for (std::size_t i = 0; i < same.size(); ++i) {
            same[i] = static_cast<char>(i * 13 % 251);
        }
        fastread_test::write_file(copy_a, same);
        fastread_test::write_file(copy_b, same);

        std::vector<std::int32_t> values(record_count);
        for (std::uint64_t i = 0; i < record_count; ++i) {
            values[i] = static_cast<std::int32_t>(i);
        }
        fastread_test::write_file(records, std::string(reinterpret_cast<const char*>(values.data()),
                                                       values.size() * sizeof(std::int32_t)));

        std::string table_text;
        table_text.reserve(std::size_t{8} << 20);
        while (table_text.size() < (std::size_t{8} << 20)) {
            table_text += std::to_string(table_rows) + ' ' + std::to_string(3 * table_rows) + '\n';
            ++table_rows;
        }
        fastread_test::write_file(table, table_text);
        std::string csv_text = "i,three_i\n" + table_text;
        std::replace(csv_text.begin(), csv_text.end(), ' ', ',');
        fastread_test::write_file(csv, csv_text);
    }
    const fs::path& text_path() const { return text; }
};

// Runs every default entry point once over `f`, each with `threads` in its options, and
// checks each result exactly.
void run_every_entry_point(const big_files& f, unsigned threads) {
    fastread::line_options lo;
    lo.threads = threads;
    std::uint64_t lines = 0;
    std::string last_copy;
    for (std::string_view line : fastread::lines(f.text, lo)) {
        if (++lines == f.text_lines) {
            last_copy = std::string(line);
        }
    }
    CHECK(lines == f.text_lines);
    CHECK(last_copy ==
          "2026-11-26 23:00:00 request " + std::to_string(f.text_lines - 1) + " served");

    fastread::load_options load;
    load.threads = threads;
    const auto raw = fastread::pnm::load(f.raw, load);
    REQUIRE(raw.samples.size() == std::size_t{big_files::raw_side} * big_files::raw_side * 3);
    bool raw_ok = true;
    for (std::size_t i = 0; i < raw.samples.size(); ++i) {
        raw_ok = raw_ok && raw.samples[i] == static_cast<std::uint8_t>(i * 7 % 256);
    }
    CHECK(raw_ok);
    const auto plain = fastread::ppm::load(f.plain, load);
    REQUIRE(plain.samples.size() == std::size_t{big_files::plain_side} * big_files::plain_side * 3);
    bool plain_ok = true;
    for (std::size_t i = 0; i < plain.samples.size(); ++i) {
        plain_ok = plain_ok && plain.samples[i] == i % 256;
    }
    CHECK(plain_ok);
    CHECK(fastread::pfm::load(f.pfm, load).samples ==
          std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f});
    std::vector<std::uint8_t> into(raw.samples.size());
    const std::size_t row = std::size_t{big_files::raw_side} * 3;
    CHECK(fastread::pnm::load_into(f.raw, std::span(into), row, load).width == big_files::raw_side);
    CHECK(std::equal(into.begin(), into.end(), raw.samples.begin(), raw.samples.end()));
    const std::vector<fs::path> images{f.raw, f.raw};
    std::vector<std::uint8_t> both(2 * raw.samples.size());
    const auto loaded = fastread::pnm::load_batch(images, std::span(both), load);
    REQUIRE(loaded.size() == 2);
    CHECK((loaded[0] && loaded[1]));
    CHECK(std::equal(raw.samples.begin(), raw.samples.end(), both.begin() + raw.samples.size()));
    const auto probed = fastread::pnm::probe_batch(std::vector<fs::path>{f.raw, f.plain}, load);
    REQUIRE(probed.size() == 2);
    CHECK((probed[0] && probed[0]->width == big_files::raw_side));
    CHECK((probed[1] && probed[1]->width == big_files::plain_side));

    fastread::number_options no;
    no.threads = threads;
    const auto values = fastread::numbers<std::uint64_t>(f.table, no);
    REQUIRE(values.size() == 2 * f.table_rows);
    CHECK((values[0] == 0 && values.back() == 3 * (f.table_rows - 1)));
    const auto [left, right] = fastread::columns<std::uint64_t, std::uint64_t>(f.table, no);
    REQUIRE(left.size() == f.table_rows);
    bool table_ok = right.size() == f.table_rows;
    for (std::size_t i = 0; table_ok && i < left.size(); ++i) {
        table_ok = left[i] == i && right[i] == 3 * i && values[2 * i] == i;
    }
    CHECK(table_ok);

    fastread::csv::options csv_options;
    csv_options.threads = threads;
    const auto [i, three_i] =
        fastread::csv::columns<std::uint64_t, std::uint64_t>(f.csv, {"i", "three_i"}, csv_options);
    CHECK(i == left);
    CHECK(three_i == right);
    fastread::csv::read_options read_options;
    read_options.csv.threads = threads;
    const fastread::csv::table read = fastread::csv::read(f.csv, read_options);
    REQUIRE(read.rows() == f.table_rows);
    const auto read_i = read["i"].values<std::int64_t>();
    bool read_ok = read["three_i"].type() == fastread::csv::type::int64;
    for (std::size_t k = 0; read_ok && k < read_i.size(); ++k) {
        read_ok = static_cast<std::uint64_t>(read_i[k]) == left[k];
    }
    CHECK(read_ok);
    std::uint64_t csv_rows = 0;
    for (const fastread::csv::row& r : fastread::csv::rows(f.csv, csv_options)) {
        csv_rows += r[0] == std::to_string(csv_rows);
    }
    CHECK(csv_rows == f.table_rows);
    CHECK(fastread::csv::count_rows(f.csv, csv_options) == f.table_rows);

    fastread::compare_options co;
    co.threads = threads;
    CHECK(fastread::files_equal(f.copy_a, f.copy_b, co));

    fastread::record_options ao;
    ao.threads = threads;
    std::vector<std::uint64_t> at(200000);
    for (std::size_t i = 0; i < at.size(); ++i) {
        at[i] = (i * 2654435761u) % big_files::record_count;
    }
    std::vector<std::int32_t> out(at.size());
    fastread::read_at<std::int32_t>(f.records, at, std::span<std::int32_t>(out), ao);
    bool records_ok = true;
    for (std::size_t i = 0; i < at.size(); ++i) {
        records_ok = records_ok && out[i] == static_cast<std::int32_t>(at[i]);
    }
    CHECK(records_ok);
    const std::vector<std::uint64_t> changed{5, 1000000, big_files::record_count - 1};
    fastread::update_at<std::int32_t>(
        f.records, changed, [](std::int32_t v) { return -v; }, ao);
    std::vector<std::int32_t> back(changed.size());
    fastread::read_at<std::int32_t>(f.records, changed, std::span<std::int32_t>(back), ao);
    CHECK(back == std::vector<std::int32_t>{
                      -5, -1000000, -static_cast<std::int32_t>(big_files::record_count - 1)});
    fastread::update_at<std::int32_t>(
        f.records, changed, [](std::int32_t v) { return -v; }, ao); // as it was

    fastread::duplicate_options dup;
    dup.threads = threads;
    const std::vector<fs::path> roots{f.dir.path()};
    CHECK(fastread::find_duplicates(roots, dup) ==
          std::vector<std::vector<fs::path>>{{f.copy_a, f.copy_b}});
    const fastread::duplicate_report report = fastread::find_duplicate_files(roots, dup);
    REQUIRE(report.groups.size() == 1);
    REQUIRE(report.groups[0].size() == 2);
    CHECK(report.groups[0][1].path == f.copy_b);
}

bool sigbus_is_default() {
    struct sigaction now {};
    REQUIRE(::sigaction(SIGBUS, nullptr, &now) == 0);
    return (now.sa_flags & SA_SIGINFO) == 0 && now.sa_handler == SIG_DFL;
}

// Whether the page cache can be asked without a map here (cachestat): then the default
// paths map nothing at all (else residency is asked with mincore over a map of the file).
bool residency_without_map(const fs::path& path) {
    const fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    return fastread::detail::cached_pages(fd.get(), 4096).has_value();
}

} // namespace

TEST_CASE("Default entry points on big cached files leave SIGBUS alone, make no memfd and map "
          "no file",
          "[process]") {
    fastread_test::set_environment("FASTREAD_IO", nullptr);
    fastread_test::set_environment("FASTREAD_THREADS", nullptr);
    const big_files f;
    REQUIRE(sigbus_is_default());
    const unsigned maps_before = files_mapped.load();
    run_every_entry_point(f, 0);
    CHECK(sigbus_is_default());
    CHECK(memfds_created.load() == 0);
    if (residency_without_map(f.text)) {
        CHECK(files_mapped.load() == maps_before);
    }

    // Asked to map, lines(path) does, and guards itself: the guard is the SIGBUS handler.
    fastread::line_options mapped;
    mapped.io = fastread::io_mode::map;
    std::uint64_t lines = 0;
    for (std::string_view line : fastread::lines(f.text, mapped)) {
        lines += !line.empty();
    }
    CHECK(lines == f.text_lines);
    CHECK(files_mapped.load() > maps_before);
    CHECK_FALSE(sigbus_is_default());
}

TEST_CASE("FASTREAD_THREADS=1: the default entry points start no thread", "[process]") {
    fastread_test::set_environment("FASTREAD_THREADS", "1");
    const big_files f;
    const unsigned before = threads_created.load();
    run_every_entry_point(f, 0);
    CHECK(threads_created.load() == before);
    fastread_test::set_environment("FASTREAD_THREADS", nullptr);
}

TEST_CASE("set_max_threads(1) or threads = 1 in the options: no thread, and 2 lets threads start",
          "[process]") {
    fastread_test::set_environment("FASTREAD_THREADS", nullptr);
    const big_files f;
    unsigned before = threads_created.load();
    fastread::set_max_threads(1);
    CHECK(fastread::max_threads() == 1);
    run_every_entry_point(f, 0);
    CHECK(threads_created.load() == before);

    // The call's count wins over the process's: 2 lets threads start (the counter sees
    // them), then 1 in the options stops them again whatever the process allows.
    run_every_entry_point(f, 2);
    CHECK(threads_created.load() > before);
    fastread::set_max_threads(0);
    before = threads_created.load();
    run_every_entry_point(f, 1);
    CHECK(threads_created.load() == before);
}

TEST_CASE("FASTREAD_THREADS that is not a count is an error naming it", "[process]") {
    fastread_test::set_environment("FASTREAD_THREADS", "many");
    CHECK_THROWS_WITH(fastread::max_threads(),
                      "FASTREAD_THREADS=many: expected a whole number of threads, 1 or more");
    // The try_ forms that may start threads return it as a value (the throwing forms
    // throw it), before anything is read; a call's own `threads` option does not read it.
    {
        fastread_test::temp_dir dir;
        fastread_test::write_file(dir / "a.pgm", std::string("P5 1 1 255\n") + "\x07");
        fastread_test::write_file(dir / "t.bin", std::string(8, '\0'));
        const std::string message =
            "FASTREAD_THREADS=many: expected a whole number of threads, 1 or more";
        auto check_error = [&](const auto& r) {
            REQUIRE_FALSE(r);
            CHECK(r.error().code() == fastread::errc::invalid_argument);
            CHECK(r.error().message() == message);
        };
        check_error(fastread::pnm::try_load(dir / "a.pgm"));
        check_error(fastread::try_lines(dir / "a.pgm"));
        check_error(fastread::try_find_duplicates(dir.path()));
        const std::vector<std::uint64_t> zero{0};
        check_error(fastread::try_read_at<std::int32_t>(dir / "t.bin", zero));
        CHECK_THROWS_WITH(fastread::pnm::load(dir / "a.pgm"), message);
        CHECK_THROWS_WITH(fastread::find_duplicates(dir.path()), message);
        fastread::load_options one;
        one.threads = 1;
        const auto img = fastread::pnm::try_load(dir / "a.pgm", one);
        REQUIRE(img);
        CHECK(img->samples[0] == 7);
    }
    fastread_test::set_environment("FASTREAD_THREADS", "0");
    CHECK_THROWS_AS(fastread::max_threads(), std::invalid_argument);
    fastread_test::set_environment("FASTREAD_THREADS", "3");
    CHECK(fastread::max_threads() == 3);
    fastread::set_max_threads(2);
    CHECK(fastread::max_threads() == 2);
    fastread::set_max_threads(0);
    fastread_test::set_environment("FASTREAD_THREADS", nullptr);
    CHECK(fastread::max_threads() == 0);
}
