#ifndef FASTREAD_PNM_DETAIL_PATH_LOAD_HPP
#define FASTREAD_PNM_DETAIL_PATH_LOAD_HPP

// pnm::load and ppm::load from a path, pnm::save and ppm::save: header-only, or compiled
// once in src/fastread.cpp (FASTREAD_SEPARATE_COMPILATION). ppm is pnm restricted to P3
// and P6: one file strategy (file.hpp), one decoder, one writer.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "../../detail/atomic_file.hpp"
#include "../../detail/call_setup.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../ppm/image.hpp"
#include "../image.hpp"
#include "batch.hpp"
#include "file.hpp"
#include "image_reader.hpp"
#include "into.hpp"
#include "write.hpp"

namespace fastread::detail {

/// pnm::try_load and ppm::try_load from a path: the first image of the file (P3 or P6, or
/// with `any_format` P1 to P7) as an `Image`, or the error (a bad FASTREAD_THREADS first).
template <class Image>
result<Image> try_load_image(const std::filesystem::path& path, const load_options& asked,
                             bool any_format) {
    const result<load_options> settled = settle_call(asked);
    if (!settled) {
        return settled.error();
    }
    const load_options& options = *settled;
    const thread_scope threads(options.threads);
    return as_image_result<Image>(
        try_load_pnm_file<sample_of<Image>>(path, options.io, any_format, limits_of(options)));
}

/// Writes the checked image to `path` atomically as Netpbm format `magic` ('1'..'7').
template <class Sample>
result<void> save_pnm_file(const std::filesystem::path& path, std::uint32_t width,
                           std::uint32_t height, std::uint32_t depth, std::uint16_t maxval,
                           const std::string& tuple_type, const Sample* samples, std::size_t count,
                           char magic) {
    fastread::error err = process_setting_error();
    if (err.code()) {
        return err;
    }
    atomic_file file(path, err);
    encode_pnm(width, height, depth, maxval, tuple_type, samples, count, magic,
               [&](const char* data, std::size_t n) { file.write(data, n, err); });
    if (!file.commit(err)) {
        return err;
    }
    return {};
}

} // namespace fastread::detail

