#include <fastread/string_table.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <ranges>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#if !defined(_WIN32)
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "baselines/string_table_formats.hpp"
#include "test_util.hpp"

namespace st = fastread::string_table;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> sample_strings() {
    std::vector<std::string> s{"", "a", "hello, world", std::string("nul\0inside", 10), ""};
    s.push_back(std::string(5000, 'x'));
    for (int i = 0; i < 300; ++i) {
        s.push_back("string " + std::to_string(i * 7919));
    }
    s.push_back(std::string(1, '\0'));
    return s;
}

std::vector<std::string> contents(const st::view& v) {
    return std::vector<std::string>(v.begin(), v.end());
}

// The bytes of a table with `strings`, as write() makes them.
std::string table_bytes(const fs::path& dir, const std::vector<std::string>& strings) {
    write_file(dir / "made", "");
    st::write(dir / "made", strings);
    return read_file(dir / "made");
}

void put_u64(std::string& bytes, std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
    }
}

std::uint64_t get_u64(const std::string& bytes, std::size_t at) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) {
        v = v << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    }
    return v;
}

// parse_error's offset from open; try_open must return the same error as a value (code
// malformed_input, offset, path, message).
std::uint64_t open_error_offset(const fs::path& path) {
    const fastread::result<st::view> r = st::view::try_open(path);
    try {
        st::view v = st::view::open(path);
    } catch (const fastread::parse_error& e) {
        REQUIRE_FALSE(r);
        CHECK(r.error().code() == fastread::errc::malformed_input);
        CHECK(r.error().offset() == e.offset());
        CHECK(r.error().path() == path.string());
        CHECK(r.error().message() == e.what());
        return e.offset();
    }
    CHECK(r);
    return UINT64_MAX;
}

} // namespace

TEST_CASE("string_table: write, open and open_unchecked give back the strings", "[string_table]") {
    temp_dir dir;
    const std::vector<std::string> strings = sample_strings();
    st::write(dir / "t", strings);
    for (bool checked : {true, false}) {
        CAPTURE(checked);
        st::view v = checked ? st::view::open(dir / "t") : st::view::open_unchecked(dir / "t");
        REQUIRE(v.size() == strings.size());
        CHECK(contents(v) == strings);
        for (std::size_t i = 0; i < strings.size(); ++i) {
            REQUIRE(v.at(i) == strings[i]);
            REQUIRE(v[i] == strings[i]);
        }
        CHECK_THROWS_AS(v.at(strings.size()), std::out_of_range);
        // Random access and ranges.
        auto it = v.begin();
        CHECK(it[3] == strings[3]);
        CHECK(*(it + 5) == strings[5]);
        CHECK(v.end() - v.begin() == static_cast<std::ptrdiff_t>(strings.size()));
        std::size_t total = 0;
#if defined(__cpp_lib_ranges) // libc++ before 15 has no std::ranges algorithms or views
        CHECK(std::ranges::count(v, "") == 2);
        auto lengths = v | std::views::transform([](std::string_view s) { return s.size(); });
        for (std::size_t n : lengths) {
            total += n;
        }
#else
        CHECK(std::count(v.begin(), v.end(), "") == 2);
        for (std::string_view s : v) {
            total += s.size();
        }
#endif
        std::size_t want = 0;
        for (const std::string& s : strings) {
            want += s.size();
        }
        CHECK(total == want);
        CHECK(v.data_size() == want);
    }
    // The layout: 64-byte header, count + 1 offsets, the bytes right after.
    const std::string bytes = read_file(dir / "t");
    CHECK(get_u64(bytes, 16) == strings.size());
    CHECK(get_u64(bytes, 24) == 64);
    CHECK(get_u64(bytes, 32) == 64 + 8 * (strings.size() + 1));
    CHECK(get_u64(bytes, 48) == bytes.size());
    CHECK(bytes.substr(get_u64(bytes, 32), 13) == "ahello, world");
}

TEST_CASE("string_table: an empty table, a table of empty strings", "[string_table]") {
    temp_dir dir;
    st::write(dir / "none", std::vector<std::string>{});
    st::view none = st::view::open(dir / "none");
    CHECK(none.size() == 0);
    CHECK(none.begin() == none.end());
    CHECK(fs::file_size(dir / "none") == 72);
    st::write(dir / "blank", std::vector<std::string_view>(3, ""));
    CHECK(contents(st::view::open(dir / "blank")) == std::vector<std::string>(3, ""));
}

