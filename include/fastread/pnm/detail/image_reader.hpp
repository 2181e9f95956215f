#ifndef FASTREAD_PNM_DETAIL_IMAGE_READER_HPP
#define FASTREAD_PNM_DETAIL_IMAGE_READER_HPP

// What pnm and ppm share above the decoder: the decoded image as each face's image type,
// the first image of a source, and a reader of images back to back. ppm is pnm restricted
// to P3 and P6, with an image type that has no depth (always 3) or tuple type.

#include <cstdint>
#include <string>
#include <utility>

#include "../../detail/chunk_cursor.hpp"
#include "../../error.hpp"
#include "../../ppm/image.hpp"
#include "../../source/byte_source.hpp"
#include "../image.hpp"
#include "parse.hpp"

namespace fastread::detail {

/// The decoder's image as a pnm::image.
template <class Sample>
void to_image(decoded_pnm<Sample>&& decoded, pnm::image<Sample>& img) {
    pnm_header& h = decoded.header;
    img.width = h.width;
    img.height = h.height;
    img.depth = h.depth;
    img.maxval = h.maxval;
    img.tuple_type = std::move(h.tuple_type);
    img.encoding = static_cast<pnm::format>(h.magic - '0');
    img.samples = std::move(decoded.samples);
}

/// The decoder's P3 or P6 image as a ppm::image.
template <class Sample>
void to_image(decoded_pnm<Sample>&& decoded, ppm::image<Sample>& img) {
    img.width = decoded.header.width;
    img.height = decoded.header.height;
    img.maxval = decoded.header.maxval;
    img.samples = std::move(decoded.samples);
}

/// `Image` made from `decoded`.
template <class Image, class Sample>
Image as_image(decoded_pnm<Sample>&& decoded) {
    Image img;
    to_image(std::move(decoded), img);
    return img;
}

/// `decoded` as an `Image`, or its error.
template <class Image, class Sample>
result<Image> as_image_result(result<decoded_pnm<Sample>>&& decoded) {
    if (!decoded) {
        return decoded.error();
    }
    return as_image<Image>(std::move(*decoded));
}

/// The sample type of an image type.
template <class Image>
using sample_of = typename decltype(Image::samples)::value_type;

/// Images back to back from one source (the Netpbm formats allow it; libnetpbm's
/// `pm_nextimage` skips whitespace between them), any of P1 to P7 or only P3 and P6, as
/// `Image`: what pnm::reader and ppm::reader are.
template <class Image, class Source, bool AnyFormat>
class image_reader {
  public:
    explicit image_reader(Source& source)
        : source_(source), cursor_(source_), name_(source_name(source)) {}

    /// Decodes the next image into `out`, reusing its sample buffer: true, or false when
    /// only whitespace remained (never on the first call); or the error (the parse's, or
    /// the source's read error), `out` then left empty.
    result<bool> try_next(Image& out) {
        if (!next_image_follows(cursor_, started_)) {
            if (const fastread::error* read_error = source_.error()) {
                return *read_error;
            }
            return false;
        }
        decoded_pnm<sample_of<Image>> decoded;
        decoded.samples = std::move(out.samples);
        const pnm_error err = read_pnm(cursor_, decoded.header, decoded.samples,
                                       /*last_image=*/false, AnyFormat);
        if (err) {
            out = Image{};
            if (const fastread::error* read_error = source_.error()) {
                return *read_error;
            }
            return parse_error_value(err.offset, pnm_error_message(err), name_, to_errc(err.code));
        }
        to_image(std::move(decoded), out);
        return true;
    }

    /// try_next, reporting its error as throwing calls do.
    bool next(Image& out) { return value_or_throw(try_next(out)); }

    /// Input offset, in bytes, just after the last image read.
    std::uint64_t offset() const noexcept { return cursor_.offset(); }

  private:
    source_ref source_;
    decoder_cursor cursor_;
    std::string name_;
    bool started_ = false;
};

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_IMAGE_READER_HPP
