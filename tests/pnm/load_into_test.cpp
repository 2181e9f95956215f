// pnm::probe, pnm::load_into and load_options' limits (fastread/pnm/image.hpp): the header
// without a raster byte read, the samples of pnm::load in the caller's rows with the padding
// untouched, and headers over a limit rejected before anything is allocated.

#include <fastread/detail/syscall.hpp>
#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include "allocation_counter.hpp"
#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::data_path;
using fastread_test::temp_dir;
using fastread_test::write_file;

namespace {

// The single-image Netpbm files of the test corpus (data/), every format and both depths.
const char* const corpus[] = {
    "forge-plain.ppm",    "forge.ppm",          "forge16-plain.ppm",
    "forge16.ppm",        "madras-alpha.pam",   "madras-alpha1000.pam",
    "madras-bw.pam",      "madras-plain.pbm",   "madras-plain.pgm",
    "madras.pam",         "madras.pbm",         "madras.pgm",
    "madras.ppm",         "madras15-plain.ppm", "madras15.ppm",
    "madras16-plain.pgm", "madras16.pgm",       "pixel.ppm",
};

// Bytes the hooked read(2) and pread(2) returned since the last reset.
std::uint64_t bytes_read = 0;

// Counts what read(2) and pread(2) return while it lives.
class read_counter {
  public:
    read_counter() : saved_(detail::sys::hooks()) {
        bytes_read = 0;
        detail::sys::hooks().read = [](int fd, void* dst, std::size_t n) {
            const ssize_t got = ::read(fd, dst, n);
            bytes_read += got > 0 ? static_cast<std::uint64_t>(got) : 0;
            return got;
        };
        detail::sys::hooks().pread = [](int fd, void* dst, std::size_t n, off_t at) {
            const ssize_t got = ::pread(fd, dst, n, at);
            bytes_read += got > 0 ? static_cast<std::uint64_t>(got) : 0;
            return got;
        };
    }
    ~read_counter() { detail::sys::hooks() = saved_; }
    read_counter(const read_counter&) = delete;
    read_counter& operator=(const read_counter&) = delete;

  private:
    detail::sys::hook_table saved_;
};

// `img`'s samples in rows of `stride` samples, each row's padding `pad`.
template <class Sample>
std::vector<Sample> strided(const pnm::image<Sample>& img, std::size_t stride, Sample pad) {
    const std::size_t row = std::size_t{img.width} * img.depth;
    std::vector<Sample> out(stride * img.height, pad);
    for (std::size_t r = 0; r < img.height; ++r) {
        std::copy_n(img.samples.begin() + static_cast<std::ptrdiff_t>(r * row), row,
                    out.begin() + static_cast<std::ptrdiff_t>(r * stride));
    }
    return out;
}

// The header load's image describes.
template <class Sample>
void check_header(const pnm::header& h, const pnm::image<Sample>& img) {
    CHECK(h.encoding == img.encoding);
    CHECK(h.width == img.width);
    CHECK(h.height == img.height);
    CHECK(h.depth == img.depth);
    CHECK(h.maxval == img.maxval);
    CHECK(h.tuple_type == img.tuple_type);
    CHECK(h.sample_bytes == (img.maxval > 255 ? 2u : 1u));
    CHECK(h.samples() == img.samples.size());
}

// load_into from the path, with `options`, and from sources, at strides width * depth and
// width * depth + 13: load's samples, the padding left as it was.
template <class Sample>
void check_load_into(const std::filesystem::path& path, load_options options = {},
                     bool from_sources = true) {
    CAPTURE(path.string());
    const pnm::image<Sample> img = pnm::load<Sample>(path);
    const std::string bytes = fastread_test::read_file(path);
    const std::size_t row = std::size_t{img.width} * img.depth;
    const auto pad = static_cast<Sample>(0xA5A5);
    for (const std::size_t stride : {row, row + 13}) {
        CAPTURE(stride);
        const std::vector<Sample> expected = strided(img, stride, pad);
        // The last row needs no padding after it: a buffer cut right after it is enough.
        const std::size_t exact = stride * (img.height - 1) + row;
        std::vector<Sample> dst(exact, pad);
        const pnm::header h = pnm::load_into(path, std::span(dst), stride, options);
        check_header(h, img);
        CHECK(std::equal(dst.begin(), dst.end(), expected.begin()));
        std::fill(dst.begin(), dst.end(), pad);
        result<pnm::header> r = pnm::try_load_into(path, std::span(dst), stride, options);
        REQUIRE(r);
        CHECK(*r == h);
        CHECK(std::equal(dst.begin(), dst.end(), expected.begin()));
        if (!from_sources) {
            continue;
        }
        for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, bytes.size()}) {
            std::fill(dst.begin(), dst.end(), pad);
            chunked_source source(bytes, chunk);
            CHECK(pnm::load_into(source, std::span(dst), stride) == h);
            CHECK(std::equal(dst.begin(), dst.end(), expected.begin()));
        }
        std::fill(dst.begin(), dst.end(), pad);
        memory_source whole(std::span<const char>(bytes.data(), bytes.size()));
        CHECK(pnm::load_into(whole, std::span(dst), stride) == h);
        CHECK(std::equal(dst.begin(), dst.end(), expected.begin()));
    }
}

