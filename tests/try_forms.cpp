// Every try_ form of fastread on good and malformed inputs, one line per case:
//   <case> | ok <what it read>
//   <case> | <category>:<value> | offset <n or -> | <message>
//
// Built twice from this file (tests/CMakeLists.txt): with -fno-exceptions -fno-rtti, where
// each case calls the try_ form and prints its result; and with exceptions and
// FASTREAD_TRY_FORMS_THROWING, where each case calls the throwing form and prints what the
// exception carries. CTest try_forms_agree compares the two outputs line by line, so each
// try_ form reports the code, offset and message of its throwing form; the -fno-exceptions
// build also checks the exact code and offset of each malformed input against what the case
// expects (the corpus is the one the tests use: truncations, hostile sizes, samples above
// maxval, missing files, directories, a full disk and a failing read through the syscall
// hooks).
#include <fastread/fastread.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

#if defined(FASTREAD_TRY_FORMS_THROWING)
constexpr bool throwing = true;
#else
constexpr bool throwing = false;
#endif

int failures = 0;

void write_file(const fs::path& p, std::string_view bytes) {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
        std::fprintf(stderr, "cannot write %s\n", p.c_str());
        std::exit(2);
    }
    std::fclose(f);
}

std::string describe(const std::error_code& code) {
    return std::string(code.category().name()) + ":" + std::to_string(code.value());
}

// One case's line; `expected` (code, offset) is checked where the case is malformed.
void report(const std::string& name, const fastread::error* e, const std::string& ok,
            std::optional<std::error_code> expected_code = std::nullopt,
            std::optional<std::uint64_t> expected_offset = std::nullopt) {
    if (e == nullptr) {
        std::printf("%s | ok %s\n", name.c_str(), ok.c_str());
        if (expected_code) {
            std::fprintf(stderr, "%s: expected %s, got a value\n", name.c_str(),
                         describe(*expected_code).c_str());
            ++failures;
        }
        return;
    }
    const std::string offset = e->offset() ? std::to_string(*e->offset()) : "-";
    std::printf("%s | %s | offset %s | %s\n", name.c_str(), describe(e->code()).c_str(),
                offset.c_str(), e->message().c_str());
    if (!expected_code || e->code() != *expected_code ||
        (expected_offset && e->offset() != expected_offset) || (!expected_offset && e->offset())) {
        std::fprintf(stderr, "%s: unexpected error %s at %s: %s\n", name.c_str(),
                     describe(e->code()).c_str(), offset.c_str(), e->message().c_str());
        ++failures;
    }
}

#if defined(FASTREAD_TRY_FORMS_THROWING)
// What the throwing form's exception carries, as an error.
template <class Call>
std::optional<fastread::error> caught(Call call) {
    try {
        call();
    } catch (const fastread::parse_error& e) {
        return e.error();
    } catch (const std::system_error& e) {
        return fastread::error(e.code(), e.what());
    } catch (const std::invalid_argument& e) {
        return fastread::error(fastread::errc::invalid_argument, e.what());
    } catch (const std::out_of_range& e) {
        return fastread::error(fastread::errc::out_of_range, e.what());
    }
    return std::nullopt;
}
#endif

// Runs one case: `try_call()` returns a result; `throw_call(out)` is the throwing form,
// storing its value in `out`. `show(value)` describes a value.
template <class T, class TryCall, class ThrowCall, class Show>
void run(const std::string& name, TryCall try_call, [[maybe_unused]] ThrowCall throw_call,
         Show show, std::optional<std::error_code> code = std::nullopt,
         std::optional<std::uint64_t> offset = std::nullopt) {
#if defined(FASTREAD_TRY_FORMS_THROWING)
    std::optional<T> value;
    const std::optional<fastread::error> e = caught([&] { throw_call(value); });
    report(name, e ? &*e : nullptr, e ? std::string() : show(*value), code, offset);
#else
    auto r = try_call();
    report(name, r ? nullptr : &r.error(), r ? show(*r) : std::string(), code, offset);
#endif
}

