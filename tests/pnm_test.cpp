#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::data_path;
using fastread_test::read_file;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

using fs_path = std::filesystem::path;

template <class Sample = std::uint8_t>
pnm::image<Sample> from_bytes(const std::string& bytes) {
    memory_source m(std::span<const char>(bytes.data(), bytes.size()));
    return pnm::load<Sample>(m);
}

template <class Sample>
std::vector<unsigned> as_unsigned(const pnm::image<Sample>& img) {
    return {img.samples.begin(), img.samples.end()};
}

// The Netpbm-made files of data/README.md in every format but P3/P6 (ppm_test has those).
struct data_file {
    const char* name;
    pnm::format encoding;
    std::uint32_t depth;
    std::uint16_t maxval;
    const char* tuple_type;
};
const data_file family[] = {
    {"madras.pbm", pnm::format::pbm_raw, 1, 1, "BLACKANDWHITE"},
    {"madras-plain.pbm", pnm::format::pbm_plain, 1, 1, "BLACKANDWHITE"},
    {"madras.pgm", pnm::format::pgm_raw, 1, 255, "GRAYSCALE"},
    {"madras-plain.pgm", pnm::format::pgm_plain, 1, 255, "GRAYSCALE"},
    {"madras16.pgm", pnm::format::pgm_raw, 1, 65535, "GRAYSCALE"},
    {"madras16-plain.pgm", pnm::format::pgm_plain, 1, 65535, "GRAYSCALE"},
    {"madras.ppm", pnm::format::ppm_raw, 3, 255, "RGB"},
    {"madras15-plain.ppm", pnm::format::ppm_plain, 3, 15, "RGB"},
    {"madras.pam", pnm::format::pam, 3, 255, "RGB"},
    {"madras-bw.pam", pnm::format::pam, 1, 1, "BLACKANDWHITE"},
    {"madras-alpha.pam", pnm::format::pam, 4, 255, "RGB_ALPHA"},
    {"madras-alpha1000.pam", pnm::format::pam, 4, 1000, "RGB_ALPHA"},
};

// Every integer Netpbm's pamtable prints for a file: its samples, row by row.
std::vector<unsigned> pamtable_samples(const std::string& tool, const std::string& path) {
    std::string text = fastread_test::run_command(tool + " '" + path + "'");
    for (char& c : text) {
        if (c == '|') {
            c = ' ';
        }
    }
    std::istringstream in(text);
    std::vector<unsigned> samples;
    for (unsigned s = 0; in >> s;) {
        samples.push_back(s);
    }
    return samples;
}

} // namespace

TEST_CASE("every Netpbm-made file decodes with its format, depth, maxval and tuple type", "[pnm]") {
    for (const data_file& f : family) {
        CAPTURE(f.name);
        const auto img = pnm::load<std::uint16_t>(data_path(f.name));
        CHECK(img.width == 37);
        CHECK(img.height == 23);
        CHECK(img.encoding == f.encoding);
        CHECK(img.depth == f.depth);
        CHECK(img.maxval == f.maxval);
        CHECK(img.tuple_type == f.tuple_type);
        CHECK(img.samples.size() == std::size_t{37} * 23 * f.depth);
    }
}

TEST_CASE("every format decodes to the samples Netpbm's pamtable prints", "[pnm][netpbm]") {
    const std::string tool = FASTREAD_PAMTABLE;
    if (tool.empty()) {
        WARN("pamtable not installed (Debian package netpbm): comparison skipped");
        return;
    }
    for (const data_file& f : family) {
        CAPTURE(f.name);
        const std::vector<unsigned> expected = pamtable_samples(tool, data_path(f.name).string());
        REQUIRE(expected.size() == std::size_t{37} * 23 * f.depth);
        CHECK(as_unsigned(pnm::load<std::uint16_t>(data_path(f.name))) == expected);
    }
}

