#ifndef FASTREAD_PNM_DETAIL_HEADER_HPP
#define FASTREAD_PNM_DETAIL_HEADER_HPP

// The Netpbm header (P1 to P7): its whitespace, comments and tokens, and PAM's header
// lines (the errors it reports are in error.hpp).
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

#include "error.hpp"

namespace fastread::detail {

/// Netpbm whitespace: what C's isspace() calls white space in the "C" locale (the rule the
/// P3 kernels in scan/decimal_list.hpp apply too).
constexpr bool is_pnm_space(unsigned c) noexcept {
    return is_space_byte(c);
}

// ---------------------------------------------------------------------------------------
// Header

/// With the cursor on a '#': moves it to the CR or LF that ends the comment, or to the end
/// of the input. Returns that byte, or -1 at the end.
inline int skip_comment(decoder_cursor& cur) {
    int c = 0;
    do {
        ++cur.pos;
        c = cur.peek();
    } while (c >= 0 && c != '\n' && c != '\r');
    return c;
}

/// Skips whitespace and comments (`#` through the next CR or LF) before a header token.
inline bool skip_header_space(decoder_cursor& cur, pnm_field field, pnm_error& err) {
    for (;;) {
        int c = cur.peek();
        if (c < 0) {
            err = {pnm_errc::truncated_header, cur.offset()};
            err.field = field;
            return false;
        }
        if (c == '#') {
            // libnetpbm (pm_getc) replaces a comment by its terminating CR or LF, so a
            // comment ends a token and counts as whitespace.
            skip_comment(cur);
            continue;
        }
        if (!is_pnm_space(static_cast<unsigned>(c))) {
            return true;
        }
        ++cur.pos;
    }
}

/// Reads one unsigned decimal header token and checks the byte after it.
inline bool read_header_number(decoder_cursor& cur, pnm_field field, std::uint64_t& value,
                               std::uint64_t& token_offset, bool& saturated, pnm_error& err) {
    if (!skip_header_space(cur, field, err)) {
        return false;
    }
    token_offset = cur.offset();
    int c = cur.peek();
    if (static_cast<unsigned>(c - '0') >= 10) {
        err = {pnm_errc::expected_number, token_offset, static_cast<std::uint64_t>(c)};
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
    if (c >= 0 && c != '#' && !is_pnm_space(static_cast<unsigned>(c))) {
        err = {pnm_errc::expected_whitespace, cur.offset(), static_cast<std::uint64_t>(c)};
        err.field = field;
        return false;
    }
    return true;
}

/// Reads the magic number at the cursor: P3 or P6, or with `any_format` any of P1 to P7;
/// sets h.magic and h.plain.
inline pnm_error parse_pnm_magic(decoder_cursor& cur, pnm_header& h, bool any_format) {
    const std::uint64_t start = cur.offset();
    int c = cur.peek();
    if (c < 0) {
        return {pnm_errc::empty_input, start};
    }
    if (c != 'P') {
        pnm_error err{pnm_errc::bad_magic, start, static_cast<std::uint64_t>(c)};
        err.format = start == 0 ? signature_at(cur, {}) : nullptr; // a PNG, a JPEG...
        return err;
    }
    ++cur.pos;
    c = cur.peek();
    if (c < 0) {
        pnm_error err{pnm_errc::truncated_header, cur.offset()};
        err.field = pnm_field::magic;
        return err;
    }
    if (c == 'F' || c == 'f') {
        return {pnm_errc::pfm_magic, cur.offset() - 1, static_cast<std::uint64_t>(c)};
    }
    if (c < '1' || c > '7') {
        pnm_error err{pnm_errc::bad_magic, cur.offset(), static_cast<std::uint64_t>(c)};
        err.format = start == 0 ? signature_at(cur, "P") : nullptr; // "PK": a zip file
        err.offset = err.format != nullptr ? 0 : err.offset;
        return err;
    }
    if (!any_format && c != '3' && c != '6') {
        return {pnm_errc::unsupported_format, cur.offset(), static_cast<std::uint64_t>(c)};
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
inline pnm_error skip_raster_delimiter(decoder_cursor& cur, bool plain) {
    const int c = cur.peek();
    pnm_error truncated{pnm_errc::truncated_header, cur.offset()};
    truncated.field = pnm_field::delimiter;
    if (c < 0) {
        // A plain raster may start right here; it is simply missing (truncated).
        return plain ? pnm_error{} : truncated;
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
inline pnm_error size_samples(pnm_header& h, std::uint64_t width, std::uint64_t height,
                              std::uint64_t depth, unsigned sample_bytes, std::uint64_t at) {
    std::uint64_t pixels = 0, samples = 0, bytes = 0;
    if (__builtin_mul_overflow(width, height, &pixels) ||
        __builtin_mul_overflow(pixels, depth, &samples) ||
        __builtin_mul_overflow(samples, std::uint64_t{sample_bytes}, &bytes) ||
        samples > std::numeric_limits<std::size_t>::max() / 2) {
        return {pnm_errc::size_overflow, at, width, height};
    }
    h.samples = samples;
    return {};
}

/// The over_limit error when an image of `width` x `height` pixels, `samples` samples of
/// `sample_bytes` bytes in memory, passes one of `limits`: reported at the width's or the
/// height's token, or at `size_at` for the samples and their bytes. None otherwise.
inline pnm_error check_pnm_limits(const pnm_limits& limits, std::uint64_t width,
                                  std::uint64_t width_at, std::uint64_t height,
                                  std::uint64_t height_at, std::uint64_t samples,
                                  std::size_t sample_bytes, std::uint64_t size_at) {
    const std::uint64_t bytes = samples * sample_bytes; // samples < 2^63 / sample_bytes
    const struct {
        std::uint64_t value, limit, at;
        pnm_field field;
    } checks[] = {{width, limits.max_width, width_at, pnm_field::width},
                  {height, limits.max_height, height_at, pnm_field::height},
                  {samples, limits.max_samples, size_at, pnm_field::samples},
                  {bytes, limits.max_bytes, size_at, pnm_field::bytes}};
    for (const auto& c : checks) {
        if (c.value > c.limit) {
            pnm_error err{pnm_errc::over_limit, c.at, c.value, c.limit};
            err.field = c.field;
            return err;
        }
    }
    return {};
}

/// PBM, PGM and PPM after the magic number: width, height, maxval (not PBM's), the
/// delimiter before the raster; then the sizes against `limits`.
inline pnm_error parse_classic_header(decoder_cursor& cur, std::size_t sample_bytes_max,
                                      pnm_header& h, const pnm_limits& limits) {
    pnm_error err;
    std::uint64_t width = 0, height = 0, maxval = 1;
    std::uint64_t width_at = 0, height_at = 0, maxval_at = 0;
    bool saturated = false;
    if (!read_header_number(cur, pnm_field::width, width, width_at, saturated, err)) {
        return err;
    }
    if (width == 0 || width > std::numeric_limits<std::uint32_t>::max()) {
        err = {width == 0 ? pnm_errc::zero_dimension : pnm_errc::number_too_large, width_at};
        err.field = pnm_field::width;
        return err;
    }
    if (!read_header_number(cur, pnm_field::height, height, height_at, saturated, err)) {
        return err;
    }
    if (height == 0 || height > std::numeric_limits<std::uint32_t>::max()) {
        err = {height == 0 ? pnm_errc::zero_dimension : pnm_errc::number_too_large, height_at};
        err.field = pnm_field::height;
        return err;
    }
    const bool bitmap = h.magic == '1' || h.magic == '4';
    const std::uint32_t depth = h.magic == '3' || h.magic == '6' ? 3 : 1;
    if (pnm_error e = size_samples(h, width, height, depth, 1, height_at)) {
        return e;
    }
    if (!bitmap) {
        if (!read_header_number(cur, pnm_field::maxval, maxval, maxval_at, saturated, err)) {
            return err;
        }
        if (maxval == 0 || maxval > 65535) {
            return {pnm_errc::maxval_out_of_range, maxval_at, maxval, saturated ? 1u : 0u};
        }
        if (maxval > 255 && sample_bytes_max < 2) {
            return {pnm_errc::needs_16bit_samples, maxval_at, maxval};
        }
        if (pnm_error e = size_samples(h, width, height, depth, maxval > 255 ? 2 : 1, maxval_at)) {
            return e;
        }
    }
    if (pnm_error e = check_pnm_limits(limits, width, width_at, height, height_at, h.samples,
                                       sample_bytes_max, bitmap ? height_at : maxval_at)) {
        return e;
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

/// PAM header whitespace within a line: what is_pnm_space accepts but the line feed.
constexpr bool is_pam_blank(int c) noexcept {
    return c >= 0 && c != '\n' && is_pnm_space(static_cast<unsigned>(c));
}

/// Skips blanks to the line feed that ends a PAM header line and past it; an error at any
/// other byte (`field` names the line), or at the end of the input.
inline pnm_error end_pam_line(decoder_cursor& cur, pnm_field field) {
    int c = cur.peek();
    while (is_pam_blank(c)) {
        ++cur.pos;
        c = cur.peek();
    }
    if (c < 0) {
        pnm_error err{pnm_errc::truncated_header, cur.offset()};
        err.field = pnm_field::endhdr;
        return err;
    }
    if (c != '\n') {
        pnm_error err{pnm_errc::expected_line_end, cur.offset(), static_cast<std::uint64_t>(c)};
        err.field = field;
        return err;
    }
    ++cur.pos;
    return {};
}

/// What the lines of a PAM header said: WIDTH, HEIGHT, DEPTH, MAXVAL (each value, where it
/// stood, whether it was given), TUPLTYPE, and where ENDHDR stood.
struct pam_lines {
    std::uint64_t values[4] = {0, 0, 0, 0}; // width, height, depth, maxval
    std::uint64_t value_at[4] = {0, 0, 0, 0};
    bool seen[4] = {false, false, false, false};
    std::string tuple_type;
    std::uint64_t endhdr_at = 0;
    static constexpr pnm_field fields[4] = {pnm_field::width, pnm_field::height, pnm_field::depth,
                                            pnm_field::maxval};
};

/// Skips PAM blanks (space, tab, CR...: not LF); the byte after them (-1 at the end).
inline int skip_pam_blanks(decoder_cursor& cur) {
    int c = cur.peek();
    while (is_pam_blank(c)) {
        ++cur.pos;
        c = cur.peek();
    }
    return c;
}

/// The rest of a TUPLTYPE line, blanks before and after dropped, joined to what `lines`
/// holds with a space; the line end read.
inline pnm_error read_tuple_type(decoder_cursor& cur, std::uint64_t line_at, pam_lines& lines) {
    int c = skip_pam_blanks(cur);
    std::string value;
    while (c >= 0 && c != '\n') {
        if (value.size() > max_tuple_type_bytes) {
            return {pnm_errc::tuple_type_too_long, line_at};
        }
        value += static_cast<char>(c);
        ++cur.pos;
        c = cur.peek();
    }
    while (!value.empty() && is_pnm_space(static_cast<unsigned char>(value.back()))) {
        value.pop_back();
    }
    if (!lines.tuple_type.empty() && !value.empty()) {
        lines.tuple_type += ' ';
    }
    lines.tuple_type += value;
    if (lines.tuple_type.size() > max_tuple_type_bytes) {
        return {pnm_errc::tuple_type_too_long, line_at};
    }
    return end_pam_line(cur, pnm_field::tuple_type);
}

/// The unsigned decimal value of field `k` (WIDTH, HEIGHT, DEPTH or MAXVAL; saturated at
/// 2^40) into `lines`, and its line end.
inline pnm_error read_pam_value(decoder_cursor& cur, std::size_t k, pam_lines& lines) {
    int c = skip_pam_blanks(cur);
    lines.value_at[k] = cur.offset();
    if (static_cast<unsigned>(c - '0') >= 10) {
        pnm_error err{pnm_errc::expected_number, cur.offset(), static_cast<std::uint64_t>(c)};
        err.field = pam_lines::fields[k];
        if (c < 0) {
            err.code = pnm_errc::truncated_header;
        }
        return err;
    }
    std::uint64_t v = 0;
    while (static_cast<unsigned>(c - '0') < 10) {
        v = std::min<std::uint64_t>(v * 10 + static_cast<unsigned>(c - '0'), UINT64_C(1) << 40);
        ++cur.pos;
        c = cur.peek();
    }
    lines.values[k] = v;
    lines.seen[k] = true;
    return end_pam_line(cur, pam_lines::fields[k]);
}

/// The lines of a PAM header up to and including ENDHDR's, into `lines`.
inline pnm_error read_pam_lines(decoder_cursor& cur, pam_lines& lines) {
    for (;;) {
        int c = skip_pam_blanks(cur);
        if (c < 0) {
            pnm_error err{pnm_errc::truncated_header, cur.offset()};
            err.field = pnm_field::endhdr;
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
        while (c >= 0 && !is_pnm_space(static_cast<unsigned>(c)) && length < sizeof keyword) {
            keyword[length++] = static_cast<char>(c);
            ++cur.pos;
            c = cur.peek();
        }
        const std::string_view word(keyword, length);
        if (c >= 0 && !is_pnm_space(static_cast<unsigned>(c))) {
            return {pnm_errc::unknown_pam_line, line_at};
        }
        if (word == "ENDHDR") {
            lines.endhdr_at = line_at;
            return end_pam_line(cur, pnm_field::endhdr);
        }
        pnm_error err;
        if (word == "TUPLTYPE") {
            err = read_tuple_type(cur, line_at, lines);
        } else {
            static constexpr std::string_view names[4] = {"WIDTH", "HEIGHT", "DEPTH", "MAXVAL"};
            const auto k = static_cast<std::size_t>(std::find(names, names + 4, word) - names);
            if (k == 4) {
                return {pnm_errc::unknown_pam_line, line_at};
            }
            err = read_pam_value(cur, k, lines);
        }
        if (err) {
            return err;
        }
    }
}

/// A PAM header after "P7", pam(5): the rest of the magic number's line is blank; then
/// lines, each a keyword and its value separated by blanks, in any order: WIDTH, HEIGHT,
/// DEPTH, MAXVAL (unsigned decimal numbers, all four required), TUPLTYPE (the rest of the
/// line, trailing blanks dropped; several TUPLTYPE lines are joined with a space), ENDHDR
/// (the last line: the raster starts after its line feed). Blank lines, and lines whose
/// first non-blank byte is `#` (comments), are skipped. A keyword given twice keeps its
/// last value (libnetpbm). Then the sizes against `limits`.
inline pnm_error parse_pam_header(decoder_cursor& cur, std::size_t sample_bytes_max, pnm_header& h,
                                  const pnm_limits& limits) {
    pnm_error err = end_pam_line(cur, pnm_field::magic);
    if (err) {
        return err;
    }
    pam_lines lines;
    if ((err = read_pam_lines(cur, lines))) {
        return err;
    }
    const std::uint64_t(&values)[4] = lines.values;
    const std::uint64_t(&value_at)[4] = lines.value_at;
    for (std::size_t k = 0; k < 4; ++k) {
        if (!lines.seen[k]) {
            err = {pnm_errc::missing_pam_field, lines.endhdr_at};
            err.field = pam_lines::fields[k];
            return err;
        }
    }
    for (std::size_t k = 0; k < 3; ++k) {
        if (values[k] == 0 || values[k] > std::numeric_limits<std::uint32_t>::max()) {
            err = {values[k] == 0 ? pnm_errc::zero_dimension : pnm_errc::number_too_large,
                   value_at[k]};
            err.field = pam_lines::fields[k];
            return err;
        }
    }
    const std::uint64_t maxval = values[3];
    if (maxval == 0 || maxval > 65535) {
        return {pnm_errc::maxval_out_of_range, value_at[3], maxval,
                maxval >= (UINT64_C(1) << 40) ? 1u : 0u};
    }
    if (maxval > 255 && sample_bytes_max < 2) {
        return {pnm_errc::needs_16bit_samples, value_at[3], maxval};
    }
    if (pnm_error e = size_samples(h, values[0], values[1], values[2], maxval > 255 ? 2 : 1,
                                   lines.endhdr_at)) {
        return e;
    }
    if (pnm_error e = check_pnm_limits(limits, values[0], value_at[0], values[1], value_at[1],
                                       h.samples, sample_bytes_max, lines.endhdr_at)) {
        return e;
    }
    h.width = static_cast<std::uint32_t>(values[0]);
    h.height = static_cast<std::uint32_t>(values[1]);
    h.depth = static_cast<std::uint32_t>(values[2]);
    h.maxval = static_cast<std::uint16_t>(maxval);
    h.tuple_type = std::move(lines.tuple_type);
    h.raster_offset = cur.offset();
    return {};
}

/// Parses the header, leaving the cursor on the first raster byte: P3 or P6, or with
/// `any_format` any of P1 to P7.
///
/// `sample_bytes_max` is sizeof(Sample): a maxval needing wider samples is an error; an
/// image over `limits` (its samples counted at `sample_bytes_max` bytes) too.
inline pnm_error parse_pnm_header(decoder_cursor& cur, std::size_t sample_bytes_max, pnm_header& h,
                                  bool any_format = false, const pnm_limits& limits = {}) {
    pnm_error err = parse_pnm_magic(cur, h, any_format);
    if (!err) {
        err = h.magic == '7' ? parse_pam_header(cur, sample_bytes_max, h, limits)
                             : parse_classic_header(cur, sample_bytes_max, h, limits);
    }
    err.any_format = any_format;
    err.magic = h.magic; // 0 if the magic number was not read
    return err;
}
} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_HEADER_HPP
