#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PFM_HPP)
#define FASTREAD_PFM_HPP

/// @file
/// `fastread::pfm`: decode and encode PFM (Portable Float Map) images, 32-bit floating-point
/// samples, one (`Pf`, grayscale) or three (`PF`, RGB) a pixel, as Netpbm's pfm(5) describes
/// the format (https://netpbm.sourceforge.net/doc/pfm.html) and its converters `pamtopfm` and
/// `pfmtopam` read and write it.
///
/// Rules the decoder applies:
/// - Header: `PF` or `Pf`, one whitespace byte; width and height, unsigned decimal numbers
///   (1..4294967295) separated by whitespace, one whitespace byte; the scale, a decimal real
///   number after optional whitespace, then one whitespace byte, the last of the header.
///   No comments (pfm(5) has none).
/// - The scale's sign is the samples' byte order: negative little-endian, positive
///   big-endian; 0 (which says neither) and non-finite scales are errors, as in `pfmtopam`.
/// - The raster holds width * height * depth IEEE 754 single-precision samples, rows bottom
///   to top. They are returned top to bottom in native byte order, unscaled (`pfmtopam`
///   divides them by the scale; `image::scale` keeps it).
/// - Sizes are computed in 64 bits; a header that declares more than the input can hold is
///   rejected before allocating when the input size is known.

#include "detail/config.hpp"
#include "pfm/image.hpp"

#if !FASTREAD_SEPARATE_COMPILATION
#include "pfm/reader.hpp"
#include "pnm/detail/pfm_path.hpp"
#endif

#endif // FASTREAD_PFM_HPP
