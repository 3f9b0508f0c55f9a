# atomstress_add_entry_tests(<program> [IMPL <glob>] [PREFIX <prefix>]
#                            [LABELS <label>...] [ARGS <check option>...])
#
# One CTest case per entry of <program> (atomstress, or a suite made by
# atomstress_add_suite), so that `ctest --output-junit` and CI dashboards
# show each entry's verdict on its own line.  The entries are read when
# ctest runs, the way gtest_discover_tests' PRE_TEST mode reads test names:
# `<program> list --impl <glob>` (default: all, the correct entries), and
# each becomes `<prefix><entry>` running `<program> check --impl <entry>
# <ARGS>`.  An entry the CPU backend cannot run is left out when ARGS say
# `--backend cpu`.  Exit 77 (no GPU with --skip-without-gpu) is a skip.  A
# failing case's JUnit message names the failure's class ("Error regular
# expression found in output. Regex=[class: semantics]"); its cause is in the
# case's output.
include_guard(GLOBAL)

function(atomstress_add_entry_tests program)
  cmake_parse_arguments(ARG "" "IMPL;PREFIX" "LABELS;ARGS" ${ARGN})
  if(NOT ARG_IMPL)
    set(ARG_IMPL all)
  endif()
  if(NOT DEFINED ARG_PREFIX)
    set(ARG_PREFIX "${program}.")
  endif()
  # Beside this file, wherever the caller's directory is (an installed
  # package, add_subdirectory, FetchContent).
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/atomstressEntryTestsAdd.cmake")
  string(MAKE_C_IDENTIFIER "${ARG_PREFIX}${ARG_IMPL}" id)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${id}_entry_tests.cmake")
  # Lists are passed as bracket arguments so that globs and options survive.
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(ATOMSTRESS_PROGRAM [==[$<TARGET_FILE:${program}>]==])
set(ATOMSTRESS_IMPL [==[${ARG_IMPL}]==])
set(ATOMSTRESS_PREFIX [==[${ARG_PREFIX}]==])
set(ATOMSTRESS_LABELS [==[${ARG_LABELS}]==])
set(ATOMSTRESS_ARGS [==[${ARG_ARGS}]==])
include([==[${script}]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
