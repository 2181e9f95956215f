// The images family: many small Netpbm files, as machine-learning data sets hold them (the
// ORL faces: PGMs of 92 x 112; tiles: PPMs of 256 x 256). For files of a few KiB the system
// calls and the allocations are the whole cost of a load, so the rows compare loops of
// per-file loads (fastread::pnm::load, pnm::load_into one reused buffer, stb_image, OpenCV,
// libnetpbm) with fastread::pnm::load_batch, which decodes all the files into one buffer
// with the opens, reads and closes spread over the CPUs. Cells: cycles per byte of all the
// files, and files a second.

#include <fastread/pnm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"
#include "families.hpp"
#include "image_peers.hpp"

#include <fcntl.h>
#include <unistd.h>

#if FASTREAD_HAVE_STB
#include <stb_image.h>
#endif

namespace fastread_bench {
namespace {

namespace pnm = fastread::pnm;

/// One column: a directory of same-shape files.
struct data_set {
    const char* column; // table heading, before the file count
    const char* dir;    // under the data directory (a version in it: change it with the pixels)
    char magic;         // '5' (PGM) or '6' (PPM)
    std::uint32_t width, height;
    std::size_t files, quick_files;
};

/// File `k`'s bytes: a raw PGM or PPM whose samples are smooth waves plus noise (a face or a
/// photo tile compresses no better), different in every file.
std::string image_bytes(const data_set& s, std::size_t k) {
    const std::uint32_t depth = s.magic == '6' ? 3 : 1;
    std::string out = std::string("P") + s.magic + "\n" + std::to_string(s.width) + " " +
                      std::to_string(s.height) + "\n255\n";
    std::uint64_t state = 0x9e3779b97f4a7c15ull * (k + 1);
    for (std::uint32_t y = 0; y < s.height; ++y) {
        for (std::uint32_t x = 0; x < s.width; ++x) {
            for (std::uint32_t c = 0; c < depth; ++c) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                const double wave = 0.5 + 0.3 * std::sin(0.07 * x + 0.05 * y + 0.3 * c + k) +
                                    0.1 * std::cos(0.11 * y - 0.02 * x);
                const double v = wave + (static_cast<double>(state >> 40) / 16777216.0 - 0.5) * 0.1;
                out += static_cast<char>(std::lround(std::min(1.0, std::max(0.0, v)) * 255));
            }
        }
    }
    return out;
}

/// The files of `s` under `dir` (written once; a directory with every file is reused).
std::vector<std::filesystem::path> generated(const std::filesystem::path& dir, const data_set& s,
                                             std::size_t count) {
    std::vector<std::filesystem::path> paths;
    paths.reserve(count);
    const std::string ext = s.magic == '6' ? ".ppm" : ".pgm";
    bool told = false;
    for (std::size_t k = 0; k < count; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "%05zu", k);
        paths.push_back(dir / (std::string("image-") + name + ext));
        std::error_code ec;
        if (!std::filesystem::exists(paths.back(), ec)) {
            if (!told) {
                std::cerr << "fastread-bench: generating " << count << " files in " << dir.string()
                          << std::endl;
                told = true;
            }
            std::filesystem::create_directories(dir);
            write_bytes(paths.back(), image_bytes(s, k));
        }
    }
    return paths;
}

const std::vector<std::string> rows = {
    "RAW (open, read, close each file)",
    "RAW on every CPU",
    "pnm::load_batch",
    "pnm::load loop",
    "pnm::load_into loop, one buffer",
    "libnetpbm pnm_readpam loop",
    "stb_image stbi_load loop",
    "OpenCV cv::imread loop",
};

using path_list = std::vector<std::filesystem::path>;

/// The rows' check: `decode(k)` gives file k's samples; each must equal pnm::load's.
template <class Decode>
std::function<std::string()> check_each(std::shared_ptr<const path_list> paths, Decode decode) {
    return [paths, decode]() -> std::string {
        for (std::size_t k = 0; k < paths->size(); ++k) {
            const pnm::image<std::uint8_t> img = pnm::load((*paths)[k]);
            const samples want(img.samples.begin(), img.samples.end());
            std::string wrong = compare_samples(decode(k), want);
            if (!wrong.empty()) {
                return (*paths)[k].filename().string() + ": " + wrong;
            }
        }
        return {};
    };
}

