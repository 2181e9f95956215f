#ifndef FASTREAD_BENCH_IMAGE_PEERS_HPP
#define FASTREAD_BENCH_IMAGE_PEERS_HPP

// What the image families (ppm, pnm) share: decoded samples as one type, their exact
// comparison, and OpenCV's cv::imread (when built in) brought to fastread's layout.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#if FASTREAD_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#endif

namespace fastread_bench {

/// Decoded samples, whatever their width (PFM floats as their bit patterns).
using samples = std::vector<unsigned>;

/// Empty when `got` equals `want`, else what differs first.
inline std::string compare_samples(const samples& got, const samples& want) {
    if (got.size() != want.size()) {
        return "wrong result: " + std::to_string(got.size()) + " samples, expected " +
               std::to_string(want.size());
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i]) {
            return "wrong result: sample " + std::to_string(i) + " is " + std::to_string(got[i]) +
                   ", expected " + std::to_string(want[i]);
        }
    }
    return {};
}

#if FASTREAD_HAVE_OPENCV
/// cv::imread's result in fastread's layout: channels from BGR back to RGB, PBM's
/// 0 / 255 to 0 / 1, floats as their bit patterns; the checks then compare exactly.
inline samples opencv_decode(const std::filesystem::path& path, bool bitmap) {
    const cv::Mat m = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
    if (m.empty()) {
        throw std::runtime_error("OpenCV could not read the file");
    }
    const int channels = m.channels();
    samples out;
    out.reserve(m.total() * static_cast<std::size_t>(channels));
    for (int r = 0; r < m.rows; ++r) {
        for (int c = 0; c < m.cols; ++c) {
            for (int k = 0; k < channels; ++k) {
                // Three channels come as BGR; four (PAM's RGB_ALPHA) in the file's order.
                const int from = channels == 3 ? 2 - k : k;
                unsigned v = 0;
                switch (m.depth()) {
                case CV_8U:
                    v = m.ptr<std::uint8_t>(r)[c * channels + from];
                    break;
                case CV_16U:
                    v = m.ptr<std::uint16_t>(r)[c * channels + from];
                    break;
                case CV_32F: {
                    std::uint32_t bits = 0;
                    std::memcpy(&bits, &m.ptr<float>(r)[c * channels + from], 4);
                    v = bits;
                    break;
                }
                default:
                    throw std::runtime_error("OpenCV returned an unexpected depth");
                }
                out.push_back(bitmap ? (v != 0 ? 1u : 0u) : v);
            }
        }
    }
    return out;
}
#endif

} // namespace fastread_bench

#endif // FASTREAD_BENCH_IMAGE_PEERS_HPP
