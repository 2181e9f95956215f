#ifndef FASTREAD_PPM_DETAIL_HEADER_HPP
#define FASTREAD_PPM_DETAIL_HEADER_HPP

// The PPM header and the decoder's errors: ppm_error (a code, the input offset and the
// numbers a message needs) and its message, the header's whitespace, comments and tokens.
// Rules: Netpbm ppm(5) (netpbm.sourceforge.net/doc/ppm.html), with libnetpbm deciding where
// the spec is silent; see the docs of fastread::ppm::load for the list.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../scan/decimal_list.hpp"

namespace fastread::detail {

enum class ppm_errc : unsigned char {
    none,
    empty_input,           // no byte at all
    bad_magic,             // first two bytes are not P3 / P6; value = the offending byte
    unsupported_format,    // P1, P2, P4, P5, P7; value = the digit byte
    truncated_header,      // input ends inside the header; field = what was expected
    expected_number,       // a header token does not start with a digit; value = byte
    expected_whitespace,   // a header token is followed by something else; value = byte
    number_too_large,      // width or height above 4294967295
    zero_dimension,        // width or height 0
    maxval_out_of_range,   // maxval 0 or above 65535; value (saturated flag in limit)
    needs_16bit_samples,   // maxval > 255 loaded as std::uint8_t; value = maxval
    size_overflow,         // width * height * 3 (* 2) does not fit in 64 bits
    truncated_raster,      // value = what arrived, limit = what the header declares
    sample_exceeds_maxval, // value = sample, limit = maxval, index = sample index
    invalid_raster_byte,   // P3 raster byte that is no digit, whitespace or comment
};

enum class ppm_field : unsigned char { magic, width, height, maxval, delimiter };

struct ppm_error {
    ppm_errc code = ppm_errc::none;
    std::uint64_t offset = 0;
    std::uint64_t value = 0;
    std::uint64_t limit = 0;
    std::uint64_t index = 0;
    ppm_field field = ppm_field::magic;
    bool plain = false;
    std::uint32_t width = 0;
    std::uint32_t height = 0;

