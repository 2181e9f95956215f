#ifndef FASTREAD_PNM_DETAIL_WRITE_HPP
#define FASTREAD_PNM_DETAIL_WRITE_HPP

// The Netpbm encoder behind fastread::ppm::save and fastread::pnm::save: checks the image,
// then streams the header and raster to a sink in blocks (pbm(5), pgm(5), ppm(5), pam(5)).

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../result.hpp"

namespace fastread::detail {

/// The caller's mistake (errc::invalid_argument, the message starting with `who`) unless
/// (width, height, depth, maxval, samples) is a valid image: dimensions and depth at least
/// 1, maxval 1..255 for 8-bit samples (1..65535 for 16-bit), width * height * depth
/// samples, none above maxval; else no error.
template <class Sample>
fastread::error pnm_image_problem(const char* who, std::uint32_t width, std::uint32_t height,
                                  std::uint32_t depth, std::uint16_t maxval, const Sample* samples,
                                  std::size_t count) {
    std::uint64_t expected = 0;
    if (width == 0 || height == 0) {
        return invalid_argument_value(std::string(who) + ": width and height must be at least 1");
    }
    if (depth == 0) {
        return invalid_argument_value(std::string(who) + ": depth must be at least 1");
    }
    if (maxval == 0 || (sizeof(Sample) == 1 && maxval > 255)) {
        return invalid_argument_value(std::string(who) + ": maxval " + std::to_string(maxval) +
                                      " is out of range 1.." +
                                      std::to_string(sizeof(Sample) == 1 ? 255 : 65535));
    }
    if (__builtin_mul_overflow(std::uint64_t{width} * height, std::uint64_t{depth}, &expected) ||
        expected != count) {
        return invalid_argument_value(
            std::string(who) + ": " + std::to_string(count) + " samples do not make a " +
            std::to_string(width) + "x" + std::to_string(height) +
            (depth == 3 ? std::string(" RGB image") : " image of depth " + std::to_string(depth)));
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (samples[i] > maxval) {
            return invalid_argument_value(std::string(who) + ": sample " + std::to_string(i) +
                                          " is " + std::to_string(samples[i]) + ", above maxval " +
                                          std::to_string(maxval));
        }
    }
    return {};
}

/// Encodes a checked image as Netpbm format `magic` ('1'..'7'); `write(const char*,
/// std::size_t)` receives the bytes in order. Plain formats (P1, P2, P3) start each row on
/// a new line and keep lines to 70 characters (pbm(5), pgm(5), ppm(5)); P1 writes the bits
/// without spaces, as Netpbm does. P4 packs 8 pixels to a byte, most significant first, a
/// bit 1 (black) for sample 0, rows padded with 0 bits. P5, P6, P7: 1-byte samples when
/// maxval < 256, else 2 bytes, most significant first. P7 writes WIDTH, HEIGHT, DEPTH,
/// MAXVAL, TUPLTYPE (when not empty) and ENDHDR lines (pam(5)).
template <class Sample, class Write>
void encode_pnm(std::uint32_t width, std::uint32_t height, std::uint32_t depth,
                std::uint16_t maxval, const std::string& tuple_type, const Sample* samples,
                std::size_t count, char magic, Write&& write) {
    std::string header = std::string("P") + magic + "\n";
    if (magic == '7') {
        header += "WIDTH " + std::to_string(width) + "\nHEIGHT " + std::to_string(height) +
                  "\nDEPTH " + std::to_string(depth) + "\nMAXVAL " + std::to_string(maxval) + "\n";
        if (!tuple_type.empty()) {
            header += "TUPLTYPE " + tuple_type + "\n";
        }
        header += "ENDHDR\n";
    } else {
        header += std::to_string(width) + " " + std::to_string(height) + "\n";
        if (magic != '1' && magic != '4') {
            header += std::to_string(maxval) + "\n";
        }
    }
    write(header.data(), header.size());

    constexpr std::size_t block = std::size_t{64} * 1024;
    constexpr std::size_t max_line = 70;
    std::vector<char> buffer;
    if (magic == '4') {
        const std::size_t row_bytes = (std::size_t{width} + 7) / 8;
        buffer.resize(std::max(block, row_bytes));
        std::size_t used = 0;
        for (std::uint32_t row = 0; row < height; ++row) {
            if (used + row_bytes > buffer.size()) {
                write(buffer.data(), used);
                used = 0;
            }
            const Sample* s = samples + std::size_t{row} * width;
            std::memset(buffer.data() + used, 0, row_bytes);
            for (std::uint32_t x = 0; x < width; ++x) {
                buffer[used + x / 8] |= static_cast<char>((s[x] == 0 ? 0x80u : 0u) >> (x % 8));
            }
            used += row_bytes;
        }
        write(buffer.data(), used);
        return;
    }
    if (magic == '1') {
        buffer.resize(block + max_line + 1);
        std::size_t used = 0;
        for (std::uint32_t row = 0; row < height; ++row) {
            const Sample* s = samples + std::size_t{row} * width;
            for (std::uint32_t x = 0; x < width; ++x) {
                if (x != 0 && x % max_line == 0) {
                    buffer[used++] = '\n';
                }
                buffer[used++] = s[x] == 0 ? '1' : '0';
                if (used >= block) {
                    write(buffer.data(), used);
                    used = 0;
                }
            }
            buffer[used++] = '\n';
        }
        write(buffer.data(), used);
        return;
    }
    if (magic >= '5') {
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

    buffer.resize(block + max_line + 1);
    std::size_t used = 0;
    const std::size_t row_samples = std::size_t{width} * depth;
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

#endif // FASTREAD_PNM_DETAIL_WRITE_HPP
