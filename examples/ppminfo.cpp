// fastread-ppminfo: prints the size, maxval and first pixel of each PPM file named on the
// command line ("-" reads stdin). Exits 1 if any file could not be decoded.
//
//   $ fastread-ppminfo photo.ppm
//   photo.ppm: 640x480, maxval 255, first pixel 12 40 77

#include <fastread/ppm.hpp>
#include <fastread/source.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

int main(int argc, char* argv[]) {
    if (argc < 2) {
        std::cerr << "usage: fastread-ppminfo FILE.ppm... ('-' for stdin)\n";
        return 2;
    }
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string name = argv[i];
        try {
            fastread::ppm::image<std::uint16_t> img;
            if (name == "-") {
                fastread::stdio_source in(stdin);
                img = fastread::ppm::load<std::uint16_t>(in);
            } else {
                img = fastread::ppm::load<std::uint16_t>(name);
            }
            std::cout << name << ": " << img.width << "x" << img.height << ", maxval " << img.maxval
                      << ", first pixel " << img.samples[0] << " " << img.samples[1] << " "
                      << img.samples[2] << "\n";
        } catch (const std::exception& e) {
            // parse_error and system_error messages already name the file.
            std::cerr << "fastread-ppminfo: " << e.what() << "\n";
            status = 1;
        }
    }
    return status;
}
