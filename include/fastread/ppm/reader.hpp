#ifndef FASTREAD_PPM_READER_HPP
#define FASTREAD_PPM_READER_HPP

/// @file
/// The PPM decoder over any byte source: `ppm::load(source)` and `ppm::reader` (images back
/// to back). Included by fastread/ppm.hpp; in the separately compiled mode
/// (FASTREAD_SEPARATE_COMPILATION) include it yourself for these forms, which are
/// templates on your source type and compile in your translation unit.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../detail/chunk_cursor.hpp"
#include "../error.hpp"
#include "../pnm/detail/parse.hpp"
#include "../source/byte_source.hpp"
#include "image.hpp"

namespace fastread::ppm {

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

} // namespace fastread::ppm

#endif // FASTREAD_PPM_READER_HPP