// The same for an operation without a value.
template <class TryCall, class ThrowCall>
void run_void(const std::string& name, TryCall try_call, [[maybe_unused]] ThrowCall throw_call,
              std::optional<std::error_code> code = std::nullopt,
              std::optional<std::uint64_t> offset = std::nullopt) {
#if defined(FASTREAD_TRY_FORMS_THROWING)
    const std::optional<fastread::error> e = caught(throw_call);
    report(name, e ? &*e : nullptr, "", code, offset);
#else
    const fastread::result<void> r = try_call();
    report(name, r ? nullptr : &r.error(), "", code, offset);
#endif
}

template <class Image>
std::string show_image(const Image& img) {
    std::size_t sum = 0;
    for (auto s : img.samples) {
        sum += static_cast<std::size_t>(s);
    }
    return std::to_string(img.width) + "x" + std::to_string(img.height) + " sum " +
           std::to_string(sum);
}

std::string show_bool(bool b) {
    return b ? "true" : "false";
}

std::error_code os(int err) {
    return {err, std::generic_category()};
}
std::error_code fr(fastread::errc e) {
    return make_error_code(e);
}

// A read(2) and pread(2) that fail with EIO, and a write(2) that finds the disk full.
ssize_t failing_read(int, void*, std::size_t) {
    errno = EIO;
    return -1;
}
ssize_t failing_pread(int, void*, std::size_t, off_t) {
    errno = EIO;
    return -1;
}
ssize_t full_disk_write(int, const void*, std::size_t) {
    errno = ENOSPC;
    return -1;
}
ssize_t full_disk_pwrite(int, const void*, std::size_t, off_t) {
    errno = ENOSPC;
    return -1;
}