    explicit operator bool() const noexcept { return code != ppm_errc::none; }
};

/// P3 samples saturate here while their digits are read: above every maxval, and small
/// enough that value * 10 + 9 cannot overflow. Messages name a saturated value "of 7 or more
/// digits".
inline constexpr std::uint32_t p3_sample_saturation = 1'000'000;

struct ppm_header {
    bool plain = false; // P3 (true) or P6
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint16_t maxval = 0;
    std::uint64_t samples = 0;       // width * height * 3
    std::uint64_t raster_offset = 0; // input offset of the first raster byte
};

/// Netpbm whitespace: what C's isspace() calls white space in the "C" locale (the rule the
/// P3 kernels in scan/decimal_list.hpp apply too).
constexpr bool is_ppm_space(unsigned c) noexcept {
    return is_space_byte(c);
}

// ---------------------------------------------------------------------------------------
// Header

/// With the cursor on a '#': moves it to the CR or LF that ends the comment, or to the end
/// of the input. Returns that byte, or -1 at the end.
template <class Source>
int skip_comment(chunk_cursor<Source>& cur) {
    int c = 0;
    do {
        ++cur.pos;
        c = cur.peek();
    } while (c >= 0 && c != '\n' && c != '\r');
    return c;
}

/// Skips whitespace and comments (`#` through the next CR or LF) before a header token.
template <class Source>
bool skip_header_space(chunk_cursor<Source>& cur, ppm_field field, ppm_error& err) {
    for (;;) {
        int c = cur.peek();
        if (c < 0) {
            err = {ppm_errc::truncated_header, cur.offset()};
            err.field = field;
            return false;
        }
        if (c == '#') {
            // libnetpbm (pm_getc) replaces a comment by its terminating CR or LF, so a
            // comment ends a token and counts as whitespace.
            skip_comment(cur);
            continue;
        }
        if (!is_ppm_space(static_cast<unsigned>(c))) {
            return true;
        }
        ++cur.pos;
    }
}

/// Reads one unsigned decimal header token and checks the byte after it.
template <class Source>
bool read_header_number(chunk_cursor<Source>& cur, ppm_field field, std::uint64_t& value,
                        std::uint64_t& token_offset, bool& saturated, ppm_error& err) {
    if (!skip_header_space(cur, field, err)) {
        return false;
    }
    token_offset = cur.offset();
    int c = cur.peek();
    if (static_cast<unsigned>(c - '0') >= 10) {
        err = {ppm_errc::expected_number, token_offset, static_cast<std::uint64_t>(c)};
        err.field = field;
        return false;
    }
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    value = 0;
    saturated = false;
    while (c >= 0 && static_cast<unsigned>(c - '0') < 10) {
        unsigned d = static_cast<unsigned>(c - '0');
        if (value > (max - d) / 10) {
            saturated = true; // keep consuming digits; the value is reported as too large
            value = max;
        } else if (!saturated) {
            value = value * 10 + d;
        }
        ++cur.pos;
        c = cur.peek();
    }
    if (c >= 0 && c != '#' && !is_ppm_space(static_cast<unsigned>(c))) {
        err = {ppm_errc::expected_whitespace, cur.offset(), static_cast<std::uint64_t>(c)};
        err.field = field;
        return false;
    }
    return true;
}

/// Reads the magic number ("P3" or "P6") at the cursor; sets h.plain.
template <class Source>
ppm_error parse_ppm_magic(chunk_cursor<Source>& cur, ppm_header& h) {
    const std::uint64_t start = cur.offset();
    int c = cur.peek();
    if (c < 0) {
        return {ppm_errc::empty_input, start};
    }
    if (c != 'P') {
        return {ppm_errc::bad_magic, start, static_cast<std::uint64_t>(c)};
    }
    ++cur.pos;
    c = cur.peek();
    if (c < 0) {
        ppm_error err{ppm_errc::truncated_header, cur.offset()};
        err.field = ppm_field::magic;
        return err;
    }
    if (c == '3' || c == '6') {
        h.plain = c == '3';
    } else if (c == '1' || c == '2' || c == '4' || c == '5' || c == '7') {
        return {ppm_errc::unsupported_format, cur.offset(), static_cast<std::uint64_t>(c)};
    } else {
        return {ppm_errc::bad_magic, cur.offset(), static_cast<std::uint64_t>(c)};
    }
    ++cur.pos;
    // libnetpbm reads the width straight after the two magic bytes, so "P62 2 255" is
    // accepted; so are we ("as lenient as possible", ppm(5)).
    return {};
}

/// Moves past the delimiter after maxval. ppm(5): exactly one whitespace byte before a raw
/// raster; libnetpbm: a comment there is skipped and its CR or LF is that byte. A plain
/// raster's parser skips whitespace and comments itself, so for P3 only a whitespace byte
/// is taken.
template <class Source>
ppm_error skip_raster_delimiter(chunk_cursor<Source>& cur, bool plain) {
    const int c = cur.peek();
    ppm_error truncated{ppm_errc::truncated_header, cur.offset()};
    truncated.field = ppm_field::delimiter;
    if (c < 0) {
        // A plain raster may start right here; it is simply missing (truncated).
        return plain ? ppm_error{} : truncated;
    }
    if (c == '#') {
        if (!plain) {
            if (skip_comment(cur) < 0) {
                truncated.offset = cur.offset();
                return truncated;
            }
            ++cur.pos;
        }
        return {};
    }
    ++cur.pos; // whitespace, checked by read_header_number
    return {};
}

/// Parses the header, leaving the cursor on the first raster byte.
///
/// `sample_bytes_max` is sizeof(Sample): a maxval needing wider samples is an error.
template <class Source>
ppm_error parse_ppm_header(chunk_cursor<Source>& cur, std::size_t sample_bytes_max, ppm_header& h) {
    ppm_error err = parse_ppm_magic(cur, h);
    if (err) {
        return err;
    }

    std::uint64_t width = 0, height = 0, maxval = 0;
    std::uint64_t width_at = 0, height_at = 0, maxval_at = 0;
    bool saturated = false;
    if (!read_header_number(cur, ppm_field::width, width, width_at, saturated, err)) {
        return err;
    }
    if (width == 0 || width > std::numeric_limits<std::uint32_t>::max()) {
        err = {width == 0 ? ppm_errc::zero_dimension : ppm_errc::number_too_large, width_at};
        err.field = ppm_field::width;
        return err;
    }
    if (!read_header_number(cur, ppm_field::height, height, height_at, saturated, err)) {
        return err;
    }
    if (height == 0 || height > std::numeric_limits<std::uint32_t>::max()) {
        err = {height == 0 ? ppm_errc::zero_dimension : ppm_errc::number_too_large, height_at};
        err.field = ppm_field::height;
        return err;
    }
    std::uint64_t pixels = 0, samples = 0;
    if (__builtin_mul_overflow(width, height, &pixels) ||
        __builtin_mul_overflow(pixels, std::uint64_t{3}, &samples)) {
        err = {ppm_errc::size_overflow, height_at, width, height};
        return err;
    }
    if (!read_header_number(cur, ppm_field::maxval, maxval, maxval_at, saturated, err)) {
        return err;
    }
    if (maxval == 0 || maxval > 65535) {
        err = {ppm_errc::maxval_out_of_range, maxval_at, maxval, saturated ? 1u : 0u};
        return err;
    }
    if (maxval > 255 && sample_bytes_max < 2) {
        return {ppm_errc::needs_16bit_samples, maxval_at, maxval};
    }
    std::uint64_t raster_bytes = 0;
    if (__builtin_mul_overflow(samples, maxval > 255 ? 2u : 1u, &raster_bytes) ||
        samples > std::numeric_limits<std::size_t>::max() / 2) {
        err = {ppm_errc::size_overflow, maxval_at, width, height};
        return err;
    }

    err = skip_raster_delimiter(cur, h.plain);
    if (err) {
        return err;
    }

    h.width = static_cast<std::uint32_t>(width);
    h.height = static_cast<std::uint32_t>(height);
    h.maxval = static_cast<std::uint16_t>(maxval);
    h.samples = samples;
    h.raster_offset = cur.offset();
    return {};
}

// ---------------------------------------------------------------------------------------
// Messages

inline std::string describe_byte(std::uint64_t c) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string s = "byte 0x";
    s += hex[(c >> 4) & 15];
    s += hex[c & 15];
    if (c > ' ' && c < 127) {
        s += " '";
        s += static_cast<char>(c);
        s += '\'';
    }
    return s;
}

