#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PFM_READER_HPP)
#define FASTREAD_PFM_READER_HPP

/// @file
/// The PFM decoder over any byte source: `pfm::load(source)`. Included by fastread/pfm.hpp;
/// in the separately compiled mode (FASTREAD_SEPARATE_COMPILATION) include it yourself for
/// this form, a template on your source type that compiles in your translation unit.

#include <type_traits>

#include "../detail/call_setup.hpp"
#include "../detail/chunk_cursor.hpp"
#include "../pnm/detail/pfm.hpp"
#include "../source/byte_source.hpp"
#include "image.hpp"

namespace fastread::pfm {

/// Decodes the PFM image at the start of `source`, any `byte_source`; reads up to its end.
/// `options`' limits apply (its `io` and `threads` do not).
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> image load(Source&& source,
                                                             load_options options = {});

/// Reads the PFM header at the start of `source`: the bytes up to the raster's first one are
/// consumed from it (with what the source handed out in its last chunk).
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> header probe(Source&& source);

/// `probe(source)` without exceptions: the header, or the `error` the throwing form reports
/// (or a `reporting_source`'s read error).
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> result<header> try_probe(Source&& source) {
    if (fastread::error e = fastread::detail::process_setting_error(); e.code()) {
        return e;
    }
    const fastread::detail::source_ref ref(source);
    fastread::detail::decoder_cursor cursor{ref};
    fastread::detail::pfm_header h;
    if (fastread::error e =
            fastread::detail::read_pfm_header(cursor, fastread::detail::source_name(source), h);
        e.code()) {
        if (const fastread::error* read_error = ref.error()) {
            return *read_error;
        }
        return e;
    }
    return fastread::detail::public_pfm_header(h);
}

template <class Source>
requires byte_source<std::remove_cvref_t<Source>> header probe(Source&& source) {
    return fastread::detail::value_or_throw(try_probe(source));
}

/// `load(source)` without exceptions: the image, or the `error` the throwing form reports
/// (the parse's, with its byte offset; a `reporting_source`'s read error). An exception
/// thrown by the caller's own source type passes through.
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> result<image>
try_load(Source&& source, load_options options = {}) {
    if (const result<load_options> settled = fastread::detail::settle_call(options); !settled) {
        return settled.error();
    }
    const fastread::detail::source_ref ref(source);
    fastread::detail::decoder_cursor cursor{ref};
    result<image> img = fastread::detail::read_pfm(cursor, fastread::detail::source_name(source),
                                                   fastread::detail::limits_of(options));
    if (!img) {
        if (const fastread::error* read_error = ref.error()) {
            return *read_error;
        }
    }
    return img;
}

template <class Source>
requires byte_source<std::remove_cvref_t<Source>> image load(Source&& source,
                                                             load_options options) {
    return fastread::detail::value_or_throw(try_load(source, options));
}

} // namespace fastread::pfm

#endif // FASTREAD_PFM_READER_HPP
