// Reading triangle meshes from files (OBJ, STL ASCII and binary, and whatever else assimp reads), with
// assimp. Optional at build time: without assimp (SURGE_HAVE_ASSIMP=0, e.g. the GPU machine, which has
// no Debian packages) everything builds and read_mesh_file throws MeshError saying so.
#pragma once

#include <filesystem>

#include "sim/geometry/mesh_check.h"
#include "sim/geometry/triangle_mesh.h"

namespace surge {

// Whether this build can read mesh files.
bool mesh_import_available();

// The file's triangles as they are (polygons triangulated, identical vertices joined, every mesh of the
// file in one frame), unchecked. Throws MeshError for a missing, unreadable or unrecognised file.
TriangleMesh read_mesh_file(const std::filesystem::path& path);

// read_mesh_file, then check_mesh: a mesh ready to be a solid, or a MeshError naming the file and the
// problem (mesh_check.h lists them).
CheckedMesh load_mesh(const std::filesystem::path& path);

}  // namespace surge
