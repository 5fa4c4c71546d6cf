# Finds what the CUDA backend builds with (the CUDA language is enabled first): the CUDA toolkit's runtime
# and cuBLASLt, cuDNN 9, and the header-only cuDNN frontend. Sets <result> to ON when all are
# there, else OFF with a message naming what is missing. Defines the imported targets
# staticnet::cudnn and staticnet::cudnn_frontend.
#
# Hints: CUDNN_ROOT (a cuDNN install, or PyPI's nvidia/cudnn folder) and
# STATICNET_CUDNN_FRONTEND_INCLUDE_DIR (the folder holding cudnn_frontend.h).
include_guard(GLOBAL)

function(staticnet_find_cuda_libraries result)
  set(${result} OFF PARENT_SCOPE)
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublasLt)
    message(STATUS "staticnet: no CUDA backend: the CUDA toolkit or its cuBLASLt is not found")
    return()
  endif()

  # cuDNN: the toolkit's folders, CUDNN_ROOT, and Python environments' nvidia/cudnn.
  file(GLOB python_cudnn "${PROJECT_SOURCE_DIR}/build/python-env/lib/python3*/site-packages/nvidia/cudnn")
  set(cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${python_cudnn})
  find_path(STATICNET_CUDNN_INCLUDE_DIR cudnn.h
            HINTS ${cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(STATICNET_CUDNN_LIBRARY NAMES cudnn libcudnn.so.9
               HINTS ${cudnn_hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
  file(GLOB python_frontend
       "${PROJECT_SOURCE_DIR}/build/python-env/lib/python3*/site-packages/include")
  find_path(STATICNET_CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h HINTS ${python_frontend})
  foreach(part STATICNET_CUDNN_INCLUDE_DIR STATICNET_CUDNN_LIBRARY
               STATICNET_CUDNN_FRONTEND_INCLUDE_DIR)
    if(NOT ${part})
      message(STATUS "staticnet: no CUDA backend: ${part} not found (cuDNN 9 and the cuDNN "
                     "frontend headers: scripts/python-env.sh installs the frontend)")
      return()
    endif()
  endforeach()
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
  message(STATUS "staticnet: cuDNN ${STATICNET_CUDNN_LIBRARY}, frontend "
                 "${STATICNET_CUDNN_FRONTEND_INCLUDE_DIR}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  set(${result} ON PARENT_SCOPE)
endfunction()
