#ifndef FASTREAD_CSV_DETAIL_ENCODING_HPP
#define FASTREAD_CSV_DETAIL_ENCODING_HPP

/// @file
/// The encodings delimited text is read in besides UTF-8: UTF-16 (LE or BE, by its byte
/// order mark, RFC 2781) and Latin-1 (ISO 8859-1), transcoded to UTF-8 (RFC 3629), for
/// csv::sniff and csv::read.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../../result.hpp"

namespace fastread::detail {

/// Whether `b` starts with a UTF-16 byte order mark: 1 little-endian, 2 big-endian, 0 none.
inline int csv_utf16_bom(std::string_view b) noexcept {
    if (b.size() >= 2 && b[0] == '\xFF' && b[1] == '\xFE') {
        return 1;
    }
    if (b.size() >= 2 && b[0] == '\xFE' && b[1] == '\xFF') {
        return 2;
    }
    return 0;
}

/// Appends code point `c` (<= U+10FFFF) to `out` in UTF-8.
inline void csv_put_utf8(std::string& out, std::uint32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

/// `bytes` in UTF-8: UTF-16 after its BOM (`bom` 1: LE, 2: BE; the BOM dropped) or Latin-1
/// (`latin1`); the error of an odd byte count or an unpaired surrogate, at its byte offset.
inline result<std::string> csv_transcode(std::string_view bytes, int bom, bool latin1,
                                         const std::string& file) {
    std::string out;
    if (latin1) {
        out.reserve(bytes.size() + bytes.size() / 8);
        for (const char ch : bytes) {
            csv_put_utf8(out, static_cast<unsigned char>(ch));
        }
        return out;
    }
    if (bytes.size() % 2 != 0) {
        return parse_error_value(bytes.size() - 1, "UTF-16 text of an odd number of bytes", file,
                                 errc::invalid_data_byte);
    }
    out.reserve(bytes.size() / 2 + bytes.size() / 8);
    auto unit = [&](std::size_t i) -> std::uint32_t {
        const auto a = static_cast<unsigned char>(bytes[i]),
                   b = static_cast<unsigned char>(bytes[i + 1]);
        return bom == 1 ? (std::uint32_t{b} << 8 | a) : (std::uint32_t{a} << 8 | b);
    };
    for (std::size_t i = 2; i < bytes.size(); i += 2) {
        std::uint32_t c = unit(i);
        if (c >= 0xD800 && c <= 0xDBFF && i + 2 < bytes.size()) {
            const std::uint32_t low = unit(i + 2);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                i += 2;
                csv_put_utf8(out, c);
                continue;
            }
        }
        if (c >= 0xD800 && c <= 0xDFFF) {
            return parse_error_value(i, "an unpaired UTF-16 surrogate", file,
                                     errc::invalid_data_byte);
        }
        csv_put_utf8(out, c);
    }
    return out;
}

} // namespace fastread::detail

#endif // FASTREAD_CSV_DETAIL_ENCODING_HPP
