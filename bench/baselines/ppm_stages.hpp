#ifndef FASTREAD_BENCH_BASELINES_PPM_STAGES_HPP
#define FASTREAD_BENCH_BASELINES_PPM_STAGES_HPP

/// @file
/// `fastread::ppm::baseline`: the five ways the PPM article (docs/articles.md) that started
/// fastread loaded a PPM image, kept as working functions so that `fastread-bench` compares
/// techniques:
///
/// | stage | technique |
/// |---|---|
/// | 1 | C++ iostream: `std::ifstream >>` for every header number and every P3 sample |
/// | 2 | C stdio: `fscanf("%u")` for every header number and every P3 sample |
/// | 3 | the whole file `fread` into a NUL-padded buffer, then `atoi` in place per sample |
/// | 4 | the same buffer, with a hand-written unsigned-int loop instead of `atoi` |
/// | 5 | stage 4 over an `mmap` of the file instead of a read |
///
/// P6 rasters are read with `istream::read` (1), `fread` (2) or `memcpy` from the buffer or
/// map (3–5). All decode 8-bit images (maxval <= 255), skip `#` comments in the header (not
/// inside a plain raster, as the article's did not), and
/// check what they read (a short raster, a non-number, a sample above maxval throw
/// `fastread::parse_error`; I/O failures `std::system_error`); none is as strict as
/// `ppm::load` (stage 2's `%u` accepts a sign, stage 3's `atoi` stops at any non-digit,
/// stage 4's loop wraps on ten or more digits).

#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fastread/detail/posix.hpp>
#include <fastread/detail/stdio.hpp>
#include <fastread/error.hpp>
#include <fastread/ppm.hpp>
#include <fastread/source/byte_source.hpp>
#include <fastread/source/mmap_source.hpp>

namespace fastread::ppm::baseline {

/// Stage 1: iostream `>>`. @throws parse_error, std::system_error.
image<std::uint8_t> stage1_iostream(const std::filesystem::path& path);
/// Stage 2: `fscanf`. @throws parse_error, std::system_error.
image<std::uint8_t> stage2_fscanf(const std::filesystem::path& path);
/// Stage 3: whole-file `fread` into a NUL-padded buffer, `atoi` per sample.
image<std::uint8_t> stage3_atoi(const std::filesystem::path& path);
/// Stage 4: the stage 3 buffer with a hand-written unsigned-int parser.
image<std::uint8_t> stage4_parser(const std::filesystem::path& path);
/// Stage 5: the stage 4 parser over `mmap`.
image<std::uint8_t> stage5_mmap(const std::filesystem::path& path);

/// RAW: reads the whole file with one `fread` into a new, uninitialised buffer of its size
/// and parses nothing: the floor every stage is measured against (the same allocation a
/// loader pays, plus the read). @throws std::system_error.
sample_vector<char> read_whole_file(const std::filesystem::path& path);

// ---------------------------------------------------------------------------------------
// Implementation

} // namespace fastread::ppm::baseline

