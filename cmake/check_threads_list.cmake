# Fails when the list of the calls that may start threads drifts from the headers. A call
# "takes a thread setting" when one of its parameters is an options struct with a `threads`
# field (found in the public headers, not written here). Each such public call must be named
# in the "Threads" section of docs/defaults.md: in its table when it may start threads, else
# in the sentence of the calls that start none. Each call of the table must also be named in
# the @file comment of include/fastread/threads.hpp and be run by tests/process_test.cpp,
# which counts the threads a process starts. Run by CTest:
#   cmake -DSOURCE_DIR=<source tree> -P this file
cmake_minimum_required(VERSION 3.20)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_threads_list: pass -DSOURCE_DIR=...")
endif()
file(GLOB_RECURSE headers RELATIVE "${SOURCE_DIR}/include/fastread"
     "${SOURCE_DIR}/include/fastread/*.hpp")
list(FILTER headers EXCLUDE REGEX "(^|/)detail/")

# The options structs with a `threads` field (0 by default: the process setting): the struct
# opened last before the field.
set(option_types)
foreach(h IN LISTS headers)
  file(STRINGS "${SOURCE_DIR}/include/fastread/${h}" lines REGEX "struct [a-z_]+ \\{|unsigned threads = 0")
  set(open "")
  foreach(line IN LISTS lines)
    if(line MATCHES "struct ([a-z_]+) \\{")
      set(open "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^ *unsigned threads = 0" AND open)
      list(APPEND option_types "${open}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES option_types)
list(LENGTH option_types type_count)
if(type_count LESS 5)
  message(FATAL_ERROR "check_threads_list: only ${type_count} options structs with threads: ${option_types}")
endif()
list(JOIN option_types "|" type_pattern)

# The public calls with one of them among their parameters, qualified by the image formats'
# and csv's namespaces (the headers under pnm/, ppm/, pfm/ and csv/). Members that users do not call (a
# range's constructor, a positioned_file's private steps) and fastread::detail's helpers
# written in a public header are not calls.
set(not_calls line_range make_plan sync read_records update_records update_in_phases try_columns_file
    read_records_file read_records_of update_records_file update_records_of)
set(calls)
foreach(h IN LISTS headers)
  file(READ "${SOURCE_DIR}/include/fastread/${h}" text)
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REPLACE "\n" " " text "${text}")
  # The type as a parameter's whole word: csv's `options` is not the tail of `number_options`
  # nor a variable `options` passed on.
  string(REGEX MATCHALL "[A-Za-z_][A-Za-z_0-9]* *(<[^<>();]*>)? *\\(([^();]*[ :,])?(${type_pattern})[ &][^();]*\\)"
         found "${text}")
  set(prefix "")
  if(h MATCHES "^(pnm|ppm|pfm|csv)[/.]")
    set(prefix "${CMAKE_MATCH_1}::")
  endif()
  foreach(f IN LISTS found)
    string(REGEX MATCH "^[A-Za-z_][A-Za-z_0-9]*" name "${f}")
    if(name MATCHES "^(${type_pattern})$" OR name IN_LIST not_calls)
      continue()
    endif()
    string(REGEX REPLACE "^try_" "" name "${name}")
    list(APPEND calls "${prefix}${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES calls)
list(SORT calls)
list(LENGTH calls call_count)
if(call_count LESS 10)
  message(FATAL_ERROR "check_threads_list: only ${call_count} calls take a thread setting: ${calls}")
endif()

file(READ "${SOURCE_DIR}/docs/defaults.md" defaults)
string(REGEX MATCH "\n## Threads\n.*" section "${defaults}")
string(REGEX REPLACE "^\n## Threads\n" "" section "${section}")
string(REGEX REPLACE "\n## .*" "" section "${section}")
# The table's first cells: the calls that may start threads.
string(REGEX MATCHALL "\n\\| [^|]*\\|" cells "${section}")
set(table "")
foreach(cell IN LISTS cells)
  string(APPEND table "${cell}")
endforeach()
file(READ "${SOURCE_DIR}/include/fastread/threads.hpp" threads_hpp)
string(REGEX MATCH "/// @file.*\n#include" threads_doc "${threads_hpp}")
file(READ "${SOURCE_DIR}/tests/process_test.cpp" process_test)

set(missing)
set(starting)
foreach(call IN LISTS calls)
  string(REGEX REPLACE "([.+*?^$()])" "\\\\\\1" quoted "${call}")
  if(table MATCHES "`${quoted}[`(]")
    list(APPEND starting "${call}")
    if(NOT threads_doc MATCHES "`${quoted}[`(]")
      list(APPEND missing "include/fastread/threads.hpp's list lacks ${call}")
    endif()
    if(NOT process_test MATCHES "[^a-z_]${quoted}[(<]")
      list(APPEND missing "tests/process_test.cpp does not run ${call}")
    endif()
  elseif(NOT section MATCHES "`${quoted}[`(]")
    list(APPEND missing "docs/defaults.md's Threads section does not say whether ${call} starts threads")
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n" text)
  message(FATAL_ERROR "${text}")
endif()
list(JOIN option_types ", " types_text)
list(JOIN starting ", " starting_text)
message(STATUS "${call_count} calls take a thread setting (${types_text}); these may start "
               "threads: ${starting_text}")
