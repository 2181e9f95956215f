// pnm::reader on untrusted bytes: images of any format back to back, through chunks whose
// size comes from the input's first byte. Every image it returns is consistent; it ends with
// false or a parse_error, never anything else.

#include <fastread/pnm.hpp>

#include <cstdint>

#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = fastread_fuzz::split(data, size);
    fastread_fuzz::chunked_source source(in.data, 1 + in.param);
    fastread::pnm::reader<std::uint16_t, fastread_fuzz::chunked_source> reader(source);
    fastread::pnm::image<std::uint16_t> img;
    std::uint64_t last = 0;
    try {
        for (int images = 0; images < 1000 && reader.next(img); ++images) {
            fastread_fuzz::check(img.samples.size() ==
                                     std::uint64_t{img.width} * img.height * img.depth,
                                 "sample count is width * height * depth");
            for (std::uint16_t s : img.samples) {
                fastread_fuzz::check(s <= img.maxval, "every sample is at most maxval");
            }
            fastread_fuzz::check(reader.offset() > last || images == 0,
                                 "each image moves the offset forward");
            fastread_fuzz::check(reader.offset() <= in.data.size(), "offset inside the input");
            last = reader.offset();
        }
    } catch (const fastread::parse_error& e) {
        fastread_fuzz::check(e.offset() <= in.data.size(), "error offset inside the input");
    }
    return 0;
}
