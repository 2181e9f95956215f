#ifndef FASTREAD_COMPARE_HPP
#define FASTREAD_COMPARE_HPP

/// @file
/// Comparing files and finding duplicates: includes fastread/files_equal.hpp and
/// fastread/duplicates.hpp (compare.hpp held both before they were split; kept so that
/// existing includes build).

#include "duplicates.hpp"
#include "files_equal.hpp"

#endif // FASTREAD_COMPARE_HPP
