// fastread-pnminfo: prints the format, size, depth, maxval (or PFM scale), tuple type and
// first pixel of each Netpbm (P1 to P7) or PFM file named on the command line ("-" reads
// stdin). Exits 1 if any file could not be decoded.
//
//   $ fastread-pnminfo photo.ppm mask.pbm
//   photo.ppm: P6 (PPM raw), 640x480, depth 3, maxval 255, RGB, first pixel 12 40 77
//   mask.pbm: P4 (PBM raw), 640x480, depth 1, maxval 1, BLACKANDWHITE, first pixel 1

#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tool_main.hpp"

namespace {

const char* format_name(fastread::pnm::format f) {
    static constexpr const char* names[] = {"",        "PBM plain", "PGM plain", "PPM plain",
                                            "PBM raw", "PGM raw",   "PPM raw",   "PAM"};
    return names[static_cast<int>(f) & 7];
}

// Prints one image's line; `pfm` says which decoder the magic number asked for.
template <class Source>
void describe(const std::string& name, Source& source, bool pfm) {
    std::ostringstream line;
    line << name << ": ";
    if (pfm) {
        const fastread::pfm::image img = fastread::pfm::load(source);
        line << (img.depth == 3 ? "PF" : "Pf") << " (PFM), " << img.width << "x" << img.height
             << ", depth " << img.depth << ", scale " << img.scale << ", first pixel";
        for (std::uint32_t k = 0; k < img.depth; ++k) {
            line << " " << img.samples[k];
        }
    } else {
        const auto img = fastread::pnm::load<std::uint16_t>(source);
        line << "P" << static_cast<int>(img.encoding) << " (" << format_name(img.encoding) << "), "
             << img.width << "x" << img.height << ", depth " << img.depth << ", maxval "
             << img.maxval << ", " << (img.tuple_type.empty() ? "no tuple type" : img.tuple_type)
             << ", first pixel";
        for (std::uint32_t k = 0; k < img.depth; ++k) {
            line << " " << img.samples[k];
        }
    }
    std::cout << line.str() << "\n";
}

} // namespace

int tool_main(const std::vector<std::string>& args) {
    const int argc = static_cast<int>(args.size());
    if (argc < 2) {
        std::cerr << "usage: fastread-pnminfo FILE... (Netpbm P1-P7 or PFM; '-' for stdin)\n";
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string name = args[i];
        try {
            if (name == "-") {
                // stdin is read once: keep it, then decode from memory.
                const std::vector<char> bytes((std::istreambuf_iterator<char>(std::cin)),
                                              std::istreambuf_iterator<char>());
                fastread::memory_source in(std::span<const char>(bytes.data(), bytes.size()));
                const bool pfm =
                    bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == 'F' || bytes[1] == 'f');
                describe(name, in, pfm);
            } else {
                char magic[2] = {0, 0};
                std::ifstream(fastread::detail::path_of(name), std::ios::binary).read(magic, 2);
                const bool pfm = magic[0] == 'P' && (magic[1] == 'F' || magic[1] == 'f');
                fastread::read_source in(fastread::detail::path_of(name));
                describe(name, in, pfm);
            }
        } catch (const std::exception& e) {
            // parse_error and system_error messages already name the file.
            std::cerr << "fastread-pnminfo: " << e.what() << "\n";
            status = 1;
        }
    }
    return status;
}
