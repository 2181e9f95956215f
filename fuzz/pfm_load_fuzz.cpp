// pfm::load on untrusted bytes, from memory and through chunks whose size comes from the
// input's first byte. Both must agree: the same image (samples compared bit for bit), or a
// parse_error at the same offset with the same reason.

#include <fastread/pfm.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <cstring>

#include "fuzz_util.hpp"

namespace {

using fastread_fuzz::outcome;

template <class Source>
outcome decode(Source& source, std::size_t input_size) {
    outcome o;
    try {
        const fastread::pfm::image img = fastread::pfm::load(source);
        fastread_fuzz::check(img.samples.size() ==
                                 std::uint64_t{img.width} * img.height * img.depth,
                             "sample count is width * height * depth");
        fastread_fuzz::check(img.depth == 1 || img.depth == 3, "depth 1 or 3");
        fastread_fuzz::check(img.scale > 0, "scale positive");
        for (float f : img.samples) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, &f, 4);
            o.samples.push_back(bits);
        }
    } catch (const fastread::parse_error& e) {
        fastread_fuzz::check(e.offset() <= input_size, "error offset inside the input");
        o.offset = e.offset();
        o.reason = e.reason();
    }
    return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto in = fastread_fuzz::split(data, size);
    const std::size_t chunk = 1 + (in.param & 0x7F) * ((in.param & 0x80) != 0 ? 61 : 1);
    fastread::memory_source whole(in.data);
    const outcome a = decode(whole, in.data.size());
    fastread_fuzz::chunked_source chunks(in.data, chunk);
    const outcome b = decode(chunks, in.data.size());
    fastread_fuzz::check(a == b, "memory and chunked decodes agree");
    return 0;
}
