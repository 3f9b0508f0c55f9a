# atomstress_add_suite(<name> SOURCES <file.cu>... [GPU_ONLY])
#
# An executable with atomstress's whole command line (list, check, repro,
# fuzz, selftest, profile) over the built-in catalogue plus the entries that
# SOURCES register with ATOMSTRESS_ATOMIC / ATOMSTRESS_LOCK
# (<atomstress/atomstress.cuh>).
#
# Each source is probed once at configure time: compiled with its device
# functions made host-callable.  Where that compiles, its entries run on the
# CPU backend too; where it does not (inline PTX, warp intrinsics, __device__
# variables...) they are built for the GPU only, and `list` and the CPU
# backend say why.  GPU_ONLY skips the probe.  Editing a source re-runs the
# probe (the sources are configure dependencies).
include_guard(GLOBAL)

# CMake 3.25 does not know nvcc 13's C++20 flag: tell it (atomstress and its
# suites are C++20).
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

function(_atomstress_probe_host_callable src out_ok out_log)
  get_target_property(suite_includes atomstress::suite INTERFACE_INCLUDE_DIRECTORIES)
  get_target_property(core_includes atomstress::core INTERFACE_INCLUDE_DIRECTORIES)
  set(includes)
  foreach(i IN LISTS suite_includes core_includes)
    string(REGEX REPLACE "^\\$<BUILD_INTERFACE:(.*)>$" "\\1" i "${i}")
    if(NOT i MATCHES "^\\$<")
      list(APPEND includes "${i}")
    endif()
  endforeach()
  get_target_property(src_includes ${ARGV3} INCLUDE_DIRECTORIES)
  if(src_includes)
    list(APPEND includes ${src_includes})
  endif()
  # The verdict is cached by the source and by atomstress's headers that
  # make it host-callable (a newer atomstress may compile what an older one
  # did not); those headers are configure dependencies, like the source.
  file(SHA1 "${src}" key)
  foreach(i IN LISTS includes)
    file(GLOB byo_headers "${i}/atomstress/*.cuh" "${i}/harness/byo/*.cuh")
    list(SORT byo_headers)
    foreach(h IN LISTS byo_headers)
      file(SHA1 "${h}" h_sha)
      string(APPEND key "${h_sha}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${h}")
    endforeach()
  endforeach()
  string(SHA1 hash "${key}")
  string(SUBSTRING "${hash}" 0 16 hash)
  set(dir "${CMAKE_BINARY_DIR}/atomstress_probe/${hash}")
  set(log "${CMAKE_BINARY_DIR}/atomstress_probe/${hash}.log")
  if(DEFINED ATOMSTRESS_PROBE_${hash})
    set(${out_ok} ${ATOMSTRESS_PROBE_${hash}} PARENT_SCOPE)
    set(${out_log} "${log}" PARENT_SCOPE)
    return()
  endif()
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  # The standard flag is given below (CMake 3.25 cannot pass C++20 into a try_compile).
  unset(CMAKE_CUDA_STANDARD)
  unset(CMAKE_CUDA_EXTENSIONS)
  try_compile(ATOMSTRESS_PROBE_RESULT "${dir}"
    SOURCES "${src}"
    COMPILE_DEFINITIONS -DATOMSTRESS_HOST_CALLABLE=1 -DATOMSTRESS_PROBE_ONLY=1 -std=c++20 --expt-relaxed-constexpr
                        -diag-suppress=177
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${includes}" "-DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES}"
                "-DCMAKE_AR=${CMAKE_AR}" "-DCMAKE_RANLIB=${CMAKE_RANLIB}"
    OUTPUT_VARIABLE output)
  file(WRITE "${log}" "${output}")
  set(ok ${ATOMSTRESS_PROBE_RESULT})
  unset(ATOMSTRESS_PROBE_RESULT CACHE)
  set(ATOMSTRESS_PROBE_${hash} ${ok} CACHE INTERNAL "host probe of ${src}")
  set(${out_ok} ${ok} PARENT_SCOPE)
  set(${out_log} "${log}" PARENT_SCOPE)
endfunction()

function(atomstress_add_suite name)
  cmake_parse_arguments(ARG "GPU_ONLY" "" "SOURCES" ${ARGN})
  # The C++20 flag (above) in the caller's directory too: with
  # add_subdirectory or FetchContent, atomstress's own directory set it.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" PARENT_SCOPE)
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "atomstress_add_suite(${name}): give SOURCES")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  # The registering units are linked whole (nothing references them: they
  # register themselves at start-up).
  target_link_libraries(${name} PRIVATE atomstress::suite atomstress::catalogue)
  set_target_properties(${name} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CXX_STANDARD 20)
  if(NOT CMAKE_CUDA_ARCHITECTURES AND ATOMSTRESS_SUITE_CUDA_ARCHITECTURES)
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${ATOMSTRESS_SUITE_CUDA_ARCHITECTURES}")
  endif()
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(file "${src}" NAME)
    set(ok FALSE)
    set(log "")
    if(NOT ARG_GPU_ONLY)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${abs}")
      _atomstress_probe_host_callable("${abs}" ok log ${name})
    endif()
    if(ok)
      set_property(SOURCE "${src}" APPEND PROPERTY COMPILE_DEFINITIONS ATOMSTRESS_HOST_CALLABLE=1)
    else()
      if(ARG_GPU_ONLY)
        set(why "${file} is built for the GPU only (GPU_ONLY)")
      else()
        set(why "${file} does not compile as host code")
        message(STATUS "atomstress: ${file}: GPU only (its host probe failed; see ${log})")
      endif()
      set_property(SOURCE "${src}" APPEND PROPERTY COMPILE_DEFINITIONS
        ATOMSTRESS_HOST_CALLABLE=0 "ATOMSTRESS_GPU_ONLY_REASON=\"${why}\"")
    endif()
  endforeach()
endfunction()