namespace fastread::pnm {

template <class Sample>
result<image<Sample>> try_load(const std::filesystem::path& path, load_options options) {
    return fastread::detail::try_load_image<image<Sample>>(path, options, /*any_format=*/true);
}

template <class Sample>
image<Sample> load(const std::filesystem::path& path, load_options options) {
    return fastread::detail::value_or_throw(try_load<Sample>(path, options));
}

FASTREAD_COMPILED_INLINE result<header> try_probe(const std::filesystem::path& path) {
    if (fastread::error e = fastread::detail::process_setting_error(); e.code()) {
        return e;
    }
    return fastread::detail::as_header_result(fastread::detail::try_probe_file(path));
}

FASTREAD_COMPILED_INLINE header probe(const std::filesystem::path& path) {
    return fastread::detail::value_or_throw(try_probe(path));
}

template <class Sample>
result<header> try_load_into(const std::filesystem::path& path, std::span<Sample> dst,
                             std::size_t row_stride, load_options options) {
    if (const result<load_options> settled = fastread::detail::settle_call(options); !settled) {
        return settled.error();
    } else {
        options = *settled;
    }
    const fastread::detail::thread_scope threads(options.threads);
    return fastread::detail::as_header_result(fastread::detail::try_load_into_file(
        path, dst, row_stride, options.io, fastread::detail::limits_of(options)));
}

template <class Sample>
header load_into(const std::filesystem::path& path, std::span<Sample> dst, std::size_t row_stride,
                 load_options options) {
    return fastread::detail::value_or_throw(try_load_into(path, dst, row_stride, options));
}

template <class Sample>
result<std::vector<result<header>>> try_load_batch(std::span<const std::filesystem::path> paths,
                                                   std::span<Sample> dst, load_options options) {
    return fastread::detail::try_load_batch_files(paths, dst, options);
}

template <class Sample>
std::vector<result<header>> load_batch(std::span<const std::filesystem::path> paths,
                                       std::span<Sample> dst, load_options options) {
    return fastread::detail::value_or_throw(try_load_batch(paths, dst, options));
}

FASTREAD_COMPILED_INLINE result<std::vector<result<header>>>
try_probe_batch(std::span<const std::filesystem::path> paths, load_options options) {
    const result<load_options> settled = fastread::detail::settle_call(options);
    if (!settled) {
        return settled.error();
    }
    return fastread::detail::probe_batch_files(paths, settled->threads);
}

FASTREAD_COMPILED_INLINE std::vector<result<header>>
probe_batch(std::span<const std::filesystem::path> paths, load_options options) {
    return fastread::detail::value_or_throw(try_probe_batch(paths, options));
}

template <class Sample>
result<void> try_save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    const char* who = "fastread::pnm::save";
    const auto magic = static_cast<int>(fmt);
    if (magic < 1 || magic > 7) {
        return fastread::detail::invalid_argument_value(
            std::string(who) + ": format " + std::to_string(magic) + " is none of P1 to P7");
    }
    if (fastread::error e =
            fastread::detail::pnm_image_problem(who, img.width, img.height, img.depth, img.maxval,
                                                img.samples.data(), img.samples.size());
        e.code()) {
        return e;
    }
    const bool bitmap = fmt == format::pbm_plain || fmt == format::pbm_raw;
    const bool graymap = fmt == format::pgm_plain || fmt == format::pgm_raw;
    const bool pixmap = fmt == format::ppm_plain || fmt == format::ppm_raw;
    const std::uint32_t want_depth = pixmap ? 3 : 1;
    if ((bitmap || graymap || pixmap) && img.depth != want_depth) {
        return fastread::detail::invalid_argument_value(
            std::string(who) + ": P" + std::to_string(magic) + " needs depth " +
            std::to_string(want_depth) + ", the image has " + std::to_string(img.depth));
    }
    if (bitmap && img.maxval != 1) {
        return fastread::detail::invalid_argument_value(
            std::string(who) + ": PBM needs maxval 1, the image has " + std::to_string(img.maxval));
    }
    if (fmt == format::pam && (img.tuple_type.size() > fastread::detail::max_tuple_type_bytes ||
                               img.tuple_type.find_first_of("\n\r") != std::string::npos)) {
        return fastread::detail::invalid_argument_value(
            std::string(who) + ": a PAM tuple type is one line of at most 255 bytes");
    }
    return fastread::detail::save_pnm_file(path, img.width, img.height, img.depth, img.maxval,
                                           img.tuple_type, img.samples.data(), img.samples.size(),
                                           static_cast<char>('0' + magic));
}

template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    fastread::detail::value_or_throw(try_save(path, img, fmt));
}

} // namespace fastread::pnm

namespace fastread::ppm {

template <class Sample>
result<image<Sample>> try_load(const std::filesystem::path& path, load_options options) {
    return fastread::detail::try_load_image<image<Sample>>(path, options, /*any_format=*/false);
}

template <class Sample>
image<Sample> load(const std::filesystem::path& path, load_options options) {
    return fastread::detail::value_or_throw(try_load<Sample>(path, options));
}

template <class Sample>
result<void> try_save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    if (fastread::error e =
            fastread::detail::pnm_image_problem("fastread::ppm::save", img.width, img.height, 3,
                                                img.maxval, img.samples.data(), img.samples.size());
        e.code()) {
        return e;
    }
    return fastread::detail::save_pnm_file(path, img.width, img.height, 3, img.maxval,
                                           std::string(), img.samples.data(), img.samples.size(),
                                           fmt == format::plain ? '3' : '6');
}

template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    fastread::detail::value_or_throw(try_save(path, img, fmt));
}

} // namespace fastread::ppm

#endif // FASTREAD_PNM_DETAIL_PATH_LOAD_HPP
