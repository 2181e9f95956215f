#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_SOURCE_HPP)
#define FASTREAD_SOURCE_HPP

/// @file
/// All byte sources: `mmap_source`, `fread_source`, `read_source`, `stdio_source`,
/// `istream_source`, `memory_source`, and the `byte_source` concept.

#include "source/byte_source.hpp"
#include "source/fread_source.hpp"
#include "source/istream_source.hpp"
#include "source/mmap_source.hpp"
#include "source/read_source.hpp"
#include "source/stdio_source.hpp"

#endif // FASTREAD_SOURCE_HPP
