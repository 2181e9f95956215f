# Runs one example of the docs in a fresh directory holding the files the examples read.
#   cmake -DPROGRAM=<example> -DFILES=<doc_files> -DWORK_DIR=<dir> -P run_example.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${FILES}" "${WORK_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doc_files failed: ${rc}")
endif()
# Standard input: a text file of the directory (an example may read stdin).
execute_process(COMMAND "${PROGRAM}" WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc
                INPUT_FILE "${WORK_DIR}/app.log"
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the example exited with ${rc}")
endif()
