#ifndef FASTREAD_DETAIL_CXX20_HPP
#define FASTREAD_DETAIL_CXX20_HPP

// fastread is C++20. Every public header includes this first and compiles its body only
// when FASTREAD_CXX20 is 1, so that a translation unit built for an older standard stops
// with the one #error below instead of hundreds of errors from inside fastread.
#if __cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#define FASTREAD_CXX20 1
#else
#define FASTREAD_CXX20 0
#error "fastread needs C++20: compile with -std=c++20 (MSVC: /std:c++20)"
#endif

#endif // FASTREAD_DETAIL_CXX20_HPP
