#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PNM_IMAGE_HPP)
#define FASTREAD_PNM_IMAGE_HPP

/// @file
/// fastread::pnm's types and the declarations of its loads and saves from a path (the
/// rules are on fastread/pnm.hpp), which fastread/pnm.hpp defines, or the compiled library
/// (FASTREAD_SEPARATE_COMPILATION).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "../detail/config.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "../sample_vector.hpp"
#include "options.hpp"

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

/// What a Netpbm header says (pnm(5): the magic number, the dimensions, maxval; PAM's depth
/// and tuple type) and where its raster lies: what `probe` reads without decoding, and what
/// `load_into`, `load_batch` and `row_reader` return for each image.
struct header {
    format encoding = format::ppm_raw; ///< the format the magic number names
    std::uint32_t width = 0;           ///< pixels per row
    std::uint32_t height = 0;          ///< rows
    std::uint32_t depth = 0;           ///< samples per pixel: 1 PBM and PGM, 3 PPM, PAM's DEPTH
    std::uint16_t maxval = 0;          ///< 1..65535, the value of full intensity; 1 for PBM
    /// PAM's TUPLTYPE (empty if the file gave none); BLACKANDWHITE, GRAYSCALE or RGB for P1-P6.
    std::string tuple_type;
    /// Input offset, in bytes, of the raster's first byte (just after the header).
    std::uint64_t raster_offset = 0;
    /// The raster's size in the input, in bytes: `height * ceil(width / 8)` for P4,
    /// `samples() * sample_bytes` for P5 to P7; 0 for the plain formats P1 to P3, whose
    /// raster's length only its parse tells.
    std::uint64_t raster_bytes = 0;
    /// Bytes a sample needs: 1 when maxval <= 255 (`std::uint8_t` holds it; a raw raster
    /// stores it in one byte), else 2 (`std::uint16_t`; two bytes in a raw raster).
    unsigned sample_bytes = 0;

    /// width * height * depth: the samples the image decodes to.
    std::uint64_t samples() const noexcept { return std::uint64_t{width} * height * depth; }

