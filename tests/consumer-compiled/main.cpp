// Writes a P6, a P2 and a PFM with fastread, loads them back through the separately
// compiled library (another translation unit loads too), and checks every sample; jobs.cpp
// runs the other jobs the compiled library holds.
#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#if !FASTREAD_SEPARATE_COMPILATION
#error "fastread::compiled should give its users FASTREAD_SEPARATE_COMPILATION"
#endif

unsigned widest_sample(const std::filesystem::path& path);    // other.cpp
bool jobs_in_compiled_mode(const std::filesystem::path& dir); // jobs.cpp

int main() {
    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    fastread::ppm::image<std::uint8_t> rgb;
    rgb.width = 2;
    rgb.height = 1;
    rgb.maxval = 255;
    rgb.samples.assign({1, 2, 3, 250, 251, 252});
    fastread::ppm::save(dir / "fastread-compiled.ppm", rgb);
    fastread::pnm::image<std::uint16_t> gray;
    gray.width = 3;
    gray.height = 1;
    gray.depth = 1;
    gray.maxval = 1000;
    gray.tuple_type = "GRAYSCALE";
    gray.encoding = fastread::pnm::format::pgm_plain;
    gray.samples.assign({0, 500, 1000});
    fastread::pnm::save(dir / "fastread-compiled.pgm", gray, fastread::pnm::format::pgm_plain);
    fastread::pfm::image floats;
    floats.width = 2;
    floats.height = 1;
    floats.depth = 1;
    floats.samples = {0.25f, -1.5f};
    fastread::pfm::save(dir / "fastread-compiled.pfm", floats);

    const bool ok = fastread::ppm::load(dir / "fastread-compiled.ppm") == rgb &&
                    fastread::pnm::load<std::uint16_t>(dir / "fastread-compiled.pgm") == gray &&
                    fastread::pfm::load(dir / "fastread-compiled.pfm").samples == floats.samples &&
                    widest_sample(dir / "fastread-compiled.ppm") == 252 &&
                    jobs_in_compiled_mode(dir);
    for (const char* name :
         {"fastread-compiled.ppm", "fastread-compiled.pgm", "fastread-compiled.pfm"}) {
        std::filesystem::remove(dir / name);
    }
    std::printf("fastread compiled mode: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
