#include "detail/cxx20.hpp"
#if FASTREAD_CXX20 && !defined(FASTREAD_VERSION_HPP)
#define FASTREAD_VERSION_HPP

/// @file
/// fastread's version, the one place it is written: CMake's project version and the
/// pkg-config file read it from here, and CHANGELOG.md has an entry per release.

/// Major version: changes that break source compatibility.
#define FASTREAD_VERSION_MAJOR 0
/// Minor version: additions.
#define FASTREAD_VERSION_MINOR 1
/// Patch version: fixes.
#define FASTREAD_VERSION_PATCH 0

/// The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100), for
/// `#if FASTREAD_VERSION >= ...`.
#define FASTREAD_VERSION                                                                           \
    (FASTREAD_VERSION_MAJOR * 10000 + FASTREAD_VERSION_MINOR * 100 + FASTREAD_VERSION_PATCH)

/// @cond internal
#define FASTREAD_VERSION_STRINGIZE_(x) #x
#define FASTREAD_VERSION_STRINGIZE(x) FASTREAD_VERSION_STRINGIZE_(x)
/// @endcond

/// The version as a string literal, "MAJOR.MINOR.PATCH".
#define FASTREAD_VERSION_STRING                                                                    \
    FASTREAD_VERSION_STRINGIZE(FASTREAD_VERSION_MAJOR)                                             \
    "." FASTREAD_VERSION_STRINGIZE(FASTREAD_VERSION_MINOR) "." FASTREAD_VERSION_STRINGIZE(         \
        FASTREAD_VERSION_PATCH)

#endif // FASTREAD_VERSION_HPP