TEST_CASE("string_table: the writer, single-pass ranges, and atomic replacement",
          "[string_table]") {
    temp_dir dir;
    std::vector<std::string> strings = sample_strings();
    strings.push_back(std::string((std::size_t{1} << 20) + 17, 'b')); // past its buffer
    strings.push_back("after the big one");
    {
        st::writer w(dir / "w");
        for (const std::string& s : strings) {
            w.add(s);
        }
        CHECK(w.size() == strings.size());
        w.finish();
    }
    CHECK(contents(st::view::open(dir / "w")) == strings);
    // Same bytes as write() of the whole range.
    CHECK(read_file(dir / "w") == table_bytes(dir.path(), strings));
    // A writer that never finishes leaves the old file as it was, and no temporary files.
    const std::string before = read_file(dir / "w");
    {
        st::writer w(dir / "w");
        w.add("unfinished");
    }
    CHECK(read_file(dir / "w") == before);
    // A single-pass range (an istream) goes through the writer.
    std::istringstream words("one two three");
#if defined(__cpp_lib_ranges)
    st::write(dir / "words", std::views::istream<std::string>(words));
#else // libc++ before 15: the same single-pass range by hand
    struct words_range {
        std::istream* in;
        std::istream_iterator<std::string> begin() const { return {*in}; }
        std::istream_iterator<std::string> end() const { return {}; }
    };
    st::write(dir / "words", words_range{&words});
#endif
    CHECK(contents(st::view::open(dir / "words")) ==
          std::vector<std::string>{"one", "two", "three"});
    // A forward range of other string types; replacing a file that a view still maps. POSIX
    // replaces the name and the view keeps the old file; Windows refuses to replace a mapped
    // file: an error, the old file as it was, no temporary file left.
    {
        st::view old = st::view::open(dir / "words");
#if defined(_WIN32)
        CHECK_THROWS_AS(st::write(dir / "words", std::list<std::string_view>{"x", "y"}),
                        std::system_error);
        CHECK(contents(old) == std::vector<std::string>{"one", "two", "three"});
        CHECK(contents(st::view::open(dir / "words")) == contents(old));
#else
        st::write(dir / "words", std::list<std::string_view>{"x", "y"});
        CHECK(contents(old) == std::vector<std::string>{"one", "two", "three"});
#endif
    }
    st::write(dir / "words", std::list<std::string_view>{"x", "y"}); // not mapped now
    CHECK(contents(st::view::open(dir / "words")) == std::vector<std::string>{"x", "y"});
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        (void)e;
        ++entries;
    }
    CHECK(entries == 3); // w, made, words: nothing left behind
}

