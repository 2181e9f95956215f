#ifndef FASTREAD_PNM_DETAIL_PFM_HPP
#define FASTREAD_PNM_DETAIL_PFM_HPP

// The PFM decoder (the rules are on fastread/pfm.hpp), over any byte source; pfm::load
// from a path and pfm::save are in pfm_path.hpp.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../../detail/chunk_cursor.hpp"
#include "../../detail/file_map.hpp"
#include "../../detail/file_shrank.hpp"
#include "../../detail/posix.hpp"
#include "../../error.hpp"
#include "../../pfm/image.hpp"
#include "../../source/byte_source.hpp"
#include "../../source/detail/file_stream.hpp"
#include "../../source/read_source.hpp"
#include "header.hpp"
#include "limits.hpp"

#if !defined(__cpp_lib_to_chars)
#include <locale>
#include <sstream>
#endif

namespace fastread::detail {

/// The error of a PFM decoder: its kind `code`, where, what, which input.
inline fastread::error pfm_fail(errc code, std::uint64_t offset, const std::string& what,
                                const std::string& name) {
    return parse_error_value(offset, what, name, code);
}

/// Reads the unsigned decimal PFM header number at the cursor (after whitespace).
// Parses [first, last) whole as a decimal float, as std::from_chars does (no leading '+'
// or space, C locale): std::from_chars where the library has it for floating point
// (__cpp_lib_to_chars), else a stream in the classic locale (libc++ before 20). True when
// every byte was used and the value is representable.
inline bool parse_scale(const char* first, const char* last, float& out) {
#if defined(__cpp_lib_to_chars)
    const std::from_chars_result r = std::from_chars(first, last, out);
    return r.ec == std::errc() && r.ptr == last;
#else
    if (first == last || *first == '+' || *first == ' ') {
        return false;
    }
    std::istringstream in(std::string(first, last));
    in.imbue(std::locale::classic());
    in >> std::noskipws >> out;
    return !in.fail() && in.peek() == std::char_traits<char>::eof();
#endif
}

/// The PFM header number at the cursor, or 0 with the error in `err`.
inline std::uint32_t read_pfm_number(decoder_cursor& cur, const char* field,
                                     const std::string& name, fastread::error& err,
                                     std::uint64_t& at) {
    int c = cur.peek();
    while (c >= 0 && is_pnm_space(static_cast<unsigned>(c))) {
        ++cur.pos;
        c = cur.peek();
    }
    at = cur.offset();
    if (static_cast<unsigned>(c - '0') >= 10) {
        err = pfm_fail(c < 0 ? errc::truncated_header : errc::expected_number, at,
                       c < 0 ? std::string("input ends inside the PFM header; expected ") + field
                             : std::string("expected the PFM ") + field +
                                   " (an unsigned decimal number), found " + describe_byte(c),
                       name);
        return 0;
    }
    std::uint64_t value = 0;
    while (static_cast<unsigned>(c - '0') < 10) {
        value = std::min<std::uint64_t>(value * 10 + static_cast<unsigned>(c - '0'),
                                        std::uint64_t{1} << 40);
        ++cur.pos;
        c = cur.peek();
    }
    if (value == 0 || value > std::numeric_limits<std::uint32_t>::max()) {
        {
            err =
                pfm_fail(value == 0 ? errc::zero_dimension : errc::number_too_large, at,
                         std::string("the PFM ") + field + " is out of range 1..4294967295", name);
            return 0;
        }
    }
    return static_cast<std::uint32_t>(value);
}

/// Consumes the one whitespace byte that ends a PFM header line.
/// On failure the error is in `err`.
inline void end_pfm_line(decoder_cursor& cur, const char* after, const std::string& name,
                         fastread::error& err) {
    const int c = cur.peek();
    if (c < 0) {
        err = pfm_fail(errc::truncated_header, cur.offset(),
                       std::string("input ends inside the PFM header; expected whitespace after ") +
                           after,
                       name);
        return;
    }
    if (!is_pnm_space(static_cast<unsigned>(c))) {
        {
            err = pfm_fail(errc::expected_whitespace, cur.offset(),
                           std::string("expected whitespace after the PFM ") + after + ", found " +
                               describe_byte(static_cast<std::uint64_t>(c)),
                           name);
            return;
        }
    }
    ++cur.pos;
}

/// A PFM header as read: the image's shape, scale and byte order, and where the raster is.
struct pfm_header {
    std::uint32_t width = 0, height = 0, depth = 0;
    float scale = 1;                 // the absolute value of the header's
    bool little = false;             // samples little-endian (a negative scale)
    std::uint64_t samples = 0;       // width * height * depth
    std::uint64_t bytes = 0;         // samples * 4
    std::uint64_t raster_offset = 0; // input offset of the first raster byte
};

/// Reads the PFM header at the cursor into `h` (see fastread/pfm.hpp for the rules), leaving
/// the cursor on the first raster byte; a header over `limits` (samples of 4 bytes) is an
/// over_limit error at the field that passes it. The error, or none.
inline fastread::error read_pfm_header(decoder_cursor& cur, const std::string& name, pfm_header& h,
                                       const pnm_limits& limits = {}) {
    fastread::error err;
    int c = cur.peek();
    if (c < 0) {
        return pfm_fail(errc::empty_input, 0, "empty input; expected a PFM image (PF or Pf)", name);
    }
    if (c != 'P') {
        const std::uint64_t at = cur.offset();
        const char* format = at == 0 ? signature_at(cur, {}) : nullptr;
        return pfm_fail(errc::bad_magic, at,
                        format != nullptr
                            ? std::string(format) + ", not a PFM image (magic number PF or Pf)"
                            : "expected the PFM magic number PF or Pf, found " +
                                  describe_byte(static_cast<std::uint64_t>(c)),
                        name);
    }
    ++cur.pos;
    c = cur.peek();
    if (c >= '1' && c <= '7') {
        return pfm_fail(
            errc::unsupported_format, cur.offset() - 1,
            std::string("P") + static_cast<char>(c) +
                " starts a Netpbm image, not a PFM one: read it with fastread::pnm::load",
            name);
    }
    if (c != 'F' && c != 'f') {
        const std::uint64_t at = cur.offset();
        if (c == 'K' && at == 1) {
            if (const char* format = signature_at(cur, "P")) { // "PK": a zip file
                return pfm_fail(errc::bad_magic, 0,
                                std::string(format) + ", not a PFM image (magic number PF or Pf)",
                                name);
            }
        }
        return pfm_fail(c < 0 ? errc::truncated_header : errc::bad_magic, at,
                        c < 0 ? std::string("input ends inside the PFM magic number PF or Pf")
                              : "expected the PFM magic number PF or Pf, found " +
                                    describe_byte(static_cast<std::uint64_t>(c)),
                        name);
    }
    h.depth = c == 'F' ? 3 : 1;
    ++cur.pos;
    end_pfm_line(cur, "magic number", name, err);
    if (err.code()) {
        return err;
    }
    std::uint64_t width_at = 0, height_at = 0;
    h.width = read_pfm_number(cur, "width", name, err, width_at);
    if (err.code()) {
        return err;
    }
    if (c = cur.peek(); c >= 0 && !is_pnm_space(static_cast<unsigned>(c))) {
        return pfm_fail(errc::expected_whitespace, cur.offset(),
                        "expected whitespace after the PFM width, found " +
                            describe_byte(static_cast<std::uint64_t>(c)),
                        name);
    }
    h.height = read_pfm_number(cur, "height", name, err, height_at);
    if (err.code()) {
        return err;
    }
    end_pfm_line(cur, "height", name, err);
    if (err.code()) {
        return err;
    }

    c = cur.peek();
    while (c >= 0 && is_pnm_space(static_cast<unsigned>(c))) {
        ++cur.pos;
        c = cur.peek();
    }
    const std::uint64_t scale_at = cur.offset();
    char token[64];
    std::size_t length = 0;
    while (c >= 0 && !is_pnm_space(static_cast<unsigned>(c)) && length < sizeof token) {
        token[length++] = static_cast<char>(c);
        ++cur.pos;
        c = cur.peek();
    }
    const char* first = token;
    if (length > 0 && token[0] == '+') {
        ++first; // from_chars takes no '+', scanf's %f does
    }
    float scale = 0;
    if (length == 0 || length == sizeof token || !parse_scale(first, token + length, scale) ||
        !std::isfinite(scale) || scale == 0) {
        return pfm_fail(
            length == 0 && c < 0 ? errc::truncated_header : errc::expected_number, scale_at,
            length == 0 && c < 0
                ? std::string("input ends inside the PFM header; expected the scale")
                : "expected the PFM scale, a finite nonzero decimal number (its sign is "
                  "the byte order)",
            name);
    }
    end_pfm_line(cur, "scale", name, err);
    if (err.code()) {
        return err;
    }
    h.little = scale < 0;
    h.scale = std::fabs(scale);
    if (__builtin_mul_overflow(std::uint64_t{h.width} * h.height, std::uint64_t{h.depth},
                               &h.samples) ||
        __builtin_mul_overflow(h.samples, std::uint64_t{4}, &h.bytes) ||
        h.samples > std::numeric_limits<std::size_t>::max() / 4) {
        return pfm_fail(errc::size_overflow, scale_at,
                        "image size " + std::to_string(h.width) + "x" + std::to_string(h.height) +
                            " overflows 64 bits",
                        name);
    }
    if (const pnm_error over = check_pnm_limits(limits, h.width, width_at, h.height, height_at,
                                                h.samples, 4, scale_at)) {
        return pfm_fail(errc::over_limit, over.offset, pnm_error_message(over), name);
    }
    h.raster_offset = cur.offset();
    return {};
}

/// The least count of bytes that must follow `n` bytes of a PFM header at `p` before its
/// last byte can have been read (0 when it has, or when the bytes are no PFM header: the
/// parse then says what they are): the header is four tokens (`PF` or `Pf`, the width, the
/// height, the scale), each ended by one whitespace byte.
inline std::size_t pfm_header_bytes_missing(const char* p, std::size_t n) noexcept {
    if ((n >= 1 && p[0] != 'P') || (n >= 2 && p[1] != 'F' && p[1] != 'f')) {
        return 0;
    }
    unsigned complete = 0;
    std::size_t token = 0; // bytes of the token being read
    for (std::size_t i = 0; i < n; ++i) {
        if (!is_pnm_space(static_cast<unsigned char>(p[i]))) {
            if (++token > 64) {
                return 0; // longer than any PFM header token: the parse reports it
            }
        } else if (token > 0) {
            token = 0;
            if (++complete == 4) {
                return 0;
            }
        }
    }
    if (complete == 0 && token < 2) {
        return 2 - token + 1 + 2 * 3; // the magic number, its whitespace, three more tokens
    }
    const unsigned left = 4 - complete - (token > 0 ? 1 : 0);
    return (token > 0 ? 1 : 0) + 2 * left;
}

/// The PFM header of the file (or pipe) open on `fd`, read without a byte of its raster
/// (read(2) of pfm_header_bytes_missing bytes at a time).
inline result<pfm_header> try_probe_pfm_fd(int fd, const std::filesystem::path& path) {
    std::string head;
    for (;;) {
        const std::size_t want = pfm_header_bytes_missing(head.data(), head.size());
        if (want == 0) {
            break;
        }
        const std::size_t had = head.size();
        head.resize(had + want);
        fastread::error err;
        const std::size_t got = read_full(fd, head.data() + had, want, path, err);
        head.resize(had + got);
        if (err.code()) {
            return err;
        }
        if (got < want) {
            break;
        }
    }
    memory_source bytes(std::span<const char>(head.data(), head.size()));
    decoder_cursor cur{source_ref(bytes)};
    pfm_header h;
    if (fastread::error e = read_pfm_header(cur, path.string(), h); e.code()) {
        return e;
    }
    return h;
}

/// The decoder's PFM header as a pfm::header.
inline pfm::header public_pfm_header(const pfm_header& h) {
    pfm::header out;
    out.width = h.width;
    out.height = h.height;
    out.depth = h.depth;
    out.scale = h.scale;
    out.little_endian = h.little;
    out.raster_offset = h.raster_offset;
    out.raster_bytes = h.bytes;
    return out;
}

/// Decodes the PFM image at the cursor (see fastread/pfm.hpp for the rules): the image or
/// its parse error (a header over `limits` among them).
inline result<pfm::image> read_pfm(decoder_cursor& cur, const std::string& name,
                                   const pnm_limits& limits = {}) {
    pfm_header h;
    if (fastread::error e = read_pfm_header(cur, name, h, limits); e.code()) {
        return e;
    }
    pfm::image img;
    img.width = h.width;
    img.height = h.height;
    img.depth = h.depth;
    img.scale = h.scale;
    const bool little = h.little;
    const std::uint64_t samples = h.samples, bytes = h.bytes;
    const std::uint64_t raster_at = h.raster_offset;
    const std::optional<std::uint64_t> remaining = cur.known_remaining();
    if (remaining && *remaining < bytes) {
        // Rejected before allocating: the input cannot hold what the header declares.
        return pfm_fail(errc::truncated_data, raster_at + *remaining,
                        "truncated raster: the header declares " + std::to_string(img.width) + "x" +
                            std::to_string(img.height) + " pixels (" + std::to_string(bytes) +
                            " bytes), the input ends after " + std::to_string(*remaining) +
                            " of them",
                        name);
    }
    const std::size_t row = std::size_t{img.width} * img.depth;
    const bool swap = little != (std::endian::native == std::endian::little);
    auto to_native = [&] {
        if (swap) {
            for (float& f : img.samples) {
                std::uint32_t bits = 0;
                std::memcpy(&bits, &f, 4);
                bits = __builtin_bswap32(bits);
                std::memcpy(&f, &bits, 4);
            }
        }
    };
    if (remaining) {
        // The input holds the raster: each row of the file read straight to its place, the
        // bottom one first.
        img.samples.resize(static_cast<std::size_t>(samples));
        for (std::size_t r = img.height; r-- > 0;) {
            const std::size_t got =
                cur.read(reinterpret_cast<char*>(img.samples.data() + r * row), row * 4);
            if (got < row * 4) {
                const std::uint64_t have = (img.height - 1 - r) * row * 4 + got;
                return pfm_fail(
                    errc::truncated_data, raster_at + have,
                    "truncated raster: the header declares " + std::to_string(img.width) + "x" +
                        std::to_string(img.height) + " pixels (" + std::to_string(bytes) +
                        " bytes), the input ends after " + std::to_string(have) + " of them",
                    name);
            }
        }
        to_native();
        return img;
    }
    // Read into the samples' storage, growing as data arrives, then flip the rows.
    std::uint64_t capacity = std::min<std::uint64_t>(samples, 1u << 16);
    img.samples.resize(static_cast<std::size_t>(capacity));
    std::uint64_t filled = 0;
    for (;;) {
        const std::uint64_t room = std::min<std::uint64_t>(img.samples.size() * 4, bytes);
        const auto want = static_cast<std::size_t>(room - filled);
        const std::size_t got =
            cur.read(reinterpret_cast<char*>(img.samples.data()) + filled, want);
        filled += got;
        if (got < want) {
            return pfm_fail(errc::truncated_data, raster_at + filled,
                            "truncated raster: the header declares " + std::to_string(img.width) +
                                "x" + std::to_string(img.height) + " pixels (" +
                                std::to_string(bytes) + " bytes), the input ends after " +
                                std::to_string(filled) + " of them",
                            name);
        }
        if (filled == bytes) {
            break;
        }
        img.samples.resize(static_cast<std::size_t>(
            std::min<std::uint64_t>(samples, std::uint64_t{img.samples.size()} * 2)));
    }
    // Rows bottom to top in the file: swap them into top to bottom.
    float* data = img.samples.data();
    for (std::size_t top = 0, bottom = img.height - 1; top < bottom; ++top, --bottom) {
        std::swap_ranges(data + top * row, data + top * row + row, data + bottom * row);
    }
    to_native();
    return img;
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_PFM_HPP
