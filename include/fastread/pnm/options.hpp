#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PNM_OPTIONS_HPP)
#define FASTREAD_PNM_OPTIONS_HPP

/// @file
/// `fastread::load_options`: how `pnm::load`, `ppm::load` and `pfm::load` read a file.

#include "../io.hpp"

namespace fastread {

/// Options of the Netpbm and PFM loads from a path.
struct load_options {
    /// Read the file (the default, unless `FASTREAD_IO=map`) or map it (fastread/io.hpp:
    /// a guarded map; a file that shrinks during the call gives a parse_error, not SIGBUS).
    io_mode io = default_io_mode();
    /// The most threads the load uses, the calling thread included (1: none started);
    /// 0: the process setting (fastread/threads.hpp). Big cached rasters are read and
    /// decoded in slices on several threads; the image is the same whatever the count.
    unsigned threads = 0;
};

} // namespace fastread

#endif // FASTREAD_PNM_OPTIONS_HPP
