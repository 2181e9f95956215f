#ifndef FASTREAD_PNM_HPP
#define FASTREAD_PNM_HPP

/// @file
/// `fastread::pnm`: decode and encode the whole Netpbm family: PBM (P1 plain, P4 raw), PGM
/// (P2, P5), PPM (P3, P6) and PAM (P7), 8- and 16-bit samples, following Netpbm's spec pages
/// pbm(5), pgm(5), ppm(5) and pam(5) (https://netpbm.sourceforge.net/doc/), with libnetpbm
/// deciding where they are silent. `fastread::ppm` stays the RGB-only interface to P3 and
/// P6; `fastread::pfm` reads PFM, whose floating-point samples are no Netpbm format.
///
/// Rules the decoder applies, beyond those of fastread::ppm (header tokens, comments,
/// 64-bit sizes, samples never rescaled, every sample <= maxval, a raw 16-bit sample big-endian):
/// - PBM has no maxval: it decodes as Netpbm's own PBM to PAM conversion (`pamtopam`) does,
///   depth 1, maxval 1, tuple type BLACKANDWHITE, sample 0 black and 1 white (in the file,
///   1 is black), so a PBM and the PGM made from it agree. Plain (P1) bits are the bytes
///   `0` and `1`, whitespace and comments optional between them (`0101` is four pixels);
///   raw (P4) rows hold 8 pixels a byte, most significant bit first, padded to a whole byte,
///   the pad bits ignored.
/// - PGM is PPM with one sample a pixel (tuple type GRAYSCALE); PPM's tuple type is RGB.
/// - PAM: `P7` and a line end; then header lines `WIDTH`, `HEIGHT`, `DEPTH`, `MAXVAL`
///   (required, in any order; a keyword given twice keeps its last value, as libnetpbm),
///   `TUPLTYPE` (optional; several are joined with a space; any text is kept, at most 255
///   bytes) and `ENDHDR`, whose line end is the last header byte. Blank lines and lines
///   whose first non-blank byte is `#` are skipped. The raster is raw, DEPTH samples a pixel.
/// - A plain sample directly followed by a comment ends there; a `reader` skips the comment
///   (libnetpbm reads a comment as a line end). The input may end right after the last
///   plain sample: fastread's own leniency (libnetpbm 11 fails at that end of file).
/// - A header that declares more than the input can hold is rejected before the samples are
///   allocated when the input size is known (memory, a map, a regular file).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>
#include <utility>

#include "detail/atomic_file.hpp"
#include "detail/chunk_cursor.hpp"
#include "error.hpp"
#include "pnm/detail/file.hpp"
#include "pnm/detail/parse.hpp"
#include "pnm/detail/write.hpp"
#include "pnm/options.hpp"
#include "sample_vector.hpp"
#include "source/byte_source.hpp"
#include "source/read_source.hpp"

namespace fastread::pnm {

/// The seven Netpbm encodings; each value is the digit of the file's magic number.
enum class format {
    pbm_plain = 1, ///< P1: bits as the characters 0 and 1
    pgm_plain = 2, ///< P2: decimal gray samples
    ppm_plain = 3, ///< P3: decimal R, G, B samples
    pbm_raw = 4,   ///< P4: bits packed 8 to a byte
    pgm_raw = 5,   ///< P5: binary gray samples
    ppm_raw = 6,   ///< P6: binary R, G, B samples
    pam = 7        ///< P7: binary tuples of DEPTH samples
};

/// A decoded Netpbm image of any format.
///
/// @tparam Sample `std::uint8_t` (maxval <= 255) or `std::uint16_t` (any maxval).
template <class Sample>
struct image {
    static_assert(std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t>,
                  "fastread::pnm::image samples are std::uint8_t or std::uint16_t");

