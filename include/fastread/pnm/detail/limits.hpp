#ifndef FASTREAD_PNM_DETAIL_LIMITS_HPP
#define FASTREAD_PNM_DETAIL_LIMITS_HPP

// load_options' limits as the Netpbm and PFM decoders take them.

#include "../../detail/posix.hpp"
#include "../options.hpp"
#include "error.hpp"

namespace fastread::detail {

/// What `options` limits, as the decoders take it (max_bytes 0: the physical memory).
inline pnm_limits limits_of(const load_options& options) noexcept {
    return {options.max_width, options.max_height, options.max_samples,
            options.max_bytes == 0 ? physical_memory_bytes() : options.max_bytes};
}

} // namespace fastread::detail

#endif // FASTREAD_PNM_DETAIL_LIMITS_HPP
