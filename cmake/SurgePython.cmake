# The Python module (app/python/): built when Python's development files and pybind11 are found
# (scripts/install-deps.sh installs Debian's python3-dev and python3-pybind11), or always with
# -DSURGE_PYTHON=ON, never with OFF. Sets SURGE_HAVE_PYTHON.
set(SURGE_PYTHON AUTO CACHE STRING "Build the surge Python module: AUTO (when pybind11 is found), ON or OFF")
set(SURGE_HAVE_PYTHON OFF)
if(NOT SURGE_PYTHON STREQUAL "OFF")
  # Debian's interpreter matches Debian's pybind11 and NumPy; pip (scikit-build-core) names its own.
  if(NOT DEFINED Python3_EXECUTABLE AND NOT DEFINED SKBUILD AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  # pybind11 before 2.12 reads NumPy 2's array descriptors with NumPy 1's layout: a module built with it
  # crashes the interpreter the first time an argument is tried as an array. Refused here, by name.
  set(surge_python_problem "")
  if(Python3_FOUND AND pybind11_FOUND AND pybind11_VERSION VERSION_LESS 2.12)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import numpy; print(numpy.__version__)"
                    OUTPUT_VARIABLE surge_numpy_version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(surge_numpy_version VERSION_GREATER_EQUAL 2)
      set(surge_python_problem "pybind11 ${pybind11_VERSION} (${pybind11_DIR}) is older than 2.12, which "
                               "NumPy ${surge_numpy_version} of ${Python3_EXECUTABLE} needs")
    endif()
  endif()
  if(Python3_FOUND AND pybind11_FOUND AND NOT surge_python_problem)
    set(SURGE_HAVE_PYTHON ON)
  elseif(SURGE_PYTHON STREQUAL "ON")
    if(NOT surge_python_problem)
      set(surge_python_problem "Python 3 development files or pybind11 were not found "
                               "(Debian: python3-dev python3-pybind11)")
    endif()
    message(FATAL_ERROR "SURGE_PYTHON=ON but ${surge_python_problem}")
  elseif(surge_python_problem)
    message(STATUS "Python module left out: ${surge_python_problem} (pip install 'pybind11>=2.12', then "
                   "-Dpybind11_DIR=$(python3 -m pybind11 --cmakedir))")
  endif()
endif()
message(STATUS "Python module: ${SURGE_HAVE_PYTHON} (${Python3_EXECUTABLE}, pybind11 ${pybind11_VERSION})")
# DLPack tensors of the particle arrays (Simulation.dlpack): the protocol's header, Debian's libdlpack-dev.
if(SURGE_HAVE_PYTHON)
  find_path(SURGE_DLPACK_INCLUDE_DIR dlpack/dlpack.h)
  if(SURGE_DLPACK_INCLUDE_DIR)
    set(SURGE_HAVE_DLPACK 1)
  else()
    set(SURGE_HAVE_DLPACK 0)
  endif()
  message(STATUS "Python module DLPack: ${SURGE_HAVE_DLPACK} (dlpack/dlpack.h: ${SURGE_DLPACK_INCLUDE_DIR})")
endif()