// A P5 or P6 image of `width` x `height` with random samples <= maxval.
std::string random_raw(char magic, std::uint32_t width, std::uint32_t height, unsigned maxval,
                       unsigned seed) {
    const unsigned depth = magic == '6' ? 3 : 1;
    std::string out = std::string("P") + magic + "\n" + std::to_string(width) + " " +
                      std::to_string(height) + "\n" + std::to_string(maxval) + "\n";
    std::mt19937 rng(seed);
    const std::size_t samples = std::size_t{width} * height * depth;
    out.reserve(out.size() + samples * 2);
    for (std::size_t i = 0; i < samples; ++i) {
        const unsigned v = rng() % (maxval + 1);
        if (maxval > 255) {
            out += static_cast<char>(v >> 8);
        }
        out += static_cast<char>(v & 255);
    }
    return out;
}

} // namespace

TEST_CASE("pnm::probe: the header of every corpus file, reading no raster byte", "[pnm][probe]") {
    for (const char* name : corpus) {
        CAPTURE(name);
        const std::filesystem::path path = data_path(name);
        const pnm::image<std::uint16_t> img = pnm::load<std::uint16_t>(path);
        const std::string bytes = fastread_test::read_file(path);
        pnm::header h;
        {
            read_counter count;
            h = pnm::probe(path);
            // The header's bytes exactly: none of the raster's.
            CHECK(bytes_read == h.raster_offset);
        }
        check_header(h, img);
        const bool plain = img.encoding == pnm::format::pbm_plain ||
                           img.encoding == pnm::format::pgm_plain ||
                           img.encoding == pnm::format::ppm_plain;
        // The corpus files hold one image and nothing after it.
        CHECK(h.raster_bytes == (plain ? 0 : bytes.size() - h.raster_offset));
        CHECK(h.raster_offset < bytes.size());
        result<pnm::header> r = pnm::try_probe(path);
        REQUIRE(r);
        CHECK(*r == h);
        chunked_source source(bytes, 3);
        CHECK(pnm::probe(source) == h);
    }
}

TEST_CASE("pnm::probe: headers laid out every way the formats allow, read to their last byte "
          "only",
          "[pnm][probe]") {
    const std::string raster(64, '\x01');
    struct layout {
        std::string header;
        std::uint32_t width, height, depth;
        unsigned maxval;
    };
    const layout layouts[] = {
        {"P5\n92 112\n255\n", 92, 112, 1, 255},
        {"P51 1 1\n", 1, 1, 1, 1},
        {"P4 1 1\n", 1, 1, 1, 1},
        {"P4\n#c\n8 # width\n2#h\n", 8, 2, 1, 1},
        {"P6 2 2 255#comment ends the header\n", 2, 2, 3, 255},
        {"P6\t3\r4\f65535\v", 3, 4, 3, 65535},
        {"P2 2 1 9\n", 2, 1, 1, 9},
        {"P3 1 1 255 ", 1, 1, 3, 255},
        {"P1 5 1\n", 5, 1, 1, 1},
        {"P7\nWIDTH 2\nHEIGHT 3\nDEPTH 4\nMAXVAL 7\nTUPLTYPE RGB_ALPHA\nENDHDR\n", 2, 3, 4, 7},
        {"P7 \n# a comment\n\nMAXVAL 1\nDEPTH 1\nHEIGHT 1\nWIDTH 1\n  ENDHDR  \n", 1, 1, 1, 1},
        {"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\r\n", 1, 1, 1, 255},
    };
    temp_dir dir;
    for (const layout& l : layouts) {
        CAPTURE(l.header);
        const auto path = dir / "h.pnm";
        write_file(path, l.header + raster);
        read_counter count;
        const pnm::header h = pnm::probe(path);
        CHECK(bytes_read == l.header.size());
        CHECK(h.raster_offset == l.header.size());
        CHECK(h.width == l.width);
        CHECK(h.height == l.height);
        CHECK(h.depth == l.depth);
        CHECK(h.maxval == l.maxval);
    }
}

