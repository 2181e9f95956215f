#ifndef FASTREAD_PNM_DETAIL_ERROR_HPP
#define FASTREAD_PNM_DETAIL_ERROR_HPP

// The Netpbm decoder's errors and what they need: pnm_error (a code, the input offset and the
// numbers a message needs) and its message, the header's fields, the raster's errors and
// buffer sizing, for every format of the family (P1-P7).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../../detail/file_signature.hpp"
#include "../../result.hpp"

namespace fastread::detail {

enum class pnm_errc : unsigned char {
    none,
    empty_input,           // no byte at all
    bad_magic,             // first two bytes are no magic number read; value = the offending byte
    unsupported_format,    // ppm only: P1, P2, P4, P5, P7; value = the digit byte
    pfm_magic,             // "PF" or "Pf": a PFM image; value = 'F' or 'f'
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
    invalid_raster_byte,   // plain raster byte that is no digit (P1: 0 or 1), whitespace or comment
    expected_line_end,     // PAM: a byte after P7, a value or ENDHDR on its line; value = byte
    unknown_pam_line,      // PAM: a header line that starts with no known keyword
    missing_pam_field,     // PAM: ENDHDR before `field` was given
    tuple_type_too_long,   // PAM: the TUPLTYPE values joined are longer than 255 bytes
    over_limit,            // a header value over a caller's limit; field, value, limit
};

enum class pnm_field : unsigned char {
    magic,
    width,
    height,
    maxval,
    delimiter,
    depth,      // PAM
    tuple_type, // PAM
    endhdr,     // PAM: the header's last line
    samples,    // width * height * depth (a limit)
    bytes       // the bytes the samples take in memory (a limit)
};

/// The public error code of a decoder error.
constexpr errc to_errc(pnm_errc e) noexcept {
    switch (e) {
    case pnm_errc::none:
        break;
    case pnm_errc::empty_input:
        return errc::empty_input;
    case pnm_errc::bad_magic:
        return errc::bad_magic;
    case pnm_errc::unsupported_format:
    case pnm_errc::pfm_magic:
        return errc::unsupported_format;
    case pnm_errc::truncated_header:
        return errc::truncated_header;
    case pnm_errc::expected_number:
        return errc::expected_number;
    case pnm_errc::expected_whitespace:
    case pnm_errc::expected_line_end:
        return errc::expected_whitespace;
    case pnm_errc::number_too_large:
    case pnm_errc::tuple_type_too_long:
        return errc::number_too_large;
    case pnm_errc::zero_dimension:
        return errc::zero_dimension;
    case pnm_errc::maxval_out_of_range:
        return errc::maxval_out_of_range;
    case pnm_errc::needs_16bit_samples:
        return errc::needs_16bit_samples;
    case pnm_errc::size_overflow:
        return errc::size_overflow;
    case pnm_errc::truncated_raster:
        return errc::truncated_data;
    case pnm_errc::sample_exceeds_maxval:
        return errc::sample_exceeds_maxval;
    case pnm_errc::invalid_raster_byte:
        return errc::invalid_data_byte;
    case pnm_errc::unknown_pam_line:
        return errc::bad_header_line;
    case pnm_errc::missing_pam_field:
        return errc::missing_header_field;
    case pnm_errc::over_limit:
        return errc::over_limit;
    }
    return errc::malformed_input;
}

struct pnm_error {
    pnm_errc code = pnm_errc::none;
    std::uint64_t offset = 0;
    std::uint64_t value = 0;
    std::uint64_t limit = 0;
    std::uint64_t index = 0;
    pnm_field field = pnm_field::magic;
    bool plain = false;
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t depth = 3; // samples per pixel, for messages naming a sample
    unsigned char magic = 0; // the magic number's digit ('1'..'7'), 0 before it is read
    bool any_format = false; // decoding for pnm (P1..P7) rather than ppm (P3, P6)
    /// bad_magic at the input's start: the other format its first bytes are ("a PNG
    /// file", file_signature), or null.
    const char* format = nullptr;

    explicit operator bool() const noexcept { return code != pnm_errc::none; }
};

/// The longest PAM tuple type kept (libnetpbm's limit too: pam.h's tuple_type[256]).
inline constexpr std::size_t max_tuple_type_bytes = 255;

/// P3 samples saturate here while their digits are read: above every maxval, and small
/// enough that value * 10 + 9 cannot overflow. Messages name a saturated value "of 7 or more
/// digits".
inline constexpr std::uint32_t p3_sample_saturation = 1'000'000;

/// What one image may declare before it is decoded (load_options' limits): a header over
/// one is an over_limit error at the header, before any sample is allocated.
struct pnm_limits {
    std::uint64_t max_width = UINT64_MAX;
    std::uint64_t max_height = UINT64_MAX;
    std::uint64_t max_samples = UINT64_MAX;
    std::uint64_t max_bytes = UINT64_MAX; // samples * sizeof(Sample)
};

struct pnm_header {
    bool plain = false;      // P1, P2, P3 (true) or a raw format
    unsigned char magic = 0; // the magic number's digit, '1'..'7'
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t depth = 3;         // samples per pixel: 1 PBM, PGM; 3 PPM; PAM's DEPTH
    std::uint16_t maxval = 0;        // 1 for PBM
    std::uint64_t samples = 0;       // width * height * depth
    std::uint64_t raster_offset = 0; // input offset of the first raster byte
    std::string tuple_type;          // PAM's TUPLTYPE; BLACKANDWHITE, GRAYSCALE, RGB for P1-P6

