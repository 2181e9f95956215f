#ifndef FASTREAD_POSITIONED_HPP
#define FASTREAD_POSITIONED_HPP

/// @file
/// The records job's header under its earlier name: includes records.hpp (read_at,
/// update_at, positioned_file). Kept for one release for code written before the rename.

#include "records.hpp"

#endif // FASTREAD_POSITIONED_HPP