TEST_CASE("pnm::probe: bad headers are reported as pnm::load reports them", "[pnm][probe]") {
    temp_dir dir;
    const std::string cases[] = {"",
                                 "P",
                                 "X5 1 1 255\n",
                                 "P5 1",
                                 "P5 0 1 255\n",
                                 "PF\n1 1\n-1\n",
                                 "P7\nWIDTH 1\nCOLORS 3\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nENDHDR\n",
                                 "P7\nWIDTH 1\nHEIGHT 1\n",
                                 "P5 1 1 70000\n"};
    for (const std::string& bytes : cases) {
        CAPTURE(bytes);
        const auto path = dir / "bad.pnm";
        write_file(path, bytes);
        std::string expected;
        try {
            pnm::load<std::uint16_t>(path);
            FAIL("loaded");
        } catch (const parse_error& e) {
            expected = e.what();
        }
        result<pnm::header> r = pnm::try_probe(path);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() == expected);
        CHECK_THROWS_WITH(pnm::probe(path), expected);
        memory_source m(std::span<const char>(bytes.data(), bytes.size()));
        CHECK_FALSE(pnm::try_probe(m));
    }
    CHECK_THROWS_AS(pnm::probe(dir / "missing.pgm"), std::system_error);
}

TEST_CASE("pnm::probe reads a header from a pipe and leaves the raster in it", "[pnm][probe]") {
    const std::string image = random_raw('5', 5, 3, 255, 1);
    fastread_test::pipe_feeder pipe(image);
    read_source source(pipe.read_fd(), 1); // one byte a chunk: nothing read ahead
    const pnm::header h = pnm::probe(source);
    CHECK(h.width == 5);
    CHECK(h.height == 3);
    CHECK(h.raster_offset == 11);
    std::string rest = fastread_test::drain(source);
    CHECK(rest == image.substr(11));
}

TEST_CASE("pnm::probe_batch: the headers of many files in order, errors in place", "[pnm][probe]") {
    std::vector<std::filesystem::path> paths;
    for (int round = 0; round < 5; ++round) {
        for (const char* name : corpus) {
            paths.push_back(data_path(name));
        }
        paths.push_back(data_path("missing.pgm"));
    }
    for (const unsigned threads : {1u, 2u}) {
        const std::vector<result<pnm::header>> each = pnm::probe_batch(paths, {.threads = threads});
        REQUIRE(each.size() == paths.size());
        for (std::size_t i = 0; i < paths.size(); ++i) {
            CAPTURE(paths[i].string());
            result<pnm::header> one = pnm::try_probe(paths[i]);
            REQUIRE(bool(each[i]) == bool(one));
            if (one) {
                CHECK(*each[i] == *one);
            } else {
                CHECK(each[i].error().code() == std::errc::no_such_file_or_directory);
            }
        }
    }
}

TEST_CASE("pnm::load_into: load's samples at two strides, padding untouched, for every corpus "
          "file",
          "[pnm][load_into]") {
    for (const char* name : corpus) {
        check_load_into<std::uint16_t>(data_path(name));
        if (pnm::probe(data_path(name)).maxval <= 255) {
            check_load_into<std::uint8_t>(data_path(name));
            check_load_into<std::uint8_t>(data_path(name), load_options{.io = io_mode::map});
        }
    }
}

