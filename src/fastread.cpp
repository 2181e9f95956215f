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

namespace fastread {

template pnm::image<std::uint8_t> pnm::load<std::uint8_t>(const std::filesystem::path&,
                                                          load_options);
template pnm::image<std::uint16_t> pnm::load<std::uint16_t>(const std::filesystem::path&,
                                                            load_options);
template void pnm::save<std::uint8_t>(const std::filesystem::path&, const pnm::image<std::uint8_t>&,
                                      pnm::format);
template void pnm::save<std::uint16_t>(const std::filesystem::path&,
                                       const pnm::image<std::uint16_t>&, pnm::format);

template ppm::image<std::uint8_t> ppm::load<std::uint8_t>(const std::filesystem::path&,
                                                          load_options);
template ppm::image<std::uint16_t> ppm::load<std::uint16_t>(const std::filesystem::path&,
                                                            load_options);
template void ppm::save<std::uint8_t>(const std::filesystem::path&, const ppm::image<std::uint8_t>&,
                                      ppm::format);
template void ppm::save<std::uint16_t>(const std::filesystem::path&,
                                       const ppm::image<std::uint16_t>&, ppm::format);

} // namespace fastread