TEST_CASE("plain and raw twins agree, and a PBM agrees with the PAM Netpbm makes of it", "[pnm]") {
    auto samples = [](const char* name) {
        return as_unsigned(pnm::load<std::uint16_t>(data_path(name)));
    };
    CHECK(samples("madras.pbm") == samples("madras-plain.pbm"));
    CHECK(samples("madras.pbm") == samples("madras-bw.pam"));
    CHECK(samples("madras.pgm") == samples("madras-plain.pgm"));
    CHECK(samples("madras16.pgm") == samples("madras16-plain.pgm"));
    CHECK(samples("madras.ppm") == samples("madras.pam"));
    // pamstack put the gray image after the RGB one in each pixel.
    const auto rgba = samples("madras-alpha.pam");
    const auto rgb = samples("madras.ppm");
    const auto gray = samples("madras.pgm");
    for (std::size_t p = 0; p < gray.size(); ++p) {
        REQUIRE(rgba[p * 4 + 0] == rgb[p * 3 + 0]);
        REQUIRE(rgba[p * 4 + 2] == rgb[p * 3 + 2]);
        REQUIRE(rgba[p * 4 + 3] == gray[p]);
    }
    // pnm::load and ppm::load agree on P3 and P6.
    for (const char* name : {"madras.ppm", "forge16-plain.ppm"}) {
        const auto a = pnm::load<std::uint16_t>(data_path(name));
        const auto b = ppm::load<std::uint16_t>(data_path(name));
        CHECK(std::vector<unsigned>(a.samples.begin(), a.samples.end()) ==
              std::vector<unsigned>(b.samples.begin(), b.samples.end()));
    }
}

TEST_CASE("every format decodes the same from every source and chunk size", "[pnm][source]") {
    for (const data_file& f : family) {
        CAPTURE(f.name);
        const auto path = data_path(f.name);
        const std::string bytes = read_file(path);
        const auto expected = pnm::load<std::uint16_t>(path);
        CHECK(pnm::load<std::uint16_t>(path, {.io = io_mode::read}) == expected);
        CHECK(pnm::load<std::uint16_t>(path, {.io = io_mode::map}) == expected);
        mmap_source m(path);
        CHECK(pnm::load<std::uint16_t>(m) == expected);
        CHECK(from_bytes<std::uint16_t>(bytes) == expected);
        fread_source fr(path);
        CHECK(pnm::load<std::uint16_t>(fr) == expected);
        for (std::size_t chunk : {1, 2, 3, 7, 64, 4096}) {
            CAPTURE(chunk);
            read_source r(path, chunk);
            CHECK(pnm::load<std::uint16_t>(r) == expected);
            stdio_source s(path, chunk);
            CHECK(pnm::load<std::uint16_t>(s) == expected);
            chunked_source c(bytes, chunk);
            CHECK(pnm::load<std::uint16_t>(c) == expected);
            std::ifstream in(path, std::ios::binary);
            istream_source i(in, chunk);
            CHECK(pnm::load<std::uint16_t>(i) == expected);
        }
        fastread_test::pipe_feeder pipe(bytes);
        read_source p(pipe.read_fd(), 5);
        CHECK(pnm::load<std::uint16_t>(p) == expected);
        if (f.maxval <= 255) {
            const auto narrow = pnm::load(path);
            CHECK(std::vector<unsigned>(narrow.samples.begin(), narrow.samples.end()) ==
                  as_unsigned(expected));
        }
    }
}

