// The pnm family: the rest of the Netpbm family (P1, P2, P4, P5 8- and 16-bit, PAM) and PFM,
// decoded by fastread::pnm::load / fastread::pfm::load (by path and over sources) and
// pnm::load_into (a buffer the caller reuses), beside
// reading the file (RAW) and the peers that read these formats: libnetpbm (pnm_readpam),
// stb_image (P5 only) and OpenCV's cv::imread, when built in. One column per format, on
// generated photo-like images of the PPM family's big size (2560 x 2048).

#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/source.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "baselines/ppm_stages.hpp"
#include "bench_util.hpp"
#include "families.hpp"
#include "image_peers.hpp"

#if FASTREAD_HAVE_STB
#include <stb_image.h>
#endif

namespace fastread_bench {
namespace {

namespace pnm = fastread::pnm;
namespace pfm = fastread::pfm;

// ---- inputs ------------------------------------------------------------------------------

/// Splitmix64: deterministic noise, so every machine benchmarks the same bytes.
struct noise {
    std::uint64_t state;
    double next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return static_cast<double>((z ^ (z >> 31)) % 1000) / 1000.0;
    }
};

/// A photo-like level in 0..1 at (x, y), channel c: smooth waves plus sensor-like noise.
double level(std::uint32_t x, std::uint32_t y, std::uint32_t w, std::uint32_t h, int c,
             noise& rng) {
    const double fx = static_cast<double>(x) / w, fy = static_cast<double>(y) / h;
    double v = 0.5 + 0.35 * std::sin(6.0 * fx + 2.0 * fy) * std::cos(5.0 * fy) +
               0.25 * (fx - 0.5) * (c - 1) + 0.12 * std::sin(9.0 * fy + c);
    v += (rng.next() - 0.5) * 0.08;
    return std::min(1.0, std::max(0.0, v));
}

/// The image of one column: depth 1 gray (PBM: thresholded against noise, as a dithered
/// scan looks), 4 RGBA for PAM.
template <class Sample>
pnm::image<Sample> photo(std::uint32_t w, std::uint32_t h, std::uint32_t depth,
                         std::uint16_t maxval, bool bitmap) {
    pnm::image<Sample> img;
    img.width = w;
    img.height = h;
    img.depth = depth;
    img.maxval = bitmap ? 1 : maxval;
    img.tuple_type = bitmap ? "BLACKANDWHITE" : depth == 1 ? "GRAYSCALE" : "RGB_ALPHA";
    img.samples.resize(std::size_t{w} * h * depth);
    noise rng{0x5eed + w + depth};
    std::size_t i = 0;
    for (std::uint32_t y = 0; y < h; ++y) {
        for (std::uint32_t x = 0; x < w; ++x) {
            for (std::uint32_t c = 0; c < depth; ++c) {
                const double v = c == 3 ? static_cast<double>(x) / w
                                        : level(x, y, w, h, static_cast<int>(c), rng);
                img.samples[i++] = bitmap ? static_cast<Sample>(v > rng.next())
                                          : static_cast<Sample>(std::lround(v * maxval));
            }
        }
    }
    return img;
}

struct column_spec {
    const char* column;
    const char* file; // name under the data directory (a version in it: change it with photo())
    pnm::format fmt;  // unused for PFM
    bool pfm = false;
    std::uint32_t depth = 1;
    std::uint16_t maxval = 255;
};

std::filesystem::path generated(const std::filesystem::path& dir, const column_spec& s,
                                std::uint32_t w, std::uint32_t h) {
    const auto path = dir / s.file;
    if (std::filesystem::exists(path)) {
        return path;
    }
    std::cerr << "fastread-bench: generating " << path.string() << std::endl;
    if (s.pfm) {
        const auto rgb = photo<std::uint16_t>(w, h, 3, 65535, false);
        pfm::image img;
        img.width = w;
        img.height = h;
        img.depth = 3;
        img.samples.reserve(rgb.samples.size());
        for (std::uint16_t v : rgb.samples) {
            img.samples.push_back(static_cast<float>(v) / 65535.0f);
        }
        pfm::save(path, img);
    } else if (s.maxval > 255) {
        pnm::save(path, photo<std::uint16_t>(w, h, s.depth, s.maxval, false), s.fmt);
    } else {
        const bool bitmap = s.fmt == pnm::format::pbm_plain || s.fmt == pnm::format::pbm_raw;
        pnm::save(path, photo<std::uint8_t>(w, h, s.depth, s.maxval, bitmap), s.fmt);
    }
    return path;
}

// ---- rows --------------------------------------------------------------------------------

const std::vector<std::string> rows = {"RAW (read only)",
                                       "pnm::load / pfm::load",
                                       "pnm::try_load / pfm::try_load",
                                       "pnm::load_into (a reused buffer)",
                                       "pnm::load read_source",
                                       "pnm::load mmap_source",
                                       "libnetpbm pnm_readpam",
                                       "stb_image stbi_load",
                                       "OpenCV cv::imread"};

template <class Image>
samples to_samples(const Image& img) {
    return {img.samples.begin(), img.samples.end()};
}

/// PFM samples as their bit patterns, so that the check is exact.
samples to_samples(const pfm::image& img) {
    samples out(img.samples.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &img.samples[i], 4);
        out[i] = bits;
    }
    return out;
}

