// ppm::load on untrusted bytes, 8- and 16-bit, from memory (the contiguous fast paths,
// slices included) and through chunks whose size comes from the input's first byte. Both
// must agree: the same samples, or a parse_error at the same offset with the same reason.

#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_util.hpp"

namespace {

using fastread_fuzz::outcome;

template <class Sample, class Source>
outcome decode(Source& source, std::size_t input_size) {
    outcome o;
    try {
        const fastread::ppm::image<Sample> img = fastread::ppm::load<Sample>(source);
        fastread_fuzz::check(img.samples.size() == std::uint64_t{img.width} * img.height * 3,
                             "sample count is width * height * 3");
        fastread_fuzz::check(img.maxval >= 1, "maxval is at least 1");
        for (Sample s : img.samples) {
            fastread_fuzz::check(s <= img.maxval, "every sample is at most maxval");
        }
        o.samples.assign(img.samples.begin(), img.samples.end());
    } catch (const fastread::parse_error& e) {
        fastread_fuzz::check(e.offset() <= input_size, "error offset inside the input");
        o.offset = e.offset();
        o.reason = e.reason();
    }
    return o;
}

template <class Sample>
void both_ways(std::span<const char> data, std::size_t chunk) {
    fastread::memory_source whole(data);
    const outcome a = decode<Sample>(whole, data.size());
    fastread_fuzz::chunked_source chunks(data, chunk);
    const outcome b = decode<Sample>(chunks, data.size());
    fastread_fuzz::check(a == b, "memory and chunked decodes agree");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = fastread_fuzz::split(data, size);
    const std::size_t chunk = 1 + (in.param & 0x7F) * ((in.param & 0x80) != 0 ? 61 : 1);
    both_ways<std::uint8_t>(in.data, chunk);
    both_ways<std::uint16_t>(in.data, chunk);
    return 0;
}