void add_rows(context& ctx, const input& in, std::shared_ptr<const path_list> paths,
              std::size_t per_image, std::size_t row) {
    const std::string family = "images";
    ctx.add_column(family, in);
    const std::size_t count = paths->size();

    ctx.add(family, "RAW (open, read, close each file)", in, [paths, per_image] {
        std::vector<char> buffer(per_image + 4096);
        for (const auto& p : *paths) {
            const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
            const ssize_t got = ::read(fd, buffer.data(), buffer.size());
            benchmark::DoNotOptimize(got);
            ::close(fd);
        }
    });

    // The same on one thread per CPU, each with its share of the files: what no loader that
    // reads the files can beat (a floor; the decode and the copy to the caller come on top).
    ctx.add(family, "RAW on every CPU", in, [paths, per_image] {
        const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < cpus; ++t) {
            threads.emplace_back([&, t] {
                std::vector<char> buffer(per_image + 4096);
                for (std::size_t k = paths->size() * t / cpus; k < paths->size() * (t + 1) / cpus;
                     ++k) {
                    const int fd = ::open((*paths)[k].c_str(), O_RDONLY | O_CLOEXEC);
                    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
                    benchmark::DoNotOptimize(got);
                    ::close(fd);
                }
            });
        }
        for (std::thread& t : threads) {
            t.join();
        }
    });

    // One buffer for every image, made once: what a data loader keeps for its batches.
    auto all = std::make_shared<std::vector<std::uint8_t>>(count * per_image);
    ctx.add(
        family, "pnm::load_batch", in,
        [paths, all] {
            auto each = pnm::load_batch(*paths, std::span(*all));
            benchmark::DoNotOptimize(each.data());
        },
        [paths, all, per_image]() -> std::string {
            std::fill(all->begin(), all->end(), std::uint8_t{0});
            for (const auto& r : pnm::load_batch(*paths, std::span(*all))) {
                if (!r) {
                    return "failed: " + r.error().message();
                }
            }
            return check_each(paths, [&](std::size_t k) {
                const auto* slot = all->data() + k * per_image;
                return samples(slot, slot + per_image);
            })();
        });

    ctx.add(
        family, "pnm::load loop", in,
        [paths] {
            for (const auto& p : *paths) {
                pnm::image<std::uint8_t> img = pnm::load(p);
                benchmark::DoNotOptimize(img.samples.data());
            }
        },
        check_each(paths, [paths](std::size_t k) {
            const pnm::image<std::uint8_t> img = pnm::load((*paths)[k]);
            return samples(img.samples.begin(), img.samples.end());
        }));

    ctx.add(
        family, "pnm::load_into loop, one buffer", in,
        [paths, per_image, row] {
            std::vector<std::uint8_t> buffer(per_image);
            for (const auto& p : *paths) {
                pnm::header h = pnm::load_into(p, std::span(buffer), row);
                benchmark::DoNotOptimize(h.width);
            }
        },
        check_each(paths, [paths, per_image, row](std::size_t k) {
            std::vector<std::uint8_t> buffer(per_image);
            pnm::load_into((*paths)[k], std::span(buffer), row);
            return samples(buffer.begin(), buffer.end());
        }));

#if FASTREAD_HAVE_NETPBM
    ctx.add(
        family, "libnetpbm pnm_readpam loop", in,
        [paths] {
            for (const auto& p : *paths) {
                std::FILE* f = std::fopen(p.c_str(), "rb");
                struct pam pam {};
                tuple** tuples = netpbm_read(f, &pam);
                benchmark::DoNotOptimize(tuples);
                std::fclose(f);
                if (tuples != nullptr) {
                    pnm_freepamarray(tuples, &pam);
                }
            }
        },
        check_each(paths, [paths](std::size_t k) { return netpbm_decode((*paths)[k]); }));
