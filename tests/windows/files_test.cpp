// The file layer on Windows (detail/windows.hpp under detail/posix.hpp): each job that reads
// or writes files, through each way it reaches them, with the exact bytes it must give; paths
// with characters outside ASCII (UTF-16 on Windows); bytes that a text-mode C runtime would
// change (CR LF, Ctrl-Z). Built and run on Linux too, where the same results must hold.

#include <fastread/duplicates.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/page_cache.hpp>
#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>
#include <fastread/records.hpp>
#include <fastread/source.hpp>
#include <fastread/string_table.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "../test_util.hpp"

namespace fs = std::filesystem;
using fastread_test::drain;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

// A name with a Latin letter, a Greek one and one outside the Basic Multilingual Plane, made
// from UTF-8 so that Windows must turn it into UTF-16 correctly.
fs::path non_ascii(const char* stem, const char* extension) {
    const char8_t tail[] = u8"-\u00e9\u03a9\U0001F600";
    std::u8string name;
    for (const char* p = stem; *p != '\0'; ++p) {
        name += static_cast<char8_t>(*p);
    }
    name += tail;
    for (const char* p = extension; *p != '\0'; ++p) {
        name += static_cast<char8_t>(*p);
    }
    return fs::path(name);
}

template <class Sample>
fastread::ppm::image<Sample> test_image(std::uint32_t width, std::uint32_t height,
                                        std::uint16_t maxval, unsigned seed) {
    fastread::ppm::image<Sample> img;
    img.width = width;
    img.height = height;
    img.maxval = maxval;
    img.samples.resize(std::size_t{width} * height * 3);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& s : img.samples) {
        x = x * 1664525u + 1013904223u;
        s = static_cast<Sample>((x >> 8) % (std::uint32_t{maxval} + 1));
    }
    return img;
}

} // namespace

TEST_CASE("files: ppm save and load, raw and plain, 8- and 16-bit, every io mode, a non-ASCII "
          "name",
          "[files]") {
    temp_dir dir;
    const fs::path path = dir / non_ascii("bild", ".ppm");
    const auto img8 = test_image<std::uint8_t>(97, 61, 255, 1);
    const auto img16 = test_image<std::uint16_t>(53, 29, 65535, 2);
    for (auto fmt : {fastread::ppm::format::raw, fastread::ppm::format::plain}) {
        fastread::ppm::save(path, img8, fmt);
        REQUIRE(fs::exists(path));
        for (auto io : {fastread::io_mode::read, fastread::io_mode::map}) {
            CAPTURE(fastread::to_string(io));
            const auto back = fastread::ppm::load<std::uint8_t>(path, {.io = io});
            CHECK(back.width == img8.width);
            CHECK(back.height == img8.height);
            CHECK(back.maxval == 255);
            CHECK(back.samples == img8.samples);
        }
        fastread::ppm::save(path, img16, fmt);
        const auto back16 = fastread::ppm::load<std::uint16_t>(path);
        CHECK(back16.width == img16.width);
        CHECK(back16.samples == img16.samples);
    }
    // Raw 8-bit: the file is the header and the samples, nothing translated.
    fastread::ppm::save(path, img8, fastread::ppm::format::raw);
    const std::string header = "P6\n97 61\n255\n";
    CHECK(fs::file_size(path) == header.size() + img8.samples.size());
    CHECK(read_file(path).substr(0, header.size()) == header);
}

TEST_CASE("files: ppm::save replaces a file whole and leaves no temporary file", "[files]") {
    temp_dir dir;
    const fs::path path = dir / "image.ppm";
    fastread::ppm::save(path, test_image<std::uint8_t>(8, 8, 255, 3));
    const auto second = test_image<std::uint8_t>(5, 3, 200, 4);
    fastread::ppm::save(path, second);
    CHECK(fastread::ppm::load(path).samples == second.samples);
    std::vector<fs::path> left;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        left.push_back(e.path().filename());
    }
    CHECK(left == std::vector<fs::path>{"image.ppm"});
}

TEST_CASE("files: a missing file is a system_error naming it", "[files]") {
    temp_dir dir;
    const fs::path path = dir / non_ascii("missing", ".ppm");
    try {
        (void)fastread::ppm::load(path);
        FAIL("no exception");
    } catch (const std::system_error& e) {
        CHECK(e.code() == std::errc::no_such_file_or_directory);
        CHECK(std::string(e.what()).find("missing") != std::string::npos);
    }
    CHECK_THROWS_AS(fastread::read_source(path), std::system_error);
    CHECK_THROWS_AS(fastread::mmap_source(path), std::system_error);
    CHECK_THROWS_AS(fastread::stdio_source(path), std::system_error);
    CHECK_THROWS_AS(fastread::fread_source(path), std::system_error);
}

