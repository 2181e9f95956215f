#include "../detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_PNM_READER_HPP)
#define FASTREAD_PNM_READER_HPP

/// @file
/// The Netpbm decoder over any byte source: `pnm::load(source)` and `pnm::reader` (images
/// back to back). Included by fastread/pnm.hpp; in the separately compiled mode
/// (FASTREAD_SEPARATE_COMPILATION) include it yourself for these forms, which are
/// templates on your source type and compile in your translation unit.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "../detail/call_setup.hpp"
#include "../detail/chunk_cursor.hpp"
#include "../error.hpp"
#include "../source/byte_source.hpp"
#include "detail/image_reader.hpp"
#include "detail/parse.hpp"
#include "detail/rows.hpp"
#include "image.hpp"

namespace fastread::pnm {

/// Decodes the first image from `source`, any `byte_source` (e.g. `read_source`,
/// `stdio_source` over stdin, `memory_source`). Reads up to the end of that image only.
/// `options`' limits apply (its `io` and `threads` do not: the source is read as it comes);
/// the samples grow with the bytes that arrive, never beyond what they justify.
/// @throws fastread::parse_error with the input offset (a header over a limit:
///         `errc::over_limit`); what the source throws.
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

/// Reads the header of the next image from `source`: the bytes up to the raster's first one
/// are consumed from it (a byte source may have handed out more in its last chunk, which
/// are consumed too). `raster_offset` counts from where the call started reading. No limit
/// applies. Time O(header size).
/// @throws fastread::parse_error with the input offset if the header is not valid (P1 to
///         P7, 8 or 16 bits); what the source throws.
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> header probe(Source&& source);

/// `probe(source)` without exceptions: the header, or the `error` the throwing form
/// reports (or a `reporting_source`'s read error).
template <class Source>
requires byte_source<std::remove_cvref_t<Source>> result<header> try_probe(Source&& source);

/// Decodes the first image from `source` into the caller's buffer, as `load_into` from a
/// path does (row r at `dst[r * row_stride]`, padding untouched, `options`' limits), reading
/// it a row at a time: straight into `dst` for raw rasters.
/// @returns the image's header.
/// @throws std::invalid_argument if `row_stride` is below `width * depth` or `dst` cannot
///         hold the rows (after the header, before any raster byte is read).
/// @throws fastread::parse_error as `load(source)`; what the source throws.
template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> header load_into(Source&& source,
                                                                   std::span<Sample> dst,
                                                                   std::size_t row_stride,
                                                                   load_options options = {});

/// `load_into(source, ...)` without exceptions: the header, or the `error` the throwing form
/// reports (the buffer's problems as `errc::invalid_argument`).
template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> result<header>
try_load_into(Source&& source, std::span<Sample> dst, std::size_t row_stride,
              load_options options = {});

/// Decodes a sequence of images from one source, in any mix of formats: the Netpbm formats
/// may hold several images back to back, and libnetpbm (`pm_nextimage`) skips whitespace
/// between them.
///
/// ```
/// fastread::read_source source("frames.pam");
/// fastread::pnm::reader frames(source);          // std::uint8_t samples
/// for (fastread::pnm::image<std::uint8_t> frame; frames.next(frame);) { ... }
/// ```
/// The source is borrowed and must outlive the reader.
template <class Sample, byte_source Source>
class reader : public detail::image_reader<image<Sample>, Source, /*AnyFormat=*/true> {
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
    explicit reader(Source& source) : detail::image_reader<image<Sample>, Source, true>(source) {}
};

/// `pnm::reader frames(source)` reads 8-bit samples (std::uint8_t); name the sample type,
/// `pnm::reader<std::uint16_t, Source>`, for 16-bit ones. Deduction throws nothing.
template <byte_source Source>
reader(Source&) -> reader<std::uint8_t, Source>;

} // namespace fastread::pnm

namespace fastread::pnm {

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> result<image<Sample>>
try_load(Source&& source, load_options options) {
    if (const result<load_options> settled = fastread::detail::settle_call(options); !settled) {
        return settled.error();
    }
    return fastread::detail::as_image_result<image<Sample>>(
        fastread::detail::try_load_first_pnm<Sample>(
            fastread::detail::source_ref(source), fastread::detail::source_name(source),
            /*any_format=*/true, nullptr, fastread::detail::limits_of(options)));
}

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> image<Sample> load(Source&& source,
                                                                     load_options options) {
    return fastread::detail::value_or_throw(try_load<Sample>(source, options));
}

template <class Source>
requires byte_source<std::remove_cvref_t<Source>> result<header> try_probe(Source&& source) {
    if (fastread::error e = fastread::detail::process_setting_error(); e.code()) {
        return e;
    }
    fastread::detail::source_ref ref(source);
    fastread::detail::decoder_cursor cur(ref);
    return fastread::detail::as_header_result(
        fastread::detail::try_probe_cursor(cur, ref, fastread::detail::source_name(source)));
}

template <class Source>
requires byte_source<std::remove_cvref_t<Source>> header probe(Source&& source) {
    return fastread::detail::value_or_throw(try_probe(source));
}

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> result<header>
try_load_into(Source&& source, std::span<Sample> dst, std::size_t row_stride,
              load_options options) {
    if (const result<load_options> settled = fastread::detail::settle_call(options); !settled) {
        return settled.error();
    }
    fastread::detail::source_ref ref(source);
    fastread::detail::decoder_cursor cur(ref);
    return fastread::detail::as_header_result(
        fastread::detail::try_load_into_cursor(cur, ref, fastread::detail::source_name(source), dst,
                                               row_stride, fastread::detail::limits_of(options)));
}

template <class Sample, class Source>
requires byte_source<std::remove_cvref_t<Source>> header load_into(Source&& source,
                                                                   std::span<Sample> dst,
                                                                   std::size_t row_stride,
                                                                   load_options options) {
    return fastread::detail::value_or_throw(try_load_into(source, dst, row_stride, options));
}

} // namespace fastread::pnm

#endif // FASTREAD_PNM_READER_HPP