TEST_CASE("PBM: bits with and without whitespace, comments between them, pad bits ignored",
          "[pnm]") {
    const std::vector<unsigned> checker = {1, 0, 1, 0, 1, 0}; // 0 1 0 / 1 0 1 in the file
    for (const char* text : {"P1\n3 2\n0 1 0\n1 0 1\n", "P1 3 2 010101", "P1 3 2\n010\n101",
                             "P1 3 2 0#c\n1 0 1#x\r0\t1", "P1\n3 2\n0\n1\n0\n1\n0\n1"}) {
        CAPTURE(text);
        const auto img = from_bytes(text);
        CHECK(img.encoding == pnm::format::pbm_plain);
        CHECK(img.maxval == 1);
        CHECK(img.depth == 1);
        CHECK(img.tuple_type == "BLACKANDWHITE");
        CHECK(as_unsigned(img) == checker);
    }
    // Long rows of bits with and without separators take the 16-byte blocks.
    std::string packed = "P1 70 3\n", spaced = "P1 70 3\n";
    std::vector<unsigned> expected;
    for (int i = 0; i < 210; ++i) {
        const bool black = (i * 7 + i / 13) % 3 == 0;
        packed += black ? '1' : '0';
        spaced += black ? "1 " : "0 ";
        if (i % 70 == 69) {
            packed += '\n';
            spaced += '\n';
        }
        expected.push_back(black ? 0 : 1);
    }
    CHECK(as_unsigned(from_bytes(packed)) == expected);
    CHECK(as_unsigned(from_bytes(spaced)) == expected);
    for (std::size_t chunk : {1, 5, 16, 17}) {
        chunked_source c(spaced, chunk);
        CHECK(as_unsigned(pnm::load(c)) == expected);
    }

    // P4: 3 pixels in a byte whose 5 pad bits are set; 9 pixels in 2 bytes a row.
    CHECK(as_unsigned(from_bytes(std::string("P4 3 1\n\xbf", 8))) ==
          std::vector<unsigned>{0, 1, 0});
    CHECK(as_unsigned(from_bytes(std::string("P4 9 2\n\x80\x80\x7f\x7f", 11))) ==
          std::vector<unsigned>{0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1});
    const auto wide = from_bytes<std::uint16_t>(std::string("P4 9 1\n\x55\x80", 9));
    CHECK(as_unsigned(wide) == std::vector<unsigned>{1, 0, 1, 0, 1, 0, 1, 0, 0});
}

TEST_CASE("PAM header lines in any order, with comments, blank lines, CRLF and joined tuple types",
          "[pnm]") {
    struct good {
        std::string header;
        std::string tuple_type;
    };
    const good cases[] = {
        {"P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n",
         "GRAYSCALE_ALPHA"},
        {"P7\n#c\nMAXVAL 255\n\n  DEPTH\t2  \nHEIGHT 1\n # indented comment\nWIDTH 2\nENDHDR\n",
         ""},
        {"P7\r\nWIDTH 2\r\nHEIGHT 1\r\nDEPTH 2\r\nMAXVAL 255\r\nTUPLTYPE A B \r\nENDHDR\r\n",
         "A B"},
        {"P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE  first\nTUPLTYPE second  "
         "x\nENDHDR\n",
         "first second  x"},
        {"P7\nWIDTH 9\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE my-own type\nENDHDR\n",
         "my-own type"},
    };
    for (const good& g : cases) {
        CAPTURE(g.header);
        const auto img = from_bytes(g.header + "\x01\x02\x03\x04");
        CHECK(img.encoding == pnm::format::pam);
        CHECK(img.width == 2);
        CHECK(img.height == 1);
        CHECK(img.depth == 2);
        CHECK(img.maxval == 255);
        CHECK(img.tuple_type == g.tuple_type);
        CHECK(as_unsigned(img) == std::vector<unsigned>{1, 2, 3, 4});
    }
    const auto wide =
        from_bytes<std::uint16_t>("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 1000\nENDHDR\n" +
                                  std::string("\x03\xe8\x00\x07", 4));
    CHECK(as_unsigned(wide) == std::vector<unsigned>{1000, 7});
}

TEST_CASE("a reader takes images of mixed formats back to back", "[pnm][reader]") {
    const char* names[] = {"madras.pbm",       "madras-plain.pgm", "madras-alpha.pam",
                           "madras-plain.pbm", "madras16.pgm",     "madras15-plain.ppm"};
    std::string stream;
    std::vector<pnm::image<std::uint16_t>> expected;
    for (const char* name : names) {
        stream += read_file(data_path(name));
        stream += "\n \n";
        expected.push_back(pnm::load<std::uint16_t>(data_path(name)));
    }
    for (std::size_t chunk : {1, 3, 4096}) {
        CAPTURE(chunk);
        chunked_source source(stream, chunk);
        pnm::reader<std::uint16_t, chunked_source> frames(source);
        pnm::image<std::uint16_t> frame;
        for (const auto& want : expected) {
            REQUIRE(frames.next(frame));
            CHECK(frame == want);
        }
        CHECK_FALSE(frames.next(frame));
        CHECK(frames.offset() == stream.size());
    }
}

