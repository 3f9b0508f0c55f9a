# atomstress_add_suite(<name> SOURCES <file.cu>... [GPU_ONLY])
#
# An executable with atomstress's whole command line (list, check, repro,
# fuzz, selftest, profile) over the built-in catalogue plus the entries that
# SOURCES register with ATOMSTRESS_ATOMIC / ATOMSTRESS_LOCK
# (<atomstress/atomstress.cuh>).
#
# Each source is probed at build time, before its real compile: compiled with
# its device functions made host-callable, with the suite target's include
# folders, definitions and options as finally configured (also those set
# after this call).  Where that compiles, its entries run on the CPU backend
# too; where it does not (inline PTX, warp intrinsics, __device__
# variables...) they are built for the GPU only, and `list` and the CPU
# backend's SKIP name the first construct that kept it off the host
# (file:line).  The same probe lists the atomics atomstress cannot intercept
# (cuda::atomic objects, libcu++'s free functions, inline PTX atomics), which
# `list -v` and every verdict of the unit's entries then mention.  GPU_ONLY
# skips the probe.  Editing a source probes it again.
#
# The suite's CUDA architectures: the project's CMAKE_CUDA_ARCHITECTURES when
# it chose them (in its CMakeLists, on the command line or through CUDAARCHS),
# else the architecture of a GPU present at configure time, else the ones
# atomstress was built for; configure says which, and `--version` prints them.
include_guard(GLOBAL)

# CMake 3.25 does not know nvcc 13's C++20 flag: tell it (atomstress and its
# suites are C++20).
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

