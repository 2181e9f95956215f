#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PNM_HPP)
#define FASTREAD_PNM_HPP

/// @file
/// `fastread::pnm`: decode and encode the whole Netpbm family: PBM (P1 plain, P4 raw), PGM
/// (P2, P5), PPM (P3, P6) and PAM (P7), 8- and 16-bit samples, following Netpbm's spec pages
/// pbm(5), pgm(5), ppm(5) and pam(5) (https://netpbm.sourceforge.net/doc/), with libnetpbm
/// deciding where they are silent. `fastread::ppm` stays the RGB-only interface to P3 and
/// P6; `fastread::pfm` reads PFM, whose floating-point samples are no Netpbm format.
///
/// Rules the decoder applies, beyond those of fastread::ppm (header tokens, comments,
/// 64-bit sizes, samples never rescaled, every sample <= maxval, a raw 16-bit sample big-endian):
/// - PBM has no maxval: it decodes as Netpbm's own PBM to PAM conversion (`pamtopam`) does,
///   depth 1, maxval 1, tuple type BLACKANDWHITE, sample 0 black and 1 white (in the file,
///   1 is black), so a PBM and the PGM made from it agree. Plain (P1) bits are the bytes
///   `0` and `1`, whitespace and comments optional between them (`0101` is four pixels);
///   raw (P4) rows hold 8 pixels a byte, most significant bit first, padded to a whole byte,
///   the pad bits ignored.
/// - PGM is PPM with one sample a pixel (tuple type GRAYSCALE); PPM's tuple type is RGB.
/// - PAM: `P7` and a line end; then header lines `WIDTH`, `HEIGHT`, `DEPTH`, `MAXVAL`
///   (required, in any order; a keyword given twice keeps its last value, as libnetpbm),
///   `TUPLTYPE` (optional; several are joined with a space; any text is kept, at most 255
///   bytes) and `ENDHDR`, whose line end is the last header byte. Blank lines and lines
///   whose first non-blank byte is `#` are skipped. The raster is raw, DEPTH samples a pixel.
/// - A plain sample directly followed by a comment ends there; a `reader` skips the comment
///   (libnetpbm reads a comment as a line end). The input may end right after the last
///   plain sample: fastread's own leniency (libnetpbm 11 fails at that end of file).
/// - A header that declares more than the input can hold is rejected before the samples are
///   allocated when the input size is known (memory, a map, a regular file).

#include "detail/config.hpp"
#include "pnm/image.hpp"

#if FASTREAD_SEPARATE_COMPILATION
namespace fastread::pnm {
FASTREAD_DETAIL_PATH_LOADS(extern)
FASTREAD_DETAIL_PNM_PATH_LOADS(extern)
} // namespace fastread::pnm
#else
#include "pnm/detail/path_load.hpp"
#include "pnm/reader.hpp"
#include "pnm/row_reader.hpp"
#endif

#endif // FASTREAD_PNM_HPP