TEST_CASE("a comment straight after the last plain sample ends it and the reader goes on",
          "[pnm][ppm][reader]") {
    const std::string stream = "P3 1 1 255 1 2 3#c\nP2 1 1 9 4#d\nP1 2 1 01#e";
    memory_source m(std::span<const char>(stream.data(), stream.size()));
    pnm::reader frames(m);
    pnm::image<std::uint8_t> img;
    REQUIRE(frames.next(img));
    CHECK(as_unsigned(img) == std::vector<unsigned>{1, 2, 3});
    REQUIRE(frames.next(img));
    CHECK(img.encoding == pnm::format::pgm_plain);
    CHECK(as_unsigned(img) == std::vector<unsigned>{4});
    REQUIRE(frames.next(img));
    CHECK(as_unsigned(img) == std::vector<unsigned>{1, 0});
    // A comment right after a P1 bit is no part of the image: the next call sees it.
    CHECK_THROWS_AS(frames.next(img), parse_error);

    const std::string ppms = "P3 1 1 255 1 2 3#c\nP3 1 1 255 4 5 6";
    memory_source p(std::span<const char>(ppms.data(), ppms.size()));
    ppm::reader ppm_frames(p);
    ppm::image<std::uint8_t> frame;
    REQUIRE(ppm_frames.next(frame));
    REQUIRE(ppm_frames.next(frame));
    CHECK(std::vector<unsigned>(frame.samples.begin(), frame.samples.end()) ==
          std::vector<unsigned>{4, 5, 6});
    CHECK_FALSE(ppm_frames.next(frame));
}

TEST_CASE("save writes every format that loads back and that Netpbm reads", "[pnm][save]") {
    temp_dir dir;
    const std::string tool = FASTREAD_PAMTABLE;
    struct plan {
        const char* from;
        std::vector<pnm::format> formats;
    };
    const plan plans[] = {
        {"madras.pbm",
         {pnm::format::pbm_plain, pnm::format::pbm_raw, pnm::format::pgm_plain,
          pnm::format::pgm_raw, pnm::format::pam}},
        {"madras.pgm", {pnm::format::pgm_plain, pnm::format::pgm_raw, pnm::format::pam}},
        {"madras16.pgm", {pnm::format::pgm_plain, pnm::format::pgm_raw, pnm::format::pam}},
        {"madras.ppm", {pnm::format::ppm_plain, pnm::format::ppm_raw, pnm::format::pam}},
        {"madras-alpha1000.pam", {pnm::format::pam}},
    };
    for (const plan& p : plans) {
        const auto original = pnm::load<std::uint16_t>(data_path(p.from));
        for (pnm::format fmt : p.formats) {
            CAPTURE(p.from, static_cast<int>(fmt));
            const auto path = dir / "out.pnm";
            pnm::save(path, original, fmt);
            const auto back = pnm::load<std::uint16_t>(path);
            CHECK(back.encoding == fmt);
            CHECK(back.width == original.width);
            CHECK(back.height == original.height);
            CHECK(back.depth == original.depth);
            CHECK(back.maxval == original.maxval);
            CHECK(back.samples == original.samples);
            if (fmt == pnm::format::pam) {
                CHECK(back.tuple_type == original.tuple_type);
            }
            if (!tool.empty()) {
                CHECK(pamtable_samples(tool, path.string()) == as_unsigned(original));
            }
        }
    }
    // Plain lines stay within 70 characters; P1 has no spaces, as Netpbm writes it.
    const auto bits = pnm::load(data_path("madras.pbm"));
    pnm::save(dir / "bits.pbm", bits, pnm::format::pbm_plain);
    CHECK(read_file(dir / "bits.pbm") == read_file(data_path("madras-plain.pbm")));
    pnm::save(dir / "bits-raw.pbm", bits, pnm::format::pbm_raw);
    CHECK(read_file(dir / "bits-raw.pbm") == read_file(data_path("madras.pbm")));
    pnm::save(dir / "gray.pgm", pnm::load(data_path("madras.pgm")), pnm::format::pgm_raw);
    CHECK(read_file(dir / "gray.pgm") == read_file(data_path("madras.pgm")));
    pnm::save(dir / "rgb.pam", pnm::load(data_path("madras.pam")), pnm::format::pam);
    CHECK(read_file(dir / "rgb.pam") == read_file(data_path("madras.pam")));
}

