#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PFM_READER_HPP)
#define FASTREAD_PFM_READER_HPP

/// @file
/// The PFM decoder over any byte source: `pfm::load(source)`. Included by fastread/pfm.hpp;
/// in the separately compiled mode (FASTREAD_SEPARATE_COMPILATION) include it yourself for
/// this form, a template on your source type that compiles in your translation unit.

#include <type_traits>

#include "../detail/chunk_cursor.hpp"
#include "../pnm/detail/pfm.hpp"
#include "../source/byte_source.hpp"
#include "image.hpp"

namespace fastread::pfm {

/// Decodes the PFM image at the start of `source`, any `byte_source`; reads up to its end.
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> image load(Source&& source);

template <class Source>
requires byte_source<std::remove_cvref_t<Source>> image load(Source&& source) {
    fastread::detail::decoder_cursor cursor{fastread::detail::source_ref(source)};
    return fastread::detail::read_pfm(cursor, fastread::detail::source_name(source));
}

} // namespace fastread::pfm

#endif // FASTREAD_PFM_READER_HPP
