// Every entry point's try_ form (and, built with exceptions, its throwing form) under a bad
// process setting: FASTREAD_IO=mmap, FASTREAD_IO=garbage and FASTREAD_THREADS=-1. Each must
// return errc::invalid_argument whose message names the variable and its value (the throwing
// form: std::invalid_argument with that message), before any file is opened or written; an
// options struct made under those settings never throws. With the settings unset, every call
// succeeds, so each line below is a real call of its entry point.
//
// Built twice (tests/CMakeLists.txt): with -fno-exceptions -fno-rtti (the try_ forms), and
// with exceptions and FASTREAD_PROCESS_SETTINGS_THROWING (the throwing forms).
// cmake/check_try_list.cmake checks that every public try_ form is called here.
#include <fastread/csv/read.hpp>
#include <fastread/csv/sniff.hpp>
#include <fastread/duplicate_actions.hpp>
#include <fastread/fastread.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#if defined(FASTREAD_PROCESS_SETTINGS_THROWING)
#include <stdexcept>
#endif

namespace fs = std::filesystem;
namespace pnm = fastread::pnm;
namespace ppm = fastread::ppm;
namespace pfm = fastread::pfm;

namespace {

int failures = 0;

void write_file(const fs::path& p, std::string_view bytes) {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
        std::fprintf(stderr, "cannot write %s\n", p.c_str());
        std::exit(2);
    }
    std::fclose(f);
}

// What a call reported: empty for success, else the message of its error.
struct outcome {
    bool failed = false;
    bool invalid_argument = false;
    std::string message;
};

#if defined(FASTREAD_PROCESS_SETTINGS_THROWING)
template <class TryCall, class ThrowCall>
outcome call(TryCall&&, ThrowCall&& throwing) {
    try {
        throwing();
    } catch (const std::invalid_argument& e) {
        return {true, true, e.what()};
    } catch (const std::exception& e) {
        return {true, false, e.what()};
    }
    return {};
}
#else
template <class TryCall, class ThrowCall>
outcome call(TryCall&& try_call, ThrowCall&&) {
    const auto r = try_call();
    if (r) {
        return {};
    }
    return {true, r.error().code() == fastread::errc::invalid_argument, r.error().message()};
}
#endif

struct entry_point {
    std::string name;
    std::function<outcome()> run;
};