TEST_CASE("save refuses images that do not fit the format, writing nothing", "[pnm][save]") {
    temp_dir dir;
    const auto path = dir / "x.pnm";
    pnm::image<std::uint8_t> gray;
    gray.width = 2;
    gray.height = 1;
    gray.depth = 1;
    gray.maxval = 255;
    gray.samples = {0, 200};
    auto refused = [&](const pnm::image<std::uint8_t>& img, pnm::format fmt, const char* why) {
        CAPTURE(why);
        try {
            pnm::save(path, img, fmt);
            FAIL_CHECK("saved");
        } catch (const std::invalid_argument& e) {
            CHECK_THAT(e.what(), Catch::Contains(why));
        }
        CHECK_FALSE(std::filesystem::exists(path));
    };
    refused(gray, pnm::format::pbm_raw, "PBM needs maxval 1");
    refused(gray, pnm::format::ppm_plain, "P3 needs depth 3, the image has 1");
    auto rgb = gray;
    rgb.depth = 3;
    refused(rgb, pnm::format::pam, "2 samples do not make a 2x1 RGB image");
    auto two = gray;
    two.depth = 2;
    two.width = 1;
    refused(two, pnm::format::pgm_raw, "P5 needs depth 1, the image has 2");
    auto typed = two;
    typed.tuple_type = "A\nB";
    refused(typed, pnm::format::pam, "one line of at most 255 bytes");
    auto high = gray;
    high.maxval = 100;
    refused(high, pnm::format::pam, "sample 1 is 200, above maxval 100");
    refused(gray, static_cast<pnm::format>(8), "none of P1 to P7");
}

TEST_CASE("big raw rasters that need decoding: every source agrees, a bad sample is found "
          "exactly",
          "[pnm]") {
    // 1024 x 640 samples: over detail::raw_bounce_from, so a sized source reads them through
    // the bounce buffer, several blocks of it.
    temp_dir dir;
    for (const auto& [maxval, wide] : {std::pair<unsigned, bool>{1000, true}, {100, false}}) {
        CAPTURE(maxval);
        pnm::image<std::uint16_t> img;
        img.width = 1024;
        img.height = wide ? 640 : 1280;
        img.depth = 1;
        img.maxval = static_cast<std::uint16_t>(maxval);
        img.samples.resize(std::size_t{img.width} * img.height);
        for (std::size_t i = 0; i < img.samples.size(); ++i) {
            img.samples[i] = static_cast<std::uint16_t>((i * 7919) % (maxval + 1));
        }
        const auto path = dir / "big.pgm";
        pnm::save(path, img, pnm::format::pgm_raw);
        const std::string bytes = read_file(path);
        REQUIRE(bytes.size() >= fastread::detail::raw_bounce_from);
        // Samples as wide as the file's (uint8_t for maxval 100): the path that reads through
        // the bounce buffer; uint16_t for 8-bit samples widens instead. (A copy: Clang
        // before 16 cannot capture a structured binding.)
        const bool wide16 = wide;
        auto load_path = [&](const fs_path& p) {
            return wide16 ? as_unsigned(pnm::load<std::uint16_t>(p)) : as_unsigned(pnm::load(p));
        };
        auto load_reader = [&](const fs_path& p) {
            read_source s(p, 4096);
            return wide16 ? as_unsigned(pnm::load<std::uint16_t>(s)) : as_unsigned(pnm::load(s));
        };
        auto load_memory = [&](const std::string& b) {
            return wide16 ? as_unsigned(from_bytes<std::uint16_t>(b)) : as_unsigned(from_bytes(b));
        };
        CHECK(load_path(path) == as_unsigned(img));
        CHECK(load_reader(path) == as_unsigned(img));
        CHECK(load_memory(bytes) == as_unsigned(img));
        CHECK(as_unsigned(pnm::load<std::uint16_t>(path)) == as_unsigned(img));

        // One sample above maxval, in the third block of the bounce buffer.
        const std::size_t bad = 300000;
        const std::size_t sample_bytes = wide ? 2 : 1;
        const std::size_t header = bytes.size() - img.samples.size() * sample_bytes;
        std::string broken = bytes;
        broken[header + bad * sample_bytes + sample_bytes - 1] =
            static_cast<char>(wide ? 0xe9 : 101); // 1001 (0x03e9) or 101
        if (wide) {
            broken[header + bad * 2] = 0x03;
        }
        write_file(path, broken);
        for (int way = 0; way < 3; ++way) {
            CAPTURE(way);
            try {
                if (way == 0) {
                    load_path(path);
                } else if (way == 1) {
                    load_reader(path);
                } else {
                    load_memory(broken);
                }
                FAIL_CHECK("accepted");
            } catch (const parse_error& e) {
                CHECK(e.offset() == header + bad * sample_bytes);
                CHECK_THAT(e.reason(),
                           Catch::Contains("sample " + std::to_string(maxval + 1) +
                                           " exceeds maxval " + std::to_string(maxval)));
            }
        }
    }
}

