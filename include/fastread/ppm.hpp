#ifndef FASTREAD_PPM_HPP
#define FASTREAD_PPM_HPP

/// @file
/// `fastread::ppm`: decode and encode PPM images, plain (P3, ASCII) and raw (P6, binary),
/// 8- and 16-bit, following Netpbm's ppm(5) (https://netpbm.sourceforge.net/doc/ppm.html),
/// with libnetpbm deciding where the spec is silent.
///
/// Rules the decoder applies:
/// - Header: magic `P3` or `P6`; then width, height and maxval as unsigned decimal numbers
///   separated by whitespace (space, TAB, CR, LF, VT, FF). Width and height 1..4294967295;
///   maxval 1..65535. No sign characters. As in libnetpbm, the width may follow the magic
///   directly (`P62 2 255`).
/// - Comments run from `#` to the next CR or LF and may appear anywhere in the header, even
///   glued to a token (`2#c\n2` is width 2, height 2; libnetpbm's `pm_getc` treats a comment
///   as its line end), and between plain samples.
/// - Raw: exactly one whitespace byte ends the header (`255\r\n` leaves `\n` as the first
///   raster byte); a comment straight after maxval is skipped and its line end is that byte
///   (libnetpbm). Samples are 1 byte when maxval < 256, else 2 bytes, most significant first.
/// - Plain: samples are decimal numbers separated by whitespace or comments; a comment
///   straight after a sample ends it (a `reader` skips it before the next image, as
///   libnetpbm does). The input may end right after the last sample: fastread's own
///   leniency (ppm(5) puts whitespace after each sample; libnetpbm 11 fails there).
///   Whatever follows the image is not read by `load`.
/// - A sample above maxval is an error (libnetpbm >= 10.66). Samples are never rescaled:
///   maxval is reported beside them.
/// - Sizes are computed in 64 bits. A header that declares more than the input can hold is
///   rejected without allocating the image when the input size is known (memory, mmap); a
///   stream's buffer grows only as data arrives.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

namespace fastread::ppm {

/// The two PPM encodings: plain (P3, ASCII decimal samples) and raw (P6, binary samples).
enum class format { plain = 3, raw = 6 };

/// A decoded RGB image.
///
/// @tparam Sample `std::uint8_t` (maxval <= 255) or `std::uint16_t` (any maxval).
template <class Sample>
struct image {
    static_assert(std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t>,
                  "fastread::ppm::image samples are std::uint8_t or std::uint16_t");

    std::uint32_t width = 0;  ///< pixels per row
    std::uint32_t height = 0; ///< rows
    std::uint16_t maxval = 0; ///< 1..65535, as stored in the file: the value of full intensity
    /// width * height * 3 samples: rows top to bottom, pixels left to right, each R, G, B;
    /// native byte order; every sample <= maxval.
    sample_vector<Sample> samples;

    /// Equal when every field and every sample is equal.
    friend bool operator==(const image&, const image&) = default;
};

/// Decodes the first image of the PPM file at `path`.
///
/// The file is read (`options.io`: unless the caller asks for a guarded map, fastread/io.hpp).
/// A regular file in the page cache whose raster is big enough (a plain one of 4 MiB or more,
/// a raw one of 8 MiB) is cut into slices of at least 2 MiB (plain) or 4 MiB (raw), one per
/// thread the call may use (`options.threads`, fastread/threads.hpp; at most 8), each read
/// with `pread(2)` on its own thread: a plain slice through its own 256 KiB buffer and parsed
/// there, a raw one straight into the samples (8-bit, maxval 255) or through a 256 KiB buffer
/// it decodes from (16-bit samples swapped, samples checked against a lower maxval). The
/// header must lie in the first 64 KiB, else the file is streamed. Everything else (cold or
/// small files, pipes, FIFOs, `/proc` files) is streamed with `read(2)`: a plain raster chunk
/// by chunk through a 64 KiB buffer, a raw one straight into the samples. The plain raster
/// goes through the SIMD kernel of scan::active_level(). Time O(file size); memory O(image
/// size) beyond those buffers.
///
/// A file that shrinks while it is read gives a parse_error at the byte where its data now
/// ends (read: the input ended there, or the size checked after the parse is below the bytes
/// read; map: the guard saw the lost pages, or the size checked after the parse is smaller),
/// never SIGBUS.
/// @tparam Sample `std::uint8_t` (default) or `std::uint16_t` for maxval above 255.
/// @throws fastread::parse_error (naming the file and the byte offset) if the file is not a
///         valid P3 or P6 image, or if `Sample` is `std::uint8_t` and maxval exceeds 255.
/// @throws std::system_error if the file cannot be opened or read.
template <class Sample = std::uint8_t>
image<Sample> load(const std::filesystem::path& path, load_options options = {});

/// Decodes the first image from `source`, any `byte_source` (e.g. `read_source`,
/// `stdio_source` over stdin, `memory_source`). Reads up to the end of that image only.
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Sample = std::uint8_t, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source);

