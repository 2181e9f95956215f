// fastread's separately compiled part, for projects that include fastread in many
// translation units: the CMake target fastread::compiled builds this file once and makes
// its users see declarations only (FASTREAD_SEPARATE_COMPILATION), as spdlog's compiled
// library and Asio's separate compilation do. Here the headers are read whole, and the
// loads and saves from a path are instantiated for the sample types the API documents; the
// functions of lines(path), files_equal, find_duplicates, act_on_duplicates,
// string_table::view's opening and the core of read_at / update_at by path (one copy for
// every record size) are defined here once
// (FASTREAD_COMPILED_INLINE is empty while FASTREAD_BUILDING_LIBRARY is set).

#define FASTREAD_BUILDING_LIBRARY 1

#include <fastread/duplicate_actions.hpp>
#include <fastread/duplicates.hpp>
#include <fastread/files_equal.hpp>
#include <fastread/lines.hpp>
#include <fastread/numbers.hpp>
#include <fastread/pfm.hpp>
#include <fastread/pnm.hpp>
#include <fastread/ppm.hpp>
#include <fastread/records.hpp>
#include <fastread/string_table.hpp>

#include <cstdint>
#include <filesystem>

namespace fastread {
template class line_range<detail::path_source>;
FASTREAD_DETAIL_INTEGER_LOADS()
#if FASTREAD_HAS_FAST_FLOAT || defined(__cpp_lib_to_chars)
FASTREAD_DETAIL_FLOAT_LOADS()
#endif
} // namespace fastread

namespace fastread::pnm {
FASTREAD_DETAIL_PATH_LOADS()
FASTREAD_DETAIL_PNM_PATH_LOADS()
} // namespace fastread::pnm

namespace fastread::ppm {
FASTREAD_DETAIL_PATH_LOADS()
} // namespace fastread::ppm
