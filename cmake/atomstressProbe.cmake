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
get_filename_component(cuda_root "${compiler}" DIRECTORY)  # .../bin/nvcc
get_filename_component(cuda_root "${cuda_root}" DIRECTORY)

# Walks a preprocessed unit's lines (a list) and calls `visitor` for each
# line of the user's own files (not CUDA's, the system's or atomstress's)
# with own_file, own_line and own_text set; sets saw_atomstress when the unit
# includes <atomstress/atomstress.cuh>.
macro(walk_own_lines pre_lines visitor)
  set(file "")
  set(line_no 0)
  set(own FALSE)
  set(saw_atomstress FALSE)
  foreach(l IN LISTS ${pre_lines})
    if(l MATCHES "^# ([0-9]+) \"([^\"]*)\"")
      set(line_no "${CMAKE_MATCH_1}")
      set(file "${CMAKE_MATCH_2}")
      math(EXPR line_no "${line_no} - 1")
      set(own TRUE)
      if(file MATCHES "/atomstress/atomstress\\.cuh$")
        set(saw_atomstress TRUE)
      endif()
      if(file MATCHES "^/usr/(include|lib)/" OR file MATCHES "^${cuda_root}/" OR file MATCHES "/cuda[^/]*/(targets/[^/]+/)?include/"
         OR file MATCHES "/atomstress(/internal)?/" OR file MATCHES "/harness/(byo|prim|catalogue|backend|check|registry|trial|workload)/"
         OR file MATCHES "/atomics_under_test/" OR file MATCHES "^<")
        set(own FALSE)
      endif()
      continue()
    endif()
    math(EXPR line_no "${line_no} + 1")
    if(own)
      set(own_file "${file}")
      set(own_line "${line_no}")
      set(own_text "${l}")
      cmake_language(CALL ${visitor})
    endif()
  endforeach()
endmacro()

# A CUDA atomic intrinsic called as itself in the user's own lines: code
# that <atomstress/atomstress.cuh> came too late to rename (its macros
# rename every later call to atomstress_<name>), in either compile's view.
# Such a call is not intercepted, and a host build of it calls a device-only
# intrinsic, so the suite's real compile refuses it (atomstress.cuh).
set(early "")
set(early_function "")
function(note_function_and_early_call)
  # A device function's definition line names the function (and is not a
  # call of it: a user's own `atomicMax(float*, float)` overload).
  set(rest "${own_text}")
  set(function "${early_function}")
  if(own_text MATCHES "__attribute__\\(\\(device\\)\\)[^(]*[ \t*&:]([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\(")
    if(NOT CMAKE_MATCH_1 STREQUAL "__attribute__")
      set(function "${CMAKE_MATCH_1}")
      set(early_function "${function}" PARENT_SCOPE)
    endif()
    string(FIND "${own_text}" "${CMAKE_MATCH_0}" at)
    string(LENGTH "${CMAKE_MATCH_0}" n)
    math(EXPR at "${at} + ${n}")
    string(SUBSTRING "${own_text}" ${at} -1 rest)
  endif()
  if(early STREQUAL "" AND rest MATCHES "(^|[^A-Za-z0-9_])(atomic(Add|Sub|Exch|Min|Max|Inc|Dec|And|Or|Xor|CAS)(_block|_system)?)[ \t]*\\(")
    set(intrinsic "${CMAKE_MATCH_2}")
    get_filename_component(f "${own_file}" NAME)
    set(in_function "")
    if(function)
      set(in_function " (in ${function})")
    endif()
    set(early "${f}:${own_line}${in_function} calls ${intrinsic} before <atomstress/atomstress.cuh> is included" PARENT_SCOPE)
  endif()
endfunction()
foreach(view host device)
  set(view_flags)
  if(view STREQUAL "device")
    set(view_flags -D__CUDA_ARCH__=900)  # the device branches (NV_IF_TARGET, #ifdef __CUDA_ARCH__)
  endif()
  execute_process(COMMAND ${pre_command} ${view_flags} -E RESULT_VARIABLE view_status OUTPUT_VARIABLE view_pre ERROR_QUIET)
  if(NOT view_status EQUAL 0)
    continue()
  endif()
  string(REPLACE ";" ":" view_pre "${view_pre}")
  string(REPLACE "\n" ";" view_lines "${view_pre}")
  set(early_function "")
  walk_own_lines(view_lines note_function_and_early_call)
  if(NOT saw_atomstress)
    set(early "")  # a kernel unit (<atomstress/kernel.cuh>): its atomics are not intercepted by design
  endif()
  if(view STREQUAL "host")
    set(pre_status ${view_status})
    set(pre_lines "${view_lines}")
  endif()
  if(NOT early STREQUAL "")
    break()
  endif()
endforeach()

set(found "")
function(note_not_intercepted)
    set(l "${own_text}")
    set(file "${own_file}")
    set(line_no "${own_line}")
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
      set(found "${found}${what} (${f}:${line_no}); " PARENT_SCOPE)
    endif()
endfunction()
if(DEFINED pre_status AND pre_status EQUAL 0)
  walk_own_lines(pre_lines note_not_intercepted)
endif()
string(REGEX REPLACE "; $" "" found "${found}")

c_string("${reason}" reason_c)
set(text "// Written by atomstress's host probe of ${SOURCE}.\n#define ATOMSTRESS_HOST_CALLABLE ${host_callable}\n")
if(NOT host_callable)
  string(APPEND text "#define ATOMSTRESS_GPU_ONLY_REASON ${reason_c}\n")
endif()
if(NOT early STREQUAL "")
  c_string("atomstress: ${early}, so atomstress cannot intercept it (its retries uncounted, no watchdog, and a host build would call the device-only intrinsic): include <atomstress/atomstress.cuh> before the code that calls it" early_c)
  string(APPEND text "#define ATOMSTRESS_CALLED_BEFORE_INCLUDE ${early_c}\n")
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