void images(const fs::path& dir) {
    namespace pnm = fastread::pnm;
    namespace ppm = fastread::ppm;
    const fs::path good = dir / "good.ppm", truncated = dir / "truncated.ppm",
                   over = dir / "over.pgm", huge = dir / "huge.pgm", deep = dir / "deep.pgm",
                   big = dir / "big.pgm", magic = dir / "magic.ppm", empty = dir / "empty.ppm",
                   missing = dir / "missing.ppm", plain = dir / "plain.ppm";
    write_file(good, std::string("P6 2 1 255\n") + "\x01\x02\x03\x04\x05\x06");
    write_file(truncated, std::string("P6 2 2 255\n") + "\x01\x02\x03\x04\x05");
    write_file(over, "P2 2 1 100\n7 300\n");
    write_file(huge, "P5 4000000000 4000000000 255\n\x01");
    write_file(big, "P5 20000 20000 255\n\x01");
    write_file(deep, "P5 1 1 1000\n\x01\x02");
    write_file(magic, "Q6 1 1 255\n...");
    write_file(empty, "");
    write_file(plain, "P3 1 1 255\n1 2 3\n");

    using image8 = pnm::image<std::uint8_t>;
    auto pnm_case = [&](const std::string& name, const fs::path& p,
                        std::optional<std::error_code> code = std::nullopt,
                        std::optional<std::uint64_t> offset = std::nullopt) {
        run<image8>(
            "pnm::try_load " + name, [&] { return pnm::try_load(p); },
            [&](std::optional<image8>& out) { out = pnm::load(p); }, show_image<image8>, code,
            offset);
    };
    pnm_case("good", good);
    pnm_case("plain", plain);
    pnm_case("truncated raster", truncated, fr(fastread::errc::truncated_data), 16);
    pnm_case("sample over maxval", over, fr(fastread::errc::sample_exceeds_maxval), 13);
    pnm_case("size overflowing 64 bits", huge, fr(fastread::errc::size_overflow), 14);
    pnm_case("huge declared raster", big, fr(fastread::errc::truncated_data), 20);
    pnm_case("maxval above 255 into 8 bits", deep, fr(fastread::errc::needs_16bit_samples), 7);
    pnm_case("bad magic", magic, fr(fastread::errc::bad_magic), 0);
    pnm_case("empty file", empty, fr(fastread::errc::empty_input), 0);
    pnm_case("missing file", missing, os(ENOENT));
    pnm_case("a directory", dir, os(EISDIR));
    {
        fastread::load_options mapped;
        mapped.io = fastread::io_mode::map;
        run<image8>(
            "pnm::try_load mapped truncated", [&] { return pnm::try_load(truncated, mapped); },
            [&](std::optional<image8>& out) { out = pnm::load(truncated, mapped); },
            show_image<image8>, fr(fastread::errc::truncated_data), 16);
    }
    {
        using rgb = ppm::image<std::uint8_t>;
        run<rgb>(
            "ppm::try_load good", [&] { return ppm::try_load(good); },
            [&](std::optional<rgb>& out) { out = ppm::load(good); }, show_image<rgb>);
        run<rgb>(
            "ppm::try_load a PGM", [&] { return ppm::try_load(over); },
            [&](std::optional<rgb>& out) { out = ppm::load(over); }, show_image<rgb>,
            fr(fastread::errc::unsupported_format), 1);
    }
    // The source forms: bytes in memory, and a read_source whose read(2) fails.
    {
        const std::string bytes = "P5 2 1 255\n\x09\x0a";
        const std::string cut = "P5 2 1 255\n\x09";
        run<image8>(
            "pnm::try_load(memory_source) good",
            [&] {
                return pnm::try_load(fastread::memory_source({bytes.data(), bytes.size()}));
            },
            [&](std::optional<image8>& out) {
                out = pnm::load(fastread::memory_source({bytes.data(), bytes.size()}));
            },
            show_image<image8>);
        run<image8>(
            "pnm::try_load(memory_source) truncated",
            [&] {
                return pnm::try_load(fastread::memory_source({cut.data(), cut.size()}));
            },
            [&](std::optional<image8>& out) {
                out = pnm::load(fastread::memory_source({cut.data(), cut.size()}));
            },
            show_image<image8>, fr(fastread::errc::truncated_data), 12);
        auto& hooks = fastread::detail::sys::hooks();
        const auto saved = hooks.read;
        hooks.read = &failing_read;
        run<image8>(
            "pnm::try_load(read_source) read error",
            [&] {
                fastread::read_source source(good);
                return pnm::try_load(source);
            },
            [&](std::optional<image8>& out) {
                fastread::read_source source(good);
                out = pnm::load(source);
            },
            show_image<image8>, os(EIO));
        run<image8>(
            "pnm::try_load(path) read error", [&] { return pnm::try_load(good); },
            [&](std::optional<image8>& out) { out = pnm::load(good); }, show_image<image8>,
            os(EIO));
        hooks.read = saved;
    }
    // A reader: two images, then bytes that are not one.
    {
        const std::string frames = "P5 1 1 255\n\x07P2 1 1 9\n8\nxyz";
        auto try_frames = [&]() -> fastread::result<std::string> {
            fastread::memory_source source({frames.data(), frames.size()});
            pnm::reader reader(source);
            std::string seen;
            image8 img;
            for (;;) {
                fastread::result<bool> more = reader.try_next(img);
                if (!more) {
                    return more.error();
                }
                if (!*more) {
                    return seen;
                }
                seen += std::to_string(img.samples[0]) + " ";
            }
        };
        run<std::string>(
            "pnm::reader::try_next frames then junk", try_frames,
            [&](std::optional<std::string>& out) {
                fastread::memory_source source({frames.data(), frames.size()});
                pnm::reader reader(source);
                std::string seen;
                for (image8 img; reader.next(img);) {
                    seen += std::to_string(img.samples[0]) + " ";
                }
                out = seen;
            },
            [](const std::string& s) { return s; }, fr(fastread::errc::bad_magic), 23);
    }
    // Saves: good, the caller's mistakes, a directory, a missing directory, a full disk.
    {
        image8 img;
        img.width = 2;
        img.height = 1;
        img.depth = 1;
        img.maxval = 9;
        img.samples = {1, 9};
        img.encoding = pnm::format::pgm_raw;
        image8 bad = img;
        bad.samples = {1, 10};
        const fs::path out = dir / "out.pgm";
        run_void(
            "pnm::try_save good", [&] { return pnm::try_save(out, img, pnm::format::pgm_raw); },
            [&] { pnm::save(out, img, pnm::format::pgm_raw); });
        run_void(
            "pnm::try_save sample above maxval",
            [&] { return pnm::try_save(out, bad, pnm::format::pgm_plain); },
            [&] { pnm::save(out, bad, pnm::format::pgm_plain); },
            fr(fastread::errc::invalid_argument));
        run_void(
            "pnm::try_save PPM of depth 1",
            [&] { return pnm::try_save(out, img, pnm::format::ppm_raw); },
            [&] { pnm::save(out, img, pnm::format::ppm_raw); },
            fr(fastread::errc::invalid_argument));
        run_void(
            "pnm::try_save over a directory",
            [&] { return pnm::try_save(dir, img, pnm::format::pgm_raw); },
            [&] { pnm::save(dir, img, pnm::format::pgm_raw); }, os(EISDIR));
        run_void(
            "pnm::try_save in a missing directory",
            [&] { return pnm::try_save(dir / "no" / "x.pgm", img, pnm::format::pgm_raw); },
            [&] { pnm::save(dir / "no" / "x.pgm", img, pnm::format::pgm_raw); }, os(ENOENT));
        auto& hooks = fastread::detail::sys::hooks();
        const auto saved = hooks.write;
        hooks.write = &full_disk_write;
        run_void(
            "pnm::try_save on a full disk",
            [&] { return pnm::try_save(out, img, pnm::format::pgm_raw); },
            [&] { pnm::save(out, img, pnm::format::pgm_raw); }, os(ENOSPC));
        hooks.write = saved;
        ppm::image<std::uint8_t> rgb;
        rgb.width = 1;
        rgb.height = 1;
        rgb.maxval = 255;
        rgb.samples = {1, 2};
        run_void(
            "ppm::try_save too few samples", [&] { return ppm::try_save(out, rgb); },
            [&] { ppm::save(out, rgb); }, fr(fastread::errc::invalid_argument));
    }
}

