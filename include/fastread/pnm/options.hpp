#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PNM_OPTIONS_HPP)
#define FASTREAD_PNM_OPTIONS_HPP

/// @file
/// `fastread::load_options`: how `pnm::load`, `ppm::load` and `pfm::load` read a file.

#include <cstdint>

#include "../io.hpp"

namespace fastread {

/// Options of the Netpbm and PFM loads from a path.
struct load_options {
    /// Read the file (the default, `process_setting`, reads unless `FASTREAD_IO=map`) or map it
    /// (fastread/io.hpp: a guarded map; a file that shrinks during the call gives a parse_error,
    /// not SIGBUS).
    io_mode io = io_mode::process_setting;
    /// The most threads the load uses, the calling thread included (1: none started);
    /// 0: the process setting (fastread/threads.hpp). Big cached rasters are read and
    /// decoded in slices on several threads; the image is the same whatever the count.
    unsigned threads = 0;

    /// @name Limits
    /// What one image may declare before anything is allocated for it: a header over a
    /// limit is a parse_error (`errc::over_limit`) at the offset of the header field that
    /// passes it (the width, the height; the maxval, PBM's height or PAM's ENDHDR for the
    /// sample count and bytes), for files and streams alike. The defaults let any image the
    /// machine could hold through; a service decoding untrusted files lowers them.
    /// @{
    std::uint64_t max_width = UINT64_MAX;   ///< pixels per row (the formats allow 2^32 - 1)
    std::uint64_t max_height = UINT64_MAX;  ///< rows (the formats allow 2^32 - 1)
    std::uint64_t max_samples = UINT64_MAX; ///< width * height * depth
    /// The bytes the samples take in memory (samples * sizeof(Sample); PFM: * sizeof(float)),
    /// the allocation one image may cause. 0, the default: the machine's physical memory.
    std::uint64_t max_bytes = 0;
    /// @}
};

} // namespace fastread

#endif // FASTREAD_PNM_OPTIONS_HPP
