// Fluid surface meshes (sim/geometry/fluid_surface.h) as files: binary little-endian PLY (vertices with
// normals, triangles) for Blender and ParaView, and Wavefront OBJ (v, vn, f a//a). Written atomically, as
// every export (sim/io/exporters.h).
#pragma once

#include <filesystem>

#include "sim/geometry/fluid_surface.h"

namespace surge {

void write_surface_ply(const std::filesystem::path& path, const FluidSurface& surface, double time_s,
                       long step);
void write_surface_obj(const std::filesystem::path& path, const FluidSurface& surface, double time_s,
                       long step);

}  // namespace surge
