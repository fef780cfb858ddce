# Header-only libraries, found as headers so the same build works with Debian's packages
# (scripts/install-deps.sh) and with .deb files unpacked on the GPU machine (CPATH / CMAKE_PREFIX_PATH).
find_path(TOMLPP_INCLUDE_DIR toml++/toml.h REQUIRED)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
find_path(NLOHMANN_JSON_INCLUDE_DIR nlohmann/json.hpp REQUIRED)

add_library(surge_tomlpp INTERFACE)
target_include_directories(surge_tomlpp SYSTEM INTERFACE ${TOMLPP_INCLUDE_DIR})
target_compile_definitions(surge_tomlpp INTERFACE TOML_HEADER_ONLY=1 TOML_EXCEPTIONS=1)
add_library(surge_cli11 INTERFACE)
target_include_directories(surge_cli11 SYSTEM INTERFACE ${CLI11_INCLUDE_DIR})
add_library(surge_json INTERFACE)
target_include_directories(surge_json SYSTEM INTERFACE ${NLOHMANN_JSON_INCLUDE_DIR})

find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)

# Mesh import (sim/geometry/mesh_import.cpp) through assimp: optional, so a machine without Debian's
# libassimp-dev (the GPU machine has no Debian packages) still builds everything; there, loading a mesh
# file throws an error that names the package.
option(SURGE_ASSIMP "Read mesh files (OBJ, STL) with assimp when it is found" ON)
set(SURGE_HAVE_ASSIMP OFF)
if(SURGE_ASSIMP)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(ASSIMP QUIET IMPORTED_TARGET assimp)
  endif()
  if(ASSIMP_FOUND)
    set(SURGE_HAVE_ASSIMP ON)
  endif()
endif()
message(STATUS "Mesh import (assimp): ${SURGE_HAVE_ASSIMP}")

# Several processes (sim/distributed/, docs/multi-rank.md) through MPI: optional like assimp, so the GPU
# machine without Debian's libopenmpi-dev still builds; there a run under mpirun with several ranks is
# refused with a message that says this build has no MPI.
option(SURGE_MPI "Run over several processes with MPI when it is found" ON)
set(SURGE_HAVE_MPI OFF)
if(SURGE_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(SURGE_HAVE_MPI ON)
  endif()
endif()
message(STATUS "Several processes (MPI): ${SURGE_HAVE_MPI}")

# OpenVDB level sets of the fluid surface (--export vdb, sim/io/surface_vdb.cpp): optional like assimp.
# Debian's libopenvdb-dev installs no CMake package config and its headers include Boost's without depending
# on libboost-dev, so the library, the header, a Boost header it needs and Imath (whose half-float table its
# inline code references) are looked for one by one; without all of them `--export vdb` says this build
# has no OpenVDB.
option(SURGE_OPENVDB "Write OpenVDB level sets of the fluid surface when OpenVDB is found" ON)
set(SURGE_HAVE_OPENVDB OFF)
if(SURGE_OPENVDB)
  find_path(OPENVDB_INCLUDE_DIR openvdb/openvdb.h)
  find_path(OPENVDB_BOOST_INCLUDE_DIR boost/numeric/conversion/conversion_traits.hpp)
  find_library(OPENVDB_LIBRARY openvdb)
  find_library(OPENVDB_IMATH_LIBRARY NAMES Imath-3_1 Imath)
  find_library(OPENVDB_TBB_LIBRARY tbb)
  if(OPENVDB_INCLUDE_DIR AND OPENVDB_BOOST_INCLUDE_DIR AND OPENVDB_LIBRARY AND OPENVDB_IMATH_LIBRARY
     AND OPENVDB_TBB_LIBRARY)
    set(SURGE_HAVE_OPENVDB ON)
    add_library(surge_openvdb INTERFACE)
    target_include_directories(surge_openvdb SYSTEM INTERFACE ${OPENVDB_INCLUDE_DIR} ${OPENVDB_BOOST_INCLUDE_DIR})
    target_link_libraries(surge_openvdb INTERFACE ${OPENVDB_LIBRARY} ${OPENVDB_IMATH_LIBRARY}
                                                  ${OPENVDB_TBB_LIBRARY})
  endif()
endif()
message(STATUS "OpenVDB level sets: ${SURGE_HAVE_OPENVDB}")
