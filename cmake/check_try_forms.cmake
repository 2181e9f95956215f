# Runs the try_ forms program built without exceptions and its twin built with them (the
# throwing forms) in the same directory, one after the other, and fails unless both pass
# their own checks and print the same lines: each try_ form reports what its throwing form
# does (code, offset, message). Run by CTest: cmake -DTRY=... -DTHROWING=... -DWORK_DIR=... -P
cmake_minimum_required(VERSION 3.20)
foreach(var TRY THROWING WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_try_forms: pass -D${var}=...")
  endif()
endforeach()
# (Outputs hold ';', so they are kept in separate variables, not in a list.)
foreach(kind IN ITEMS TRY THROWING)
  file(REMOVE_RECURSE "${WORK_DIR}")
  execute_process(COMMAND "${${kind}}" "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${kind}} failed (${rc}):\n${err}\n${out}")
  endif()
  set(${kind}_OUT "${out}")
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(try_out "${TRY_OUT}")
set(throwing_out "${THROWING_OUT}")
string(REGEX MATCHALL "\n" newlines "${try_out}")
list(LENGTH newlines cases)
if(cases LESS 40)
  message(FATAL_ERROR "only ${cases} cases ran:\n${try_out}")
endif()
if(NOT try_out STREQUAL throwing_out)
  message(FATAL_ERROR "the try_ forms and the throwing forms disagree\n"
                      "try_ forms:\n${try_out}\nthrowing forms:\n${throwing_out}")
endif()
message(STATUS "${cases} cases, the same in both builds:\n${try_out}")
