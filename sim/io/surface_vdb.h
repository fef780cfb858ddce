// The fluid's surface as an OpenVDB level set (docs/surfaces.md), for Houdini, Blender (a Volume object)
// and the other tools that work on narrow-band signed distance fields rather than meshes. OpenVDB is
// optional (Debian's libopenvdb-dev); a build without it says so when the format is asked for.
#pragma once

#include <filesystem>

#include "sim/geometry/fluid_surface.h"

namespace surge {

// Whether this build writes OpenVDB files; what every place that refuses the format without it says.
bool vdb_export_available();
inline constexpr const char* kNoOpenVdb =
    "this build has no OpenVDB (install libopenvdb-dev and libboost-dev, then configure again)";

// The grid Surge writes: a float grid of class "level set" named kVdbSurfaceGrid, the signed distance to
// the surface mesh (negative inside the water), over a narrow band of kVdbHalfWidth voxels each side of the
// surface, with the simulated time ("time_s") and step ("step") as grid metadata.
inline constexpr const char* kVdbSurfaceGrid = "surface";
inline constexpr float kVdbHalfWidth = 3.0f;

// Writes `surface` (a closed mesh, as extract_fluid_surface makes) as a level set with cubic voxels of
// `voxel_size` metres, atomically (sim/io/exporters.h). Throws std::runtime_error naming the file when it
// cannot be written, and when this build has no OpenVDB.
void write_surface_vdb(const std::filesystem::path& path, const FluidSurface& surface, double voxel_size,
                       double time_s, long step);

}  // namespace surge
