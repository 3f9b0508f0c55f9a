# Kernel entries (harness/kernel/, issue #30): the case, its draws, guarded
# buffers, launches and oracles in the engine; the "kernel" family among the
# registering units; the public header <atomstress/kernel.cuh>.
include(GNUInstallDirs)
target_sources(atomstress_core PRIVATE
  harness/kernel/draws.cpp
  harness/kernel/oracles.cpp
  harness/kernel/guarded_text.cpp
  harness/kernel/guarded.cu
  harness/kernel/launch.cu
  harness/kernel/kernel_case.cpp
  harness/kernel/kernel_entry.cpp)
target_sources(atomstress_catalogue PRIVATE harness/check/families/kernel.cpp)
install(FILES harness/byo/include/atomstress/kernel.cuh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/atomstress)