TEST_CASE("files: a positioned read leaves the descriptor's offset where it was", "[files]") {
    // POSIX pread does not move the offset; on Windows a ReadFile at an OVERLAPPED offset
    // does, unless the file layer puts it back (ppm::load peeks with pread, then reads).
    temp_dir dir;
    const fs::path path = dir / non_ascii("offsets", ".bin");
    const std::string bytes = fastread_test::bytes_of(100, 5);
    {
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const fastread::detail::unique_fd fd = fastread::detail::open_read_only(path);
    namespace sys = fastread::detail::sys;
    char head[3], at_50[7], next[3];
    REQUIRE(sys::read(fd.get(), head, 3) == 3);
    REQUIRE(sys::pread(fd.get(), at_50, 7, 50) == 7);
    REQUIRE(sys::read(fd.get(), next, 3) == 3);
    CHECK(std::string(head, 3) == bytes.substr(0, 3));
    CHECK(std::string(at_50, 7) == bytes.substr(50, 7));
    CHECK(std::string(next, 3) == bytes.substr(3, 3));
    CHECK(sys::pread(fd.get(), at_50, 7, 200) == 0); // past the end: nothing, no error
    REQUIRE(sys::read(fd.get(), next, 3) == 3);
    CHECK(std::string(next, 3) == bytes.substr(6, 3));
}

TEST_CASE("files: every byte source gives a file's exact bytes, CR LF and Ctrl-Z included",
          "[files]") {
    temp_dir dir;
    std::string bytes = fastread_test::bytes_of(300001, 7);
    bytes.replace(100, 4, "\r\n\x1a\r");
    const fs::path path = dir / non_ascii("bytes", ".bin");
    write_file(path, bytes);
    {
        fastread::read_source s(path);
        CHECK(drain(s) == bytes);
    }
    {
        fastread::mmap_source s(path);
        CHECK(drain(s) == bytes);
    }
    {
        fastread::stdio_source s(path);
        CHECK(drain(s) == bytes);
    }
    {
        fastread::fread_source s(path);
        CHECK(drain(s) == bytes);
    }
    write_file(dir / "empty", "");
    fastread::read_source empty(dir / "empty");
    CHECK(drain(empty).empty());
    fastread::mmap_source empty_map(dir / "empty");
    CHECK(drain(empty_map).empty());
}

TEST_CASE("files: lines by path in every io mode, LF and CR LF, the last line unterminated",
          "[files]") {
    temp_dir dir;
    const fs::path path = dir / non_ascii("log", ".txt");
    std::string text;
    std::vector<std::string> want;
    for (int i = 0; i < 20000; ++i) {
        std::string line =
            "line " + std::to_string(i) + std::string(static_cast<std::size_t>(i % 97), 'x');
        want.push_back(line);
        text += line + (i % 3 == 0 ? "\r\n" : "\n");
    }
    text += "tail";
    want.push_back("tail");
    write_file(path, text);
    for (auto io : {fastread::io_mode::read, fastread::io_mode::map}) {
        CAPTURE(fastread::to_string(io));
        fastread::line_options o;
        o.io = io;
        std::vector<std::string> got;
        for (std::string_view line : fastread::lines(path, o)) {
            got.emplace_back(line);
        }
        CHECK(got == want);
    }
}

TEST_CASE("files: pnm and pfm save and load", "[files]") {
    temp_dir dir;
    fastread::pnm::image<std::uint8_t> gray;
    gray.width = 7;
    gray.height = 5;
    gray.depth = 1;
    gray.maxval = 255;
    gray.encoding = fastread::pnm::format::pgm_raw;
    for (std::size_t i = 0; i < 35; ++i) {
        gray.samples.push_back(static_cast<std::uint8_t>(i * 7));
    }
    fastread::pnm::save(dir / "g.pgm", gray, fastread::pnm::format::pgm_raw);
    const auto g = fastread::pnm::load<std::uint8_t>(dir / "g.pgm");
    CHECK(g.width == 7);
    CHECK(g.depth == 1);
    CHECK(g.samples == gray.samples);

    fastread::pfm::image f;
    f.width = 3;
    f.height = 2;
    f.depth = 3;
    f.scale = 1;
    for (int i = 0; i < 18; ++i) {
        f.samples.push_back(static_cast<float>(i) / 4.0f - 1.0f);
    }
    fastread::pfm::save(dir / "f.pfm", f);
    CHECK(fastread::pfm::load(dir / "f.pfm") == f);
}

TEST_CASE("files: files_equal with every method", "[files]") {
    temp_dir dir;
    const std::string bytes = fastread_test::bytes_of(2 << 20, 9);
    write_file(dir / "a", bytes);
    write_file(dir / "b", bytes);
    std::string other = bytes;
    other[other.size() - 1] = static_cast<char>(other.back() ^ 1);
    write_file(dir / "c", other);
    for (auto m : {fastread::compare_method::automatic, fastread::compare_method::block,
                   fastread::compare_method::mmap}) {
        fastread::compare_options o;
        o.method = m;
        CAPTURE(static_cast<int>(m));
        CHECK(fastread::files_equal(dir / "a", dir / "b", o));
        CHECK_FALSE(fastread::files_equal(dir / "a", dir / "c", o));
        CHECK(fastread::files_equal(dir / "a", dir / "a", o));
    }
}

TEST_CASE("files: a string table written and viewed", "[files]") {
    temp_dir dir;
    std::vector<std::string> strings;
    for (int i = 0; i < 5000; ++i) {
        strings.push_back("string " + std::to_string(i * 31) +
                          std::string(static_cast<std::size_t>(i % 13), '\r'));
    }
    strings.push_back("");
    const fs::path path = dir / non_ascii("table", ".stb");
    fastread::string_table::write(path, strings);
    const fastread::string_table::view v = fastread::string_table::view::open(path);
    REQUIRE(v.size() == strings.size());
    for (std::size_t i = 0; i < strings.size(); ++i) {
        CHECK(v[i] == strings[i]);
    }
}

TEST_CASE("files: records read and updated at positions with each method", "[files]") {
    temp_dir dir;
    const fs::path path = dir / "records.bin";
    std::vector<std::int32_t> records(100000);
    for (std::size_t i = 0; i < records.size(); ++i) {
        records[i] = static_cast<std::int32_t>(i * 2654435761u);
    }
    write_file(path, std::string(reinterpret_cast<const char*>(records.data()),
                                 records.size() * sizeof(std::int32_t)));
    const std::vector<std::uint64_t> indices{99999, 0, 4096, 4095, 77, 77, 50000};
    for (auto m : {fastread::access_method::automatic, fastread::access_method::pread,
                   fastread::access_method::mmap}) {
        CAPTURE(fastread::to_string(m));
        fastread::record_options o;
        o.method = m;
        std::vector<std::int32_t> got(indices.size());
        fastread::read_at<std::int32_t>(path, indices, std::span<std::int32_t>(got), o);
        for (std::size_t i = 0; i < indices.size(); ++i) {
            CHECK(got[i] == records[indices[i]]);
        }
        fastread::update_at<std::int32_t>(
            path, indices, [](std::int32_t v) { return v + 1; }, o);
        for (std::uint64_t i : indices) {
            ++records[i];
        }
        CHECK(read_file(path) == std::string(reinterpret_cast<const char*>(records.data()),
                                             records.size() * sizeof(std::int32_t)));
    }
}

TEST_CASE("files: the page cache, as far as the system lets it be asked", "[files]") {
    temp_dir dir;
    const fs::path path = dir / non_ascii("cached", ".bin");
    write_file(path, fastread_test::bytes_of(1 << 20, 11));
    fastread::page_cache::preload(path); // reads it all, on every system
#if defined(_WIN32)
    // Windows cannot say which pages of a file it caches, nor drop them: said, not faked.
    try {
        (void)fastread::page_cache::resident_fraction(path);
        FAIL("no exception");
    } catch (const std::system_error& e) {
        CHECK(e.code() == std::errc::function_not_supported);
    }
    try {
        fastread::page_cache::evict(path);
        FAIL("no exception");
    } catch (const std::system_error& e) {
        CHECK(e.code() == std::errc::not_supported);
    }
#else
    CHECK(fastread::page_cache::resident_fraction(path) == 1.0);
#endif
}

TEST_CASE("files: find_duplicates groups a tree's equal files, hard links once, names outside "
          "ASCII",
          "[files]") {
    temp_dir dir;
    fs::create_directories(dir / "a" / "deep");
    fs::create_directories(dir / "b");
    const std::string same = fastread_test::bytes_of(200000, 21);
    std::string nearly = same;
    nearly[150000] = static_cast<char>(nearly[150000] ^ 1); // same size, one byte apart
    write_file(dir / "a" / "one.bin", same);
    write_file(dir / "a" / "deep" / non_ascii("two", ".bin"), same);
    write_file(dir / "b" / "three.bin", same);
    write_file(dir / "b" / "near.bin", nearly);
    write_file(dir / "b" / "small1", "abc");
    write_file(dir / "b" / "small2", "abc");
    write_file(dir / "b" / "other", "abd");
    fs::create_hard_link(dir / "b" / "three.bin", dir / "b" / "three-link.bin");

    const std::vector<fs::path> roots{dir.path()};
    fastread::duplicate_options o;
    o.recursive = true;
    auto groups = fastread::find_duplicates(roots, o);
    for (auto& g : groups) {
        std::sort(g.begin(), g.end());
    }
    std::sort(groups.begin(), groups.end());
    // The hard link is the same file as three.bin: one of the two names is kept (as fdupes
    // does without -H), so the group has three members.
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].size() == 3);
    CHECK(groups[0][0] == dir / "a" / "deep" / non_ascii("two", ".bin"));
    CHECK(groups[0][1] == dir / "a" / "one.bin");
    CHECK(
        (groups[0][2] == dir / "b" / "three.bin" || groups[0][2] == dir / "b" / "three-link.bin"));
    CHECK(groups[1] == std::vector<fs::path>{dir / "b" / "small1", dir / "b" / "small2"});

    o.hardlinks_are_duplicates = true;
    groups = fastread::find_duplicates(roots, o);
    std::size_t biggest = 0;
    for (const auto& g : groups) {
        biggest = std::max(biggest, g.size());
    }
    CHECK(biggest == 4); // with the link's other name
}
