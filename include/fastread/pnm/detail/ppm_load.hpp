#ifndef FASTREAD_PNM_DETAIL_PPM_LOAD_HPP
#define FASTREAD_PNM_DETAIL_PPM_LOAD_HPP

// ppm::load from a path and ppm::save: header-only, or compiled once in src/fastread.cpp
// (FASTREAD_SEPARATE_COMPILATION).

#include <cstddef>
#include <filesystem>
#include <string>

#include "../../detail/atomic_file.hpp"
#include "../../detail/thread_limit.hpp"
#include "../../ppm/image.hpp"
#include "../../ppm/reader.hpp"
#include "file.hpp"
#include "write.hpp"

namespace fastread::ppm {

template <class Sample>
image<Sample> load(const std::filesystem::path& path, load_options options) {
    const fastread::detail::thread_scope threads(options.threads);
    return fastread::detail::to_ppm_image(
        fastread::detail::load_pnm_file<Sample>(path, options.io, /*any_format=*/false));
}

template <class Sample>
void save(const std::filesystem::path& path, const image<Sample>& img, format fmt) {
    fastread::detail::check_pnm_image("fastread::ppm::save", img.width, img.height, 3, img.maxval,
                                      img.samples.data(), img.samples.size());
    fastread::detail::atomic_file file(path);
    fastread::detail::encode_pnm(img.width, img.height, 3, img.maxval, std::string(),
                                 img.samples.data(), img.samples.size(),
                                 fmt == format::plain ? '3' : '6',
                                 [&](const char* data, std::size_t n) { file.write(data, n); });
    file.commit();
}

} // namespace fastread::ppm

#endif // FASTREAD_PNM_DETAIL_PPM_LOAD_HPP