void float_images(const fs::path& dir) {
    namespace pfm = fastread::pfm;
    const fs::path good = dir / "good.pfm", cut = dir / "cut.pfm", netpbm = dir / "n.pgm";
    std::string raster(8, '\0');
    write_file(good, "Pf\n2 1\n-1.0\n" + raster);
    write_file(cut, "Pf\n2 1\n-1.0\n" + raster.substr(0, 5));
    write_file(netpbm, "P5 1 1 255\n\x01");
    auto pfm_case = [&](const std::string& name, const fs::path& p,
                        std::optional<std::error_code> code = std::nullopt,
                        std::optional<std::uint64_t> offset = std::nullopt) {
        run<pfm::image>(
            "pfm::try_load " + name, [&] { return pfm::try_load(p); },
            [&](std::optional<pfm::image>& out) { out = pfm::load(p); },
            [](const pfm::image& img) {
                return std::to_string(img.width) + "x" + std::to_string(img.height);
            },
            code, offset);
    };
    pfm_case("good", good);
    pfm_case("truncated raster", cut, fr(fastread::errc::truncated_data), 17);
    pfm_case("a Netpbm file", netpbm, fr(fastread::errc::unsupported_format), 0);
    pfm_case("missing file", dir / "none.pfm", os(ENOENT));
    pfm::image img;
    img.width = 1;
    img.height = 1;
    img.depth = 1;
    img.scale = -2;
    img.samples = {0.5f};
    run_void(
        "pfm::try_save negative scale", [&] { return pfm::try_save(dir / "o.pfm", img); },
        [&] { pfm::save(dir / "o.pfm", img); }, fr(fastread::errc::invalid_argument));
    img.scale = 1;
    run_void(
        "pfm::try_save good", [&] { return pfm::try_save(dir / "o.pfm", img); },
        [&] { pfm::save(dir / "o.pfm", img); });
}

// The lines of a range as "n lines, b bytes", or its error.
template <class Range>
fastread::result<std::string> count_lines(Range& range) {
    std::size_t n = 0, bytes = 0;
    for (std::string_view line : range) {
        ++n;
        bytes += line.size();
    }
    if (range.error().code()) {
        return range.error();
    }
    return std::to_string(n) + " lines, " + std::to_string(bytes) + " bytes";
}

