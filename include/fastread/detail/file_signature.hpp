#ifndef FASTREAD_DETAIL_FILE_SIGNATURE_HPP
#define FASTREAD_DETAIL_FILE_SIGNATURE_HPP

/// @file
/// The signatures ("magic numbers") of the common binary formats a user may hand a text or
/// Netpbm parser by mistake, so that its error names the format instead of a byte.

#include <cstddef>
#include <cstring>
#include <string_view>

namespace fastread::detail {

/// What the first bytes [p, end) of an input are, as a noun phrase for a message ("a PNG
/// file", "a gzip-compressed file"), or null when they are none of: PNG, JPEG, GIF, TIFF,
/// WebP, gzip, zstd, bzip2, xz, zip, PDF. The signatures are those of each format's
/// specification (PNG: RFC 2083 §3.1; JPEG: ITU T.81 SOI then a marker; GIF: GIF87a/GIF89a;
/// TIFF 6.0 §2 "II*\0" / "MM\0*"; WebP: RIFF container, "WEBP" at byte 8; gzip: RFC 1952
/// ID1 ID2; zstd: RFC 8878 §3.1.1 frame magic; bzip2: "BZh" and a block size digit; xz: the
/// .xz file format §2.1.1.1; zip: APPNOTE 4.3.7 local file header, or the end record of an
/// empty archive; PDF: ISO 32000 §7.5.2 "%PDF-"). Reads at most 12 bytes, none past `end`.
inline const char* file_signature(const char* p, const char* end) noexcept {
    const std::size_t n = static_cast<std::size_t>(end - p);
    auto starts = [&](const char* sig, std::size_t len, std::size_t at = 0) {
        return n >= at + len && std::memcmp(p + at, sig, len) == 0;
    };
    if (starts("\x89PNG\r\n\x1a\n", 8)) {
        return "a PNG file";
    }
    if (starts("\xff\xd8\xff", 3)) {
        return "a JPEG file";
    }
    if (starts("GIF87a", 6) || starts("GIF89a", 6)) {
        return "a GIF file";
    }
    if (starts("II*\0", 4) || starts("MM\0*", 4)) {
        return "a TIFF file";
    }
    if (starts("RIFF", 4) && starts("WEBP", 4, 8)) {
        return "a WebP file";
    }
    if (starts("\x1f\x8b", 2)) {
        return "a gzip-compressed file";
    }
    if (starts("\x28\xb5\x2f\xfd", 4)) {
        return "a zstd-compressed file";
    }
    if (starts("BZh", 3) && n >= 4 && p[3] >= '1' && p[3] <= '9') {
        return "a bzip2-compressed file";
    }
    if (starts("\xfd"
               "7zXZ\0",
               6)) {
        return "an xz-compressed file";
    }
    if (starts("PK\x03\x04", 4) || starts("PK\x05\x06", 4)) {
        return "a zip file";
    }
    if (starts("%PDF-", 5)) {
        return "a PDF file";
    }
    return nullptr;
}

/// The format (file_signature) whose signature starts with `taken`, the bytes already read
/// at the input's start, and goes on at `cur` (a chunk_cursor), or null. Reads up to 12
/// bytes in all from the cursor, whatever its chunks: for an input already refused.
template <class Cursor>
const char* signature_at(Cursor& cur, std::string_view taken) {
    char first[12];
    std::size_t n = 0;
    for (; n < taken.size() && n < sizeof first; ++n) {
        first[n] = taken[n]; // (memcpy takes no null data, which an empty view may have)
    }
    for (int c = cur.peek(); n < sizeof first && c >= 0; c = cur.peek()) {
        first[n++] = static_cast<char>(c);
        ++cur.pos;
    }
    return file_signature(first, first + n);
}

} // namespace fastread::detail

#endif // FASTREAD_DETAIL_FILE_SIGNATURE_HPP
