#include <fastread/pnm/detail/raw_copy.hpp>
#include <fastread/sample_vector.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

// The reference: one sample at a time, as ppm(5) defines them. `out` gets the samples up to
// and including the first above maxval.
template <class Sample>
std::size_t reference(std::vector<unsigned>& out, const unsigned char* src, std::size_t count,
                      unsigned bps, unsigned maxval) {
    out.clear();
    for (std::size_t i = 0; i < count; ++i) {
        unsigned v = bps == 1 ? src[i] : static_cast<unsigned>(src[2 * i] << 8 | src[2 * i + 1]);
        out.push_back(v);
        if (v > maxval) {
            return i;
        }
    }
    return count;
}

template <class Sample>
void check(std::size_t count, unsigned bps, unsigned maxval, std::size_t misalign,
           std::mt19937& rng, long bad_at) {
    std::vector<unsigned char> src(count * bps);
    for (std::size_t i = 0; i < count; ++i) {
        unsigned v = static_cast<unsigned>(rng() % (maxval + 1));
        if (static_cast<long>(i) == bad_at) {
            v = maxval + 1;
        }
        if (bps == 1) {
            src[i] = static_cast<unsigned char>(v);
        } else {
            src[2 * i] = static_cast<unsigned char>(v >> 8);
            src[2 * i + 1] = static_cast<unsigned char>(v);
        }
    }
    fastread::sample_vector<Sample> dst(count + 16);
    Sample* d = dst.data() + misalign;
    std::vector<unsigned> want;
    const std::size_t expect = reference<Sample>(want, src.data(), count, bps, maxval);
    const std::size_t got = fastread::detail::copy_raw_samples(d, src.data(), count, bps, maxval);
    CAPTURE(count, bps, maxval, misalign, bad_at);
    REQUIRE(got == expect);
    // Every sample up to the first bad one is decoded, the bad one included (its value is
    // what the error message reports).
    REQUIRE(std::vector<unsigned>(d, d + want.size()) == want);

    // The same bytes read into the start of the samples' own storage, decoded in place.
    fastread::sample_vector<Sample> in_place(count + 16);
    Sample* q = in_place.data() + misalign;
    if (!src.empty()) {
        std::memcpy(q, src.data(), src.size());
    }
    const std::size_t got_in_place = fastread::detail::decode_raw_in_place(q, count, bps, maxval);
    REQUIRE(got_in_place == expect);
    REQUIRE(std::vector<unsigned>(q, q + want.size()) == want);
}

} // namespace

TEST_CASE("copy_raw_samples and decode_raw_in_place match the one-sample-at-a-time reference",
          "[ppm][detail]") {
    std::mt19937 rng(42);
    for (std::size_t count : {0, 1, 2, 15, 16, 17, 31, 33, 100, 1000}) {
        for (std::size_t misalign = 0; misalign < 4; ++misalign) {
            for (long bad_at :
                 {-1L, 0L, static_cast<long>(count) / 2, static_cast<long>(count) - 1}) {
                if (bad_at >= static_cast<long>(count)) {
                    continue;
                }
                check<std::uint8_t>(count, 1, 255, misalign, rng, -1);
                check<std::uint8_t>(count, 1, 100, misalign, rng, bad_at);
                check<std::uint16_t>(count, 1, 200, misalign, rng, bad_at);
                check<std::uint16_t>(count, 2, 65535, misalign, rng, -1);
                check<std::uint16_t>(count, 2, 1000, misalign, rng, bad_at);
                check<std::uint16_t>(count, 2, 256, misalign, rng, bad_at);
            }
        }
    }
}

TEST_CASE("copy_raw_samples with streaming stores (rasters above the threshold)", "[ppm][detail]") {
    std::mt19937 rng(7);
    const std::size_t big = fastread::detail::stream_store_threshold + 123;
    check<std::uint8_t>(big, 1, 255, 1, rng, -1);
    check<std::uint8_t>(big, 1, 254, 3, rng, static_cast<long>(big) - 5);
    check<std::uint16_t>(big / 2, 2, 4095, 1, rng, -1);
    check<std::uint16_t>(big / 2, 2, 4095, 0, rng, 12345);
    check<std::uint16_t>(big / 2 + 1, 1, 200, 2, rng, -1); // widened in place
    check<std::uint16_t>(big / 2 + 1, 1, 200, 1, rng, static_cast<long>(big) / 2 - 3);
}