void text(const fs::path& dir) {
    const fs::path log = dir / "app.log", longer = dir / "long.log";
    write_file(log, "one\ntwo\r\nthree");
    write_file(longer, "short\n" + std::string(100, 'x') + "\nend\n");
    auto show = [](const std::string& s) { return s; };
    auto lines_case = [&](const std::string& name, const fs::path& p,
                          fastread::line_options options,
                          std::optional<std::error_code> code = std::nullopt,
                          std::optional<std::uint64_t> offset = std::nullopt) {
        run<std::string>(
            "try_lines " + name,
            [&]() -> fastread::result<std::string> {
                auto lines = fastread::try_lines(p, options);
                if (!lines) {
                    return lines.error();
                }
                return count_lines(*lines);
            },
            [&](std::optional<std::string>& out) {
                std::size_t n = 0, bytes = 0;
                for (std::string_view line : fastread::lines(p, options)) {
                    ++n;
                    bytes += line.size();
                }
                out = std::to_string(n) + " lines, " + std::to_string(bytes) + " bytes";
            },
            show, code, offset);
    };
    lines_case("good", log, {});
    fastread::line_options limited;
    limited.max_line_length = 10;
    lines_case("a line over max_line_length", longer, limited, fr(fastread::errc::over_limit), 16);
    lines_case("missing file", dir / "none.log", {}, os(ENOENT));
    lines_case("a directory", dir, {}, os(EISDIR));
    run<std::string>(
        "try_lines(FILE*) null",
        [&]() -> fastread::result<std::string> {
            auto lines = fastread::try_lines(static_cast<std::FILE*>(nullptr));
            if (!lines) {
                return lines.error();
            }
            return count_lines(*lines);
        },
        [&](std::optional<std::string>& out) {
            for (std::string_view line : fastread::lines(static_cast<std::FILE*>(nullptr))) {
                (void)line;
            }
            out = "";
        },
        show, fr(fastread::errc::invalid_argument));
    {
        std::FILE* f = std::fopen(log.c_str(), "rb");
        run<std::string>(
            "try_lines(FILE*) good",
            [&]() -> fastread::result<std::string> {
                auto lines = fastread::try_lines(f);
                if (!lines) {
                    return lines.error();
                }
                return count_lines(*lines);
            },
            [&](std::optional<std::string>& out) {
                std::size_t n = 0, bytes = 0;
                for (std::string_view line : fastread::lines(f)) {
                    ++n;
                    bytes += line.size();
                }
                out = std::to_string(n) + " lines, " + std::to_string(bytes) + " bytes";
            },
            show);
        std::fclose(f);
    }
}

void number_text(const fs::path& dir) {
    const fs::path good = dir / "cloud.xyz", bad = dir / "bad.xyz";
    write_file(good, "# x y z\n1 2 3\n4.5 -5 6e1\n");
    write_file(bad, "1 2 3\n4 1.2.3 6\n");
    auto show_numbers = [](const std::vector<double>& v) {
        std::string s;
        for (double d : v) {
            s += std::to_string(d) + " ";
        }
        return s;
    };
    auto numbers_case = [&](const std::string& name, const fs::path& p,
                            fastread::number_options options,
                            std::optional<std::error_code> code = std::nullopt,
                            std::optional<std::uint64_t> offset = std::nullopt) {
        run<std::vector<double>>(
            "try_numbers " + name, [&] { return fastread::try_numbers<double>(p, options); },
            [&](std::optional<std::vector<double>>& out) {
                out = fastread::numbers<double>(p, options);
            },
            show_numbers, code, offset);
        run<std::vector<double>>(
            "try_columns " + name,
            [&]() -> fastread::result<std::vector<double>> {
                auto c = fastread::try_columns<double, double, double>(p, options);
                if (!c) {
                    return c.error();
                }
                return std::get<2>(*c);
            },
            [&](std::optional<std::vector<double>>& out) {
                out = std::get<2>(fastread::columns<double, double, double>(p, options));
            },
            show_numbers, code, offset);
    };
    fastread::number_options hash;
    hash.comment = '#';
    numbers_case("good", good, hash);
    numbers_case("not a number", bad, hash, fr(fastread::errc::invalid_number), 8);
    numbers_case("a header that is not numbers", good, {}, fr(fastread::errc::invalid_number), 0);
    fastread::number_options bad_options;
    bad_options.separators = "0";
    numbers_case("a digit as separator", good, bad_options, fr(fastread::errc::invalid_argument));
    numbers_case("missing file", dir / "none.xyz", {}, os(ENOENT));
}

