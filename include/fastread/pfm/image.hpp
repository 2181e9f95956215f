#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PFM_IMAGE_HPP)
#define FASTREAD_PFM_IMAGE_HPP

/// @file
/// fastread::pfm's types and the declarations of its loads and saves from a path (the
/// rules are on fastread/pfm.hpp), which fastread/pfm.hpp defines, or the compiled library
/// (FASTREAD_SEPARATE_COMPILATION).

#include <cstdint>
#include <filesystem>
#include <vector>

#include "../detail/config.hpp"
#include "../error.hpp"
#include "../pnm/options.hpp"
#include "../result.hpp"

namespace fastread::pfm {

/// A decoded PFM image.
struct image {
    std::uint32_t width = 0;  ///< pixels per row
    std::uint32_t height = 0; ///< rows
    std::uint32_t depth = 0;  ///< samples per pixel: 1 (`Pf`) or 3 (`PF`, R, G, B)
    float scale = 1;          ///< the absolute value of the header's scale (> 0)
    /// width * height * depth samples, rows top to bottom, pixels left to right, a pixel's
    /// samples together, native floats.
    std::vector<float> samples;

    /// Equal when every field and every sample is equal.
    friend bool operator==(const image&, const image&) = default;
};

/// What a PFM header says (Netpbm's pfm(5)), read without decoding the raster (`probe`).
struct header {
    std::uint32_t width = 0;    ///< pixels per row
    std::uint32_t height = 0;   ///< rows
    std::uint32_t depth = 0;    ///< samples per pixel: 1 (`Pf`) or 3 (`PF`)
    float scale = 1;            ///< the absolute value of the header's scale (> 0)
    bool little_endian = false; ///< the samples' byte order in the file (a negative scale)
    /// Input offset, in bytes, of the raster's first byte (just after the header).
    std::uint64_t raster_offset = 0;
    /// The raster's size in bytes: width * height * depth * 4.
    std::uint64_t raster_bytes = 0;

    /// Equal when every field is equal.
    friend bool operator==(const header&, const header&) = default;
};

/// Decodes the PFM file at `path`, streamed with read(2), or through a guarded map where
/// `options.io` asks (fastread/io.hpp); a file that shrinks meanwhile gives a parse_error
/// where its data now ends, never SIGBUS. `options`' limits apply (samples of 4 bytes).
/// Time O(file size); memory O(image size).
/// @throws fastread::parse_error (naming the file and the byte offset) if it is not a valid
///         PFM image (a Netpbm file is named as such), or its header is over a limit.
/// @throws std::system_error if the file cannot be opened or read.
image load(const std::filesystem::path& path, load_options options = {});

/// `load` without exceptions: the image, or the `error` the throwing form reports (same
/// code, offset, path and message). Never throws but `std::bad_alloc`.
result<image> try_load(const std::filesystem::path& path, load_options options = {});

/// Reads the header of the PFM file (or pipe) at `path`, and no byte of its raster: read(2)
/// asks for no more bytes than the header can still hold. Time O(header size).
/// @throws fastread::parse_error (naming the file and the byte offset) if the header is not
///         a valid PFM header, as pfm::load would report it.
/// @throws std::system_error if the file cannot be opened or read.
header probe(const std::filesystem::path& path);

/// `probe` without exceptions: the header, or the `error` the throwing form reports.
/// Never throws but `std::bad_alloc`.
result<header> try_probe(const std::filesystem::path& path);

/// Writes `img` to `path` as PFM: `PF` for depth 3, `Pf` for depth 1, the scale negated on a
/// little-endian host (the samples are written in native order), rows bottom to top.
/// Atomic, as ppm::save (a temporary file renamed over `path`).
/// @throws std::invalid_argument if `img` is inconsistent (a dimension 0, depth not 1 or 3,
///         `samples.size() != width * height * depth`, a scale not finite and positive);
///         nothing is written then.
/// @throws std::system_error naming `path` if the file cannot be created, written or renamed.
void save(const std::filesystem::path& path, const image& img);

/// `save` without exceptions: nothing, or the `error` the throwing form reports (the
/// caller's mistakes as `errc::invalid_argument`, nothing written then; the system's
/// failures with their errno). Never throws but `std::bad_alloc`.
result<void> try_save(const std::filesystem::path& path, const image& img);

} // namespace fastread::pfm

#endif // FASTREAD_PFM_IMAGE_HPP