TEST_CASE("pnm::load_into: big cached raw files read in slices straight into the rows",
          "[pnm][load_into]") {
    temp_dir dir;
    // Over two threads' worth of raw bytes (raw_bytes_per_thread), as load slices them.
    const std::uint32_t width = 3000, height = 3000;
    struct big {
        char magic;
        unsigned maxval;
    };
    for (const big b : {big{'6', 255}, big{'5', 200}, big{'6', 65535}, big{'5', 1000}}) {
        CAPTURE(b.magic, b.maxval);
        const auto path = dir / "big.pnm";
        write_file(path, random_raw(b.magic, width, height, b.maxval, b.maxval));
        check_load_into<std::uint16_t>(path, load_options{.threads = 2}, false);
        if (b.maxval <= 255) {
            check_load_into<std::uint8_t>(path, load_options{.threads = 2}, false);
        }
    }
    // A sample above maxval deep in the raster: load's error, at the same byte.
    std::string bytes = random_raw('5', width, height, 100, 5);
    const std::size_t header = bytes.find("100\n") + 4;
    bytes[header + 6'000'000] = static_cast<char>(101); // in the second thread's slice
    const auto path = dir / "bad.pgm";
    write_file(path, bytes);
    std::vector<std::uint8_t> dst(std::size_t{width} * height);
    result<pnm::header> r =
        pnm::try_load_into(path, std::span(dst), width, load_options{.threads = 2});
    REQUIRE_FALSE(r);
    CHECK(r.error().offset() == header + 6'000'000);
    CHECK(r.error().message() == pnm::try_load(path).error().message());
}

TEST_CASE("pnm::load_into: a stride or a buffer too small is std::invalid_argument, nothing "
          "written",
          "[pnm][load_into]") {
    const std::filesystem::path path = data_path("madras.ppm"); // 37 x 23 x 3
    std::vector<std::uint8_t> dst(37 * 3 * 23, 7);
    CHECK_THROWS_WITH(pnm::load_into(path, std::span(dst), 110),
                      "fastread::pnm::load_into: row_stride 110 is below width * depth = 111 "
                      "samples");
    std::vector<std::uint8_t> short_dst(37 * 3 * 23 - 1, 7);
    CHECK_THROWS_AS(pnm::load_into(path, std::span(short_dst), 111), std::invalid_argument);
    result<pnm::header> r = pnm::try_load_into(path, std::span(dst), 112);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == make_error_code(errc::invalid_argument));
    CHECK(std::all_of(dst.begin(), dst.end(), [](std::uint8_t v) { return v == 7; }));
    CHECK(std::all_of(short_dst.begin(), short_dst.end(), [](std::uint8_t v) { return v == 7; }));
    // A 16-bit image into 8-bit samples: load's error.
    std::vector<std::uint8_t> room(1 << 16);
    CHECK(pnm::try_load_into(data_path("madras16.pgm"), std::span(room), 37).error().message() ==
          pnm::try_load<std::uint8_t>(data_path("madras16.pgm")).error().message());
}

