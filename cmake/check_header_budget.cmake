# Fails when a public header, included alone, preprocesses to more lines than its budget
# below: what a user's translation unit pays to include it (the standard headers it pulls
# count too). A budget is the size measured when it was last set, plus about 5 %; raise one
# only with a reason in the commit (a new job needs a new standard header), lower it when a
# header gets lighter. Run by CTest:
#   cmake -DCXX=<compiler> -DINCLUDE_DIR=<include directory> -DWORK_DIR=<dir> -P this file
cmake_minimum_required(VERSION 3.20)
foreach(var CXX INCLUDE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_header_budget: pass -D${var}=...")
  endif()
endforeach()

# Lines after `g++ -std=c++20 -E -P` (GCC 12, libstdc++ 12), header by header.
set(budgets
    "csv.hpp=77000"
    "csv/sniff.hpp=83000"
    "csv/read.hpp=84500"
    "csv/text_column.hpp=52000"
    "duplicate_actions.hpp=89500"
    "duplicate_actions.hpp:compiled=60000"
    "duplicates.hpp=85000"
    "duplicates.hpp:compiled=60000"
    "duplicates/actions.hpp=58000"
    "duplicates/options.hpp=58000"
    "error.hpp=23000"
    "fastread.hpp=149000"
    "files_equal.hpp=70000"
    "files_equal.hpp:compiled=45000"
    "io.hpp=22000"
    "line_readers.hpp=66000"
    "lines.hpp=68000"
    "lines.hpp:compiled=62000"
    "lines/stdio.hpp=68000"
    "numbers.hpp=117000"
    "numbers.hpp:compiled=50000"
    "numbers/source.hpp=117000"
    "page_cache.hpp=66000"
    "pfm.hpp=114000"
    "pfm.hpp:compiled=48000"
    "pfm/image.hpp=48000"
    "pfm/reader.hpp=114000"
    "pnm.hpp=111000"
    "pnm.hpp:compiled=53000"
    "pnm/image.hpp=53000"
    "pnm/reader.hpp=108000"
    "pnm/row_reader.hpp=109000"
    "pnm/options.hpp=22000"
    "ppm.hpp=111000"
    "ppm.hpp:compiled=53000"
    "ppm/image.hpp=53000"
    "ppm/reader.hpp=108000"
    "records.hpp=67000"
    "records.hpp:compiled=54000"
    "records/options.hpp=23000"
    "records/positioned_file.hpp=67000"
    "result.hpp=22500"
    "sample_vector.hpp=41000"
    "scan/byte_mask.hpp=67000"
    "scan/decimal_list.hpp=78000"
    "scan/simd_level.hpp=67000"
    "source.hpp=66000"
    "source/byte_source.hpp=46000"
    "source/fread_source.hpp=64000"
    "source/istream_source.hpp=50000"
    "source/mmap_source.hpp=63000"
    "source/read_source.hpp=61000"
    "source/stdio_source.hpp=61000"
    "string_table.hpp=70000"
    "string_table.hpp:compiled=56000"
    "string_table/format.hpp=11000"
    "string_table/view.hpp=67000"
    "string_table/view.hpp:compiled=56000"
    "string_table/writer.hpp=70000"
    "threads.hpp=28000"
    "version.hpp=100")

file(MAKE_DIRECTORY "${WORK_DIR}")
set(over "")
set(report "")
foreach(entry IN LISTS budgets)
  string(REPLACE "=" ";" pair "${entry}")
  list(GET pair 0 header)
  list(GET pair 1 budget)
  # "name:compiled": the header in the separately compiled mode.
  set(mode "")
  set(label "${header}")
  if(header MATCHES "^(.*):compiled$")
    set(header "${CMAKE_MATCH_1}")
    set(mode "-DFASTREAD_SEPARATE_COMPILATION=1")
    set(label "${header} (compiled mode)")
  endif()
  if(NOT EXISTS "${INCLUDE_DIR}/fastread/${header}")
    string(APPEND over "\n  ${header}: no such header (update the budget list)")
    continue()
  endif()
  string(MAKE_C_IDENTIFIER "${header}${mode}" unit)
  set(tu "${WORK_DIR}/${unit}.cpp")
  file(WRITE "${tu}" "#include <fastread/${header}>\n")
  execute_process(COMMAND "${CXX}" -std=c++20 -E -P ${mode} "-I${INCLUDE_DIR}" "${tu}"
                  OUTPUT_FILE "${WORK_DIR}/${unit}.ii" RESULT_VARIABLE failed
                  ERROR_VARIABLE errors)
  if(failed)
    string(APPEND over "\n  ${header}: does not preprocess alone: ${errors}")
    continue()
  endif()
  # Line ends counted in the text (a list of lines would merge those with an unbalanced
  # "[" into one element).
  file(READ "${WORK_DIR}/${unit}.ii" text)
  string(REGEX REPLACE "[^\n]+" "" ends "${text}")
  string(LENGTH "${ends}" count)
  string(APPEND report "\n  ${label}: ${count} of ${budget}")
  if(count GREATER budget)
    string(APPEND over "\n  ${label}: ${count} lines, over its budget of ${budget}")
  endif()
endforeach()

# Every public header has a budget (detail/ headers are internal).
file(GLOB_RECURSE public RELATIVE "${INCLUDE_DIR}/fastread" "${INCLUDE_DIR}/fastread/*.hpp")
foreach(header IN LISTS public)
  if(header MATCHES "(^|/)detail/")
    continue()
  endif()
  if(NOT "${budgets}" MATCHES "(^|;)${header}=")
    string(APPEND over "\n  ${header}: a public header without a budget")
  endif()
endforeach()

if(over)
  message(FATAL_ERROR "header budgets:${over}\nmeasured:${report}")
endif()
message(STATUS "header budgets (preprocessed lines):${report}")