    std::uint32_t width = 0;  ///< pixels per row
    std::uint32_t height = 0; ///< rows
    std::uint32_t depth = 0;  ///< samples per pixel: 1 PBM and PGM, 3 PPM, PAM's DEPTH
    std::uint16_t maxval = 0; ///< 1..65535, the value of full intensity; 1 for PBM
    /// PAM's TUPLTYPE (empty if the file gave none); BLACKANDWHITE, GRAYSCALE or RGB for P1-P6.
    std::string tuple_type;
    format encoding = format::ppm_raw; ///< what the file was
    /// width * height * depth samples: rows top to bottom, pixels left to right, a pixel's
    /// samples together; native byte order; every sample <= maxval (PBM: 0 black, 1 white).
    sample_vector<Sample> samples;

    /// Equal when every field and every sample is equal.
    friend bool operator==(const image&, const image&) = default;
};

/// Decodes the first image of the Netpbm file at `path` (P1 to P7).
///
/// Read as ppm::load reads a file (fastread/ppm.hpp: streamed with read(2), a big cached
/// plain raster (P2, P3) parsed, or raw one (P4 to P7) read and decoded, in slices on each
/// thread the call may use, mapped only when `options.io` asks); a file that shrinks
/// meanwhile gives a parse_error where its data now ends, never SIGBUS. Time O(file size); memory
/// O(image size) beyond fixed buffers.
/// @tparam Sample `std::uint8_t` (default) or `std::uint16_t` for maxval above 255.
/// @throws fastread::parse_error (naming the file and the byte offset) if the file is not a
///         valid Netpbm image (a PFM file is named as such), or if `Sample` is
///         `std::uint8_t` and maxval exceeds 255.
/// @throws std::system_error if the file cannot be opened or read.
template <class Sample = std::uint8_t>
image<Sample> load(const std::filesystem::path& path, load_options options = {});

/// Decodes the first image from `source`, any `byte_source` (e.g. `read_source`,
/// `stdio_source` over stdin, `memory_source`). Reads up to the end of that image only.
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Sample = std::uint8_t, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source);

/// Decodes a sequence of images from one source, in any mix of formats: the Netpbm formats
/// may hold several images back to back, and libnetpbm (`pm_nextimage`) skips whitespace
/// between them.
///
/// ```
/// fastread::read_source source("frames.pam");
/// fastread::pnm::reader frames(source);          // std::uint8_t samples
/// for (fastread::pnm::image<std::uint8_t> frame; frames.next(frame);) { ... }
/// ```
/// The source is borrowed and must outlive the reader.
template <class Sample, byte_source Source>
class reader {
  public:
    /// Reads nothing yet: the first next() does.
    /// @throws std::bad_alloc only (copying the source's path for messages).
    explicit reader(Source& source) : cursor_(source), name_(detail::source_name(source)) {}

    /// Decodes the next image into `out`, reusing its sample buffer.
    /// @returns true if an image was read; false when only whitespace remained (never on
    ///          the first call: an input without any image is an error).
    /// @throws fastread::parse_error if the next image is malformed or something other than
    ///         whitespace and an image follows; `out` is then left empty.
    bool next(image<Sample>& out);

    /// Input offset, in bytes, just after the last image read.
    std::uint64_t offset() const noexcept { return cursor_.offset(); }

  private:
    detail::chunk_cursor<Source> cursor_;
    std::string name_;
    bool started_ = false;
};

/// `pnm::reader frames(source)` reads 8-bit samples (std::uint8_t); name the sample type,
/// `pnm::reader<std::uint16_t, Source>`, for 16-bit ones. Deduction throws nothing.
template <byte_source Source>
reader(Source&) -> reader<std::uint8_t, Source>;

/// Writes `img` to `path` in format `fmt`: PBM needs depth 1 and maxval 1 (sample 0 is
/// written as black), PGM depth 1, PPM depth 3; PAM any depth, with the image's tuple type.
/// Plain formats start each row on a new line and keep lines to 70 characters; P1 writes
/// bits without spaces (as Netpbm); raw samples above 255 are 2 bytes, most significant first.
///
/// Atomic, as ppm::save: a temporary file in the same directory, `fsync`ed and renamed over
/// `path`; a failure leaves `path` untouched. Time and memory O(image size).
/// @throws std::invalid_argument if `img` is inconsistent (a dimension or depth 0, maxval 0
///         or above 255 for 8-bit samples, `samples.size() != width * height * depth`, a
///         sample above maxval), or does not fit `fmt` (depth, PBM's maxval 1, a tuple type
///         with a line end or longer than 255 bytes); nothing is written then.
/// @throws std::system_error naming `path` if the file cannot be created, written or renamed,
///         or is refused (as ppm::save: other hard links, not a regular file).
template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt);

} // namespace fastread::pnm

