// pnm::load on untrusted bytes (any of P1 to P7), 8- and 16-bit, from memory and through
// chunks whose size comes from the input's first byte. Both must agree: the same image, or
// a parse_error at the same offset with the same reason.

#include <fastread/pnm.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <string>

#include "fuzz_util.hpp"

namespace {

using fastread_fuzz::outcome;

template <class Sample, class Source>
outcome decode(Source& source, std::size_t input_size) {
    outcome o;
    try {
        const fastread::pnm::image<Sample> img = fastread::pnm::load<Sample>(source);
        fastread_fuzz::check(img.samples.size() ==
                                 std::uint64_t{img.width} * img.height * img.depth,
                             "sample count is width * height * depth");
        fastread_fuzz::check(img.maxval >= 1 && img.depth >= 1, "maxval and depth at least 1");
        fastread_fuzz::check(img.tuple_type.size() <= 255, "tuple type at most 255 bytes");
        for (Sample s : img.samples) {
            fastread_fuzz::check(s <= img.maxval, "every sample is at most maxval");
        }
        o.samples.assign(img.samples.begin(), img.samples.end());
        o.samples.push_back(img.depth);
        o.samples.push_back(static_cast<unsigned>(img.encoding));
        o.reason = img.tuple_type;
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