struct column_reference {
    std::filesystem::path path;
    std::shared_ptr<samples> ref;
    std::shared_ptr<byte_order_twin> twin; // 16-bit P5 columns: also checked on this
    bool wide = false, bitmap = false, pfm = false, gray_raw = false;
    // A row's check: `decode(path)` compared with the reference, and with the twin's.
    template <class Decode>
    std::function<std::string()> check_with(Decode decode) const {
        return [path = path, ref = ref, twin = twin, decode]() {
            return check_decode(decode, path, *ref, twin);
        };
    }
};

void add_rows(context& ctx, const input& in, const column_spec& spec) {
    const std::string family = "pnm";
    column_reference c;
    try {
        c.ref = std::make_shared<samples>(spec.pfm ? to_samples(pfm::load(in.path))
                                                   : to_samples(pnm::load<std::uint16_t>(in.path)));
    } catch (const std::exception& e) {
        std::cerr << "fastread-bench: skipping " << in.path.string() << ": " << e.what() << "\n";
        return;
    }
    ctx.add_column(family, in);
    c.path = in.path;
    c.wide = spec.maxval > 255;
    c.pfm = spec.pfm;
    c.bitmap =
        !spec.pfm && (spec.fmt == pnm::format::pbm_plain || spec.fmt == pnm::format::pbm_raw);
    c.gray_raw = !spec.pfm && spec.fmt == pnm::format::pgm_raw;
    if (c.wide && c.gray_raw) {
        c.twin = std::make_shared<byte_order_twin>(
            make_byte_order_twin(ctx.opts().data_dir, '5', spec.maxval));
    }
    const auto path = in.path;
    const bool wide = c.wide;
    using fs_path = std::filesystem::path;

    ctx.add(family, "RAW (read only)", in, [path] {
        auto bytes = fastread::ppm::baseline::read_whole_file(path);
        benchmark::DoNotOptimize(bytes.data());
    });
    auto add_load = [&](const char* row, auto load) {
        ctx.add(
            family, row, in,
            [load, wide, path] {
                if (wide) {
                    auto img = load(path, std::uint16_t{});
                    benchmark::DoNotOptimize(img.samples.data());
                } else {
                    auto img = load(path, std::uint8_t{});
                    benchmark::DoNotOptimize(img.samples.data());
                }
            },
            c.check_with([load, wide](const fs_path& p) {
                return wide ? to_samples(load(p, std::uint16_t{}))
                            : to_samples(load(p, std::uint8_t{}));
            }));
    };
    if (c.pfm) {
        ctx.add(
            family, "pnm::load / pfm::load", in,
            [path] {
                auto img = pfm::load(path);
                benchmark::DoNotOptimize(img.samples.data());
            },
            c.check_with([](const fs_path& p) { return to_samples(pfm::load(p)); }));
        // The same load without exceptions (the throwing form is this and value()).
        ctx.add(
            family, "pnm::try_load / pfm::try_load", in,
            [path] {
                fastread::result<pfm::image> img = pfm::try_load(path);
                benchmark::DoNotOptimize(img.value().samples.data());
            },
            c.check_with([](const fs_path& p) { return to_samples(pfm::try_load(p).value()); }));
        for (const char* row : {"pnm::load_into (a reused buffer)", "pnm::load read_source",
                                "pnm::load mmap_source"}) {
            ctx.note(family, row, in.column, "n/a (PFM)");
        }
    } else {
        add_load("pnm::load / pfm::load",
                 [](const fs_path& p, auto s) { return pnm::load<decltype(s)>(p); });
        add_load("pnm::try_load / pfm::try_load",
                 [](const fs_path& p, auto s) { return pnm::try_load<decltype(s)>(p).value(); });
        // The caller's buffer, made once: the samples of load, without its allocation.
        const pnm::header shape = pnm::probe(path);
        const std::size_t row = std::size_t{shape.width} * shape.depth;
        const auto count = static_cast<std::size_t>(shape.samples());
        ctx.add(
            family, "pnm::load_into (a reused buffer)", in,
            [path, wide, row, count] {
                thread_local std::vector<std::uint16_t> wide_buffer;
                thread_local std::vector<std::uint8_t> buffer;
                if (wide) {
                    wide_buffer.resize(count);
                    benchmark::DoNotOptimize(pnm::load_into(path, std::span(wide_buffer), row));
                } else {
                    buffer.resize(count);
                    benchmark::DoNotOptimize(pnm::load_into(path, std::span(buffer), row));
                }
            },
            c.check_with([wide](const fs_path& p) {
                const pnm::header h = pnm::probe(p);
                const std::size_t stride = std::size_t{h.width} * h.depth;
                samples out;
                if (wide) {
                    std::vector<std::uint16_t> b(h.samples());
                    pnm::load_into(p, std::span(b), stride);
                    out.assign(b.begin(), b.end());
                } else {
                    std::vector<std::uint8_t> b(h.samples());
                    pnm::load_into(p, std::span(b), stride);
                    out.assign(b.begin(), b.end());
                }
                return out;
            }));
        add_load("pnm::load read_source", [](const fs_path& p, auto s) {
            fastread::read_source src(p);
            return pnm::load<decltype(s)>(src);
        });
        add_load("pnm::load mmap_source", [](const fs_path& p, auto s) {
            fastread::mmap_source src(p);
            return pnm::load<decltype(s)>(src);
        });
    }

#if FASTREAD_HAVE_NETPBM
    if (c.pfm) {
        ctx.note(family, "libnetpbm pnm_readpam", in.column, "n/a (no PFM reader)");
    } else {
        ctx.add(
            family, "libnetpbm pnm_readpam", in,
            [path] {
                std::FILE* f = std::fopen(path.c_str(), "rb");
                struct pam pam {};
                tuple** tuples = netpbm_read(f, &pam);
                benchmark::DoNotOptimize(tuples);
                std::fclose(f);
                if (tuples != nullptr) {
                    pnm_freepamarray(tuples, &pam);
                }
            },
            c.check_with([](const fs_path& p) { return netpbm_decode(p); }));
    }
#else
    ctx.note(family, "libnetpbm pnm_readpam", in.column, "not built");
#endif
#if FASTREAD_HAVE_STB
    if (!c.gray_raw) {
        ctx.note(family, "stb_image stbi_load", in.column, "n/a (P5 and P6 only)");
    } else {
        ctx.add(
            family, "stb_image stbi_load", in,
            [path, wide] {
                int w = 0, h = 0, n = 0;
                void* px = wide ? static_cast<void*>(stbi_load_16(path.c_str(), &w, &h, &n, 1))
                                : static_cast<void*>(stbi_load(path.c_str(), &w, &h, &n, 1));
                benchmark::DoNotOptimize(px);
                stbi_image_free(px);
            },
            c.check_with([wide](const fs_path& p) {
                int w = 0, h = 0, n = 0;
                samples out;
                if (wide) {
                    stbi_us* px = stbi_load_16(p.c_str(), &w, &h, &n, 1);
                    if (px != nullptr) {
                        out.assign(px, px + std::size_t(w) * h);
                    }
                    stbi_image_free(px);
                } else {
                    stbi_uc* px = stbi_load(p.c_str(), &w, &h, &n, 1);
                    if (px != nullptr) {
                        out.assign(px, px + std::size_t(w) * h);
                    }
                    stbi_image_free(px);
                }
                return out;
            }));
    }
#else
    ctx.note(family, "stb_image stbi_load", in.column, "not built");
#endif
#if FASTREAD_HAVE_OPENCV
    const bool bitmap = c.bitmap;
    ctx.add(
        family, "OpenCV cv::imread", in,
        [path] {
            cv::Mat m = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
            benchmark::DoNotOptimize(m.data);
        },
        c.check_with([bitmap](const fs_path& p) { return opencv_decode(p, bitmap); }));
#else
    ctx.note(family, "OpenCV cv::imread", in.column, "not built");
#endif
}