namespace fastread::detail {

struct baseline_header {
    bool plain = false;
    unsigned width = 0, height = 0, maxval = 0;
    std::size_t samples = 0;
};

[[noreturn]] inline void baseline_fail(std::uint64_t offset, const std::string& reason,
                                       const std::filesystem::path& path) {
    throw parse_error(offset, reason, path.string());
}

/// Checks header values and that the input can hold the raster before anything is allocated.
inline void baseline_check_header(baseline_header& h, std::uint64_t offset,
                                  std::uint64_t input_size, const std::filesystem::path& path) {
    if (h.width == 0 || h.height == 0) {
        baseline_fail(offset, "width and height must be at least 1", path);
    }
    if (h.maxval == 0 || h.maxval > 255) {
        baseline_fail(offset, "maxval " + std::to_string(h.maxval) + " is not in 1..255", path);
    }
    const std::uint64_t samples = std::uint64_t{h.width} * h.height * 3;
    const std::uint64_t min_bytes = h.plain ? 2 * samples - 1 : samples;
    if (min_bytes > input_size) {
        baseline_fail(input_size,
                      "the input is too short for a " + std::to_string(h.width) + "x" +
                          std::to_string(h.height) + " image",
                      path);
    }
    h.samples = static_cast<std::size_t>(samples);
}

inline ppm::image<std::uint8_t> baseline_make_image(const baseline_header& h) {
    ppm::image<std::uint8_t> img;
    img.width = h.width;
    img.height = h.height;
    img.maxval = static_cast<std::uint16_t>(h.maxval);
    img.samples.resize(h.samples);
    return img;
}

inline void baseline_skip_comments(std::istream& in) {
    in >> std::ws;
    while (in.peek() == '#') {
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
        in >> std::ws;
    }
}

inline void baseline_skip_comments(std::FILE* f) {
    for (int c = std::getc(f); c != EOF; c = std::getc(f)) {
        if (c == '#') {
            while ((c = std::getc(f)) != EOF && c != '\n') {
            }
        } else if (!std::isspace(c)) {
            std::ungetc(c, f);
            return;
        }
    }
}

/// Header of stages 3–5, over bytes in memory: returns the offset of the first raster byte.
inline std::size_t baseline_parse_header(const char* data, std::size_t size, baseline_header& h,
                                         const std::filesystem::path& path) {
    memory_source source(std::span<const char>(data, size));
    decoder_cursor cursor{source_ref(source)};
    pnm_header parsed;
    pnm_error err = parse_pnm_header(cursor, 1, parsed);
    if (err) {
        baseline_fail(err.offset, pnm_error_message(err), path);
    }
    h.plain = parsed.plain;
    h.width = parsed.width;
    h.height = parsed.height;
    h.maxval = parsed.maxval;
    baseline_check_header(h, parsed.raster_offset, size - parsed.raster_offset, path);
    return static_cast<std::size_t>(parsed.raster_offset);
}

/// The raster of stages 3–5. `Convert` reads one sample at `p` (a digit) and advances `p`.
template <class Convert>
ppm::image<std::uint8_t> baseline_decode(const char* data, std::size_t size,
                                         const std::filesystem::path& path, Convert convert) {
    baseline_header h;
    const std::size_t start = baseline_parse_header(data, size, h, path);
    ppm::image<std::uint8_t> img = baseline_make_image(h);
    const char* p = data + start;
    const char* end = data + size;
    if (!h.plain) {
        std::memcpy(img.samples.data(), p, h.samples); // size checked by parse_header
    } else {
        for (std::size_t i = 0; i < h.samples; ++i) {
            while (p < end && is_pnm_space(static_cast<unsigned char>(*p))) {
                ++p;
            }
            if (p == end || !std::isdigit(static_cast<unsigned char>(*p))) {
                baseline_fail(static_cast<std::uint64_t>(p - data), "expected a sample", path);
            }
            unsigned v = convert(p, end);
            if (v > h.maxval) {
                baseline_fail(static_cast<std::uint64_t>(p - data), "sample above maxval", path);
            }
            img.samples[i] = static_cast<std::uint8_t>(v);
        }
    }
    return img;
}

/// Stage 3's and 4's buffer: the whole file and a NUL after it, so that `atoi` and the
/// digit loop stop at the end without a bounds check.
inline sample_vector<char> baseline_read_padded(const std::filesystem::path& path) {
    sample_vector<char> buffer = ppm::baseline::read_whole_file(path);
    buffer.push_back('\0');
    return buffer;
}

} // namespace fastread::detail

namespace fastread::ppm::baseline {

inline sample_vector<char> read_whole_file(const std::filesystem::path& path) {
    detail::unique_file f(detail::open_stream(path, "rb"));
    if (!f) {
        detail::throw_system_error(errno, "fopen", path);
    }
    const std::uint64_t size = detail::stat_fd(::fileno(f.get()), path).size;
    sample_vector<char> buffer;
    buffer.reserve(static_cast<std::size_t>(size) + 1); // room for stage 3's NUL
    buffer.resize(static_cast<std::size_t>(size));
    if (std::fread(buffer.data(), 1, buffer.size(), f.get()) != buffer.size()) {
        detail::throw_system_error(std::ferror(f.get()) ? errno : EIO, "fread", path);
    }
    return buffer;
}

inline image<std::uint8_t> stage1_iostream(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        detail::throw_system_error(errno, "open", path);
    }
    const std::uint64_t size = std::filesystem::file_size(path);
    detail::baseline_header h;
    std::string magic;
    in >> magic;
    if (magic != "P3" && magic != "P6") {
        detail::baseline_fail(0, "expected P3 or P6", path);
    }
    h.plain = magic == "P3";
    detail::baseline_skip_comments(in);
    in >> h.width;
    detail::baseline_skip_comments(in);
    in >> h.height;
    detail::baseline_skip_comments(in);
    in >> h.maxval;
    if (!in) {
        detail::baseline_fail(0, "bad header", path);
    }
    const std::uint64_t at = static_cast<std::uint64_t>(in.tellg());
    detail::baseline_check_header(h, at, size - at, path);
    image<std::uint8_t> img = detail::baseline_make_image(h);
    if (!h.plain) {
        in.get(); // the one whitespace byte before the raster
        in.read(reinterpret_cast<char*>(img.samples.data()),
                static_cast<std::streamsize>(h.samples));
        if (static_cast<std::size_t>(in.gcount()) != h.samples) {
            detail::baseline_fail(size, "truncated raster", path);
        }
        return img;
    }
    for (std::size_t i = 0; i < h.samples; ++i) {
        unsigned v = 0;
        if (!(in >> v) || v > h.maxval) {
            in.clear();
            detail::baseline_fail(static_cast<std::uint64_t>(in.tellg()), "bad or missing sample",
                                  path);
        }
        img.samples[i] = static_cast<std::uint8_t>(v);
    }
    return img;
}