namespace {

// What load_raw_in_file_slices makes of the file at `path` on `threads` threads: the
// image's samples, "nothing" (left to the stream), or the error.
template <class Sample>
std::string raw_sliced_outcome(const fs_path& path, unsigned threads, bool any_format,
                               std::vector<unsigned>* samples = nullptr) {
    fastread::detail::input_file file =
        fastread::detail::value_or_throw(fastread::detail::input_file::open(path));
    try {
        auto sliced = fastread::detail::load_raw_in_file_slices<Sample>(file, threads, any_format);
        if (!sliced) {
            return "nothing";
        }
        pnm::image<Sample> img;
        fastread::detail::to_image(fastread::detail::value_or_throw(std::move(*sliced)), img);
        if (samples != nullptr) {
            *samples = as_unsigned(img);
        }
        return "image of " + std::to_string(img.samples.size()) + " samples";
    } catch (const parse_error& e) {
        CHECK(e.file() == path.string());
        return "error at " + std::to_string(e.offset()) + ": " + e.reason();
    }
}

// What one stream (no slices) makes of `bytes`.
template <class Sample>
std::string raw_streamed_outcome(const std::string& bytes) {
    try {
        return "image of " + std::to_string(from_bytes<Sample>(bytes).samples.size()) + " samples";
    } catch (const parse_error& e) {
        return "error at " + std::to_string(e.offset()) + ": " + e.reason();
    }
}

} // namespace

TEST_CASE("load(path) of a cached raw file: slices read on threads decode as one stream does",
          "[pnm][source]") {
    // 301 x 203 pixels: slice edges fall inside rows and pixels, and off 64-sample multiples
    // at the end; 2, 3 and 7 threads; each format's raw encodings, each sample width.
    temp_dir dir;
    const auto path = dir / "raw.pnm";
    struct case_ {
        pnm::format encoding;
        std::uint32_t depth;
        std::uint16_t maxval;
    };
    for (const case_& c :
         {case_{pnm::format::ppm_raw, 3, 255}, case_{pnm::format::ppm_raw, 3, 200},
          case_{pnm::format::ppm_raw, 3, 65535}, case_{pnm::format::pgm_raw, 1, 1000},
          case_{pnm::format::pgm_raw, 1, 255}, case_{pnm::format::pam, 4, 255},
          case_{pnm::format::pam, 2, 300}}) {
        CAPTURE(static_cast<int>(c.encoding), c.depth, c.maxval);
        pnm::image<std::uint16_t> img;
        img.width = 301;
        img.height = 203;
        img.depth = c.depth;
        img.maxval = c.maxval;
        img.tuple_type = c.depth == 4 ? "RGB_ALPHA" : c.depth == 2 ? "GRAYSCALE_ALPHA" : "";
        img.samples.resize(std::size_t{img.width} * img.height * img.depth);
        for (std::size_t i = 0; i < img.samples.size(); ++i) {
            img.samples[i] = static_cast<std::uint16_t>((i * 2654435761u >> 7) % (c.maxval + 1u));
        }
        pnm::save(path, img, c.encoding);
        const std::string bytes = read_file(path);
        const bool any_format = c.encoding != pnm::format::ppm_raw;
        for (unsigned threads : {2u, 3u, 7u}) {
            CAPTURE(threads);
            std::vector<unsigned> wide;
            CHECK(raw_sliced_outcome<std::uint16_t>(path, threads, any_format, &wide) ==
                  "image of " + std::to_string(img.samples.size()) + " samples");
            CHECK(wide == as_unsigned(img));
            if (c.maxval <= 255) {
                std::vector<unsigned> narrow;
                CHECK(raw_sliced_outcome<std::uint8_t>(path, threads, any_format, &narrow) ==
                      "image of " + std::to_string(img.samples.size()) + " samples");
                CHECK(narrow == as_unsigned(img));
            } else {
                CHECK(raw_sliced_outcome<std::uint8_t>(path, threads, any_format) == "nothing");
            }
        }
        // ppm::load's decoder (P3 and P6 only) leaves P5 and P7 to the stream, which reports
        // them.
        if (any_format) {
            CHECK(raw_sliced_outcome<std::uint16_t>(path, 2, false) == "nothing");
        }
    }
}

