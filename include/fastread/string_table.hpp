#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_STRING_TABLE_HPP)
#define FASTREAD_STRING_TABLE_HPP

/// @file
/// A zero-copy string table: many strings persisted flat in one file and used straight
/// from a map of it. `string_table::write` and `string_table::writer` create tables;
/// `string_table::view::open` maps one and checks every offset in one pass,
/// `view::open_unchecked` checks only the header (O(1) in the number of strings). The file
/// format is specified in docs/string-table.md: a 64-byte header, `count + 1` 64-bit
/// little-endian offsets (8-byte aligned), the string bytes.
///
/// string_table/view.hpp reads tables, string_table/writer.hpp writes them; in the compiled
/// mode (FASTREAD_SEPARATE_COMPILATION) this header gives the view only (its opening compiled
/// once in the library): include string_table/writer.hpp where tables are written.
///
/// Byte order: tables are little-endian on every host. On a big-endian host `open` and
/// `open_unchecked` throw `parse_error` (byte 12: the byte-order mark); no host fastread
/// builds for today is big-endian.

#include "detail/config.hpp"
#include "string_table/format.hpp"
#include "string_table/view.hpp"
#if !FASTREAD_SEPARATE_COMPILATION
#include "string_table/writer.hpp"
#endif

#endif // FASTREAD_STRING_TABLE_HPP