inline image<std::uint8_t> stage2_fscanf(const std::filesystem::path& path) {
    detail::unique_file f(detail::open_stream(path, "rb"));
    if (!f) {
        detail::throw_system_error(errno, "fopen", path);
    }
    const std::uint64_t size = detail::stat_fd(::fileno(f.get()), path).size;
    detail::baseline_header h;
    char kind = 0;
    if (std::fscanf(f.get(), "P%c", &kind) != 1 || (kind != '3' && kind != '6')) {
        detail::baseline_fail(0, "expected P3 or P6", path);
    }
    h.plain = kind == '3';
    unsigned* fields[] = {&h.width, &h.height, &h.maxval};
    for (unsigned* field : fields) {
        detail::baseline_skip_comments(f.get());
        if (std::fscanf(f.get(), "%u", field) != 1) {
            detail::baseline_fail(static_cast<std::uint64_t>(std::ftell(f.get())), "bad header",
                                  path);
        }
    }
    const std::uint64_t at = static_cast<std::uint64_t>(std::ftell(f.get()));
    detail::baseline_check_header(h, at, size - at, path);
    image<std::uint8_t> img = detail::baseline_make_image(h);
    if (!h.plain) {
        std::getc(f.get()); // the one whitespace byte before the raster
        if (std::fread(img.samples.data(), 1, h.samples, f.get()) != h.samples) {
            detail::baseline_fail(size, "truncated raster", path);
        }
        return img;
    }
    for (std::size_t i = 0; i < h.samples; ++i) {
        unsigned v = 0;
        if (std::fscanf(f.get(), "%u", &v) != 1 || v > h.maxval) {
            detail::baseline_fail(static_cast<std::uint64_t>(std::ftell(f.get())),
                                  "bad or missing sample", path);
        }
        img.samples[i] = static_cast<std::uint8_t>(v);
    }
    return img;
}

inline image<std::uint8_t> stage3_atoi(const std::filesystem::path& path) {
    const sample_vector<char> buffer = detail::baseline_read_padded(path);
    return detail::baseline_decode(buffer.data(), buffer.size() - 1, path,
                                   [](const char*& p, const char*) {
                                       int v = std::atoi(p); // stops at the padding NUL
                                       while (std::isdigit(static_cast<unsigned char>(*p))) {
                                           ++p;
                                       }
                                       return static_cast<unsigned>(v);
                                   });
}

} // namespace fastread::ppm::baseline

namespace fastread::detail {
/// Stage 4's digit loop: the NUL after the buffer ends it. Unsigned arithmetic wraps, so a
/// sample of ten or more digits can come out wrong but never undefined.
inline unsigned parse_uint_padded(const char*& p, const char*) {
    unsigned v = 0;
    while (static_cast<unsigned>(*p - '0') < 10) {
        v = v * 10 + static_cast<unsigned>(*p++ - '0');
    }
    return v;
}
/// Stage 5's: the same loop where nothing follows the map, so it checks the end.
inline unsigned parse_uint_bounded(const char*& p, const char* end) {
    unsigned v = 0;
    while (p < end && static_cast<unsigned>(*p - '0') < 10) {
        v = v * 10 + static_cast<unsigned>(*p++ - '0');
    }
    return v;
}
} // namespace fastread::detail

namespace fastread::ppm::baseline {

inline image<std::uint8_t> stage4_parser(const std::filesystem::path& path) {
    const sample_vector<char> buffer = detail::baseline_read_padded(path);
    return detail::baseline_decode(buffer.data(), buffer.size() - 1, path,
                                   &detail::parse_uint_padded);
}

inline image<std::uint8_t> stage5_mmap(const std::filesystem::path& path) {
    mmap_source map(path);
    return detail::baseline_decode(map.bytes().data(), map.bytes().size(), path,
                                   &detail::parse_uint_bounded);
}

} // namespace fastread::ppm::baseline

#endif // FASTREAD_BENCH_BASELINES_PPM_STAGES_HPP
