#ifndef FASTREAD_STRING_TABLE_DETAIL_LOAD_HPP
#define FASTREAD_STRING_TABLE_DETAIL_LOAD_HPP

/// @file
/// The little-endian 64-bit load of a table's header and offsets.

#include <bit>
#include <cstdint>
#include <cstring>

namespace fastread::detail {

/// The little-endian 64-bit integer at `p` (8 bytes, any alignment).
inline std::uint64_t load_u64(const unsigned char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) {
        v = __builtin_bswap64(v);
    }
    return v;
}

} // namespace fastread::detail

#endif // FASTREAD_STRING_TABLE_DETAIL_LOAD_HPP