// Every entry point, on good inputs in `dir`.
std::vector<entry_point> entry_points(const fs::path& dir) {
    const fs::path pgm = dir / "a.pgm", ppm_file = dir / "a.ppm", pfm_file = dir / "a.pfm";
    const fs::path text = dir / "a.txt", records = dir / "t.bin", table = dir / "s.tbl";
    const fs::path copy = dir / "b.txt";
    std::vector<entry_point> e;
    auto add = [&](std::string name, auto try_call, auto throwing) {
        e.push_back({std::move(name), [=] { return call(try_call, throwing); }});
    };
    // Lines, numbers, comparisons.
    add(
        "try_lines(path)", [=] { return fastread::try_lines(text); },
        [=] { (void)fastread::lines(text); });
    add(
        "try_lines(FILE*)",
        [=]() -> fastread::result<void> {
            std::FILE* f = std::fopen(text.c_str(), "rb");
            auto r = fastread::try_lines(f);
            std::fclose(f);
            return r ? fastread::result<void>() : fastread::result<void>(r.error());
        },
        [=] {
            // Opened by the caller: a throw leaves it open (one descriptor, in a test).
            static std::FILE* f = std::fopen(text.c_str(), "rb");
            (void)fastread::lines(f);
        });
    add(
        "try_numbers(path)", [=] { return fastread::try_numbers<int>(text); },
        [=] { (void)fastread::numbers<int>(text); });
    add(
        "try_numbers(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::try_numbers<int>(s);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::numbers<int>(s);
        });
    add(
        "try_columns(path)", [=] { return fastread::try_columns<int, int>(text); },
        [=] { (void)fastread::columns<int, int>(text); });
    add(
        "try_columns(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::try_columns<int, int>(s);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::columns<int, int>(s);
        });
    const fastread::csv::options spaced{.delimiter = ' ', .header = false};
    add(
        "csv::try_sniff(path)", [=] { return fastread::csv::try_sniff(text, spaced); },
        [=] { (void)fastread::csv::sniff(text, spaced); });
    add(
        "csv::try_sniff(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::csv::try_sniff(s, spaced);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::csv::sniff(s, spaced);
        });
    fastread::csv::read_options read_spaced;
    read_spaced.csv = spaced;
    add(
        "csv::try_read(path)", [=] { return fastread::csv::try_read(text, read_spaced); },
        [=] { (void)fastread::csv::read(text, read_spaced); });
    add(
        "csv::try_read(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::csv::try_read(s, read_spaced);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::csv::read(s, read_spaced);
        });
    add(
        "csv::try_rows(path)", [=] { return fastread::csv::try_rows(text, spaced); },
        [=] { (void)fastread::csv::rows(text, spaced); });
    add(
        "csv::try_rows(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::csv::try_rows(s, spaced);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::csv::rows(s, spaced);
        });
    add(
        "csv::try_count_rows(path)", [=] { return fastread::csv::try_count_rows(text, spaced); },
        [=] { (void)fastread::csv::count_rows(text, spaced); });
    add(
        "csv::try_count_rows(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::csv::try_count_rows(s, spaced);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::csv::count_rows(s, spaced);
        });
    add(
        "csv::try_columns(path)",
        [=] {
            return fastread::csv::try_columns<int, int>(text, {0, 1}, spaced);
        },
        [=] {
            (void)fastread::csv::columns<int, int>(text, {0, 1}, spaced);
        });
    add(
        "csv::try_columns(source)",
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            return fastread::csv::try_columns<int, int>(s, {0, 1}, spaced);
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            (void)fastread::csv::columns<int, int>(s, {0, 1}, spaced);
        });
    add(
        "try_number_range",
        [=]() -> fastread::result<void> {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            auto r = fastread::try_number_range<int>(s);
            return r ? fastread::result<void>() : fastread::result<void>(r.error());
        },
        [=] {
            fastread::memory_source s(std::span<const char>("1 2", 3));
            for (int x : fastread::number_range<int>(s)) {
                (void)x;
            }
        });
    add(
        "try_files_equal", [=] { return fastread::try_files_equal(text, copy); },
        [=] { (void)fastread::files_equal(text, copy); });
    add(
        "try_find_duplicates", [=] { return fastread::try_find_duplicates(dir); },
        [=] { (void)fastread::find_duplicates(dir); });
    add(
        "try_find_duplicate_files",
        [=] { return fastread::try_find_duplicate_files(std::span<const fs::path>(&dir, 1)); },
        [=] { (void)fastread::find_duplicate_files(std::span<const fs::path>(&dir, 1)); });
    add(
        "try_act_on_duplicates",
        [=] {
            fastread::action_options dry;
            dry.dry_run = true;
            return fastread::try_act_on_duplicates(std::span<const fs::path>(&dir, 1), {}, dry);
        },
        [=] {
            fastread::action_options dry;
            dry.dry_run = true;
            (void)fastread::act_on_duplicates(std::span<const fs::path>(&dir, 1), {}, dry);
        });
    // Records.
    const std::vector<std::uint64_t> zero{0};
    add(
        "try_read_at(path)", [=] { return fastread::try_read_at<std::int32_t>(records, zero); },
        [=] { (void)fastread::read_at<std::int32_t>(records, zero); });
    add(
        "try_update_at(path)",
        [=] { return fastread::try_update_at(records, zero, [](std::int32_t v) { return v; }); },
        [=] { fastread::update_at(records, zero, [](std::int32_t v) { return v; }); });
    add(
        "positioned_file::try_open",
        [=] { return fastread::positioned_file::try_open(records, true); },
        [=] { (void)fastread::positioned_file(records, true); });
    // String tables.
    const std::vector<std::string_view> strings{"one", "two"};
    add(
        "string_table::try_write",
        [=] { return fastread::string_table::try_write(table, strings); },
        [=] { fastread::string_table::write(table, strings); });
    add(
        "string_table::view::try_open",
        [=] { return fastread::string_table::view::try_open(table); },
        [=] { (void)fastread::string_table::view::open(table); });
    add(
        "string_table::view::try_open_unchecked",
        [=] { return fastread::string_table::view::try_open_unchecked(table); },
        [=] { (void)fastread::string_table::view::open_unchecked(table); });
    // Images.
    add(
        "pnm::try_load(path)", [=] { return pnm::try_load(pgm); }, [=] { (void)pnm::load(pgm); });
    add(
        "pnm::try_load(source)",
        [=] {
            fastread::read_source s(pgm);
            return pnm::try_load(s);
        },
        [=] {
            fastread::read_source s(pgm);
            (void)pnm::load(s);
        });
    add(
        "pnm::try_probe(path)", [=] { return pnm::try_probe(pgm); },
        [=] { (void)pnm::probe(pgm); });
    add(
        "pnm::try_probe(source)",
        [=] {
            fastread::read_source s(pgm);
            return pnm::try_probe(s);
        },
        [=] {
            fastread::read_source s(pgm);
            (void)pnm::probe(s);
        });
    add(
        "pnm::try_load_into(path)",
        [=] {
            std::vector<std::uint8_t> dst(4);
            return pnm::try_load_into(pgm, std::span(dst), 2);
        },
        [=] {
            std::vector<std::uint8_t> dst(4);
            (void)pnm::load_into(pgm, std::span(dst), 2);
        });
    add(
        "pnm::try_load_into(source)",
        [=] {
            fastread::read_source s(pgm);
            std::vector<std::uint8_t> dst(4);
            return pnm::try_load_into(s, std::span(dst), 2);
        },
        [=] {
            fastread::read_source s(pgm);
            std::vector<std::uint8_t> dst(4);
            (void)pnm::load_into(s, std::span(dst), 2);
        });
    add(
        "pnm::try_load_batch",
        [=] {
            std::vector<std::uint8_t> dst(4);
            return pnm::try_load_batch(std::span<const fs::path>(&pgm, 1), std::span(dst));
        },
        [=] {
            std::vector<std::uint8_t> dst(4);
            (void)pnm::load_batch(std::span<const fs::path>(&pgm, 1), std::span(dst));
        });
    add(
        "pnm::try_probe_batch",
        [=] { return pnm::try_probe_batch(std::span<const fs::path>(&pgm, 1)); },
        [=] { (void)pnm::probe_batch(std::span<const fs::path>(&pgm, 1)); });
    add(
        "pnm::try_save",
        [=] {
            pnm::image<std::uint8_t> img;
            img.width = img.height = img.depth = 1;
            img.maxval = 255;
            img.encoding = pnm::format::pgm_raw;
            img.samples.assign(1, 7);
            return pnm::try_save(dir / "saved.pgm", img, pnm::format::pgm_raw);
        },
        [=] {
            pnm::image<std::uint8_t> img;
            img.width = img.height = img.depth = 1;
            img.maxval = 255;
            img.encoding = pnm::format::pgm_raw;
            img.samples.assign(1, 7);
            pnm::save(dir / "saved.pgm", img, pnm::format::pgm_raw);
        });
    add(
        "ppm::try_load(path)", [=] { return ppm::try_load(ppm_file); },
        [=] { (void)ppm::load(ppm_file); });
    add(
        "ppm::try_load(source)",
        [=] {
            fastread::read_source s(ppm_file);
            return ppm::try_load(s);
        },
        [=] {
            fastread::read_source s(ppm_file);
            (void)ppm::load(s);
        });
    add(
        "ppm::try_save",
        [=] {
            ppm::image<std::uint8_t> img;
            img.width = img.height = 1;
            img.maxval = 255;
            img.samples.assign(3, 7);
            return ppm::try_save(dir / "saved.ppm", img, ppm::format::raw);
        },
        [=] {
            ppm::image<std::uint8_t> img;
            img.width = img.height = 1;
            img.maxval = 255;
            img.samples.assign(3, 7);
            ppm::save(dir / "saved.ppm", img, ppm::format::raw);
        });
    add(
        "pfm::try_load(path)", [=] { return pfm::try_load(pfm_file); },
        [=] { (void)pfm::load(pfm_file); });
    add(
        "pfm::try_load(source)",
        [=] {
            fastread::read_source s(pfm_file);
            return pfm::try_load(s);
        },
        [=] {
            fastread::read_source s(pfm_file);
            (void)pfm::load(s);
        });
    add(
        "pfm::try_probe(path)", [=] { return pfm::try_probe(pfm_file); },
        [=] { (void)pfm::probe(pfm_file); });
    add(
        "pfm::try_probe(source)",
        [=] {
            fastread::read_source s(pfm_file);
            return pfm::try_probe(s);
        },
        [=] {
            fastread::read_source s(pfm_file);
            (void)pfm::probe(s);
        });
    add(
        "pfm::try_save",
        [=] {
            pfm::image img;
            img.width = img.height = img.depth = 1;
            img.samples.assign(1, 0.5f);
            return pfm::try_save(dir / "saved.pfm", img);
        },
        [=] {
            pfm::image img;
            img.width = img.height = img.depth = 1;
            img.samples.assign(1, 0.5f);
            pfm::save(dir / "saved.pfm", img);
        });
    return e;
}