TEST_CASE("string_table: malformed files are parse_errors at the byte that is wrong",
          "[string_table]") {
    temp_dir dir;
    const std::vector<std::string> strings{"alpha", "beta", "", "gamma"};
    const std::string good = table_bytes(dir.path(), strings);
    const std::size_t offsets_at = 64, data_at = 64 + 8 * 5;
    struct bad_case {
        const char* name;
        std::string bytes;
        std::uint64_t offset;
        bool header; // open_unchecked rejects it too
    };
    std::vector<bad_case> cases;
    auto with = [&](auto change) {
        std::string b = good;
        change(b);
        return b;
    };
    cases.push_back({"empty file", "", 0, true});
    cases.push_back({"shorter than the header", good.substr(0, 40), 40, true});
    cases.push_back({"wrong magic", with([](std::string& b) { b[1] = 'X'; }), 0, true});
    cases.push_back({"text-mode CRLF damage", with([](std::string& b) { b[4] = '\n'; }), 0, true});
    cases.push_back({"future version", with([](std::string& b) { b[8] = 2; }), 8, true});
    cases.push_back({"byte-swapped byte-order mark",
                     with([](std::string& b) { b.replace(12, 4, "\x01\x02\x03\x04"); }), 12, true});
    cases.push_back({"reserved bytes", with([](std::string& b) { b[60] = 1; }), 56, true});
    cases.push_back({"truncated file", good.substr(0, good.size() - 2), 48, true});
    cases.push_back({"count so large the offsets cannot fit",
                     with([](std::string& b) { put_u64(b, 16, UINT64_MAX / 4); }), 16, true});
    cases.push_back({"truncated offsets (header's sizes adjusted)", with([&](std::string& b) {
                         b.resize(offsets_at + 16);
                         put_u64(b, 48, b.size());
                     }),
                     24, true});
    cases.push_back({"truncated data (header's file size adjusted)", with([&](std::string& b) {
                         b.resize(b.size() - 3);
                         put_u64(b, 48, b.size());
                     }),
                     40, true});
    cases.push_back({"offsets overlapping the header",
                     with([](std::string& b) { put_u64(b, 24, 32); }), 24, true});
    cases.push_back(
        {"unaligned offsets", with([](std::string& b) { put_u64(b, 24, 68); }), 24, true});
    cases.push_back({"data overlapping the offsets",
                     with([&](std::string& b) { put_u64(b, 32, data_at - 8); }), 32, true});
    cases.push_back({"first offset not 0", with([&](std::string& b) { put_u64(b, offsets_at, 1); }),
                     offsets_at, false});
    cases.push_back({"decreasing offsets",
                     with([&](std::string& b) { put_u64(b, offsets_at + 16, 2); }), offsets_at + 16,
                     false});
    cases.push_back({"an offset past the end",
                     with([&](std::string& b) { put_u64(b, offsets_at + 32, 1000); }),
                     offsets_at + 32, false});
    for (const bad_case& c : cases) {
        CAPTURE(c.name);
        write_file(dir / "bad", c.bytes);
        CHECK(open_error_offset(dir / "bad") == c.offset);
        if (c.header) {
            CHECK_THROWS_AS(st::view::open_unchecked(dir / "bad"), fastread::parse_error);
        } else {
            // Accepted unchecked: at() reports the bad offsets, [] stays in bounds.
            st::view v = st::view::open_unchecked(dir / "bad");
            bool threw = false;
            for (std::size_t i = 0; i < v.size(); ++i) {
                try {
                    (void)v.at(i);
                } catch (const fastread::parse_error&) {
                    threw = true;
                }
                CHECK(v[i].size() <= v.data_size());
            }
            CHECK(threw == (c.offset != offsets_at)); // a first offset of 1 is in bounds
        }
    }
    // Not a regular file.
    fs::create_directory(dir / "directory");
#if defined(_WIN32) // a directory cannot be opened there: the open's error
    CHECK_THROWS_MATCHES(st::view::open(dir / "directory"), std::system_error,
                         Catch::Predicate<std::system_error>([](const std::system_error& e) {
                             return e.code() == std::errc::is_a_directory;
                         }));
#else
    CHECK(open_error_offset(dir / "directory") == 0);
#endif
#if !defined(_WIN32) // no FIFOs in a Windows file system
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    CHECK(open_error_offset(dir / "fifo") == 0); // and does not block
#endif
    CHECK_THROWS_AS(st::view::open(dir / "missing"), std::system_error);
    const fastread::result<st::view> missing = st::view::try_open(dir / "missing");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code() == std::errc::no_such_file_or_directory);
    CHECK_FALSE(missing.error().offset());
    // try_write: a directory in the way, then a good table.
    const fastread::result<void> refused =
        st::try_write(dir / "directory", std::vector<std::string>{"a"});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code() == std::errc::is_a_directory);
    REQUIRE(st::try_write(dir / "written", std::vector<std::string>{"a", "bc"}));
    const fastread::result<st::view> written = st::view::try_open(dir / "written");
    REQUIRE(written);
    CHECK(written->size() == 2);
    CHECK((*written)[1] == "bc");
    // The message names the file, the byte and the problem.
    write_file(dir / "bad", with([](std::string& b) { b[8] = 2; }));
    try {
        (void)st::view::open(dir / "bad");
    } catch (const fastread::parse_error& e) {
        CHECK(std::string(e.what()) ==
              (dir / "bad").string() +
                  ": byte 8: format version 2 is not supported (this reader knows version 1)");
    }
}

