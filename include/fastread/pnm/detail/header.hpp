#ifndef FASTREAD_PNM_DETAIL_HEADER_HPP
#define FASTREAD_PNM_DETAIL_HEADER_HPP

// The Netpbm header (P1 to P7) and the decoder's errors: ppm_error (a code, the input offset
// and the numbers a message needs) and its message, the header's whitespace, comments and
// tokens, and PAM's header lines. The ppm_ names are the family's: PPM came first.
// Rules: Netpbm pbm(5), pgm(5), ppm(5) and pam(5) (netpbm.sourceforge.net/doc/), with
// libnetpbm deciding where the specs are silent; see the docs of fastread::ppm::load and
// fastread::pnm::load for the list.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../scan/decimal_list.hpp"

namespace fastread::detail {

enum class ppm_errc : unsigned char {
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
};

enum class ppm_field : unsigned char {
    magic,
    width,
    height,
    maxval,
    delimiter,
    depth,      // PAM
    tuple_type, // PAM
    endhdr      // PAM: the header's last line
};

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
    std::uint32_t depth = 3; // samples per pixel, for messages naming a sample
    unsigned char magic = 0; // the magic number's digit ('1'..'7'), 0 before it is read
    bool any_format = false; // decoding for pnm (P1..P7) rather than ppm (P3, P6)

    explicit operator bool() const noexcept { return code != ppm_errc::none; }
};

/// The longest PAM tuple type kept (libnetpbm's limit too: pam.h's tuple_type[256]).
inline constexpr std::size_t max_tuple_type_bytes = 255;

/// P3 samples saturate here while their digits are read: above every maxval, and small
/// enough that value * 10 + 9 cannot overflow. Messages name a saturated value "of 7 or more
/// digits".
inline constexpr std::uint32_t p3_sample_saturation = 1'000'000;

