# Fails when a header of the shared include/fastread/detail/ serves fewer than two jobs: a
# job's own internals live in its folder's detail/ (records/detail/, duplicates/detail/,
# pnm/detail/, numbers/detail/...). A job is the public headers below and everything they
# include, directly or not. Run by CTest: cmake -DINCLUDE_DIR=<include directory> -P this file.
cmake_minimum_required(VERSION 3.20)
if(NOT INCLUDE_DIR)
  message(FATAL_ERROR "check_detail_shared: pass -DINCLUDE_DIR=<include directory>")
endif()
get_filename_component(INCLUDE_DIR "${INCLUDE_DIR}" ABSOLUTE)
set(root "${INCLUDE_DIR}/fastread")
set(jobs
    "lines=lines.hpp,line_readers.hpp"
    "files_equal=files_equal.hpp"
    "duplicates=duplicates.hpp,duplicate_actions.hpp"
    "records=records.hpp"
    "string_table=string_table.hpp"
    "page_cache=page_cache.hpp"
    "images=pnm.hpp,ppm.hpp,pfm.hpp"
    "numbers=numbers.hpp"
    "csv=csv.hpp"
    "sources=source.hpp")
# Shared by design though fewer than two jobs may use them: none today (config.hpp, the
# switch of the compiled mode, is every job's).
set(exempt "")

# The headers `start` includes, directly or not (absolute paths), in `out`.
function(reach start out)
  set(seen "")
  set(todo "${start}")
  while(todo)
    list(POP_FRONT todo file)
    if(file IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${file}")
    get_filename_component(dir "${file}" DIRECTORY)
    file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
        get_filename_component(target "${CMAKE_MATCH_1}" ABSOLUTE BASE_DIR "${dir}")
        if(EXISTS "${target}" AND NOT target IN_LIST seen)
          list(APPEND todo "${target}")
        endif()
      endif()
    endforeach()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

file(GLOB shared RELATIVE "${root}/detail" "${root}/detail/*.hpp")
foreach(header IN LISTS shared)
  set(users_${header} "")
endforeach()
foreach(job IN LISTS jobs)
  string(REPLACE "=" ";" pair "${job}")
  list(GET pair 0 name)
  list(GET pair 1 heads)
  string(REPLACE "," ";" heads "${heads}")
  set(all "")
  foreach(head IN LISTS heads)
    reach("${root}/${head}" got)
    list(APPEND all ${got})
  endforeach()
  foreach(header IN LISTS shared)
    if("${root}/detail/${header}" IN_LIST all)
      list(APPEND users_${header} "${name}")
    endif()
  endforeach()
endforeach()
set(alone "")
foreach(header IN LISTS shared)
  list(LENGTH users_${header} n)
  if(n LESS 2 AND NOT header IN_LIST exempt)
    string(APPEND alone "\n  detail/${header}: used by ${n} job(s) (${users_${header}}); move it to that job's detail/")
  endif()
endforeach()
if(alone)
  message(FATAL_ERROR "the shared detail/ holds a job's own code:${alone}")
endif()
list(LENGTH shared count)
message(STATUS "shared detail/: each of ${count} headers serves two jobs or more")