void comparisons(const fs::path& dir) {
    const fs::path a = dir / "a.bin", b = dir / "b.bin", c = dir / "c.bin";
    write_file(a, std::string(5000, 'a'));
    write_file(b, std::string(5000, 'a'));
    write_file(c, std::string(4999, 'a') + "b");
    auto equal_case = [&](const std::string& name, const fs::path& x, const fs::path& y,
                          fastread::compare_options options = {},
                          std::optional<std::error_code> code = std::nullopt) {
        run<bool>(
            "try_files_equal " + name, [&] { return fastread::try_files_equal(x, y, options); },
            [&](std::optional<bool>& out) { out = fastread::files_equal(x, y, options); },
            show_bool, code);
    };
    equal_case("same bytes", a, b);
    equal_case("one byte differs", a, c);
    equal_case("missing file", a, dir / "none", {}, os(ENOENT));
    fastread::compare_options blocks;
    blocks.method = fastread::compare_method::block;
    blocks.block_size = 4096;
    equal_case("blocks of 4 KiB", a, c, blocks);
    auto& hooks = fastread::detail::sys::hooks();
    const auto saved = hooks.read;
    hooks.read = &failing_read;
    equal_case("read error", a, c, {}, os(EIO));
    hooks.read = saved;
    using groups = std::vector<std::vector<fs::path>>;
    run<groups>(
        "try_find_duplicates", [&] { return fastread::try_find_duplicates(dir); },
        [&](std::optional<groups>& out) { out = fastread::find_duplicates(dir); },
        [&](const groups& g) {
            std::string s = std::to_string(g.size()) + " groups:";
            for (const auto& group : g) {
                s += " " + std::to_string(group.size());
            }
            return s;
        });
}

void sources(const fs::path& dir) {
    const fs::path none = dir / "none";
    auto show = [](const auto&) { return std::string("opened"); };
    run<fastread::read_source>(
        "read_source::try_open missing", [&] { return fastread::read_source::try_open(none); },
        [&](std::optional<fastread::read_source>& out) { out.emplace(none); }, show, os(ENOENT));
    run<fastread::read_source>(
        "read_source::try_open chunk 0",
        [&] { return fastread::read_source::try_open(dir / "a.bin", 0); },
        [&](std::optional<fastread::read_source>& out) { out.emplace(dir / "a.bin", 0); }, show,
        fr(fastread::errc::invalid_argument));
    run<fastread::mmap_source>(
        "mmap_source::try_open a directory", [&] { return fastread::mmap_source::try_open(dir); },
        [&](std::optional<fastread::mmap_source>& out) { out.emplace(dir); }, show, os(EISDIR));
    run<fastread::stdio_source>(
        "stdio_source::try_open missing", [&] { return fastread::stdio_source::try_open(none); },
        [&](std::optional<fastread::stdio_source>& out) { out.emplace(none); }, show, os(ENOENT));
    run<fastread::fread_source>(
        "fread_source::try_open missing", [&] { return fastread::fread_source::try_open(none); },
        [&](std::optional<fastread::fread_source>& out) { out.emplace(none); }, show, os(ENOENT));
    std::istringstream in("x");
    run<fastread::istream_source>(
        "istream_source::try_open chunk 0",
        [&] { return fastread::istream_source::try_open(in, 0); },
        [&](std::optional<fastread::istream_source>& out) { out.emplace(in, 0); }, show,
        fr(fastread::errc::invalid_argument));
}

