# The host probe of one suite source, run at build time as the compiler
# launcher of the suite's probe target (atomstressSuite.cmake):
#
#   cmake -DRESULT_DIR=<folder> -P atomstressProbe.cmake -- <compiler command...>
#
# The probe target compiles one wrapper per user source, <i>_<name>.probe.cu,
# that includes the source; the result is RESULT_DIR/<i>_<name>.h.
# The command is the probe object's own compile, so it carries everything the
# suite target has as finally configured (include folders, definitions,
# options, whenever they were set), plus ATOMSTRESS_HOST_CALLABLE=1 and
# ATOMSTRESS_PROBE_ONLY=1.  A probe that fails is an answer, not an error: the
# script always succeeds, and writes RESULT, the header the suite's real
# compile of SOURCE includes first:
#   ATOMSTRESS_HOST_CALLABLE    1 when the unit compiled as host code too
#   ATOMSTRESS_GPU_ONLY_REASON  otherwise, the first construct that kept it
#                               off the host, as file:line: message
#   ATOMSTRESS_NOT_INTERCEPTED  the atomics in the unit (its own files, not
#                               CUDA's or atomstress's) that atomstress cannot
#                               see: libcu++ atomic objects and their free
#                               functions, __nv_atomic_* builtins, inline PTX
#                               atomics, each as file:line
cmake_minimum_required(VERSION 3.25)