TEST_CASE("load_options limits: a header over one is rejected at its field, before allocating",
          "[pnm][limits]") {
    temp_dir dir;
    struct limit_case {
        const char* name;
        std::string bytes;
        load_options options;
        std::uint64_t offset;
        const char* reason;
    };
    const limit_case cases[] = {
        {"2^30 x 2^30 from a 30-byte header",
         "P5\n1073741824 1073741824\n255\n\x01\x02",
         {},
         25,
         "the bytes of the samples 2305843009213693952 is over the limit "
         "load_options::max_bytes = "},
        {"width",
         "P6 200 10 255\n",
         {.max_width = 199},
         3,
         "width 200 is over the limit load_options::max_width = 199"},
        {"height",
         "P6 200 10 255\n",
         {.max_height = 9},
         7,
         "height 10 is over the limit load_options::max_height = 9"},
        {"samples",
         "P6 200 10 255\n",
         {.max_samples = 5999},
         10,
         "the sample count 6000 is over the limit load_options::max_samples = 5999"},
        {"bytes of 16-bit samples",
         "P5 100 10 1000\n",
         {.max_bytes = 1999},
         10,
         "the bytes of the samples 2000 is over the limit load_options::max_bytes = 1999"},
        {"PBM bytes",
         "P4 64 64\n",
         {.max_bytes = 8191},
         6,
         "the bytes of the samples 8192 is over the limit"},
        {"PAM",
         "P7\nWIDTH 9\nHEIGHT 9\nDEPTH 9\nMAXVAL 9\nENDHDR\n",
         {.max_samples = 728},
         37,
         "the sample count 729 is over the limit"},
    };
    for (const limit_case& c : cases) {
        CAPTURE(c.name);
        const auto path = dir / "limit.pnm";
        write_file(path, c.bytes);
        auto check = [&](const fastread::error& e) {
            CHECK(e.code() == make_error_code(errc::over_limit));
            CHECK(e.offset() == c.offset);
            CHECK_THAT(e.message(), Catch::Contains(c.reason));
        };
        {
            fastread_test::allocation_watch watch;
            result<pnm::image<std::uint16_t>> r = pnm::try_load<std::uint16_t>(path, c.options);
            REQUIRE_FALSE(r);
            check(r.error());
            CHECK(watch.largest() < (std::size_t{1} << 20));
        }
        {
            fastread_test::allocation_watch watch;
            fastread_test::pipe_feeder pipe(c.bytes);
            read_source source(pipe.read_fd(), 5);
            result<pnm::image<std::uint16_t>> r = pnm::try_load<std::uint16_t>(source, c.options);
            REQUIRE_FALSE(r);
            check(r.error());
            CHECK(watch.largest() < (std::size_t{1} << 20));
        }
        std::vector<std::uint16_t> room(16);
        result<pnm::header> into = pnm::try_load_into(path, std::span(room), 1, c.options);
        REQUIRE_FALSE(into);
        check(into.error());
        memory_source m(std::span<const char>(c.bytes.data(), c.bytes.size()));
        pnm::row_reader<std::uint16_t> rows(m, c.options);
        result<std::optional<pnm::header>> h = rows.try_next_image();
        REQUIRE_FALSE(h);
        check(h.error());
        CHECK_THROWS_AS(pnm::load<std::uint16_t>(path, c.options), parse_error);
    }
    // The default max_bytes is the machine's physical memory: just over it is refused, an
    // image within it goes on to the raster (here truncated).
    const std::uint64_t memory =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    const std::uint64_t width = memory / 1024 + 1;
    const auto over = dir / "over.pgm";
    write_file(over, "P5 " + std::to_string(width) + " 1024 255\n");
    CHECK(pnm::try_load(over).error().code() == make_error_code(errc::over_limit));
    const auto within = dir / "within.pgm";
    write_file(within, "P5 " + std::to_string(memory / 1024) + " 1024 255\n");
    CHECK(pnm::try_load(within).error().code() == make_error_code(errc::truncated_data));
}

TEST_CASE("pfm::probe: the header of a PFM file, reading no raster byte", "[pfm][probe]") {
    for (const char* name : {"madras-be.pfm", "madras-le.pfm"}) {
        CAPTURE(name);
        const std::filesystem::path path = data_path(name);
        const pfm::image img = pfm::load(path);
        pfm::header h;
        {
            read_counter count;
            h = pfm::probe(path);
            CHECK(bytes_read == h.raster_offset);
        }
        CHECK(h.width == img.width);
        CHECK(h.height == img.height);
        CHECK(h.depth == img.depth);
        CHECK(h.scale == img.scale);
        CHECK(h.little_endian == (std::string(name) == "madras-le.pfm"));
        CHECK(h.raster_bytes == img.samples.size() * 4);
        CHECK(h.raster_offset + h.raster_bytes == std::filesystem::file_size(path));
        CHECK(*pfm::try_probe(path) == h);
        const std::string bytes = fastread_test::read_file(path);
        chunked_source source(bytes, 2);
        CHECK(pfm::probe(source) == h);
    }
    temp_dir dir;
    for (const std::string& bytes : {std::string("PF\n2 2\n-1.0\n"), std::string("PF\n2"),
                                     std::string("P5 1 1 255\n"), std::string("PF\n0 1\n-1\n")}) {
        CAPTURE(bytes);
        write_file(dir / "f.pfm", bytes);
        result<pfm::image> loaded = pfm::try_load(dir / "f.pfm");
        result<pfm::header> probed = pfm::try_probe(dir / "f.pfm");
        if (bytes == "PF\n2 2\n-1.0\n") {
            // A header alone is a valid probe; the load reports the missing raster.
            REQUIRE(probed);
            CHECK(probed->raster_offset == bytes.size());
            CHECK_FALSE(loaded);
        } else {
            REQUIRE_FALSE(probed);
            CHECK(probed.error().message() == loaded.error().message());
        }
    }
    // Limits apply to PFM loads (4 bytes a sample).
    write_file(dir / "big.pfm", "PF\n1000 1000\n-1\n");
    result<pfm::image> over = pfm::try_load(dir / "big.pfm", load_options{.max_bytes = 11'999'999});
    REQUIRE_FALSE(over);
    CHECK(over.error().code() == make_error_code(errc::over_limit));
    CHECK(over.error().offset() == 13);
}
