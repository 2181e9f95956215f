// The ppm family: the PPM article's (docs/articles.md) five stages and RAW, fastread::ppm::load
// over each source, and libnetpbm / stb_image when built in, on generated photo-like images in the
// article's three sizes, a 16-bit image, the committed data/ images and the user's --ppm files.

#include <fastread/ppm.hpp>
#include <fastread/scan/simd_level.hpp>
#include <fastread/source.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "baselines/ppm_stages.hpp"
#include "bench_util.hpp"
#include "families.hpp"
#include "image_peers.hpp"

#if FASTREAD_HAVE_NETPBM
#include <csetjmp>
#include <netpbm/ppm.h>
#endif
#if FASTREAD_HAVE_STB
#include <stb_image.h>
#endif

namespace fastread_bench {
namespace {

namespace ppm = fastread::ppm;

// ---- inputs ------------------------------------------------------------------------------

/// Splitmix64: a deterministic pixel noise source, so every machine benchmarks the same bytes.
struct splitmix {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

/// A photo-like image: smooth gradients and waves plus sensor-like noise, covering the whole
/// 0..255 range so that plain samples take ~3.5 bytes each (1-3 digits and a separator).
template <class Sample>
ppm::image<Sample> photo(std::uint32_t width, std::uint32_t height, std::uint16_t maxval) {
    ppm::image<Sample> img;
    img.width = width;
    img.height = height;
    img.maxval = maxval;
    img.samples.resize(std::size_t{width} * height * 3);
    splitmix rng{0x5eed + width};
    std::size_t i = 0;
    for (std::uint32_t y = 0; y < height; ++y) {
        const double fy = static_cast<double>(y) / height;
        for (std::uint32_t x = 0; x < width; ++x) {
            const double fx = static_cast<double>(x) / width;
            const double base = 0.5 + 0.35 * std::sin(6.0 * fx + 2.0 * fy) * std::cos(5.0 * fy);
            for (int c = 0; c < 3; ++c) {
                double v = base + 0.25 * (fx - 0.5) * (c - 1) + 0.12 * std::sin(9.0 * fy + c);
                v += (static_cast<double>(rng.next() % 1000) / 1000.0 - 0.5) * 0.08;
                v = std::min(1.0, std::max(0.0, v));
                img.samples[i++] = static_cast<Sample>(std::lround(v * maxval));
            }
        }
    }
    return img;
}

std::filesystem::path generated(const std::filesystem::path& dir, const std::string& name,
                                std::uint32_t w, std::uint32_t h, bool sixteen, bool plain) {
    // The name carries a version: a change to photo() must change it.
    const auto path = dir / ("photo-v1-" + name + (plain ? "-p3" : "-p6") + ".ppm");
    if (!std::filesystem::exists(path)) {
        std::cerr << "fastread-bench: generating " << path.string() << std::endl;
        const auto format = plain ? ppm::format::plain : ppm::format::raw;
        if (sixteen) {
            ppm::save(path, photo<std::uint16_t>(w, h, 65535), format);
        } else {
            ppm::save(path, photo<std::uint8_t>(w, h, 255), format);
        }
    }
    return path;
}

// ---- rows --------------------------------------------------------------------------------

const std::vector<std::string> rows = {"stage 1 iostream >>",
                                       "stage 2 fscanf",
                                       "stage 3 fread + atoi",
                                       "stage 4 own parser",
                                       "stage 5 mmap",
                                       "RAW (read only)",
                                       "ppm::load",
                                       "ppm::load scalar",
                                       "ppm::load sse2",
                                       "ppm::load avx2",
                                       "ppm::load avx512",
                                       "ppm::load mmap_source",
                                       "ppm::load read_source",
                                       "ppm::load fread_source",
                                       "ppm::load stdio_source",
                                       "libnetpbm ppm_readppm",
                                       "stb_image stbi_load",
                                       "OpenCV cv::imread"};

template <class Sample>
samples to_samples(const ppm::image<Sample>& img) {
    return {img.samples.begin(), img.samples.end()};
}

#if FASTREAD_HAVE_NETPBM
// libnetpbm reports errors by longjmp once pm_setjmpbuf is set; nothing with a destructor
// lives between setjmp and the call that may jump.
pixel** netpbm_read(std::FILE* f, int* cols, int* rows_out, pixval* maxval) {
    static std::jmp_buf jump;
    std::jmp_buf* saved = nullptr;
    pm_setjmpbufsave(&jump, &saved);
    pixel** px = nullptr;
    if (setjmp(jump) == 0) {
        px = ppm_readppm(f, cols, rows_out, maxval);
    }
    pm_setjmpbuf(saved);
    return px;
}

samples netpbm_decode(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        throw std::runtime_error("cannot open " + path.string());
    }
    int cols = 0, nrows = 0;
    pixval maxval = 0;
    pixel** px = netpbm_read(f, &cols, &nrows, &maxval);
    std::fclose(f);
    if (px == nullptr) {
        throw std::runtime_error("libnetpbm rejected the file");
    }
    samples out;
    out.reserve(static_cast<std::size_t>(cols) * nrows * 3);
    for (int r = 0; r < nrows; ++r) {
        for (int c = 0; c < cols; ++c) {
            out.push_back(PPM_GETR(px[r][c]));
            out.push_back(PPM_GETG(px[r][c]));
            out.push_back(PPM_GETB(px[r][c]));
        }
    }
    ppm_freearray(px, nrows);
    return out;
}
#endif

#if FASTREAD_HAVE_STB
samples stb_decode(const std::filesystem::path& path, bool sixteen) {
    int w = 0, h = 0, n = 0;
    samples out;
    if (sixteen) {
        stbi_us* px = stbi_load_16(path.c_str(), &w, &h, &n, 3);
        if (px == nullptr) {
            throw std::runtime_error(std::string("stb_image: ") + stbi_failure_reason());
        }
        out.assign(px, px + std::size_t(w) * h * 3);
        stbi_image_free(px);
    } else {
        stbi_uc* px = stbi_load(path.c_str(), &w, &h, &n, 3);
        if (px == nullptr) {
            throw std::runtime_error(std::string("stb_image: ") + stbi_failure_reason());
        }
        out.assign(px, px + std::size_t(w) * h * 3);
        stbi_image_free(px);
    }
    return out;
}
#endif

/// Registers every row for one input file.
// What every row of one column is checked against, and what the column holds.
struct column_reference {
    std::filesystem::path path;
    std::shared_ptr<samples> ref;          // the samples ppm::load<uint16_t> gives
    std::shared_ptr<byte_order_twin> twin; // 16-bit columns: also checked on this
    bool wide = false;                     // maxval above 255: 16-bit samples
    bool plain = false;                    // P3
    // A row's check: `decode(path)` compared with the reference, and with the twin's.
    template <class Decode>
    std::function<std::string()> check_with(Decode decode) const {
        return [path = path, ref = ref, twin = twin, decode]() {
            return check_decode(decode, path, *ref, twin);
        };
    }
};

// The article's stages 1-5 and RAW.
void add_baseline_rows(context& ctx, const input& in, const column_reference& c) {
    const std::string family = "ppm";
    const auto path = in.path;
    using stage_fn = ppm::image<std::uint8_t> (*)(const std::filesystem::path&);
    const std::pair<const char*, stage_fn> stages[] = {
        {"stage 1 iostream >>", &ppm::baseline::stage1_iostream},
        {"stage 2 fscanf", &ppm::baseline::stage2_fscanf},
        {"stage 3 fread + atoi", &ppm::baseline::stage3_atoi},
        {"stage 4 own parser", &ppm::baseline::stage4_parser},
        {"stage 5 mmap", &ppm::baseline::stage5_mmap}};
    for (const auto& [row, fn] : stages) {
        if (c.wide) {
            ctx.note(family, row, in.column, "n/a (8-bit only)");
            continue;
        }
        ctx.add(
            family, row, in,
            [path, fn = fn] {
                auto img = fn(path);
                benchmark::DoNotOptimize(img.samples.data());
            },
            c.check_with([fn = fn](const std::filesystem::path& p) { return to_samples(fn(p)); }));
    }
    ctx.add(family, "RAW (read only)", in, [path] {
        auto bytes = ppm::baseline::read_whole_file(path);
        benchmark::DoNotOptimize(bytes.data());
    });
}

// fastread::ppm::load, by path (at each SIMD level) and over each source. 16-bit inputs
// load as uint16_t.
void add_fastread_rows(context& ctx, const input& in, const column_reference& c) {
    const std::string family = "ppm";
    const auto path = in.path;
    const bool wide = c.wide;
    auto add_load = [&](const char* row, auto make_and_load) {
        ctx.add(
            family, row, in,
            [make_and_load, wide, path] {
                if (wide) {
                    auto img = make_and_load(path, std::uint16_t{});
                    benchmark::DoNotOptimize(img.samples.data());
                } else {
                    auto img = make_and_load(path, std::uint8_t{});
                    benchmark::DoNotOptimize(img.samples.data());
                }
            },
            c.check_with([make_and_load, wide](const std::filesystem::path& p) {
                return wide ? to_samples(make_and_load(p, std::uint16_t{}))
                            : to_samples(make_and_load(p, std::uint8_t{}));
            }));
    };
    using fs_path = std::filesystem::path;
    add_load("ppm::load", [](const fs_path& p, auto s) { return ppm::load<decltype(s)>(p); });
    // One row per SIMD level of the plain-raster kernel (the row above uses the best).
    for (fastread::scan::simd_level level : fastread::scan::all_levels) {
        const std::string row = "ppm::load " + std::string(fastread::scan::to_string(level));
        if (!c.plain) {
            ctx.note(family, row, in.column, "n/a (no plain raster)");
        } else if (level > fastread::scan::best_level()) {
            ctx.note(family, row, in.column, "n/a (CPU)");
        } else {
            add_load(row.c_str(), [level](const fs_path& p, auto s) {
                fastread::detail::force_simd_level(level);
                auto img = ppm::load<decltype(s)>(p);
                fastread::detail::reset_simd_level();
                return img;
            });
        }
    }
    add_load("ppm::load mmap_source", [](const fs_path& p, auto s) {
        fastread::mmap_source src(p);
        return ppm::load<decltype(s)>(src);
    });
    add_load("ppm::load read_source", [](const fs_path& p, auto s) {
        fastread::read_source src(p);
        return ppm::load<decltype(s)>(src);
    });
    add_load("ppm::load fread_source", [](const fs_path& p, auto s) {
        fastread::fread_source src(p);
        return ppm::load<decltype(s)>(src);
    });
    add_load("ppm::load stdio_source", [](const fs_path& p, auto s) {
        fastread::stdio_source src(p);
        return ppm::load<decltype(s)>(src);
    });
}

// The peers: libnetpbm, stb_image and OpenCV, when built in.
void add_peer_rows(context& ctx, const input& in, const column_reference& c) {
    const std::string family = "ppm";
    const auto path = in.path;
    const bool wide = c.wide;
    (void)path; // unused when neither peer is built
#if FASTREAD_HAVE_NETPBM
    ctx.add(
        family, "libnetpbm ppm_readppm", in,
        [path] {
            std::FILE* f = std::fopen(path.c_str(), "rb");
            int cols = 0, nrows = 0;
            pixval maxval = 0;
            pixel** px = netpbm_read(f, &cols, &nrows, &maxval);
            benchmark::DoNotOptimize(px);
            std::fclose(f);
            if (px != nullptr) {
                ppm_freearray(px, nrows);
            }
        },
        c.check_with([](const std::filesystem::path& p) { return netpbm_decode(p); }));
#else
    ctx.note(family, "libnetpbm ppm_readppm", in.column, "not built");
#endif
#if FASTREAD_HAVE_STB
    if (c.plain) {
        ctx.note(family, "stb_image stbi_load", in.column, "n/a (P6 only)");
    } else {
        ctx.add(
            family, "stb_image stbi_load", in,
            [path, wide] {
                int w = 0, h = 0, n = 0;
                void* px = wide ? static_cast<void*>(stbi_load_16(path.c_str(), &w, &h, &n, 3))
                                : static_cast<void*>(stbi_load(path.c_str(), &w, &h, &n, 3));
                benchmark::DoNotOptimize(px);
                stbi_image_free(px);
            },
            c.check_with([wide](const std::filesystem::path& p) { return stb_decode(p, wide); }));
    }
#else
    (void)wide;
    ctx.note(family, "stb_image stbi_load", in.column, "not built");
#endif
#if FASTREAD_HAVE_OPENCV
    ctx.add(
        family, "OpenCV cv::imread", in,
        [path] {
            cv::Mat m = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
            benchmark::DoNotOptimize(m.data);
        },
        c.check_with([](const std::filesystem::path& p) { return opencv_decode(p, false); }));
#else
    ctx.note(family, "OpenCV cv::imread", in.column, "not built");
#endif
}

void add_rows(context& ctx, const input& in) {
    const std::string family = "ppm";
    // The reference every row is checked against before timing.
    ppm::image<std::uint16_t> ref_img;
    try {
        ref_img = ppm::load<std::uint16_t>(in.path);
    } catch (const std::exception& e) {
        std::cerr << "fastread-bench: skipping " << in.path.string() << ": " << e.what() << "\n";
        return;
    }
    ctx.add_column(family, in);
    column_reference c;
    c.path = in.path;
    c.ref = std::make_shared<samples>(to_samples(ref_img));
    c.wide = ref_img.maxval > 255;
    c.plain = [&] {
        std::FILE* f = std::fopen(in.path.c_str(), "rb");
        char magic[2] = {0, 0};
        if (f != nullptr) {
            (void)std::fread(magic, 1, 2, f);
            std::fclose(f);
        }
        return magic[1] == '3';
    }();
    if (c.wide) {
        c.twin = std::make_shared<byte_order_twin>(
            make_byte_order_twin(ctx.opts().data_dir, c.plain ? '3' : '6', ref_img.maxval));
    }
    add_baseline_rows(ctx, in, c);
    add_fastread_rows(ctx, in, c);
    add_peer_rows(ctx, in, c);
}

void register_ppm_family(context& ctx) {
    // The estimate, calibrated: spent over estimated seconds of this family's cached and
    // cold phases in a default run (KVM host, 2026-11-27, timings.tsv): libnetpbm and the stages
    // 1-3 on the big P3 files take 0.5-1.8 s a repetition.
    ctx.set_estimate_scale("ppm", 1.63, 0.85);
#if FASTREAD_HAVE_NETPBM
    pm_init("fastread-bench", 0);
#endif
    ctx.add_family("ppm", "PPM loading", rows);
    ctx.mark_default("ppm", "ppm::load", {"ppm::load read_source", "ppm::load mmap_source"});
    ctx.mark_rows("ppm", row_kind::baseline,
                  {"stage 1 iostream >>", "stage 2 fscanf", "stage 3 fread + atoi",
                   "stage 4 own parser", "stage 5 mmap"});
    ctx.mark_rows("ppm", row_kind::floor, {"RAW (read only)"});
    ctx.mark_rows("ppm", row_kind::peer,
                  {"libnetpbm ppm_readppm", "stb_image stbi_load", "OpenCV cv::imread"});
    const options& o = ctx.opts();
    const std::string article = "article sizes";
    struct size {
        const char* name;
        std::uint32_t w, h;
    };
    // P6 sizes of the article: ~16 MB, ~2 MB, ~8 KB.
    std::vector<size> sizes = {{"big", 2560, 2048}, {"medium", 832, 832}, {"small", 52, 52}};
    if (o.quick) {
        sizes.erase(sizes.begin()); // --quick: no big inputs
    }
    std::vector<input> inputs;
    for (bool plain : {true, false}) {
        for (const size& s : sizes) {
            input in;
            in.column = std::string(plain ? "P3 " : "P6 ") + s.name;
            in.group = article;
            in.path = generated(o.data_dir, s.name, s.w, s.h, false, plain);
            inputs.push_back(in);
        }
    }
    if (!o.quick) {
        for (bool plain : {true, false}) {
            input in;
            in.column = plain ? "P3 16-bit big" : "P6 16-bit big";
            in.group = article;
            in.path = generated(o.data_dir, "big-16bit", 2560, 2048, true, plain);
            inputs.push_back(in);
        }
    }
    const std::filesystem::path data = FASTREAD_BENCH_DATA_DIR;
    if (std::filesystem::is_directory(data)) {
        for (const char* name : {"forge.ppm", "forge-plain.ppm", "forge16.ppm", "forge16-plain.ppm",
                                 "madras.ppm", "madras15-plain.ppm"}) {
            input in;
            in.column = name;
            in.group = "data/ (made by Netpbm)";
            in.path = data / name;
            if (std::filesystem::exists(in.path)) {
                inputs.push_back(in);
            }
        }
    }
    if (auto it = o.files.find("ppm"); it != o.files.end()) {
        for (const auto& p : it->second) {
            input in;
            in.column = p.filename().string();
            in.group = "your files";
            in.path = p;
            inputs.push_back(in);
        }
    }
    for (input& in : inputs) {
        std::error_code ec;
        in.bytes = std::filesystem::file_size(in.path, ec);
        if (ec || in.bytes == 0) {
            std::cerr << "fastread-bench: skipping " << in.path.string() << ": "
                      << (ec ? ec.message() : "empty file") << "\n";
            continue;
        }
        add_rows(ctx, in);
    }
}

} // namespace

const family_registration ppm_family{{
    "ppm",
    0,
    "  ppm     decode PPM images, P3 (ASCII) and P6 (binary): the article's stages 1-5\n"
    "          (iostream >>, fscanf, fread + atoi, own parser, mmap), RAW (read only),\n"
    "          fastread::ppm::load (by path, at each SIMD level of its P3 kernel, and over each\n"
    "          source), libnetpbm, stb_image and OpenCV when built in. Columns: generated\n"
    "          photo-like images (big ~16 MB, medium ~2 MB, small ~8 KB as P6; the same\n"
    "          pixels as P3), a 16-bit big image as P3 and P6, and the files under data/.\n",
    "--ppm",
    "also benchmark these PPM files (one column each)",
    {},
    &register_ppm_family,
}};

} // namespace fastread_bench
