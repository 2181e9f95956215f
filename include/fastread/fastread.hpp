#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_FASTREAD_HPP)
#define FASTREAD_FASTREAD_HPP

/// @file
/// Everything fastread offers to read and parse files, and the settings that bound it
/// (threads.hpp, io.hpp). Not the actions on duplicate files, which link, dedupe and delete
/// users' files: a program that may change files says so by including
/// fastread/duplicate_actions.hpp.

#include "csv.hpp"
#include "duplicates.hpp"
#include "error.hpp"
#include "files_equal.hpp"
#include "io.hpp"
#include "line_readers.hpp"
#include "lines.hpp"
#include "numbers.hpp"
#include "page_cache.hpp"
#include "pfm.hpp"
#include "pnm.hpp"
#include "ppm.hpp"
#include "records.hpp"
#include "sample_vector.hpp"
#include "source.hpp"
#include "string_table.hpp"
#include "threads.hpp"
#include "version.hpp"

#endif // FASTREAD_FASTREAD_HPP