void records_and_tables(const fs::path& dir) {
    const fs::path rec = dir / "t.bin";
    std::string bytes;
    for (std::int32_t v = 0; v < 10; ++v) {
        bytes.append(reinterpret_cast<const char*>(&v), 4);
    }
    write_file(rec, bytes + "xy"); // 10 whole records, then a partial one
    using vec = std::vector<std::int32_t>;
    auto show = [](const vec& v) {
        std::string s;
        for (std::int32_t x : v) {
            s += std::to_string(x) + " ";
        }
        return s;
    };
    auto read_case = [&](const std::string& name, const fs::path& p, std::vector<std::uint64_t> idx,
                         std::optional<std::error_code> code = std::nullopt) {
        run<vec>(
            "try_read_at " + name, [&] { return fastread::try_read_at<std::int32_t>(p, idx); },
            [&](std::optional<vec>& out) { out = fastread::read_at<std::int32_t>(p, idx); }, show,
            code);
    };
    read_case("good", rec, {9, 0, 4});
    read_case("index of the partial record", rec, {1, 10}, fr(fastread::errc::out_of_range));
    read_case("missing file", dir / "none.bin", {0}, os(ENOENT));
    read_case("a directory", dir, {0}, os(EISDIR));
    auto update_case = [&](const std::string& name, const fs::path& p,
                           std::vector<std::uint64_t> idx,
                           std::optional<std::error_code> code = std::nullopt) {
        fastread::record_options options;
        options.method = fastread::access_method::pread;
        run_void(
            "try_update_at " + name,
            [&] {
                return fastread::try_update_at(
                    p, idx, [](std::int32_t v) { return v + 100; }, options);
            },
            [&] {
                fastread::update_at(
                    p, idx, [](std::int32_t v) { return v + 100; }, options);
            },
            code);
    };
    update_case("good", rec, {2, 3});
    update_case("index of the partial record", rec, {10}, fr(fastread::errc::out_of_range));
    update_case("missing file", dir / "none.bin", {0}, os(ENOENT));
    {
        auto& hooks = fastread::detail::sys::hooks();
        const auto saved = hooks.pwrite;
        hooks.pwrite = &full_disk_pwrite;
        update_case("on a full disk", rec, {5}, os(ENOSPC));
        hooks.pwrite = saved;
    }
    read_case("after the updates", rec, {2, 3, 5});

    namespace st = fastread::string_table;
    const fs::path table = dir / "t.fst", not_table = dir / "not.fst";
    write_file(not_table, std::string(80, 'x'));
    run_void(
        "string_table::try_write good",
        [&] {
            return st::try_write(table, std::vector<std::string>{"ada", "grace"});
        },
        [&] {
            st::write(table, std::vector<std::string>{"ada", "grace"});
        });
    run_void(
        "string_table::try_write over a directory",
        [&] { return st::try_write(dir, std::vector<std::string>{"x"}); },
        [&] { st::write(dir, std::vector<std::string>{"x"}); }, os(EISDIR));
    auto show_view = [](const st::view& v) { return std::to_string(v.size()) + " strings"; };
    run<st::view>(
        "string_table::view::try_open good", [&] { return st::view::try_open(table); },
        [&](std::optional<st::view>& out) { out = st::view::open(table); }, show_view);
    run<st::view>(
        "string_table::view::try_open not a table", [&] { return st::view::try_open(not_table); },
        [&](std::optional<st::view>& out) { out = st::view::open(not_table); }, show_view,
        fr(fastread::errc::malformed_input), 0);
    run<st::view>(
        "string_table::view::try_open missing", [&] { return st::view::try_open(dir / "no"); },
        [&](std::optional<st::view>& out) { out = st::view::open(dir / "no"); }, show_view,
        os(ENOENT));
}

} // namespace