    /// Equal when every field is equal.
    friend bool operator==(const header&, const header&) = default;
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

/// `load` without exceptions: the image, or the `error` the throwing form reports (the same
/// code, byte offset, path and message: `errc` codes for malformed input, the errno for the
/// system's failures). Never throws but `std::bad_alloc`. The throwing form is this call
/// and `result::value()`, so both run the same code at the same speed.
///
/// ```
/// fastread::result<fastread::pnm::image<>> r = fastread::pnm::try_load("a.pgm");
/// if (!r) { std::fprintf(stderr, "%s\n", r.error().message().c_str()); }
/// ```
template <class Sample = std::uint8_t>
result<image<Sample>> try_load(const std::filesystem::path& path, load_options options = {});

/// Reads the header of the first image of the Netpbm file (or pipe) at `path`, and no byte
/// of its raster: read(2) asks for no more bytes than the header can still hold (each number
/// still missing needs a digit and a delimiter, PAM's header ends with `ENDHDR`), a few
/// calls for a typical header. No limit applies (nothing is allocated but the header's bytes).
/// Time O(header size).
/// @throws fastread::parse_error (naming the file and the byte offset) if the header is not
///         a valid Netpbm header (P1 to P7, 8 or 16 bits), as pnm::load would report it.
/// @throws std::system_error if the file cannot be opened or read.
header probe(const std::filesystem::path& path);

/// `probe` without exceptions: the header, or the `error` the throwing form reports.
/// Never throws but `std::bad_alloc`.
result<header> try_probe(const std::filesystem::path& path);

/// Decodes the first image of the Netpbm file at `path` into the caller's buffer: row r
/// (`width * depth` samples, as pnm::load's image holds them) at `dst[r * row_stride]`,
/// the samples between rows (`row_stride - width * depth` after each row but the last)
/// left untouched. The same samples, checks and errors as `load` (read the same way: a big
/// cached raw file in slices on several threads, with pread(2) straight into `dst` when the
/// samples are stored as the file holds them), and `options`' limits. On an error, rows
/// before it may have been written. Time O(file size); memory O(1) beyond fixed buffers.
///
/// ```
/// fastread::pnm::header h = fastread::pnm::probe("face.pgm");
/// std::vector<std::uint8_t> buf(h.height * (h.width * h.depth + 13));
/// fastread::pnm::load_into("face.pgm", std::span(buf), h.width * h.depth + 13);
/// ```
/// @param dst at least `(height - 1) * row_stride + width * depth` samples.
/// @param row_stride samples from one row's start to the next's, at least `width * depth`.
/// @returns the image's header.
/// @throws std::invalid_argument if `row_stride` is below `width * depth` or `dst` cannot
///         hold the rows, before any raster byte is read.
/// @throws fastread::parse_error as `load` (naming the file and the byte offset), also
///         for a header over a limit of `options` (`errc::over_limit`).
/// @throws std::system_error if the file cannot be opened or read.
template <class Sample>
header load_into(const std::filesystem::path& path, std::span<Sample> dst, std::size_t row_stride,
                 load_options options = {});

/// `load_into` without exceptions: the header, or the `error` the throwing form reports
/// (the buffer's problems as `errc::invalid_argument`). Never throws but `std::bad_alloc`.
template <class Sample>
result<header> try_load_into(const std::filesystem::path& path, std::span<Sample> dst,
                             std::size_t row_stride, load_options options = {});

/// Decodes many Netpbm files of one shape into one buffer: image k's `width * height *
/// depth` samples at `dst[k * width * height * depth]`, densely, rows as `load` gives them.
/// The shape (width, height, depth) is that of the first file whose header reads; a file of
/// another shape, a malformed one or one that cannot be read is reported in its result (its
/// path and byte offset; another shape as `errc::shape_mismatch` at offset 0) and leaves its
/// slot untouched, the others are decoded. Each maxval may differ (samples are never
/// rescaled; each result says it). The files are opened, read, decoded and closed on each
/// thread `options` allows (load_options::threads), each thread holding one descriptor at a
/// time and one file's bytes; `options`' limits apply to each file. Time O(total size).
///
/// ```
/// std::vector<std::uint8_t> all(paths.size() * 92 * 112);
/// std::vector<fastread::result<fastread::pnm::header>> each =
///     fastread::pnm::load_batch(paths, std::span(all));
/// ```
/// @param dst at least `paths.size() * width * height * depth` samples (the shape known
///        from the first readable header).
/// @returns one result per path, in order: the file's header, or its error.
/// @throws std::invalid_argument if `dst` is too small, before any raster is read.
template <class Sample>
std::vector<result<header>> load_batch(std::span<const std::filesystem::path> paths,
                                       std::span<Sample> dst, load_options options = {});

/// `load_batch` without exceptions: the results, or the `error` the throwing form reports
/// (a too small `dst` as `errc::invalid_argument`; a bad FASTREAD_THREADS). Never throws but
/// `std::bad_alloc`.
template <class Sample>
result<std::vector<result<header>>> try_load_batch(std::span<const std::filesystem::path> paths,
                                                   std::span<Sample> dst,
                                                   load_options options = {});

/// The headers of many Netpbm files, as `probe` reads each (no raster byte), on each thread
/// `options.threads` allows (0: the process setting, fastread/threads.hpp); the other
/// fields of `options` are not used. Time O(total header size).
/// @returns one result per path, in order: the header, or the error `probe` reports.
/// @throws std::invalid_argument for a bad process setting (`FASTREAD_THREADS`,
///         `FASTREAD_IO`), before any file is opened; nothing else but `std::bad_alloc`.
std::vector<result<header>> probe_batch(std::span<const std::filesystem::path> paths,
                                        load_options options = {});

/// `probe_batch` without exceptions: the results, or the error of a bad process setting.
/// Never throws but `std::bad_alloc`.
result<std::vector<result<header>>> try_probe_batch(std::span<const std::filesystem::path> paths,
                                                    load_options options = {});

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

/// `save` without exceptions: nothing, or the `error` the throwing form reports (the caller's
/// mistakes as `errc::invalid_argument`, nothing written then; the system's failures with
/// their errno, naming `path`, which is then left untouched). Never throws but
/// `std::bad_alloc`.
template <class Sample>
result<void> try_save(const std::filesystem::path& path, const image<Sample>& img, format fmt);

} // namespace fastread::pnm

#endif // FASTREAD_PNM_IMAGE_HPP