/// Decodes a sequence of images from one source: ppm(5) raw files may hold several images
/// back to back, and libnetpbm (`pm_nextimage`) skips whitespace between them.
///
/// ```
/// fastread::read_source source("frames.ppm");
/// fastread::ppm::reader frames(source);          // std::uint8_t samples
/// for (fastread::ppm::image<std::uint8_t> frame; frames.next(frame);) { ... }
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

/// `ppm::reader frames(source)` reads 8-bit samples (std::uint8_t); name the sample type,
/// `ppm::reader<std::uint16_t, Source>`, for 16-bit ones. Deduction throws nothing.
template <byte_source Source>
reader(Source&) -> reader<std::uint8_t, Source>;

/// Writes `img` to `path` as P3 (`format::plain`, lines of at most 70 characters, each row
/// starting a new line) or P6 (`format::raw`, 2-byte big-endian samples when maxval > 255).
///
/// Atomic: writes a temporary file in the same directory, `fsync`s it and renames it over
/// `path`, so readers never see a partial image and a failure leaves `path` untouched.
/// What `path` already names: a symbolic link is followed (the file it names is replaced);
/// a regular file keeps its permission bits, owner and group (as far as the caller may set
/// them); a file with other hard links, a directory, FIFO, socket or device is refused
/// before anything is written (README, "Guarantees").
/// @throws std::invalid_argument if `img` is inconsistent (a dimension 0, maxval 0 or above
///         255 for 8-bit samples, `samples.size() != width * height * 3`, a sample above
///         maxval); nothing is written then.
/// @throws std::system_error naming `path` if the file cannot be created, written or
///         renamed, or is refused: EMLINK (other hard links), EISDIR, EINVAL (not a regular
///         file), ELOOP (a symbolic link loop). On Windows also when `path` is mapped or
///         open elsewhere without delete sharing (MoveFileExW refuses to replace it, EACCES);
///         on POSIX a map of the old file keeps the old bytes.
template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt = format::raw);

} // namespace fastread::ppm

namespace fastread::detail {

/// The decoder's P3 or P6 image as a ppm::image.
template <class Sample>
ppm::image<Sample> to_ppm_image(decoded_pnm<Sample>&& decoded) {
    ppm::image<Sample> img;
    img.width = decoded.header.width;
    img.height = decoded.header.height;
    img.maxval = decoded.header.maxval;
    img.samples = std::move(decoded.samples);
    return img;
}

} // namespace fastread::detail

namespace fastread::ppm {

template <class Sample>
image<Sample> load(const std::filesystem::path& path, load_options options) {
    const fastread::detail::thread_scope threads(options.threads);
    return fastread::detail::to_ppm_image(
        fastread::detail::load_pnm_file<Sample>(path, options.io, /*any_format=*/false));
}
template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source) {
    return fastread::detail::to_ppm_image(fastread::detail::load_first_pnm<Sample>(
        source, fastread::detail::source_name(source), /*any_format=*/false));
}

template <class Sample, byte_source Source>
bool reader<Sample, Source>::next(image<Sample>& out) {
    if (!fastread::detail::next_image_follows(cursor_, started_)) {
        return false;
    }
    fastread::detail::ppm_header header;
    fastread::detail::ppm_error err = fastread::detail::read_ppm(cursor_, header, out.samples);
    if (err) {
        out = image<Sample>{};
        throw parse_error(err.offset, fastread::detail::ppm_error_message(err), name_);
    }
    out.width = header.width;
    out.height = header.height;
    out.maxval = header.maxval;
    return true;
}

template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    fastread::detail::check_pnm_image("fastread::ppm::save", img.width, img.height, 3, img.maxval,
                                      img.samples.data(), img.samples.size());
    fastread::detail::atomic_file file(path);
    fastread::detail::encode_pnm(img.width, img.height, 3, img.maxval, std::string(),
                                 img.samples.data(), img.samples.size(),
                                 fmt == format::plain ? '3' : '6',
                                 [&](const char* data, std::size_t n) { file.write(data, n); });
    file.commit();
}

} // namespace fastread::ppm

#endif // FASTREAD_PPM_HPP