inline const char* field_name(ppm_field f) noexcept {
    switch (f) {
    case ppm_field::magic:
        return "the magic number P3 or P6";
    case ppm_field::width:
        return "width";
    case ppm_field::height:
        return "height";
    case ppm_field::maxval:
        return "maxval";
    case ppm_field::delimiter:
        return "one whitespace byte after maxval";
    }
    return "";
}

inline std::string ppm_error_message(const ppm_error& e) {
    using std::to_string;
    switch (e.code) {
    case ppm_errc::none:
        return "no error";
    case ppm_errc::empty_input:
        return "empty input; expected a PPM image (magic number P3 or P6)";
    case ppm_errc::bad_magic:
        return "expected the PPM magic number P3 or P6, found " + describe_byte(e.value);
    case ppm_errc::unsupported_format: {
        static constexpr const char* names[] = {"",        "PBM plain", "PGM plain", "",
                                                "PBM raw", "PGM raw",   "",          "PAM"};
        unsigned d = static_cast<unsigned>(e.value - '0');
        return std::string("P") + static_cast<char>(e.value) + " (" + names[d & 7] +
               ") is not supported; fastread::ppm reads P3 and P6";
    }
    case ppm_errc::truncated_header:
        return std::string("input ends inside the header; expected ") + field_name(e.field);
    case ppm_errc::expected_number:
        return std::string("expected ") + field_name(e.field) +
               " (an unsigned decimal number), found " + describe_byte(e.value);
    case ppm_errc::expected_whitespace:
        return std::string("expected whitespace after ") + field_name(e.field) + ", found " +
               describe_byte(e.value);
    case ppm_errc::number_too_large:
        return std::string(field_name(e.field)) + " is larger than 4294967295";
    case ppm_errc::zero_dimension:
        return std::string(field_name(e.field)) + " is 0; an image has at least one pixel";
    case ppm_errc::maxval_out_of_range:
        return (e.limit != 0 ? std::string("maxval with that many digits")
                             : "maxval " + to_string(e.value)) +
               " is out of range 1..65535";
    case ppm_errc::needs_16bit_samples:
        return "maxval " + to_string(e.value) +
               " needs 16-bit samples; load this image as std::uint16_t";
    case ppm_errc::size_overflow:
        return "image size " + to_string(e.value) + "x" + to_string(e.limit) + " overflows 64 bits";
    case ppm_errc::truncated_raster:
        if (e.plain) {
            return "truncated raster: the header declares " + to_string(e.width) + "x" +
                   to_string(e.height) + " pixels (" + to_string(e.limit) +
                   " samples), the input ends after " + to_string(e.value) + " of them";
        }
        return "truncated raster: the header declares " + to_string(e.width) + "x" +
               to_string(e.height) + " pixels (" + to_string(e.limit) +
               " bytes), the input ends after " + to_string(e.value) + " of them";
    case ppm_errc::sample_exceeds_maxval: {
        std::uint64_t pixel = e.index / 3;
        static constexpr const char* channel[] = {"red", "green", "blue"};
        std::string v = e.value >= p3_sample_saturation ? std::string("of 7 or more digits")
                                                        : to_string(e.value);
        return "sample " + v + " exceeds maxval " + to_string(e.limit) + " (row " +
               to_string(e.width ? pixel / e.width : 0) + ", column " +
               to_string(e.width ? pixel % e.width : 0) + ", " + channel[e.index % 3] + ")";
    }
    case ppm_errc::invalid_raster_byte:
        return "expected a decimal sample, whitespace or a comment, found " +
               describe_byte(e.value);
    }
    return "unknown error";
}

} // namespace fastread::detail

#endif // FASTREAD_PPM_DETAIL_HEADER_HPP