    /// Bytes per raw sample: 1 when maxval < 256, else 2 (P4 packs 8 pixels in a byte).
    unsigned sample_bytes() const noexcept { return maxval > 255 ? 2 : 1; }
};

// ---------------------------------------------------------------------------------------
// Raster errors and buffers

/// Sizes a streaming buffer: the whole raster when the input is known to hold it, else a
/// start that grows with what arrives, so a tiny input never causes a huge allocation.
inline std::uint64_t initial_capacity(std::uint64_t needed, std::uint64_t bytes_per_item,
                                      std::optional<std::uint64_t> remaining,
                                      std::uint64_t default_items) {
    std::uint64_t cap = remaining ? *remaining / bytes_per_item + 1 : default_items;
    return std::max<std::uint64_t>(1, std::min(needed, cap));
}

/// The error for a raw raster of `raster_bytes` bytes of which the input holds `have`.
inline pnm_error raw_truncated_error(const pnm_header& h, std::uint64_t have,
                                     std::uint64_t raster_bytes) noexcept {
    pnm_error err;
    err.plain = false;
    err.width = h.width;
    err.height = h.height;
    err.depth = h.depth;
    err.magic = h.magic;
    err.code = pnm_errc::truncated_raster;
    err.offset = h.raster_offset + have;
    err.value = have;
    err.limit = raster_bytes;
    return err;
}

/// The error for raw sample `index` (of `sample_bytes` bytes), whose value `value` exceeds maxval.
inline pnm_error raw_sample_error(const pnm_header& h, std::uint64_t index,
                                  std::size_t sample_bytes, unsigned value) noexcept {
    pnm_error err;
    err.plain = false;
    err.width = h.width;
    err.height = h.height;
    err.depth = h.depth;
    err.magic = h.magic;
    err.code = pnm_errc::sample_exceeds_maxval;
    err.offset = h.raster_offset + index * sample_bytes;
    err.value = value;
    err.limit = h.maxval;
    err.index = index;
    return err;
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

inline const char* field_name(pnm_field f, bool any_format) noexcept {
    switch (f) {
    case pnm_field::magic:
        return any_format ? "a Netpbm magic number (P1 to P7)" : "the magic number P3 or P6";
    case pnm_field::width:
        return "width";
    case pnm_field::height:
        return "height";
    case pnm_field::maxval:
        return "maxval";
    case pnm_field::delimiter:
        return "one whitespace byte after the header";
    case pnm_field::depth:
        return "depth";
    case pnm_field::tuple_type:
        return "TUPLTYPE";
    case pnm_field::endhdr:
        return "ENDHDR";
    case pnm_field::samples:
        return "the sample count";
    case pnm_field::bytes:
        return "the bytes of the samples";
    }
    return "";
}

/// What a PAM header line names: its keyword.
inline const char* pam_keyword(pnm_field f) noexcept {
    switch (f) {
    case pnm_field::width:
        return "WIDTH";
    case pnm_field::height:
        return "HEIGHT";
    case pnm_field::depth:
        return "DEPTH";
    case pnm_field::maxval:
        return "MAXVAL";
    case pnm_field::tuple_type:
        return "TUPLTYPE";
    case pnm_field::endhdr:
        return "ENDHDR";
    default:
        return "P7";
    }
}

inline std::string pnm_error_message(const pnm_error& e) {
    using std::to_string;
    const char* magic_word = e.any_format ? "a Netpbm image (magic number P1 to P7)"
                                          : "a PPM image (magic number P3 or P6)";
    switch (e.code) {
    case pnm_errc::none:
        return "no error";
    case pnm_errc::empty_input:
        return std::string("empty input; expected ") + magic_word;
    case pnm_errc::bad_magic:
        if (e.format != nullptr) {
            return std::string(e.format) + (e.any_format
                                                ? ", not a Netpbm image (magic number P1 to P7)"
                                                : ", not a PPM image (magic number P3 or P6)");
        }
        return std::string(e.any_format ? "expected a Netpbm magic number P1 to P7, found "
                                        : "expected the PPM magic number P3 or P6, found ") +
               describe_byte(e.value);
    case pnm_errc::pfm_magic:
        return std::string("P") + static_cast<char>(e.value) + " starts a PFM image (" +
               (e.value == 'F' ? "color" : "grayscale") +
               " floating-point samples), not a Netpbm one: read it with fastread::pfm::load";
    case pnm_errc::unsupported_format: {
        static constexpr const char* names[] = {"",        "PBM plain", "PGM plain", "",
                                                "PBM raw", "PGM raw",   "",          "PAM"};
        unsigned d = static_cast<unsigned>(e.value - '0');
        return std::string("P") + static_cast<char>(e.value) + " (" + names[d & 7] +
               ") is not supported; fastread::ppm reads P3 and P6 (fastread::pnm::load reads "
               "P1 to P7)";
    }
    case pnm_errc::expected_line_end:
        return std::string("expected the end of the PAM header line ") + pam_keyword(e.field) +
               ", found " + describe_byte(e.value);
    case pnm_errc::unknown_pam_line:
        return "expected a PAM header line (WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE, ENDHDR or "
               "a # comment)";
    case pnm_errc::missing_pam_field:
        return std::string("the PAM header ends without a ") + pam_keyword(e.field) +
               " line (pam(5): WIDTH, HEIGHT, DEPTH and MAXVAL are required)";
    case pnm_errc::tuple_type_too_long:
        return "TUPLTYPE is longer than " + to_string(max_tuple_type_bytes) + " bytes";
    case pnm_errc::over_limit: {
        static constexpr const char* limit_names[] = {"max_width", "max_height", "max_samples",
                                                      "max_bytes"};
        const unsigned k = e.field == pnm_field::width     ? 0
                           : e.field == pnm_field::height  ? 1
                           : e.field == pnm_field::samples ? 2
                                                           : 3;
        return std::string(field_name(e.field, e.any_format)) + " " + to_string(e.value) +
               " is over the limit load_options::" + limit_names[k] + " = " + to_string(e.limit);
    }
    case pnm_errc::truncated_header:
        return std::string("input ends inside the header; expected ") +
               field_name(e.field, e.any_format);
    case pnm_errc::expected_number:
        return std::string("expected ") + field_name(e.field, e.any_format) +
               " (an unsigned decimal number), found " + describe_byte(e.value);
    case pnm_errc::expected_whitespace:
        return std::string("expected whitespace after ") + field_name(e.field, e.any_format) +
               ", found " + describe_byte(e.value);
    case pnm_errc::number_too_large:
        return std::string(field_name(e.field, e.any_format)) + " is larger than 4294967295";
    case pnm_errc::zero_dimension:
        return std::string(field_name(e.field, e.any_format)) +
               (e.field == pnm_field::depth ? " is 0; a pixel has at least one sample"
                                            : " is 0; an image has at least one pixel");
    case pnm_errc::maxval_out_of_range:
        return (e.limit != 0 ? std::string("maxval with that many digits")
                             : "maxval " + to_string(e.value)) +
               " is out of range 1..65535";
    case pnm_errc::needs_16bit_samples:
        return "maxval " + to_string(e.value) +
               " needs 16-bit samples; load this image as std::uint16_t";
    case pnm_errc::size_overflow:
        return "image size " + to_string(e.value) + "x" + to_string(e.limit) + " overflows 64 bits";
    case pnm_errc::truncated_raster:
        if (e.plain) {
            return "truncated raster: the header declares " + to_string(e.width) + "x" +
                   to_string(e.height) + " pixels (" + to_string(e.limit) +
                   " samples), the input ends after " + to_string(e.value) + " of them";
        }
        return "truncated raster: the header declares " + to_string(e.width) + "x" +
               to_string(e.height) + " pixels (" + to_string(e.limit) +
               " bytes), the input ends after " + to_string(e.value) + " of them";
    case pnm_errc::sample_exceeds_maxval: {
        const std::uint64_t depth = e.depth == 0 ? 1 : e.depth;
        const std::uint64_t pixel = e.index / depth;
        static constexpr const char* channel[] = {"red", "green", "blue"};
        std::string v = e.value >= p3_sample_saturation ? std::string("of 7 or more digits")
                                                        : to_string(e.value);
        std::string where = "row " + to_string(e.width ? pixel / e.width : 0) + ", column " +
                            to_string(e.width ? pixel % e.width : 0);
        if (depth == 3) {
            where += std::string(", ") + channel[e.index % 3];
        } else if (depth > 1) {
            where += ", sample " + to_string(e.index % depth) + " of the tuple";
        }
        return "sample " + v + " exceeds maxval " + to_string(e.limit) + " (" + where + ")";
    }
    case pnm_errc::invalid_raster_byte:
        return std::string(e.magic == '1' ? "expected a PBM bit (0 or 1)"
                                          : "expected a decimal sample") +
               ", whitespace or a comment, found " + describe_byte(e.value);
    }
    return "unknown error";
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_ERROR_HPP
