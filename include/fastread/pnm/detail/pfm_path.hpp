#ifndef FASTREAD_PNM_DETAIL_PFM_PATH_HPP
#define FASTREAD_PNM_DETAIL_PFM_PATH_HPP

// pfm::load and pfm::probe from a path, pfm::save: header-only, or compiled once in
// src/fastread.cpp (FASTREAD_SEPARATE_COMPILATION). The file layer opens, plans and settles;
// the decoder is pfm.hpp's.

#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "../../detail/atomic_file.hpp"
#include "../../detail/call_setup.hpp"
#include "../../detail/file_map.hpp"
#include "../../detail/input_file.hpp"
#include "../../detail/posix.hpp"
#include "../../error.hpp"
#include "../../pfm/image.hpp"
#include "../../source/byte_source.hpp"
#include "../../source/read_source.hpp"
#include "pfm.hpp"

namespace fastread::pfm {

FASTREAD_COMPILED_INLINE result<image> try_load(const std::filesystem::path& path,
                                                load_options options) {
    namespace d = fastread::detail;
    if (const result<load_options> settled = d::settle_call(options); !settled) {
        return settled.error();
    } else {
        options = *settled;
    }
    // The file layer: opened once, mapped when asked, else streamed; settled by the shrink
    // check (read(2) racing a truncation may return zeros for the bytes lost).
    result<d::input_file> opened = d::input_file::open(path);
    if (!opened) {
        return opened.error();
    }
    d::input_file& file = *opened;
    auto decode = [&](d::source_ref source) -> result<image> {
        d::decoder_cursor cursor(source);
        result<image> r = d::read_pfm(cursor, path.string(), d::limits_of(options));
        if (!r) {
            if (const fastread::error* read_error = source.error()) {
                return *read_error;
            }
        }
        return r;
    };
    if (options.io == io_mode::map) {
        if (const d::file_map map = file.map()) {
            memory_source source(map.bytes());
            return file.settle(decode(d::source_ref(source)),
                               map.lost() >= 0 ? UINT64_MAX : map.size());
        }
    }
    result<d::file_stream> source = stream_file(file);
    if (!source) {
        return source.error();
    }
    result<image> r = decode(d::source_ref(*source));
    if (!file.sized()) {
        return r;
    }
    return file.settle(std::move(r), source->consumed());
}

FASTREAD_COMPILED_INLINE image load(const std::filesystem::path& path, load_options options) {
    return fastread::detail::value_or_throw(try_load(path, options));
}

FASTREAD_COMPILED_INLINE result<header> try_probe(const std::filesystem::path& path) {
    namespace d = fastread::detail;
    fastread::error err = d::process_setting_error();
    if (err.code()) {
        return err;
    }
    result<d::input_file> file = d::input_file::open_for_start(path);
    if (!file) {
        return file.error();
    }
    result<d::pfm_header> h = d::try_probe_pfm_fd(file->fd(), path);
    if (!h) {
        return h.error();
    }
    return d::public_pfm_header(*h);
}

FASTREAD_COMPILED_INLINE header probe(const std::filesystem::path& path) {
    return fastread::detail::value_or_throw(try_probe(path));
}

FASTREAD_COMPILED_INLINE result<void> try_save(const std::filesystem::path& path,
                                               const image& img) {
    const std::string who = "fastread::pfm::save: ";
    namespace d = fastread::detail;
    if (fastread::error e = d::process_setting_error(); e.code()) {
        return e;
    }
    if (img.width == 0 || img.height == 0) {
        return d::invalid_argument_value(who + "width and height must be at least 1");
    }
    if (img.depth != 1 && img.depth != 3) {
        return d::invalid_argument_value(who + "depth " + std::to_string(img.depth) +
                                         " is neither 1 (Pf) nor 3 (PF)");
    }
    std::uint64_t expected = 0;
    if (__builtin_mul_overflow(std::uint64_t{img.width} * img.height, std::uint64_t{img.depth},
                               &expected) ||
        expected != img.samples.size()) {
        return d::invalid_argument_value(who + std::to_string(img.samples.size()) +
                                         " samples do not make a " + std::to_string(img.width) +
                                         "x" + std::to_string(img.height) + " image of depth " +
                                         std::to_string(img.depth));
    }
    if (!std::isfinite(img.scale) || !(img.scale > 0)) {
        return d::invalid_argument_value(who + "the scale must be finite and positive");
    }
    char scale[32];
    char* end = std::to_chars(scale, scale + sizeof scale, img.scale).ptr;
    std::string header = std::string(img.depth == 3 ? "PF\n" : "Pf\n") + std::to_string(img.width) +
                         " " + std::to_string(img.height) + "\n" +
                         (std::endian::native == std::endian::little ? "-" : "") +
                         std::string(scale, end) + "\n";
    fastread::error err;
    d::atomic_file file(path, err);
    file.write(header.data(), header.size(), err);
    const std::size_t row = std::size_t{img.width} * img.depth;
    for (std::size_t r = img.height; r-- > 0 && !err.code();) {
        file.write(reinterpret_cast<const char*>(img.samples.data() + r * row), row * 4, err);
    }
    if (!file.commit(err)) {
        return err;
    }
    return {};
}

FASTREAD_COMPILED_INLINE void save(const std::filesystem::path& path, const image& img) {
    fastread::detail::value_or_throw(try_save(path, img));
}

} // namespace fastread::pfm

#endif // FASTREAD_PNM_DETAIL_PFM_PATH_HPP