TEST_CASE("load(path) of a cached raw file in slices: errors at the offset one stream gives",
          "[pnm][error]") {
    temp_dir dir;
    const auto path = dir / "bad.pgm";
    pnm::image<std::uint16_t> img;
    img.width = 640;
    img.height = 480;
    img.depth = 1;
    img.maxval = 1000;
    img.samples.assign(std::size_t{img.width} * img.height, 7);
    pnm::save(path, img, pnm::format::pgm_raw);
    const std::string good = read_file(path);
    const std::size_t raster = good.size() - img.samples.size() * 2;
    auto above_maxval = [&](std::string b, std::size_t sample) {
        b[raster + 2 * sample] = 0x03; // 1001 = 0x03e9
        b[raster + 2 * sample + 1] = static_cast<char>(0xe9);
        return b;
    };
    std::vector<std::pair<std::string, std::string>> cases;
    // In the last slice; in the first; in two slices (the first one counts).
    cases.emplace_back("late", above_maxval(good, img.samples.size() - 3));
    cases.emplace_back("early", above_maxval(good, 5));
    cases.emplace_back("two", above_maxval(above_maxval(good, 200000), 250000));
    for (const auto& [what, bytes] : cases) {
        CAPTURE(what);
        write_file(path, bytes);
        const std::string streamed = raw_streamed_outcome<std::uint16_t>(bytes);
        REQUIRE(streamed.starts_with("error at "));
        for (unsigned threads : {2u, 3u}) {
            CAPTURE(threads);
            CHECK(raw_sliced_outcome<std::uint16_t>(path, threads, true) == streamed);
        }
    }
    // Left to the stream: a raster shorter than declared (no image allocated for it), a
    // header longer than the 64 KiB read for it, a plain raster, a bad header.
    const std::vector<std::string> left = {
        good.substr(0, good.size() - 1),
        "P5\n#" + std::string(70000, 'c') + good.substr(2),
        "P5 100000 100000 1000\n" + good.substr(raster),
        "P2 2 1 255\n1 2\n",
        "P1 2 1\n0 1\n",
        "P5 2 1 0\n\x01\x02",
    };
    for (const std::string& bytes : left) {
        CAPTURE(bytes.substr(0, 24));
        write_file(path, bytes);
        CHECK(raw_sliced_outcome<std::uint16_t>(path, 2, true) == "nothing");
    }
    // The public entry point reports the long header's file as a stream does.
    write_file(path, left[1]);
    CHECK(as_unsigned(pnm::load<std::uint16_t>(path)) == as_unsigned(img));
}

