# Files staticnet writes must load in Python's `safetensors` package with the exact values.
# The runtime test binary writes the file (fixture setup), python_interop_check.py reads it.
# The interpreter: STATICNET_PYTHON if set, else build/python-env (scripts/python-env.sh makes it),
# else the system's python3. A Python without safetensors fails the test: it never skips.
if(NOT TARGET staticnet_runtime_tests)
  return()
endif()

set(STATICNET_PYTHON "" CACHE FILEPATH
    "Python with safetensors and numpy for the interop tests (empty: build/python-env, else python3)")
set(staticnet_python_env "${CMAKE_SOURCE_DIR}/build/python-env/bin/python3")
if(STATICNET_PYTHON)
  set(staticnet_python "${STATICNET_PYTHON}")
elseif(EXISTS "${staticnet_python_env}")
  set(staticnet_python "${staticnet_python_env}")
else()
  find_program(STATICNET_SYSTEM_PYTHON3 NAMES python3)
  set(staticnet_python "${STATICNET_SYSTEM_PYTHON3}")
endif()

set(staticnet_interop_file "${CMAKE_CURRENT_BINARY_DIR}/python_interop/for_python.safetensors")
add_test(NAME runtime/python_interop/write
         COMMAND ${CMAKE_COMMAND} -E env "STATICNET_PYTHON_INTEROP_FILE=${staticnet_interop_file}"
                 $<TARGET_FILE:staticnet_runtime_tests>
                 "--test-case=checkpoint interop: the file for the Python check")
set_tests_properties(runtime/python_interop/write PROPERTIES FIXTURES_SETUP staticnet_python_interop)
file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/python_interop")

if(staticnet_python)
  add_test(NAME runtime/python_interop/check
           COMMAND "${staticnet_python}" "${CMAKE_CURRENT_SOURCE_DIR}/python_interop_check.py"
                   "${staticnet_interop_file}")
else()
  add_test(NAME runtime/python_interop/check
           COMMAND sh -c "echo 'no python3 found: run scripts/python-env.sh' >&2; exit 1")
endif()
set_tests_properties(runtime/python_interop/check PROPERTIES
  FIXTURES_REQUIRED staticnet_python_interop)
