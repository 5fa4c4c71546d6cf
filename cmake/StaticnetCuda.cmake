# Finds what the CUDA backend builds with (the CUDA language is enabled first): the CUDA toolkit's
# runtime and cuBLASLt, cuDNN 9, and the header-only cuDNN frontend at the version it is checked
# with. Sets <result> to ON when all are there; else OFF, with a warning that names what is
# missing and how to install it (nvcc is there, so the user wants the backend). Defines the
# imported targets staticnet::cudnn and staticnet::cudnn_frontend.
#
# Hints: CUDNN_ROOT (a cuDNN install, or PyPI's nvidia/cudnn folder) and
# STATICNET_CUDNN_FRONTEND_INCLUDE_DIR (the folder holding cudnn_frontend.h). The frontend is
# looked for where scripts/install-deps.sh puts it, /usr/local/cudnn-frontend-<version>/include,
# and in the system's include folders. It is private to staticnet's own CUDA library: the
# installed package does not need it.
include_guard(GLOBAL)

# The frontend's API moves between releases; this is the one the backend is built and checked
# with, and the one scripts/install-deps.sh installs.
set(STATICNET_CUDNN_FRONTEND_VERSION 1.32.0)

# The arguments are the sentence, in pieces.
function(_staticnet_no_cuda_backend)
  string(CONCAT what ${ARGV})
  message(WARNING "staticnet: no CUDA backend, although nvcc is here (${CMAKE_CUDA_COMPILER}): "
                  "${what} The CPU backend and everything else build without it; "
                  "-DSTATICNET_CUDA=OFF says you meant that and silences this.")
endfunction()

function(staticnet_find_cuda_libraries result)
  set(${result} OFF PARENT_SCOPE)
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublasLt)
    _staticnet_no_cuda_backend("the CUDA toolkit's libraries (cudart, cuBLASLt) are not found. "
                               "Install the whole CUDA Toolkit (NVIDIA's cuda-toolkit package).")
    return()
  endif()

  set(cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT})
  find_path(STATICNET_CUDNN_INCLUDE_DIR cudnn.h
            HINTS ${cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(STATICNET_CUDNN_LIBRARY NAMES cudnn libcudnn.so.9
               HINTS ${cudnn_hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
  if(NOT STATICNET_CUDNN_INCLUDE_DIR OR NOT STATICNET_CUDNN_LIBRARY)
    _staticnet_no_cuda_backend("cuDNN 9 is not found (cudnn.h: ${STATICNET_CUDNN_INCLUDE_DIR}; "
                               "libcudnn: ${STATICNET_CUDNN_LIBRARY}). Install NVIDIA's cudnn9 "
                               "package for this CUDA, or point CUDNN_ROOT at a cuDNN 9.")
    return()
  endif()
  find_path(STATICNET_CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h
            PATHS /usr/local/cudnn-frontend-${STATICNET_CUDNN_FRONTEND_VERSION}/include)
  if(NOT STATICNET_CUDNN_FRONTEND_INCLUDE_DIR)
    _staticnet_no_cuda_backend("cuDNN's C++ frontend ${STATICNET_CUDNN_FRONTEND_VERSION} "
                               "(cudnn_frontend.h) is not found. scripts/install-deps.sh installs "
                               "it into /usr/local/cudnn-frontend-"
                               "${STATICNET_CUDNN_FRONTEND_VERSION}/include; or set "
                               "STATICNET_CUDNN_FRONTEND_INCLUDE_DIR to its include folder.")
    return()
  endif()
  # A frontend of another version may not build, or may build and behave otherwise: say so.
  set(version_header "${STATICNET_CUDNN_FRONTEND_INCLUDE_DIR}/cudnn_frontend_version.h")
  set(found_version "unknown")
  if(EXISTS "${version_header}")
    file(STRINGS "${version_header}" version_lines
         REGEX "#define CUDNN_FRONTEND_(MAJOR|MINOR|PATCH)_VERSION")
    string(REGEX REPLACE ".*MAJOR_VERSION ([0-9]+).*MINOR_VERSION ([0-9]+).*PATCH_VERSION ([0-9]+).*"
                         "\\1.\\2.\\3" found_version "${version_lines}")
  endif()
  if(NOT found_version STREQUAL STATICNET_CUDNN_FRONTEND_VERSION)
    message(WARNING "staticnet: the cuDNN frontend in ${STATICNET_CUDNN_FRONTEND_INCLUDE_DIR} is "
                    "version ${found_version}; the CUDA backend is built and checked with "
                    "${STATICNET_CUDNN_FRONTEND_VERSION} (scripts/install-deps.sh installs it)")
  endif()
  if(NOT TARGET staticnet::cudnn)
    add_library(staticnet::cudnn UNKNOWN IMPORTED GLOBAL)
    set_target_properties(staticnet::cudnn PROPERTIES
      IMPORTED_LOCATION "${STATICNET_CUDNN_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${STATICNET_CUDNN_INCLUDE_DIR}")
    add_library(staticnet::cudnn_frontend INTERFACE IMPORTED GLOBAL)
    # SKIP_JSON_LIB: the frontend's own copy of nlohmann/json would clash with Debian's.
    set_target_properties(staticnet::cudnn_frontend PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${STATICNET_CUDNN_FRONTEND_INCLUDE_DIR}"
      INTERFACE_COMPILE_DEFINITIONS CUDNN_FRONTEND_SKIP_JSON_LIB)
  endif()
  message(STATUS "staticnet: cuDNN ${STATICNET_CUDNN_LIBRARY}, frontend ${found_version} in "
                 "${STATICNET_CUDNN_FRONTEND_INCLUDE_DIR}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  set(${result} ON PARENT_SCOPE)
endfunction()