struct ppm_header {
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

/// Reads the magic number at the cursor: P3 or P6, or with `any_format` any of P1 to P7;
/// sets h.magic and h.plain.
template <class Source>
ppm_error parse_ppm_magic(chunk_cursor<Source>& cur, ppm_header& h, bool any_format) {
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
    if (c == 'F' || c == 'f') {
        return {ppm_errc::pfm_magic, cur.offset() - 1, static_cast<std::uint64_t>(c)};
    }
    if (c < '1' || c > '7') {
        return {ppm_errc::bad_magic, cur.offset(), static_cast<std::uint64_t>(c)};
    }
    if (!any_format && c != '3' && c != '6') {
        return {ppm_errc::unsupported_format, cur.offset(), static_cast<std::uint64_t>(c)};
    }
    h.magic = static_cast<unsigned char>(c);
    h.plain = c <= '3';
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

/// Checks width * height * depth samples of `sample_bytes` against 64 bits and size_t;
/// sets h.samples. `at` is the offset reported on overflow.
inline ppm_error size_samples(ppm_header& h, std::uint64_t width, std::uint64_t height,
                              std::uint64_t depth, unsigned sample_bytes, std::uint64_t at) {
    std::uint64_t pixels = 0, samples = 0, bytes = 0;
    if (__builtin_mul_overflow(width, height, &pixels) ||
        __builtin_mul_overflow(pixels, depth, &samples) ||
        __builtin_mul_overflow(samples, std::uint64_t{sample_bytes}, &bytes) ||
        samples > std::numeric_limits<std::size_t>::max() / 2) {
        return {ppm_errc::size_overflow, at, width, height};
    }
    h.samples = samples;
    return {};
}

/// PBM, PGM and PPM after the magic number: width, height, maxval (not PBM's), the
/// delimiter before the raster.
template <class Source>
ppm_error parse_classic_header(chunk_cursor<Source>& cur, std::size_t sample_bytes_max,
                               ppm_header& h) {
    ppm_error err;
    std::uint64_t width = 0, height = 0, maxval = 1;
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
    const bool bitmap = h.magic == '1' || h.magic == '4';
    const std::uint32_t depth = h.magic == '3' || h.magic == '6' ? 3 : 1;
    if (ppm_error e = size_samples(h, width, height, depth, 1, height_at)) {
        return e;
    }
    if (!bitmap) {
        if (!read_header_number(cur, ppm_field::maxval, maxval, maxval_at, saturated, err)) {
            return err;
        }
        if (maxval == 0 || maxval > 65535) {
            return {ppm_errc::maxval_out_of_range, maxval_at, maxval, saturated ? 1u : 0u};
        }
        if (maxval > 255 && sample_bytes_max < 2) {
            return {ppm_errc::needs_16bit_samples, maxval_at, maxval};
        }
        if (ppm_error e = size_samples(h, width, height, depth, maxval > 255 ? 2 : 1, maxval_at)) {
            return e;
        }
    }
    err = skip_raster_delimiter(cur, h.plain);
    if (err) {
        return err;
    }
    h.width = static_cast<std::uint32_t>(width);
    h.height = static_cast<std::uint32_t>(height);
    h.depth = depth;
    h.maxval = static_cast<std::uint16_t>(maxval);
    static constexpr const char* tuple_types[] = {"BLACKANDWHITE", "GRAYSCALE", "RGB"};
    h.tuple_type = tuple_types[(h.magic - '1') % 3];
    h.raster_offset = cur.offset();
    return {};
}

/// PAM header whitespace within a line: what is_ppm_space accepts but the line feed.
constexpr bool is_pam_blank(int c) noexcept {
    return c >= 0 && c != '\n' && is_ppm_space(static_cast<unsigned>(c));
}

/// Skips blanks to the line feed that ends a PAM header line and past it; an error at any
/// other byte (`field` names the line), or at the end of the input.
template <class Source>
ppm_error end_pam_line(chunk_cursor<Source>& cur, ppm_field field) {
    int c = cur.peek();
    while (is_pam_blank(c)) {
        ++cur.pos;
        c = cur.peek();
    }
    if (c < 0) {
        ppm_error err{ppm_errc::truncated_header, cur.offset()};
        err.field = ppm_field::endhdr;
        return err;
    }
    if (c != '\n') {
        ppm_error err{ppm_errc::expected_line_end, cur.offset(), static_cast<std::uint64_t>(c)};
        err.field = field;
        return err;
    }
    ++cur.pos;
    return {};
}

/// A PAM header after "P7", pam(5): the rest of the magic number's line is blank; then
/// lines, each a keyword and its value separated by blanks, in any order: WIDTH, HEIGHT,
/// DEPTH, MAXVAL (unsigned decimal numbers, all four required), TUPLTYPE (the rest of the
/// line, trailing blanks dropped; several TUPLTYPE lines are joined with a space), ENDHDR
/// (the last line: the raster starts after its line feed). Blank lines, and lines whose
/// first non-blank byte is `#` (comments), are skipped. A keyword given twice keeps its
/// last value (libnetpbm).
template <class Source>
ppm_error parse_pam_header(chunk_cursor<Source>& cur, std::size_t sample_bytes_max, ppm_header& h) {
    ppm_error err = end_pam_line(cur, ppm_field::magic);
    if (err) {
        return err;
    }
    std::uint64_t values[4] = {0, 0, 0, 0}; // width, height, depth, maxval
    std::uint64_t value_at[4] = {0, 0, 0, 0};
    bool seen[4] = {false, false, false, false};
    static constexpr ppm_field fields[4] = {ppm_field::width, ppm_field::height, ppm_field::depth,
                                            ppm_field::maxval};
    std::string tuple_type;
    std::uint64_t endhdr_at = 0;
    for (;;) {
        int c = cur.peek();
        while (is_pam_blank(c)) {
            ++cur.pos;
            c = cur.peek();
        }
        if (c < 0) {
            err = {ppm_errc::truncated_header, cur.offset()};
            err.field = ppm_field::endhdr;
            return err;
        }
        if (c == '\n') {
            ++cur.pos;
            continue;
        }
        if (c == '#') {
            if (skip_comment(cur) >= 0) {
                ++cur.pos; // its CR or LF; a CR leaves the LF as a blank line
            }
            continue;
        }
        const std::uint64_t line_at = cur.offset();
        char keyword[9];
        std::size_t length = 0;
        while (c >= 0 && !is_ppm_space(static_cast<unsigned>(c)) && length < sizeof keyword) {
            keyword[length++] = static_cast<char>(c);
            ++cur.pos;
            c = cur.peek();
        }
        const std::string_view word(keyword, length);
        if (c >= 0 && !is_ppm_space(static_cast<unsigned>(c))) {
            return {ppm_errc::unknown_pam_line, line_at};
        }
        if (word == "ENDHDR") {
            endhdr_at = line_at;
            err = end_pam_line(cur, ppm_field::endhdr);
            if (err) {
                return err;
            }
            break;
        }
        if (word == "TUPLTYPE") {
            c = cur.peek();
            while (is_pam_blank(c)) {
                ++cur.pos;
                c = cur.peek();
            }
            std::string value;
            while (c >= 0 && c != '\n') {
                if (value.size() > max_tuple_type_bytes) {
                    return {ppm_errc::tuple_type_too_long, line_at};
                }
                value += static_cast<char>(c);
                ++cur.pos;
                c = cur.peek();
            }
            while (!value.empty() && is_ppm_space(static_cast<unsigned char>(value.back()))) {
                value.pop_back();
            }
            if (!tuple_type.empty() && !value.empty()) {
                tuple_type += ' ';
            }
            tuple_type += value;
            if (tuple_type.size() > max_tuple_type_bytes) {
                return {ppm_errc::tuple_type_too_long, line_at};
            }
            err = end_pam_line(cur, ppm_field::tuple_type);
            if (err) {
                return err;
            }
            continue;
        }
        static constexpr std::string_view names[4] = {"WIDTH", "HEIGHT", "DEPTH", "MAXVAL"};
        const std::size_t k = static_cast<std::size_t>(std::find(names, names + 4, word) - names);
        if (k == 4) {
            return {ppm_errc::unknown_pam_line, line_at};
        }
        c = cur.peek();
        while (is_pam_blank(c)) {
            ++cur.pos;
            c = cur.peek();
        }
        value_at[k] = cur.offset();
        if (static_cast<unsigned>(c - '0') >= 10) {
            err = {ppm_errc::expected_number, cur.offset(), static_cast<std::uint64_t>(c)};
            err.field = fields[k];
            if (c < 0) {
                err.code = ppm_errc::truncated_header;
            }
            return err;
        }
        std::uint64_t v = 0;
        while (static_cast<unsigned>(c - '0') < 10) {
            v = std::min<std::uint64_t>(v * 10 + static_cast<unsigned>(c - '0'), UINT64_C(1) << 40);
            ++cur.pos;
            c = cur.peek();
        }
        values[k] = v;
        seen[k] = true;
        err = end_pam_line(cur, fields[k]);
        if (err) {
            return err;
        }
    }
    for (std::size_t k = 0; k < 4; ++k) {
        if (!seen[k]) {
            err = {ppm_errc::missing_pam_field, endhdr_at};
            err.field = fields[k];
            return err;
        }
    }
    for (std::size_t k = 0; k < 3; ++k) {
        if (values[k] == 0 || values[k] > std::numeric_limits<std::uint32_t>::max()) {
            err = {values[k] == 0 ? ppm_errc::zero_dimension : ppm_errc::number_too_large,
                   value_at[k]};
            err.field = fields[k];
            return err;
        }
    }
    const std::uint64_t maxval = values[3];
    if (maxval == 0 || maxval > 65535) {
        return {ppm_errc::maxval_out_of_range, value_at[3], maxval,
                maxval >= (UINT64_C(1) << 40) ? 1u : 0u};
    }
    if (maxval > 255 && sample_bytes_max < 2) {
        return {ppm_errc::needs_16bit_samples, value_at[3], maxval};
    }
    if (ppm_error e =
            size_samples(h, values[0], values[1], values[2], maxval > 255 ? 2 : 1, endhdr_at)) {
        return e;
    }
    h.width = static_cast<std::uint32_t>(values[0]);
    h.height = static_cast<std::uint32_t>(values[1]);
    h.depth = static_cast<std::uint32_t>(values[2]);
    h.maxval = static_cast<std::uint16_t>(maxval);
    h.tuple_type = std::move(tuple_type);
    h.raster_offset = cur.offset();
    return {};
}

/// Parses the header, leaving the cursor on the first raster byte: P3 or P6, or with
/// `any_format` any of P1 to P7.
///
/// `sample_bytes_max` is sizeof(Sample): a maxval needing wider samples is an error.
template <class Source>
ppm_error parse_ppm_header(chunk_cursor<Source>& cur, std::size_t sample_bytes_max, ppm_header& h,
                           bool any_format = false) {
    ppm_error err = parse_ppm_magic(cur, h, any_format);
    if (!err) {
        err = h.magic == '7' ? parse_pam_header(cur, sample_bytes_max, h)
                             : parse_classic_header(cur, sample_bytes_max, h);
    }
    err.any_format = any_format;
    err.magic = h.magic; // 0 if the magic number was not read
    return err;
}

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
inline ppm_error raw_truncated_error(const ppm_header& h, std::uint64_t have,
                                     std::uint64_t raster_bytes) noexcept {
    ppm_error err;
    err.plain = false;
    err.width = h.width;
    err.height = h.height;
    err.depth = h.depth;
    err.magic = h.magic;
    err.code = ppm_errc::truncated_raster;
    err.offset = h.raster_offset + have;
    err.value = have;
    err.limit = raster_bytes;
    return err;
}

/// The error for raw sample `index` (of `sample_bytes` bytes), whose value `value` exceeds maxval.
inline ppm_error raw_sample_error(const ppm_header& h, std::uint64_t index,
                                  std::size_t sample_bytes, unsigned value) noexcept {
    ppm_error err;
    err.plain = false;
    err.width = h.width;
    err.height = h.height;
    err.depth = h.depth;
    err.magic = h.magic;
    err.code = ppm_errc::sample_exceeds_maxval;
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

inline const char* field_name(ppm_field f, bool any_format) noexcept {
    switch (f) {
    case ppm_field::magic:
        return any_format ? "a Netpbm magic number (P1 to P7)" : "the magic number P3 or P6";
    case ppm_field::width:
        return "width";
    case ppm_field::height:
        return "height";
    case ppm_field::maxval:
        return "maxval";
    case ppm_field::delimiter:
        return "one whitespace byte after the header";
    case ppm_field::depth:
        return "depth";
    case ppm_field::tuple_type:
        return "TUPLTYPE";
    case ppm_field::endhdr:
        return "ENDHDR";
    }
    return "";
}

/// What a PAM header line names: its keyword.
inline const char* pam_keyword(ppm_field f) noexcept {
    switch (f) {
    case ppm_field::width:
        return "WIDTH";
    case ppm_field::height:
        return "HEIGHT";
    case ppm_field::depth:
        return "DEPTH";
    case ppm_field::maxval:
        return "MAXVAL";
    case ppm_field::tuple_type:
        return "TUPLTYPE";
    case ppm_field::endhdr:
        return "ENDHDR";
    default:
        return "P7";
    }
}

inline std::string ppm_error_message(const ppm_error& e) {
    using std::to_string;
    const char* magic_word = e.any_format ? "a Netpbm image (magic number P1 to P7)"
                                          : "a PPM image (magic number P3 or P6)";
    switch (e.code) {
    case ppm_errc::none:
        return "no error";
    case ppm_errc::empty_input:
        return std::string("empty input; expected ") + magic_word;
    case ppm_errc::bad_magic:
        return std::string(e.any_format ? "expected a Netpbm magic number P1 to P7, found "
                                        : "expected the PPM magic number P3 or P6, found ") +
               describe_byte(e.value);
    case ppm_errc::pfm_magic:
        return std::string("P") + static_cast<char>(e.value) + " starts a PFM image (" +
               (e.value == 'F' ? "color" : "grayscale") +
               " floating-point samples), not a Netpbm one: read it with fastread::pfm::load";
    case ppm_errc::unsupported_format: {
        static constexpr const char* names[] = {"",        "PBM plain", "PGM plain", "",
                                                "PBM raw", "PGM raw",   "",          "PAM"};
        unsigned d = static_cast<unsigned>(e.value - '0');
        return std::string("P") + static_cast<char>(e.value) + " (" + names[d & 7] +
               ") is not supported; fastread::ppm reads P3 and P6 (fastread::pnm::load reads "
               "P1 to P7)";
    }
    case ppm_errc::expected_line_end:
        return std::string("expected the end of the PAM header line ") + pam_keyword(e.field) +
               ", found " + describe_byte(e.value);
    case ppm_errc::unknown_pam_line:
        return "expected a PAM header line (WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE, ENDHDR or "
               "a # comment)";
    case ppm_errc::missing_pam_field:
        return std::string("the PAM header ends without a ") + pam_keyword(e.field) +
               " line (pam(5): WIDTH, HEIGHT, DEPTH and MAXVAL are required)";
    case ppm_errc::tuple_type_too_long:
        return "TUPLTYPE is longer than " + to_string(max_tuple_type_bytes) + " bytes";
    case ppm_errc::truncated_header:
        return std::string("input ends inside the header; expected ") +
               field_name(e.field, e.any_format);
    case ppm_errc::expected_number:
        return std::string("expected ") + field_name(e.field, e.any_format) +
               " (an unsigned decimal number), found " + describe_byte(e.value);
    case ppm_errc::expected_whitespace:
        return std::string("expected whitespace after ") + field_name(e.field, e.any_format) +
               ", found " + describe_byte(e.value);
    case ppm_errc::number_too_large:
        return std::string(field_name(e.field, e.any_format)) + " is larger than 4294967295";
    case ppm_errc::zero_dimension:
        return std::string(field_name(e.field, e.any_format)) +
               (e.field == ppm_field::depth ? " is 0; a pixel has at least one sample"
                                            : " is 0; an image has at least one pixel");
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
    case ppm_errc::invalid_raster_byte:
        return std::string(e.magic == '1' ? "expected a PBM bit (0 or 1)"
                                          : "expected a decimal sample") +
               ", whitespace or a comment, found " + describe_byte(e.value);
    }
    return "unknown error";
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_HEADER_HPP
