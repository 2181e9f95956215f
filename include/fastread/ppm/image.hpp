#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PPM_IMAGE_HPP)
#define FASTREAD_PPM_IMAGE_HPP

/// @file
/// fastread::ppm's types and the declarations of its loads and saves from a path (the
/// rules are on fastread/ppm.hpp), which fastread/ppm.hpp defines, or the compiled library
/// (FASTREAD_SEPARATE_COMPILATION).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>

#include "../detail/config.hpp"
#include "../error.hpp"
#include "../pnm/options.hpp"
#include "../result.hpp"
#include "../sample_vector.hpp"

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

/// `load` without exceptions: the image, or the `error` the throwing form reports (the same
/// code, byte offset, path and message: `errc` codes for malformed input, the errno for the
/// system's failures). Never throws but `std::bad_alloc`. The throwing form is this call
/// and `result::value()`, so both run the same code at the same speed.
///
/// ```
/// fastread::result<fastread::ppm::image<>> r = fastread::ppm::try_load("a.ppm");
/// if (!r) { std::fprintf(stderr, "%s\n", r.error().message().c_str()); }
/// ```
template <class Sample = std::uint8_t>
result<image<Sample>> try_load(const std::filesystem::path& path, load_options options = {});

/// Writes `img` to `path` as P3 (`format::plain`, lines of at most 70 characters, each row
/// starting a new line) or P6 (`format::raw`, 2-byte big-endian samples when maxval > 255).
///
/// Atomic: writes a temporary file in the same directory, `fsync`s it and renames it over
/// `path`, so readers never see a partial image and a failure leaves `path` untouched.
/// What `path` already names: a symbolic link is followed (the file it names is replaced);
/// a regular file keeps its permission bits, owner and group (as far as the caller may set
/// them); a file with other hard links, a directory, FIFO, socket or device is refused
/// before anything is written (docs/guarantees.md).
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

/// `save` without exceptions: nothing, or the `error` the throwing form reports (the caller's
/// mistakes as `errc::invalid_argument`, nothing written then; the system's failures with
/// their errno, naming `path`, which is then left untouched). Never throws but
/// `std::bad_alloc`.
template <class Sample>
result<void> try_save(const std::filesystem::path& path, const image<Sample>& img,
                      format fmt = format::raw);

} // namespace fastread::ppm

#endif // FASTREAD_PPM_IMAGE_HPP
