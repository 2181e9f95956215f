#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PPM_READER_HPP)
#define FASTREAD_PPM_READER_HPP

/// @file
/// The PPM decoder over any byte source: `ppm::load(source)` and `ppm::reader` (images back
/// to back). Included by fastread/ppm.hpp; in the separately compiled mode
/// (FASTREAD_SEPARATE_COMPILATION) include it yourself for these forms, which are
/// templates on your source type and compile in your translation unit.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../detail/call_setup.hpp"
#include "../detail/chunk_cursor.hpp"
#include "../error.hpp"
#include "../pnm/detail/image_reader.hpp"
#include "../pnm/detail/parse.hpp"
#include "../pnm/detail/rows.hpp"
#include "../source/byte_source.hpp"
#include "image.hpp"

namespace fastread::ppm {

/// Decodes the first image from `source`, any `byte_source` (e.g. `read_source`,
/// `stdio_source` over stdin, `memory_source`). Reads up to the end of that image only.
/// `options`' limits apply (its `io` and `threads` do not), as for pnm::load(source).
/// @throws fastread::parse_error with the input offset; what the source throws.
template <class Sample = std::uint8_t, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source,
                                                                     load_options options = {});

/// `load(source)` without exceptions: the image, or the `error` the throwing form reports
/// (the parse's, with its byte offset; a `reporting_source`'s read error, as `read_source`
/// and `stdio_source` report theirs). An exception thrown by the caller's own source type
/// passes through.
template <class Sample = std::uint8_t, class Source>
requires byte_source<std::remove_cvref_t<Source>> result<image<Sample>>
try_load(Source&& source, load_options options = {});

/// Decodes a sequence of images from one source: ppm(5) raw files may hold several images
/// back to back, and libnetpbm (`pm_nextimage`) skips whitespace between them.
///
/// ```
/// fastread::read_source source("frames.ppm");
/// fastread::ppm::reader frames(source);          // std::uint8_t samples
/// for (fastread::ppm::image<std::uint8_t> frame; frames.next(frame);) { ... }
/// ```
/// The source is borrowed and must outlive the reader.
template <class Sample, byte_source Source>
class reader : public detail::image_reader<image<Sample>, Source, /*AnyFormat=*/false> {
  public:
    /// Reads nothing yet: the first next() does. next(out) decodes the next image into
    /// `out`, reusing its sample buffer, and returns false when only whitespace remained
    /// (never on the first call: an input without any image is an error); it throws
    /// fastread::parse_error if the next image is malformed or something other than
    /// whitespace and an image follows, leaving `out` empty. try_next(out) is next(out)
    /// without exceptions: a `result<bool>` holding that error instead (the parse's, or a
    /// reporting_source's read error). offset() is the input offset, in bytes, just after
    /// the last image read.
    /// @throws std::bad_alloc only (copying the source's path for messages).
    explicit reader(Source& source) : detail::image_reader<image<Sample>, Source, false>(source) {}
};

/// `ppm::reader frames(source)` reads 8-bit samples (std::uint8_t); name the sample type,
/// `ppm::reader<std::uint16_t, Source>`, for 16-bit ones. Deduction throws nothing.
template <byte_source Source>
reader(Source&) -> reader<std::uint8_t, Source>;

} // namespace fastread::ppm

namespace fastread::ppm {

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> result<image<Sample>>
try_load(Source&& source, load_options options) {
    if (const result<load_options> settled = fastread::detail::settle_call(options); !settled) {
        return settled.error();
    }
    return fastread::detail::as_image_result<image<Sample>>(
        fastread::detail::try_load_first_pnm<Sample>(
            fastread::detail::source_ref(source), fastread::detail::source_name(source),
            /*any_format=*/false, nullptr, fastread::detail::limits_of(options)));
}

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source,
                                                                     load_options options) {
    return fastread::detail::value_or_throw(try_load<Sample>(source, options));
}

} // namespace fastread::ppm

#endif // FASTREAD_PPM_READER_HPP