set(_ATOMSTRESS_PROBE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/atomstressProbe.cmake")

# The architectures a suite is built for, and why (see above).
function(_atomstress_suite_architectures out_archs out_why)
  get_property(help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
  set(cached "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
  if(DEFINED ENV{CUDAARCHS} AND NOT "$ENV{CUDAARCHS}" STREQUAL "")
    set(archs "${CMAKE_CUDA_ARCHITECTURES}")
    set(why "the project's (CUDAARCHS)")
  elseif(NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${cached}" OR NOT help STREQUAL "CUDA architectures")
    # A normal variable set by the project, or a cache entry it or the
    # command line made (CMake's own default has that help string).
    set(archs "${CMAKE_CUDA_ARCHITECTURES}")
    set(why "the project's CMAKE_CUDA_ARCHITECTURES")
  else()
    set(archs "")
    find_program(_atomstress_nvidia_smi nvidia-smi)
    if(_atomstress_nvidia_smi)
      execute_process(COMMAND ${_atomstress_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE caps RESULT_VARIABLE status ERROR_QUIET TIMEOUT 20)
      if(status EQUAL 0 AND caps MATCHES "^([0-9]+)\\.([0-9]+)")
        set(archs "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        set(why "the GPU found at configure time")
      endif()
    endif()
    if(archs STREQUAL "")
      set(archs "${ATOMSTRESS_SUITE_CUDA_ARCHITECTURES}")
      set(why "atomstress's own (no CMAKE_CUDA_ARCHITECTURES chosen, no GPU found)")
    endif()
  endif()
  set(${out_archs} "${archs}" PARENT_SCOPE)
  set(${out_why} "${why}" PARENT_SCOPE)
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
  _atomstress_suite_architectures(archs why)
  string(REPLACE ";" "," archs_text "${archs}")
  message(STATUS "atomstress: ${name} is built for CUDA architectures ${archs_text}: ${why}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/atomstress_suite/${name}")
  # --version says what this suite was built for.
  file(CONFIGURE OUTPUT "${dir}/architectures.cpp" CONTENT
"// Written by atomstress_add_suite: the suite's CUDA architectures, for --version.
extern \"C\" const char* const atomstress_suite_cuda_architectures = \"${archs_text} (${why})\";
")
  add_executable(${name} ${ARG_SOURCES} "${dir}/architectures.cpp")
  # The registering units are linked whole (nothing references them: they
  # register themselves at start-up).
  target_link_libraries(${name} PRIVATE atomstress::suite atomstress::catalogue)
  set_target_properties(${name} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CXX_STANDARD 20
                                           CUDA_ARCHITECTURES "${archs}")
  if(NOT ARG_GPU_ONLY)
    # The probe: one wrapper per source, compiled with the suite's own
    # settings (copied as generator expressions, so whatever is set on the
    # suite later counts) through a launcher that turns the compile's
    # outcome into a header for the real compile.
    add_library(${name}_atomstress_probe OBJECT)
    target_include_directories(${name}_atomstress_probe PRIVATE $<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>)
    target_compile_definitions(${name}_atomstress_probe PRIVATE $<TARGET_PROPERTY:${name},COMPILE_DEFINITIONS>
                               ATOMSTRESS_HOST_CALLABLE=1 ATOMSTRESS_PROBE_ONLY=1)
    target_compile_options(${name}_atomstress_probe PRIVATE $<TARGET_PROPERTY:${name},COMPILE_OPTIONS>
                           $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -diag-suppress=177>)
    set_target_properties(${name}_atomstress_probe PROPERTIES
      CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_ARCHITECTURES "${archs}"
      CUDA_COMPILER_LAUNCHER "${CMAKE_COMMAND};-DRESULT_DIR=${dir};-P;${_ATOMSTRESS_PROBE_SCRIPT};--")
    # The real compiles wait for every probe (a target dependency alone
    # orders only the link under Ninja): they depend on a stamp made after
    # the probe objects.  The target dependency is needed too: Unix
    # Makefiles build another target's objects only through it ("No rule to
    # make target ...probe.cu.o" on a first build without it).
    add_custom_command(OUTPUT "${dir}/probed.stamp"
                       COMMAND "${CMAKE_COMMAND}" -E touch "${dir}/probed.stamp"
                       DEPENDS $<TARGET_OBJECTS:${name}_atomstress_probe>
                       COMMENT "atomstress: host probe of ${name}'s sources done" VERBATIM)
    target_sources(${name} PRIVATE "${dir}/probed.stamp")
    add_dependencies(${name} ${name}_atomstress_probe)
  endif()
  set(i 0)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(file "${src}" NAME)
    math(EXPR i "${i} + 1")
    set(result "${dir}/${i}_${file}.h")
    # The real compile includes the probe's verdict first (the source itself
    # compiles exactly as written), and again when the verdict changes.
    set_property(SOURCE "${src}" APPEND PROPERTY COMPILE_OPTIONS "--pre-include=${result}")
    set_property(SOURCE "${src}" APPEND PROPERTY OBJECT_DEPENDS "${result}")
    if(NOT ARG_GPU_ONLY)
      set_property(SOURCE "${src}" APPEND PROPERTY OBJECT_DEPENDS "${dir}/probed.stamp")
    endif()
    if(ARG_GPU_ONLY)
      file(CONFIGURE OUTPUT "${result}" CONTENT
"#define ATOMSTRESS_HOST_CALLABLE 0
#define ATOMSTRESS_GPU_ONLY_REASON \"${file} is built for the GPU only (GPU_ONLY)\"
")
    else()
      file(CONFIGURE OUTPUT "${dir}/${i}_${file}.probe.cu" CONTENT
"#include \"${abs}\"
")
      target_sources(${name}_atomstress_probe PRIVATE "${dir}/${i}_${file}.probe.cu")
      # A newer probe script probes again.
      set_property(SOURCE "${dir}/${i}_${file}.probe.cu" APPEND PROPERTY OBJECT_DEPENDS "${_ATOMSTRESS_PROBE_SCRIPT}")
      # Until the first probe has run, the verdict is "not probed yet".
      if(NOT EXISTS "${result}")
        file(WRITE "${result}" "#define ATOMSTRESS_HOST_CALLABLE 0\n#define ATOMSTRESS_GPU_ONLY_REASON \"${file}: not probed yet\"\n")
      endif()
    endif()
  endforeach()
endfunction()