#else
    ctx.note(family, "libnetpbm pnm_readpam loop", in.column, "not built");
#endif
#if FASTREAD_HAVE_STB
    ctx.add(
        family, "stb_image stbi_load loop", in,
        [paths] {
            for (const auto& p : *paths) {
                int w = 0, h = 0, n = 0;
                stbi_uc* px = stbi_load(p.c_str(), &w, &h, &n, 0);
                benchmark::DoNotOptimize(px);
                stbi_image_free(px);
            }
        },
        check_each(paths, [paths](std::size_t k) {
            int w = 0, h = 0, n = 0;
            samples out;
            stbi_uc* px = stbi_load((*paths)[k].c_str(), &w, &h, &n, 0);
            if (px != nullptr) {
                out.assign(px, px + std::size_t(w) * h * n);
            }
            stbi_image_free(px);
            return out;
        }));
#else
    ctx.note(family, "stb_image stbi_load loop", in.column, "not built");
#endif
#if FASTREAD_HAVE_OPENCV
    ctx.add(
        family, "OpenCV cv::imread loop", in,
        [paths] {
            for (const auto& p : *paths) {
                cv::Mat m = cv::imread(p.string(), cv::IMREAD_UNCHANGED);
                benchmark::DoNotOptimize(m.data);
            }
        },
        check_each(paths, [paths](std::size_t k) { return opencv_decode((*paths)[k], false); }));
#else
    ctx.note(family, "OpenCV cv::imread loop", in.column, "not built");
#endif
}

void register_images_family(context& ctx) {
#if FASTREAD_HAVE_NETPBM
    pm_init("fastread-bench", 0);
#endif
    ctx.add_family("images", "many small images (data sets)", rows,
                   unit::cycles_per_byte_and_files);
    ctx.mark_default("images", "pnm::load_batch",
                     {"pnm::load loop", "pnm::load_into loop, one buffer"});
    ctx.mark_rows("images", row_kind::floor,
                  {"RAW (open, read, close each file)", "RAW on every CPU"});
    ctx.mark_rows(
        "images", row_kind::peer,
        {"libnetpbm pnm_readpam loop", "stb_image stbi_load loop", "OpenCV cv::imread loop"});
    const options& o = ctx.opts();
    const data_set sets[] = {
        {"PGM 92x112 (ORL faces)", "images-v1-pgm-92x112", '5', 92, 112, 10000, 1000},
        {"PPM 256x256", "images-v1-ppm-256x256", '6', 256, 256, 2000, 200},
    };
    for (const data_set& s : sets) {
        const std::size_t count = o.quick ? s.quick_files : s.files;
        auto paths = std::make_shared<const path_list>(generated(o.data_dir / s.dir, s, count));
        input in;
        in.column = std::string(s.column) + " x " + std::to_string(count);
        in.group = "generated";
        in.path = paths->front();
        in.also.assign(paths->begin() + 1, paths->end());
        in.items = count;
        std::error_code ec;
        for (const auto& p : *paths) {
            in.bytes += std::filesystem::file_size(p, ec);
        }
        if (ec || in.bytes == 0) {
            continue;
        }
        const std::size_t row = std::size_t{s.width} * (s.magic == '6' ? 3 : 1);
        add_rows(ctx, in, paths, row * s.height, row);
    }
}

} // namespace

const family_registration images_family{{
    "images",
    7,
    "  images  load many small images, as data sets hold them: 10,000 PGMs of 92 x 112 (the\n"
    "          ORL faces' shape) and 2,000 PPMs of 256 x 256, generated (--quick: a tenth);\n"
    "          rows fastread::pnm::load_batch (one buffer, every CPU), loops of pnm::load\n"
    "          and pnm::load_into (one reused buffer), of libnetpbm, stb_image and OpenCV,\n"
    "          and RAW (open, read, close each file; also on every CPU); cycles per byte\n"
    "          and files a second.\n",
    "",
    "",
    {},
    &register_images_family,
}};

} // namespace fastread_bench