void set(const char* name, const char* value) {
    if (value == nullptr) {
        ::unsetenv(name);
    } else {
        ::setenv(name, value, 1);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2 || !fs::create_directories(argv[1])) {
        std::fprintf(stderr, "usage: process_settings <new directory>\n");
        return 2;
    }
    const fs::path dir = argv[1];
    write_file(dir / "a.pgm", std::string("P5 2 2 255\n") + "\x01\x02\x03\x04");
    write_file(dir / "a.ppm", std::string("P6 1 1 255\n") + "\x01\x02\x03");
    write_file(dir / "a.pfm", std::string("Pf\n1 1\n-1.0\n") + std::string("\0\0\0?", 4));
    write_file(dir / "a.txt", "1 2\n3 4\n");
    write_file(dir / "b.txt", "1 2\n3 4\n");
    write_file(dir / "t.bin", std::string(8, '\0'));
    fastread::string_table::write(dir / "s.tbl", std::vector<std::string_view>{"x"});
    const std::vector<entry_point> calls = entry_points(dir);

    set("FASTREAD_IO", nullptr);
    set("FASTREAD_THREADS", nullptr);
    for (const entry_point& c : calls) {
        const outcome o = c.run();
        if (o.failed) {
            std::fprintf(stderr, "%s: fails with the settings unset: %s\n", c.name.c_str(),
                         o.message.c_str());
            ++failures;
        }
    }
    struct setting {
        const char* name;
        const char* value;
        const char* message;
    };
    const setting bad[] = {
        {"FASTREAD_IO", "mmap", "FASTREAD_IO=mmap: expected read or map"},
        {"FASTREAD_IO", "garbage", "FASTREAD_IO=garbage: expected read or map"},
        {"FASTREAD_THREADS", "-1",
         "FASTREAD_THREADS=-1: expected a whole number of threads, 1 or more"},
    };
    for (const setting& s : bad) {
        set(s.name, s.value);
        // Options made now are plain values: nothing is read, nothing thrown.
        const fastread::line_options line_defaults;
        const fastread::number_options number_defaults;
        const fastread::load_options load_defaults;
        const fastread::compare_options compare_defaults;
        const fastread::record_options record_defaults;
        if (line_defaults.io != fastread::io_mode::process_setting ||
            number_defaults.io != fastread::io_mode::process_setting ||
            load_defaults.io != fastread::io_mode::process_setting ||
            compare_defaults.io != fastread::io_mode::process_setting ||
            record_defaults.io != fastread::io_mode::process_setting) {
            std::fprintf(stderr, "an options struct's io is not process_setting\n");
            ++failures;
        }
        for (const char* saved : {"saved.pgm", "saved.ppm", "saved.pfm"}) {
            fs::remove(dir / saved);
        }
        for (const entry_point& c : calls) {
            const outcome o = c.run();
            std::printf("%s=%s | %s | %s\n", s.name, s.value, c.name.c_str(),
                        o.failed ? o.message.c_str() : "no error");
            if (!o.failed || !o.invalid_argument || o.message != s.message) {
                std::fprintf(stderr, "%s=%s: %s: expected invalid_argument \"%s\", got %s\n",
                             s.name, s.value, c.name.c_str(), s.message,
                             o.failed ? ("\"" + o.message + "\"").c_str() : "no error");
                ++failures;
            }
        }
        for (const char* saved : {"saved.pgm", "saved.ppm", "saved.pfm"}) {
            if (fs::exists(dir / saved)) {
                std::fprintf(stderr, "%s=%s: a save wrote %s\n", s.name, s.value, saved);
                ++failures;
            }
        }
        set(s.name, nullptr);
    }
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    std::fprintf(stderr, "%zu entry points, %d unexpected\n", calls.size(), failures);
    return failures == 0 ? 0 : 1;
}