TEST_CASE("string_table: every one-byte corruption and every truncation is rejected or stays "
          "in bounds",
          "[string_table]") {
    temp_dir dir;
    const std::string good = table_bytes(dir.path(), {"one", "", "three", "four!"});
    std::size_t accepted = 0, rejected = 0;
    auto exercise = [&](const std::string& bytes) {
        write_file(dir / "f", bytes);
        try {
            st::view v = st::view::open(dir / "f");
            ++accepted;
            std::size_t sum = 0;
            for (std::string_view s : v) {
                REQUIRE(s.size() <= v.data_size());
                for (char c : s) {
                    sum += static_cast<unsigned char>(c);
                }
            }
            (void)sum;
        } catch (const fastread::parse_error&) {
            ++rejected;
        }
        try {
            st::view v = st::view::open_unchecked(dir / "f");
            for (std::size_t i = 0; i < v.size(); ++i) {
                REQUIRE(v[i].size() <= v.data_size());
                try {
                    std::string_view s = v.at(i);
                    REQUIRE(s.size() <= v.data_size());
                    std::size_t sum = 0;
                    for (char c : s) {
                        sum += static_cast<unsigned char>(c);
                    }
                    (void)sum;
                } catch (const fastread::parse_error&) {
                }
            }
        } catch (const fastread::parse_error&) {
        }
    };
    for (std::size_t at = 0; at < good.size(); ++at) {
        for (unsigned flip : {0x01u, 0x80u, 0xffu}) {
            std::string b = good;
            b[at] = static_cast<char>(static_cast<unsigned char>(b[at]) ^ flip);
            exercise(b);
        }
    }
    for (std::size_t n = 0; n < good.size(); ++n) {
        exercise(good.substr(0, n));
    }
    // Every truncation is rejected; corruptions of the string bytes are accepted.
    CHECK(rejected >= good.size());
    CHECK(accepted >= 3 * 13); // the 13 string bytes, each flipped three ways
}

TEST_CASE("string_table: a table over 4 GiB (sparse file)", "[string_table]") {
    temp_dir dir;
    const std::uint64_t big = (std::uint64_t{5} << 30) + 1; // one 5 GiB string, then "end"
    std::string head(64 + 8 * 3, '\0');
    std::string h = table_bytes(dir.path(), {"x", "end"}).substr(0, 64);
    head.replace(0, 64, h);
    const std::uint64_t data_at = 64 + 8 * 3;
    put_u64(head, 16, 2);
    put_u64(head, 32, data_at);
    put_u64(head, 40, big + 3);
    put_u64(head, 48, data_at + big + 3);
    put_u64(head, 64, 0);
    put_u64(head, 72, big);
    put_u64(head, 80, big + 3);
    const fs::path path = dir / "big";
    write_file(path, head);
    {
        // Past the end: the gap is a hole where the file system makes one.
        std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
        out.seekp(static_cast<std::streamoff>(data_at + big));
        out.write("end", 3);
        REQUIRE(out.good());
    }
    st::view v = st::view::open(path);
    REQUIRE(v.size() == 2);
    CHECK(v[0].size() == big);
    CHECK(v[1] == "end");
    CHECK(v.at(1) == "end");
}

TEST_CASE("string_table baseline: the article's writers and readers agree", "[string_table]") {
    temp_dir dir;
    const std::vector<std::string> owned = sample_strings();
    const std::vector<std::string_view> strings(owned.begin(), owned.end());
    st::baseline::naive_write(dir / "naive", strings);
    st::baseline::flat_write(dir / "flat", strings);
    { // the map gone before the file is rewritten (Windows cannot shrink a mapped file)
        const auto naive = st::baseline::naive_read(dir / "naive");
        const auto copied = st::baseline::one_copy_read(dir / "flat");
        const auto mapped = st::baseline::zero_copy_read(dir / "flat");
        REQUIRE(naive.size() == strings.size());
        REQUIRE(copied.size() == strings.size());
        REQUIRE(mapped.size() == strings.size());
        for (std::size_t i = 0; i < strings.size(); ++i) {
            REQUIRE(naive[i] == strings[i]);
            REQUIRE(copied[i] == strings[i]);
            REQUIRE(mapped[i] == strings[i]);
        }
    }
    // A length past the end is an error, not a read out of bounds.
    std::string flat = read_file(dir / "flat");
    flat[4] = '\x7f';
    flat[5] = '\x7f';
    write_file(dir / "flat", flat);
    CHECK_THROWS_AS(st::baseline::zero_copy_read(dir / "flat"), fastread::parse_error);
    CHECK_THROWS_AS(st::baseline::one_copy_read(dir / "flat"), fastread::parse_error);
    write_file(dir / "naive", read_file(dir / "naive").substr(0, 100));
    CHECK_THROWS_AS(st::baseline::naive_read(dir / "naive"), fastread::parse_error);
}