// argv[1]: a directory to create and work in (both builds are given the same one, so that
// their messages, which name the files, can be compared); removed at the end.
// The Netpbm decoder's header probes, decodes into a caller's buffer and batches.
void image_headers(const fs::path& dir) {
    namespace pnm = fastread::pnm;
    namespace pfm = fastread::pfm;
    const fs::path good = dir / "h-good.pgm", other = dir / "h-other.pgm", cut = dir / "h-cut.pgm",
                   missing = dir / "h-missing.pgm", floats = dir / "h-good.pfm";
    write_file(good, std::string("P5 3 2 255\n") + "\x01\x02\x03\x04\x05\x06");
    write_file(other, std::string("P5 2 2 255\n") + "\x01\x02\x03\x04");
    write_file(cut, "P5 3");
    write_file(floats, std::string("PF\n1 1\n-1\n") + std::string(12, '\0'));
    auto show_header = [](const pnm::header& h) {
        return std::to_string(h.width) + "x" + std::to_string(h.height) + " raster at " +
               std::to_string(h.raster_offset);
    };
    auto probe_case = [&](const std::string& name, const fs::path& p,
                          std::optional<std::error_code> code = std::nullopt,
                          std::optional<std::uint64_t> offset = std::nullopt) {
        run<pnm::header>(
            "pnm::try_probe " + name, [&] { return pnm::try_probe(p); },
            [&](std::optional<pnm::header>& out) { out = pnm::probe(p); }, show_header, code,
            offset);
    };
    probe_case("good", good);
    probe_case("truncated header", cut, fr(fastread::errc::truncated_header), 4);
    probe_case("missing file", missing, os(ENOENT));
    run<pfm::header>(
        "pfm::try_probe good", [&] { return pfm::try_probe(floats); },
        [&](std::optional<pfm::header>& out) { out = pfm::probe(floats); },
        [](const pfm::header& h) { return std::to_string(h.raster_bytes) + " bytes"; });

    std::vector<std::uint8_t> room(16, 0);
    auto into_case = [&](const std::string& name, const fs::path& p, std::size_t stride,
                         fastread::load_options options,
                         std::optional<std::error_code> code = std::nullopt,
                         std::optional<std::uint64_t> offset = std::nullopt) {
        run<pnm::header>(
            "pnm::try_load_into " + name,
            [&] { return pnm::try_load_into(p, std::span(room), stride, options); },
            [&](std::optional<pnm::header>& out) {
                out = pnm::load_into(p, std::span(room), stride, options);
            },
            show_header, code, offset);
    };
    into_case("good", good, 5, {});
    into_case("stride too small", good, 2, {}, fr(fastread::errc::invalid_argument));
    into_case("buffer too small", good, 14, {}, fr(fastread::errc::invalid_argument));
    fastread::load_options narrow;
    narrow.max_width = 2;
    into_case("over a limit", good, 5, narrow, fr(fastread::errc::over_limit), 3);

    const std::vector<fs::path> paths{good, other, missing, good};
    auto show_batch = [](const std::vector<fastread::result<pnm::header>>& each) {
        std::string out;
        for (const auto& r : each) {
            out += r ? "ok " : "error(" + std::to_string(r.error().code().value()) + ") ";
        }
        return out;
    };
    std::vector<std::uint8_t> all(4 * 6, 0), small(5, 0);
    using batch = std::vector<fastread::result<pnm::header>>;
    run<batch>(
        "pnm::try_load_batch good and bad files",
        [&] { return pnm::try_load_batch(paths, std::span(all)); },
        [&](std::optional<batch>& out) { out = pnm::load_batch(paths, std::span(all)); },
        show_batch);
    run<batch>(
        "pnm::try_load_batch buffer too small",
        [&] { return pnm::try_load_batch(paths, std::span(small)); },
        [&](std::optional<batch>& out) { out = pnm::load_batch(paths, std::span(small)); },
        show_batch, fr(fastread::errc::invalid_argument));
}

int main(int argc, char** argv) {
    if (argc != 2 || !fs::create_directories(argv[1])) {
        std::fprintf(stderr, "usage: try_forms <new directory>\n");
        return 2;
    }
    const fs::path dir = argv[1];
    images(dir);
    image_headers(dir);
    float_images(dir);
    text(dir);
    number_text(dir);
    comparisons(dir);
    sources(dir);
    records_and_tables(dir);
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    std::fprintf(stderr, "%s forms: %d unexpected\n", throwing ? "throwing" : "try_", failures);
    return failures == 0 ? 0 : 1;
}