namespace fastread::detail {

/// The decoder's image as a pnm::image.
template <class Sample>
void to_pnm_image(decoded_pnm<Sample>&& decoded, pnm::image<Sample>& img) {
    ppm_header& h = decoded.header;
    img.width = h.width;
    img.height = h.height;
    img.depth = h.depth;
    img.maxval = h.maxval;
    img.tuple_type = std::move(h.tuple_type);
    img.encoding = static_cast<pnm::format>(h.magic - '0');
    img.samples = std::move(decoded.samples);
}

} // namespace fastread::detail

namespace fastread::pnm {

template <class Sample>
image<Sample> load(const std::filesystem::path& path, load_options options) {
    const fastread::detail::thread_scope threads(options.threads);
    image<Sample> img;
    fastread::detail::to_pnm_image(
        fastread::detail::load_pnm_file<Sample>(path, options.io, /*any_format=*/true), img);
    return img;
}

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source) {
    image<Sample> img;
    fastread::detail::to_pnm_image(fastread::detail::load_first_pnm<Sample>(
                                       source, fastread::detail::source_name(source), true),
                                   img);
    return img;
}

template <class Sample, byte_source Source>
bool reader<Sample, Source>::next(image<Sample>& out) {
    if (!fastread::detail::next_image_follows(cursor_, started_)) {
        return false;
    }
    fastread::detail::decoded_pnm<Sample> decoded;
    decoded.samples = std::move(out.samples);
    const fastread::detail::ppm_error err = fastread::detail::read_ppm(
        cursor_, decoded.header, decoded.samples, /*last_image=*/false, /*any_format=*/true);
    if (err) {
        out = image<Sample>{};
        throw parse_error(err.offset, fastread::detail::ppm_error_message(err), name_);
    }
    fastread::detail::to_pnm_image(std::move(decoded), out);
    return true;
}

template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    const char* who = "fastread::pnm::save";
    const auto magic = static_cast<int>(fmt);
    if (magic < 1 || magic > 7) {
        throw std::invalid_argument(std::string(who) + ": format " + std::to_string(magic) +
                                    " is none of P1 to P7");
    }
    fastread::detail::check_pnm_image(who, img.width, img.height, img.depth, img.maxval,
                                      img.samples.data(), img.samples.size());
    const bool bitmap = fmt == format::pbm_plain || fmt == format::pbm_raw;
    const bool graymap = fmt == format::pgm_plain || fmt == format::pgm_raw;
    const bool pixmap = fmt == format::ppm_plain || fmt == format::ppm_raw;
    const std::uint32_t want_depth = pixmap ? 3 : 1;
    if ((bitmap || graymap || pixmap) && img.depth != want_depth) {
        throw std::invalid_argument(std::string(who) + ": P" + std::to_string(magic) +
                                    " needs depth " + std::to_string(want_depth) +
                                    ", the image has " + std::to_string(img.depth));
    }
    if (bitmap && img.maxval != 1) {
        throw std::invalid_argument(std::string(who) + ": PBM needs maxval 1, the image has " +
                                    std::to_string(img.maxval));
    }
    if (fmt == format::pam && (img.tuple_type.size() > fastread::detail::max_tuple_type_bytes ||
                               img.tuple_type.find_first_of("\n\r") != std::string::npos)) {
        throw std::invalid_argument(std::string(who) +
                                    ": a PAM tuple type is one line of at most 255 bytes");
    }
    fastread::detail::atomic_file file(path);
    fastread::detail::encode_pnm(img.width, img.height, img.depth, img.maxval, img.tuple_type,
                                 img.samples.data(), img.samples.size(),
                                 static_cast<char>('0' + magic),
                                 [&](const char* data, std::size_t n) { file.write(data, n); });
    file.commit();
}

} // namespace fastread::pnm

#endif // FASTREAD_PNM_HPP
