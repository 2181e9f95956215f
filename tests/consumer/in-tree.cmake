# Shared by the consumer projects that build fastread inside themselves (add_subdirectory,
# FetchContent): only the library target may come with it, and the consumer links it.
foreach(target fastread-tests fastread-bench fastread-wc)
  if(TARGET ${target})
    message(FATAL_ERROR "fastread built its ${target} inside another project")
  endif()
endforeach()

add_executable(consumer ${CMAKE_CURRENT_LIST_DIR}/main.cpp)
target_link_libraries(consumer PRIVATE fastread::fastread)
