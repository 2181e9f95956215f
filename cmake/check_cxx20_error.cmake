# Fails unless every public header, included in a translation unit built as C++17, stops
# the build with exactly one diagnostic: fastread's #error saying that C++20 is needed
# (detail/cxx20.hpp), not the errors of the code it would otherwise compile. Run by CTest:
#   cmake -DCXX=<GCC or Clang> -DINCLUDE_DIR=<include directory> -DWORK_DIR=<dir> -P this file
cmake_minimum_required(VERSION 3.20)
foreach(var CXX INCLUDE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_cxx20_error: pass -D${var}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")
file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/fastread/*.hpp")
set(checked 0)
set(problems "")
foreach(header IN LISTS headers)
  if(header MATCHES "/detail/")
    continue() # reached only through the public headers
  endif()
  file(WRITE "${WORK_DIR}/tu.cpp" "#include <${header}>\nint main() { return 0; }\n")
  execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only -I "${INCLUDE_DIR}" tu.cpp
                  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  string(REGEX MATCHALL "error:" errors "${out}")
  list(LENGTH errors error_count)
  if(rc EQUAL 0)
    string(APPEND problems "\n  ${header}: compiled as C++17 without an error")
  elseif(NOT error_count EQUAL 1 OR NOT out MATCHES "#error \"fastread needs C\\+\\+20")
    string(APPEND problems "\n  ${header}: ${error_count} errors, not the one #error:\n${out}")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked LESS 30)
  message(FATAL_ERROR "check_cxx20_error: only ${checked} public headers found")
endif()
if(problems)
  message(FATAL_ERROR "public headers built as C++17:${problems}")
endif()
message(STATUS "${checked} public headers: one #error each as C++17")
