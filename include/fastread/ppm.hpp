#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PPM_HPP)
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

#include "detail/config.hpp"
#include "ppm/image.hpp"

#if FASTREAD_SEPARATE_COMPILATION
namespace fastread::ppm {
FASTREAD_DETAIL_PATH_LOADS(extern)
} // namespace fastread::ppm
#else
#include "pnm/detail/path_load.hpp"
#include "ppm/reader.hpp"
#endif

#endif // FASTREAD_PPM_HPP
