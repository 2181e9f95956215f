// Differential: the P3 raster kernels of every SIMD level this CPU has against the scalar
// path on the same input (a plain header is put in front of the fuzzer's bytes half of the
// time): the same samples, or the same error at the same offset with the same reason.

#include <fastread/ppm.hpp>
#include <fastread/scan/simd_level.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_util.hpp"

namespace {

using fastread_fuzz::outcome;

template <class Sample>
outcome decode(std::span<const char> bytes, std::size_t chunk) {
    outcome o;
    try {
        fastread::ppm::image<Sample> img;
        if (chunk == 0) {
            fastread::memory_source m(bytes);
            img = fastread::ppm::load<Sample>(m);
        } else {
            fastread_fuzz::chunked_source c(bytes, chunk);
            img = fastread::ppm::load<Sample>(c);
        }
        o.samples.assign(img.samples.begin(), img.samples.end());
    } catch (const fastread::parse_error& e) {
        o.offset = e.offset();
        o.reason = e.reason();
    }
    return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using fastread::scan::simd_level;
    const auto in = fastread_fuzz::split(data, size);
    std::string bytes;
    if ((in.param & 1) != 0) {
        // A header that fits the input: 1 row, as many pixels as the data could hold.
        const unsigned maxval = (in.param & 2) != 0 ? 255u : 65535u;
        bytes =
            "P3 " + std::to_string(in.data.size() / 6 + 1) + " 1 " + std::to_string(maxval) + "\n";
    }
    bytes.append(in.data.data(), in.data.size());
    const std::size_t chunk = (in.param & 4) != 0 ? 0 : 61 + (in.param >> 3);
    fastread::detail::force_simd_level(simd_level::scalar);
    const outcome want8 = decode<std::uint8_t>(bytes, chunk);
    const outcome want16 = decode<std::uint16_t>(bytes, chunk);
    for (simd_level level : fastread::scan::all_levels) {
        if (level == simd_level::scalar || level > fastread::scan::best_level()) {
            continue;
        }
        fastread::detail::force_simd_level(level);
        fastread_fuzz::check(decode<std::uint8_t>(bytes, chunk) == want8,
                             "8-bit: every level agrees with scalar");
        fastread_fuzz::check(decode<std::uint16_t>(bytes, chunk) == want16,
                             "16-bit: every level agrees with scalar");
    }
    fastread::detail::reset_simd_level();
    return 0;
}
