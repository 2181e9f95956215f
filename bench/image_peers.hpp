#ifndef FASTREAD_BENCH_IMAGE_PEERS_HPP
#define FASTREAD_BENCH_IMAGE_PEERS_HPP

// What the image families (ppm, pnm) share: decoded samples as one type, their exact
// comparison, and OpenCV's cv::imread (when built in) brought to fastread's layout.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#if FASTREAD_HAVE_NETPBM
#include <csetjmp>
#include <netpbm/pam.h>
#endif
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

/// A byte-order twin of a 16-bit Netpbm column: a small image in the column's format (its
/// magic number and maxval) whose every sample differs from its byte swap. Netpbm stores
/// 2-byte samples most significant byte first (ppm(5), pgm(5)); a decoder that skips the
/// swap on a little-endian machine still decodes a file right when every sample is v x 257
/// (forge16.ppm, made by pamdepth), but not the twin. The rows of a 16-bit column are
/// checked on both.
struct byte_order_twin {
    std::filesystem::path path;
    samples values; ///< what a decoder must return for it
};

/// Writes (once) and returns the twin for magic number `magic` ('2', '3', '5' or '6') and
/// `maxval` (256 to 65535) in `dir`: 37 x 3 pixels, samples 256 + (7919 i mod (maxval -
/// 255)), each nudged by one where its two bytes are equal.
inline byte_order_twin make_byte_order_twin(const std::filesystem::path& dir, char magic,
                                            unsigned maxval) {
    const unsigned width = 37, height = 3, depth = (magic == '3' || magic == '6') ? 3 : 1;
    byte_order_twin twin;
    twin.path = dir / ("byte-order-twin-P" + std::string(1, magic) + "-" + std::to_string(maxval) +
                       (depth == 3 ? ".ppm" : ".pgm"));
    for (unsigned i = 0; i < width * height * depth; ++i) {
        unsigned v = 256 + (i * 7919u) % (maxval - 255);
        if ((v >> 8) == (v & 0xFFu)) {
            v = v == maxval ? v - 1 : v + 1;
        }
        twin.values.push_back(v);
    }
    std::string file = "P" + std::string(1, magic) + "\n" + std::to_string(width) + " " +
                       std::to_string(height) + "\n" + std::to_string(maxval) + "\n";
    const bool plain = magic == '2' || magic == '3';
    for (std::size_t i = 0; i < twin.values.size(); ++i) {
        const unsigned v = twin.values[i];
        if (plain) {
            file += std::to_string(v) + ((i + 1) % 12 == 0 ? "\n" : " ");
        } else {
            file += static_cast<char>(v >> 8);
            file += static_cast<char>(v & 0xFFu);
        }
    }
    std::error_code ec;
    if (std::filesystem::file_size(twin.path, ec) != file.size()) {
        std::FILE* f = std::fopen(twin.path.c_str(), "wb");
        if (f == nullptr || std::fwrite(file.data(), 1, file.size(), f) != file.size()) {
            if (f != nullptr) {
                std::fclose(f);
            }
            throw std::runtime_error("cannot write " + twin.path.string());
        }
        std::fclose(f);
    }
    return twin;
}

/// A column's check: `decode(path)` must equal `ref`, and for a 16-bit column `decode` of
/// the byte-order twin must equal the twin's samples. Empty when right, else what differs
/// first ("wrong result: ...").
template <class Decode>
std::string check_decode(const Decode& decode, const std::filesystem::path& path,
                         const samples& ref, const std::shared_ptr<byte_order_twin>& twin) {
    std::string wrong = compare_samples(decode(path), ref);
    if (wrong.empty() && twin) {
        wrong = compare_samples(decode(twin->path), twin->values);
        if (!wrong.empty()) {
            wrong = "wrong result (byte order): on " + twin->path.filename().string() +
                    wrong.substr(wrong.find(':'));
        }
    }
    return wrong;
}

#if FASTREAD_HAVE_NETPBM
/// libnetpbm reports errors by longjmp once pm_setjmpbuf is set; nothing with a destructor
/// lives between setjmp and the call that may jump.
inline tuple** netpbm_read(std::FILE* f, struct pam* pam) {
    static std::jmp_buf jump;
    std::jmp_buf* saved = nullptr;
    pm_setjmpbufsave(&jump, &saved);
    tuple** tuples = nullptr;
    if (setjmp(jump) == 0) {
        tuples = pnm_readpam(f, pam, PAM_STRUCT_SIZE(tuple_type));
    }
    pm_setjmpbuf(saved);
    return tuples;
}

inline samples netpbm_decode(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + path.string());
    }
    struct pam pam {};
    tuple** tuples = netpbm_read(f, &pam);
    std::fclose(f);
    if (tuples == nullptr) {
        throw std::runtime_error("libnetpbm rejected the file");
    }
    samples out;
    out.reserve(static_cast<std::size_t>(pam.width) * pam.height * pam.depth);
    for (int r = 0; r < pam.height; ++r) {
        for (int c = 0; c < pam.width; ++c) {
            for (unsigned p = 0; p < pam.depth; ++p) {
                out.push_back(static_cast<unsigned>(tuples[r][c][p]));
            }
        }
    }
    pnm_freepamarray(tuples, &pam);
    return out;
}
#endif

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
