#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_STRING_TABLE_FORMAT_HPP)
#define FASTREAD_STRING_TABLE_FORMAT_HPP

/// @file
/// The string table format's constants (docs/string-table.md); fastread/string_table.hpp
/// writes and reads it.

#include <array>
#include <cstddef>
#include <cstdint>

namespace fastread::string_table {

/// The format's constants (docs/string-table.md).
namespace format {
/// Bytes 0-7: not ASCII first (a text-mode transfer or a 7-bit channel changes it), then
/// CR LF and ^Z, which text-mode conversions mangle (the PNG signature's trick).
inline constexpr std::array<unsigned char, 8> magic{0x89, 'S', 'T', 'B', '\r', '\n', 0x1a, '\n'};
inline constexpr std::uint16_t major_version = 1; ///< readers reject another major version
inline constexpr std::uint16_t minor_version = 0; ///< readers accept any minor version
/// Written as a little-endian u32: bytes 04 03 02 01. Read as 01 02 03 04, the file was
/// byte-swapped (or written by a big-endian writer).
inline constexpr std::uint32_t byte_order_mark = 0x01020304;
inline constexpr std::size_t header_size = 64; ///< bytes of the header, before the offsets
///@{
/// Header field positions, in bytes from the start of the file (docs/string-table.md):
/// major and minor version (u16 each), byte-order mark (u32), string count, offsets and
/// data positions, data size, file size (u64 each), then reserved bytes up to header_size.
inline constexpr std::size_t at_version = 8, at_minor = 10, at_byte_order = 12, at_count = 16,
                             at_offsets = 24, at_data = 32, at_data_size = 40, at_file_size = 48,
                             at_reserved = 56;
///@}
} // namespace format

} // namespace fastread::string_table

#endif // FASTREAD_STRING_TABLE_FORMAT_HPP
