// fastread's separately compiled part, for projects that include fastread in many
// translation units: the CMake target fastread::compiled builds this file once and makes
// its users see declarations only (FASTREAD_SEPARATE_COMPILATION), as spdlog's compiled
// library and Asio's separate compilation do. Here the headers are read whole, and the
// loads and saves from a path are instantiated for the sample types the API documents.

#define FASTREAD_BUILDING_LIBRARY 1

#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>

#include <cstdint>
#include <filesystem>

namespace fastread::pnm {
FASTREAD_DETAIL_PATH_LOADS()
FASTREAD_DETAIL_PNM_PATH_LOADS()
} // namespace fastread::pnm

namespace fastread::ppm {
FASTREAD_DETAIL_PATH_LOADS()
} // namespace fastread::ppm
