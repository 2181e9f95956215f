#ifndef FASTREAD_PPM_DETAIL_WRITE_HPP
#define FASTREAD_PPM_DETAIL_WRITE_HPP

// The PPM encoder behind fastread::ppm::save: checks the image, then streams the header and
// raster to a sink in blocks (ppm(5) layout).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fastread::detail {

/// Throws std::invalid_argument unless (width, height, maxval, samples) is a valid image.
template <class Sample>
void check_ppm_image(std::uint32_t width, std::uint32_t height, std::uint16_t maxval,
                     const Sample* samples, std::size_t count) {
    std::uint64_t expected = 0;
    if (width == 0 || height == 0) {
        throw std::invalid_argument("fastread::ppm::save: width and height must be at least 1");
    }
    if (maxval == 0 || (sizeof(Sample) == 1 && maxval > 255)) {
        throw std::invalid_argument("fastread::ppm::save: maxval " + std::to_string(maxval) +
                                    " is out of range 1.." +
                                    std::to_string(sizeof(Sample) == 1 ? 255 : 65535));
    }
    if (__builtin_mul_overflow(std::uint64_t{width} * height, std::uint64_t{3}, &expected) ||
        expected != count) {
        throw std::invalid_argument("fastread::ppm::save: " + std::to_string(count) +
                                    " samples do not make a " + std::to_string(width) + "x" +
                                    std::to_string(height) + " RGB image");
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (samples[i] > maxval) {
            throw std::invalid_argument("fastread::ppm::save: sample " + std::to_string(i) +
                                        " is " + std::to_string(samples[i]) + ", above maxval " +
                                        std::to_string(maxval));
        }
    }
}

/// Encodes a checked image; `write(const char*, std::size_t)` receives the bytes in order.
/// plain: ppm(5) P3 with each row starting a line and no line longer than 70 characters;
/// raw: P6 with 1-byte samples when maxval < 256, else 2 bytes, most significant first.
template <class Sample, class Write>
void encode_ppm(std::uint32_t width, std::uint32_t height, std::uint16_t maxval,
                const Sample* samples, std::size_t count, bool plain, Write&& write) {
    std::string header = std::string(plain ? "P3\n" : "P6\n") + std::to_string(width) + " " +
                         std::to_string(height) + "\n" + std::to_string(maxval) + "\n";
    write(header.data(), header.size());

    constexpr std::size_t block = std::size_t{64} * 1024;
    std::vector<char> buffer;
    if (!plain) {
        if constexpr (sizeof(Sample) == 1) {
            write(reinterpret_cast<const char*>(samples), count); // already the raw layout
            return;
        }
        const bool wide = maxval > 255;
        buffer.resize(block);
        std::size_t used = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (used + 2 > block) {
                write(buffer.data(), used);
                used = 0;
            }
            if (wide) {
                buffer[used++] = static_cast<char>(samples[i] >> 8);
            }
            buffer[used++] = static_cast<char>(samples[i] & 0xff);
        }
        write(buffer.data(), used);
        return;
    }

    constexpr std::size_t max_line = 70;
    buffer.resize(block + max_line + 1);
    std::size_t used = 0;
    const std::size_t row_samples = std::size_t{width} * 3;
    std::size_t line = 0; // characters on the current line
    for (std::size_t i = 0; i < count; ++i) {
        char digits[8];
        char* end = std::to_chars(digits, digits + sizeof digits, unsigned{samples[i]}).ptr;
        std::size_t len = static_cast<std::size_t>(end - digits);
        if (i % row_samples != 0 && line + 1 + len <= max_line) {
            buffer[used++] = ' ';
            ++line;
        } else if (i != 0) {
            buffer[used++] = '\n';
            line = 0;
        }
        for (std::size_t k = 0; k < len; ++k) {
            buffer[used++] = digits[k];
        }
        line += len;
        if (used >= block) {
            write(buffer.data(), used);
            used = 0;
        }
    }
    buffer[used++] = '\n';
    write(buffer.data(), used);
}

} // namespace fastread::detail

#endif // FASTREAD_PPM_DETAIL_WRITE_HPP