void register_pnm_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv).
    ctx.set_estimate_scale("pnm", 1.46, 0.63);
#if FASTREAD_HAVE_NETPBM
    pm_init("fastread-bench", 0);
#endif
    ctx.add_family("pnm", "Netpbm family and PFM loading", rows);
    ctx.mark_default("pnm", "pnm::load / pfm::load",
                     {"pnm::load read_source", "pnm::load mmap_source"});
    ctx.mark_rows("pnm", row_kind::floor, {"RAW (read only)"});
    ctx.mark_rows("pnm", row_kind::peer,
                  {"libnetpbm pnm_readpam", "stb_image stbi_load", "OpenCV cv::imread"});
    const options& o = ctx.opts();
    // The PPM family's big size; --quick: its medium one.
    const std::uint32_t w = o.quick ? 832 : 2560, h = o.quick ? 832 : 2048;
    const std::string size = o.quick ? "medium" : "big";
    const column_spec specs[] = {
        {"P1", "photo-v1-pbm-plain", pnm::format::pbm_plain, false, 1, 1},
        {"P4", "photo-v1-pbm-raw", pnm::format::pbm_raw, false, 1, 1},
        {"P2", "photo-v1-pgm-plain", pnm::format::pgm_plain, false, 1, 255},
        {"P5", "photo-v1-pgm-raw", pnm::format::pgm_raw, false, 1, 255},
        {"P5 16-bit", "photo-v1-pgm16-raw", pnm::format::pgm_raw, false, 1, 65535},
        {"PAM RGBA", "photo-v1-pam-rgba", pnm::format::pam, false, 4, 255},
        {"PFM RGB", "photo-v1-pfm-rgb", pnm::format::pam, true, 3, 0},
    };
    for (const column_spec& s : specs) {
        input in;
        in.column = std::string(s.column) + " " + size;
        in.group = "generated";
        column_spec named = s;
        const std::string file = std::string(s.file) + "-" + size + (s.pfm ? ".pfm" : ".pnm");
        named.file = file.c_str();
        in.path = generated(o.data_dir, named, w, h);
        std::error_code ec;
        in.bytes = std::filesystem::file_size(in.path, ec);
        if (ec || in.bytes == 0) {
            continue;
        }
        add_rows(ctx, in, s);
    }
}

} // namespace

const family_registration pnm_family{{
    "pnm",
    6,
    "  pnm     decode the rest of the Netpbm family and PFM: P1, P4 (PBM), P2, P5 (PGM, 8-\n"
    "          and 16-bit), PAM (RGBA) and PFM (RGB floats), each a generated 2560 x 2048\n"
    "          image; rows RAW (read only), fastread::pnm::load / pfm::load (by path and\n"
    "          over read_source and mmap_source), the same by path without exceptions\n"
    "          (try_load), pnm::load_into a reused buffer, libnetpbm's pnm_readpam,\n"
    "          stb_image (P5) and OpenCV's cv::imread when built in.\n",
    "",
    "",
    {},
    &register_pnm_family,
}};

} // namespace fastread_bench
