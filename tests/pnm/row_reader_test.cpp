// pnm::row_reader (fastread/pnm/row_reader.hpp): images back to back, row by row, with the
// samples pnm::load and pnm::reader give, from any source and any chunking. Its errors are
// checked beside load's in pnm_bad_input_test.cpp; its memory bound in memory_bound_test.cpp.

#include <fastread/pnm.hpp>
#include <fastread/source.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace fastread;
using fastread_test::chunked_source;
using fastread_test::data_path;

namespace {

// Every image of `source` through a row_reader: each header and the rows joined.
template <class Sample, class Source>
std::vector<std::pair<pnm::header, std::vector<Sample>>> read_all(Source& source) {
    std::vector<std::pair<pnm::header, std::vector<Sample>>> images;
    pnm::row_reader<Sample> rows(source);
    while (std::optional<pnm::header> h = rows.next_image()) {
        std::vector<Sample> samples;
        std::uint32_t count = 0;
        for (std::span<const Sample> row : rows) {
            CHECK(row.size() == std::size_t{h->width} * h->depth);
            samples.insert(samples.end(), row.begin(), row.end());
            ++count;
            CHECK(rows.rows_read() == count);
        }
        CHECK(count == h->height);
        CHECK(rows.next_row().empty());
        images.emplace_back(*h, std::move(samples));
    }
    return images;
}

// The same images through pnm::reader.
template <class Sample>
std::vector<pnm::image<Sample>> reader_images(const std::string& bytes) {
    memory_source m(std::span<const char>(bytes.data(), bytes.size()));
    pnm::reader<Sample, memory_source> reader(m);
    std::vector<pnm::image<Sample>> images;
    for (pnm::image<Sample> img; reader.next(img);) {
        images.push_back(img);
    }
    return images;
}

template <class Sample>
void check_rows(const std::string& bytes) {
    const std::vector<pnm::image<Sample>> expected = reader_images<Sample>(bytes);
    for (const std::size_t chunk :
         {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}, bytes.size()}) {
        CAPTURE(chunk);
        chunked_source source(bytes, chunk);
        const auto images = read_all<Sample>(source);
        REQUIRE(images.size() == expected.size());
        for (std::size_t k = 0; k < images.size(); ++k) {
            const pnm::header& h = images[k].first;
            CHECK(h.width == expected[k].width);
            CHECK(h.height == expected[k].height);
            CHECK(h.depth == expected[k].depth);
            CHECK(h.maxval == expected[k].maxval);
            CHECK(h.tuple_type == expected[k].tuple_type);
            CHECK(h.encoding == expected[k].encoding);
            CHECK(std::equal(images[k].second.begin(), images[k].second.end(),
                             expected[k].samples.begin(), expected[k].samples.end()));
        }
    }
}

} // namespace

TEST_CASE("pnm::row_reader: the rows of every corpus file, from any chunking",
          "[pnm][row_reader]") {
    for (const char* name : {"forge-plain.ppm", "forge.ppm", "forge16-plain.ppm", "forge16.ppm",
                             "frames.ppm", "madras-alpha.pam", "madras-alpha1000.pam",
                             "madras-bw.pam", "madras-plain.pbm", "madras-plain.pgm", "madras.pam",
                             "madras.pbm", "madras.pgm", "madras.ppm", "madras15-plain.ppm",
                             "madras15.ppm", "madras16-plain.pgm", "madras16.pgm", "pixel.ppm"}) {
        CAPTURE(name);
        const std::string bytes = fastread_test::read_file(data_path(name));
        check_rows<std::uint16_t>(bytes);
        if (pnm::probe(data_path(name)).maxval <= 255) {
            check_rows<std::uint8_t>(bytes);
        }
    }
}

TEST_CASE("pnm::row_reader: images of every format back to back, comments and whitespace "
          "between them, rows left unread skipped",
          "[pnm][row_reader]") {
    const std::string mixed = "P1 3 2\n0 1 0\n1 0 1\n"
                              "P2 2 2 9\n1 2\n3 9 #after\n"
                              "P4 9 1\n\xff\x80\n"
                              "P5 2 1 255\n\x07\x08"
                              "P3 1 1 65535 65535 0 1\n"
                              "P7\nWIDTH 1\nHEIGHT 2\nDEPTH 2\nMAXVAL 3\nENDHDR\n\x01\x02\x03\x01"
                              "  \n";
    check_rows<std::uint16_t>(mixed);
    // next_image() without reading the rows: they are skipped.
    memory_source m(std::span<const char>(mixed.data(), mixed.size()));
    pnm::row_reader<std::uint16_t> rows(m);
    std::vector<pnm::format> formats;
    while (std::optional<pnm::header> h = rows.next_image()) {
        formats.push_back(h->encoding);
    }
    CHECK(formats == std::vector<pnm::format>{pnm::format::pbm_plain, pnm::format::pgm_plain,
                                              pnm::format::pbm_raw, pnm::format::pgm_raw,
                                              pnm::format::ppm_plain, pnm::format::pam});
    CHECK(rows.offset() == mixed.size());
    // An input without any image is an error; a row before any image is none.
    memory_source empty;
    pnm::row_reader<std::uint8_t> none(empty);
    CHECK(none.next_row().empty());
    CHECK_THROWS_AS(none.next_image(), parse_error);
}

TEST_CASE("pnm::row_reader reads a pipe", "[pnm][row_reader]") {
    const std::string bytes = fastread_test::read_file(data_path("frames.ppm"));
    fastread_test::pipe_feeder pipe(bytes);
    std::FILE* file = pipe.take_file();
    std::vector<std::pair<pnm::header, std::vector<std::uint8_t>>> images;
    {
        stdio_source in(file);
        images = read_all<std::uint8_t>(in);
    }
    std::fclose(file);
    const auto expected = reader_images<std::uint8_t>(bytes);
    REQUIRE(images.size() == expected.size());
    for (std::size_t k = 0; k < images.size(); ++k) {
        CHECK(std::equal(images[k].second.begin(), images[k].second.end(),
                         expected[k].samples.begin(), expected[k].samples.end()));
    }
}
