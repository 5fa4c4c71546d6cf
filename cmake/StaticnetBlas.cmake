# staticnet::openblas: OpenBLAS with its CBLAS header, which the CPU backend's matrix products
# call (Debian: libopenblas-dev). Used by the build tree and by the installed package's config.
# OpenBLAS chooses AVX2/AVX-512 or NEON kernels at run time, which is why the CPU backend uses it
# rather than loops of its own compiled for a portable baseline.
if(TARGET staticnet::openblas)
  return()
endif()
set(BLA_VENDOR OpenBLAS)
find_package(BLAS QUIET)
find_path(STATICNET_CBLAS_INCLUDE_DIR cblas.h
  PATH_SUFFIXES openblas-pthread openblas x86_64-linux-gnu/openblas-pthread
                aarch64-linux-gnu/openblas-pthread)
if(NOT BLAS_FOUND OR NOT STATICNET_CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR
    "staticnet: the CPU backend needs OpenBLAS with its CBLAS header (cblas.h). On Debian and "
    "Ubuntu: apt-get install libopenblas-dev. (BLAS libraries found: '${BLAS_LIBRARIES}'; "
    "cblas.h: '${STATICNET_CBLAS_INCLUDE_DIR}')")
endif()
add_library(staticnet::openblas INTERFACE IMPORTED)
set_target_properties(staticnet::openblas PROPERTIES
  INTERFACE_LINK_LIBRARIES "${BLAS_LIBRARIES}"
  INTERFACE_INCLUDE_DIRECTORIES "${STATICNET_CBLAS_INCLUDE_DIR}")
