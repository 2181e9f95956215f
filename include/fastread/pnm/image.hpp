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
#include <string>
#include <type_traits>

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
