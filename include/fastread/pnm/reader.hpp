#ifndef FASTREAD_PNM_READER_HPP
#define FASTREAD_PNM_READER_HPP

/// @file
/// The Netpbm decoder over any byte source: `pnm::load(source)` and `pnm::reader` (images
/// back to back). Included by fastread/pnm.hpp; in the separately compiled mode
/// (FASTREAD_SEPARATE_COMPILATION) include it yourself for these forms, which are
/// templates on your source type and compile in your translation unit.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../detail/chunk_cursor.hpp"
#include "../error.hpp"
#include "../source/byte_source.hpp"
#include "detail/parse.hpp"
#include "image.hpp"

namespace fastread::pnm {

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

} // namespace fastread::pnm

#endif // FASTREAD_PNM_READER_HPP