TEST_CASE("load(path) of a cached raw file in slices: a file cut short gives a parse_error "
          "where it ends",
          "[pnm][error]") {
    temp_dir dir;
    const auto path = dir / "shrinks.ppm";
    pnm::image<std::uint8_t> img;
    img.width = 600;
    img.height = 400;
    img.depth = 3;
    img.maxval = 255;
    img.samples.resize(std::size_t{img.width} * img.height * 3);
    for (std::size_t i = 0; i < img.samples.size(); ++i) {
        img.samples[i] = static_cast<std::uint8_t>(i * 31);
    }
    for (std::uint16_t maxval : {std::uint16_t{255}, std::uint16_t{254}}) {
        // 255: read straight into the samples; 254: through the bounce buffers.
        img.maxval = maxval;
        for (auto& s : img.samples) {
            s = std::min<std::uint8_t>(s, static_cast<std::uint8_t>(maxval));
        }
        pnm::save(path, img, pnm::format::ppm_raw);
        const std::uint64_t size = std::filesystem::file_size(path);
        // Cut in the first of three slices, in the last, and one byte short.
        for (std::uint64_t cut : {size / 5, size * 5 / 6, size - 1}) {
            CAPTURE(maxval, cut);
            pnm::save(path, img, pnm::format::ppm_raw);
            fastread::detail::input_file file =
                fastread::detail::value_or_throw(fastread::detail::input_file::open(path));
            std::filesystem::resize_file(path, cut);
            try {
                fastread::detail::value_or_throw(
                    fastread::detail::load_raw_in_file_slices<std::uint8_t>(file, 3, false)
                        .value());
                FAIL("a shrunk file decoded");
            } catch (const parse_error& e) {
                CHECK(e.offset() == cut);
                CHECK(e.file() == path.string());
                CHECK_THAT(e.reason(), Catch::Contains("shrank from " + std::to_string(size) +
                                                       " to " + std::to_string(cut)));
            }
        }
    }
}

TEST_CASE("load(path) of a cached P4 file in slices of rows decodes as one stream does",
          "[pnm][source]") {
    // Widths with and without pad bits, on 2, 3 and 7 threads; a row wider than the bounce
    // buffer is left to the stream; a file cut short gives the error where its data ends.
    temp_dir dir;
    const auto path = dir / "bits.pbm";
    for (std::uint32_t width : {8u, 37u, 1003u}) {
        CAPTURE(width);
        pnm::image<std::uint8_t> img;
        img.width = width;
        img.height = 211;
        img.depth = 1;
        img.maxval = 1;
        img.samples.resize(std::size_t{img.width} * img.height);
        for (std::size_t i = 0; i < img.samples.size(); ++i) {
            img.samples[i] = static_cast<std::uint8_t>((i * 2654435761u >> 13) & 1);
        }
        pnm::save(path, img, pnm::format::pbm_raw);
        for (unsigned threads : {2u, 3u, 7u}) {
            CAPTURE(threads);
            std::vector<unsigned> narrow, wide;
            CHECK(raw_sliced_outcome<std::uint8_t>(path, threads, true, &narrow) ==
                  "image of " + std::to_string(img.samples.size()) + " samples");
            CHECK(narrow == as_unsigned(img));
            CHECK(raw_sliced_outcome<std::uint16_t>(path, threads, true, &wide) ==
                  "image of " + std::to_string(img.samples.size()) + " samples");
            CHECK(wide == as_unsigned(img));
        }
        const std::uint64_t size = std::filesystem::file_size(path);
        const std::uint64_t cut = size - 3;
        fastread::detail::input_file file =
            fastread::detail::value_or_throw(fastread::detail::input_file::open(path));
        std::filesystem::resize_file(path, cut);
        try {
            fastread::detail::value_or_throw(
                fastread::detail::load_raw_in_file_slices<std::uint8_t>(file, 3, true).value());
            FAIL("a shrunk file decoded");
        } catch (const parse_error& e) {
            CHECK(e.offset() == cut);
            CHECK_THAT(e.reason(), Catch::Contains("shrank from " + std::to_string(size)));
        }
    }
    // A row of 2^21 + 8 pixels (262145 bytes) is wider than the 256 KiB bounce buffer.
    const std::string wide_row = "P4 2097160 1\n" + std::string(262145, '\x0f');
    write_file(path, wide_row);
    CHECK(raw_sliced_outcome<std::uint8_t>(path, 2, true) == "nothing");
    CHECK(pnm::load(path).samples.size() == 2097160);
    // Too short for the rows declared: nothing allocated, left to the stream.
    write_file(path, "P4 16 3\n\x01\x02\x03\x04\x05");
    CHECK(raw_sliced_outcome<std::uint8_t>(path, 2, true) == "nothing");
}