# The compile command: every argument after "--".
set(command)
set(take FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(take)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(take TRUE)
  endif()
endforeach()
if(NOT command OR NOT RESULT_DIR)
  message(FATAL_ERROR "atomstressProbe.cmake: usage: cmake -DRESULT_DIR=<folder> -P atomstressProbe.cmake <command...>")
endif()
list(GET command 0 compiler)
set(wrapper "")
foreach(arg IN LISTS command)
  if(arg MATCHES "\\.probe\\.cu$")
    set(wrapper "${arg}")
  endif()
endforeach()
get_filename_component(wrapper_name "${wrapper}" NAME)
string(REGEX REPLACE "\\.probe\\.cu$" ".h" result_name "${wrapper_name}")
set(RESULT "${RESULT_DIR}/${result_name}")
file(STRINGS "${wrapper}" include_line REGEX "^#include ")
string(REGEX REPLACE "^#include \"(.*)\"$" "\\1" SOURCE "${include_line}")

# The object the build expects: the probe's own, or an empty file when the
# probe failed (nothing links it).
set(object "")
set(depfile "")
list(FIND command "-o" at)
if(at GREATER -1)
  math(EXPR at "${at} + 1")
  list(GET command ${at} object)
endif()
list(FIND command "-MF" at)
if(at GREATER -1)
  math(EXPR at "${at} + 1")
  list(GET command ${at} depfile)
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
get_filename_component(source_name "${SOURCE}" NAME)

function(c_string text out_var)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" " " text "${text}")
  set(${out_var} "\"${text}\"" PARENT_SCOPE)
endfunction()

if(status EQUAL 0)
  set(host_callable 1)
  set(reason "")
else()
  set(host_callable 0)
  if(object)
    file(WRITE "${object}" "")
  endif()
  if(depfile)  # the build still tracks the source, so that an edit probes again
    file(WRITE "${depfile}" "${object}: ${wrapper} ${SOURCE}\n")
  endif()
  # nvcc's front end: "file(12): error: ..."; the host compiler:
  # "file:12:5: error: ..."; the assembler (inline PTX): "Error: ...".
  set(reason "")
  string(REPLACE ";" "," out_no_semicolons "${out}")
  string(REPLACE "\n" ";" lines "${out_no_semicolons}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^(.+)\\(([0-9]+)\\): error: (.*)$")
      get_filename_component(f "${CMAKE_MATCH_1}" NAME)
      set(reason "${f}:${CMAKE_MATCH_2}: ${CMAKE_MATCH_3}")
      break()
    elseif(line MATCHES "^(.+):([0-9]+):[0-9]+: error: (.*)$")
      get_filename_component(f "${CMAKE_MATCH_1}" NAME)
      set(reason "${f}:${CMAKE_MATCH_2}: ${CMAKE_MATCH_3}")
      break()
    endif()
  endforeach()
  if(reason STREQUAL "" AND out MATCHES "Assembler messages|Error: no such instruction")
    # Inline PTX reached the host assembler: name the first asm statement.
    file(STRINGS "${SOURCE}" src_lines)
    set(n 0)
    foreach(l IN LISTS src_lines)
      math(EXPR n "${n} + 1")
      if(l MATCHES "(^|[^A-Za-z0-9_])asm[ \t]*(volatile)?[ \t]*\\(")
        set(reason "${source_name}:${n}: inline assembly (asm) has no host form")
        break()
      endif()
    endforeach()
  endif()
  if(reason STREQUAL "")
    string(REGEX MATCH "[^\n]*[Ee]rror[^\n]*" first "${out}")
    set(reason "${source_name}: its host compile failed: ${first}")
  endif()
  string(LENGTH "${reason}" len)
  if(len GREATER 300)
    string(SUBSTRING "${reason}" 0 300 reason)
  endif()
endif()

# Atomics atomstress cannot intercept, from the preprocessed unit: the same
# command with -E (the host pass's view), lines of the user's own files only.
set(pre_command)
set(skip_next FALSE)
foreach(arg IN LISTS command)
  if(skip_next)
    set(skip_next FALSE)
  elseif(arg STREQUAL "-o" OR arg STREQUAL "-MF" OR arg STREQUAL "-MT")
    set(skip_next TRUE)
  elseif(arg STREQUAL "-c" OR arg STREQUAL "-MD" OR arg STREQUAL "-MMD" OR arg MATCHES "^--?(generate-dependencies|dependency-output)")
  else()
    list(APPEND pre_command "${arg}")
  endif()
endforeach()
execute_process(COMMAND ${pre_command} -E RESULT_VARIABLE pre_status OUTPUT_VARIABLE pre ERROR_QUIET)
set(found "")
if(pre_status EQUAL 0)
  get_filename_component(cuda_root "${compiler}" DIRECTORY)  # .../bin/nvcc
  get_filename_component(cuda_root "${cuda_root}" DIRECTORY)
  # (C's semicolons would split CMake list elements, and shift every line.)
  string(REPLACE ";" ":" pre "${pre}")
  string(REPLACE "\n" ";" pre_lines "${pre}")
  set(file "")
  set(line_no 0)
  set(own FALSE)
  foreach(l IN LISTS pre_lines)
    if(l MATCHES "^# ([0-9]+) \"([^\"]*)\"")
      set(line_no "${CMAKE_MATCH_1}")
      set(file "${CMAKE_MATCH_2}")
      math(EXPR line_no "${line_no} - 1")
      set(own TRUE)
      if(file MATCHES "^/usr/(include|lib)/" OR file MATCHES "^${cuda_root}/" OR file MATCHES "/cuda[^/]*/(targets/[^/]+/)?include/"
         OR file MATCHES "/atomstress(/internal)?/" OR file MATCHES "/harness/(byo|prim|catalogue|backend|check|registry|trial|workload)/"
         OR file MATCHES "/atomics_under_test/" OR file MATCHES "^<")
        set(own FALSE)
      endif()
      continue()
    endif()
    math(EXPR line_no "${line_no} + 1")
    if(NOT own)
      continue()
    endif()
    set(what "")
    if(l MATCHES "cuda[ \t]*::[ \t]*(std[ \t]*::[ \t]*)?atomic[ \t]*<")
      set(what "a cuda::atomic object")
    elseif(l MATCHES "(^|[^A-Za-z0-9_])atomic_(fetch_[a-z]+|exchange|compare_exchange_[a-z]+|load|store)(_explicit)?[ \t]*\\(")
      set(what "a libcu++ free function")
    elseif(l MATCHES "__nv_atomic_[a-z_]+[ \t]*\\(")
      set(what "an __nv_atomic builtin")
    elseif(l MATCHES "asm.*(atom|red)\\.")
      set(what "an inline PTX atomic")
    endif()
    if(what)
      get_filename_component(f "${file}" NAME)
      string(APPEND found "${what} (${f}:${line_no}); ")
    endif()
  endforeach()
endif()
string(REGEX REPLACE "; $" "" found "${found}")

c_string("${reason}" reason_c)
set(text "// Written by atomstress's host probe of ${SOURCE}.\n#define ATOMSTRESS_HOST_CALLABLE ${host_callable}\n")
if(NOT host_callable)
  string(APPEND text "#define ATOMSTRESS_GPU_ONLY_REASON ${reason_c}\n")
endif()
if(found)
  c_string("not intercepted: ${found}: their retries are not counted, their scope is not checked, and a loop of them that never ends is stopped only by the worker's watchdog" found_c)
  string(APPEND text "#define ATOMSTRESS_NOT_INTERCEPTED ${found_c}\n")
endif()
# Rewritten only when it changes, so that an unchanged verdict rebuilds nothing.
set(old "")
if(EXISTS "${RESULT}")
  file(READ "${RESULT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${RESULT}" "${text}")
endif()
