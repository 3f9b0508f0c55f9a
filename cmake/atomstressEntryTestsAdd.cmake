# Run by ctest (through TEST_INCLUDE_FILES, see atomstressEntryTests.cmake):
# adds one test per entry that ATOMSTRESS_PROGRAM lists.
execute_process(COMMAND "${ATOMSTRESS_PROGRAM}" list --impl "${ATOMSTRESS_IMPL}"
                OUTPUT_VARIABLE _listing ERROR_VARIABLE _error RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  # A listing that fails is one failing test, not a silently empty suite.
  add_test("${ATOMSTRESS_PREFIX}list" "${ATOMSTRESS_PROGRAM}" list --impl "${ATOMSTRESS_IMPL}")
  return()
endif()
# What a failing case's JUnit says: CTest's `--output-junit` gives a test that
# exits non-zero `<failure message=""/>`, but names the FAIL_REGULAR_EXPRESSION
# that matched ("Error regular expression found in output. Regex=[class:
# semantics]").  `check` prints a failure's class on a line of its own
# ("      class: semantics (wrong even alone: ...)"), so one pattern per class
# (check/finding.hpp FailureClass) puts the class in the message.  The cause
# cannot be: CTest quotes the pattern, never the text it matched; it is in the
# case's <system-out>.  The patterns match only a failure's output: a pass is
# never turned into a failure.
set(_class_patterns "class: semantics" "class: return-value" "class: atomicity" "class: neighbour"
                    "class: scope" "class: memory-order" "class: bounds" "class: hang" "class: crash")
set(_cpu FALSE)
if(ATOMSTRESS_ARGS MATCHES "--backend;cpu")
  set(_cpu TRUE)
endif()
string(REPLACE "\n" ";" _lines "${_listing}")
foreach(_line IN LISTS _lines)
  if(NOT _line MATCHES "^([^ ]+) ")
    continue()
  endif()
  set(_entry "${CMAKE_MATCH_1}")
  if(_cpu AND _line MATCHES "\\(gpu only\\)")
    continue()
  endif()
  add_test("${ATOMSTRESS_PREFIX}${_entry}" "${ATOMSTRESS_PROGRAM}" check --impl "${_entry}" ${ATOMSTRESS_ARGS})
  set_tests_properties("${ATOMSTRESS_PREFIX}${_entry}" PROPERTIES SKIP_RETURN_CODE 77
                       FAIL_REGULAR_EXPRESSION "${_class_patterns}")
  if(ATOMSTRESS_LABELS)
    set_tests_properties("${ATOMSTRESS_PREFIX}${_entry}" PROPERTIES LABELS "${ATOMSTRESS_LABELS}")
  endif()
endforeach()
