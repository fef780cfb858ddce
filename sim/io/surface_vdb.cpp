#include "sim/io/surface_vdb.h"

#include <stdexcept>
#include <string>

#include "sim/io/exporters.h"

#if SURGE_HAVE_OPENVDB
#include <openvdb/io/Stream.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>

#include <mutex>
#include <vector>
#endif

namespace surge {

#if SURGE_HAVE_OPENVDB

bool vdb_export_available() {
  return true;
}

void write_surface_vdb(const std::filesystem::path& path, const FluidSurface& surface, double voxel_size,
                       double time_s, long step) {
  // Registers OpenVDB's grid and metadata types; once per process, and safe from the exporter's thread.
  static std::once_flag initialised;
  std::call_once(initialised, [] { openvdb::initialize(); });
  if (!(voxel_size > 0)) {
    throw std::invalid_argument("cannot write '" + path.string() + "': the voxel size must be positive");
  }

  // meshToLevelSet works in index space through the transform: the mesh's metres map to voxels of
  // voxel_size, with voxel centres on multiples of it. The distance it computes is exact within the narrow
  // band (unsigned distance to the nearest triangle, signed by a flood fill from outside), which is why the
  // mesh must be closed: extract_fluid_surface's is, every edge joining two faces.
  const openvdb::math::Transform::Ptr transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  std::vector<openvdb::Vec3s> points;
  points.reserve(surface.mesh.vertices.size());
  for (const Vec3d& v : surface.mesh.vertices) points.emplace_back(float(v.x), float(v.y), float(v.z));
  std::vector<openvdb::Vec3I> triangles;
  triangles.reserve(surface.mesh.triangles.size());
  for (const auto& t : surface.mesh.triangles) triangles.emplace_back(t[0], t[1], t[2]);
  const openvdb::FloatGrid::Ptr grid =
      openvdb::tools::meshToLevelSet<openvdb::FloatGrid>(*transform, points, triangles, kVdbHalfWidth);
  grid->setName(kVdbSurfaceGrid);
  grid->insertMeta("time_s", openvdb::DoubleMetadata(time_s));
  grid->insertMeta("step", openvdb::Int64Metadata(step));
  grid->insertMeta("creator", openvdb::StringMetadata("surge"));

  // io::Stream writes the same archive io::File reads (Blender and Houdini open it as a file), into the
  // exporters' atomic writer: a full disk leaves no half-written .vdb.
  write_file_atomically(
      path, [&](std::ostream& out) { openvdb::io::Stream(out).write(openvdb::GridCPtrVec{grid}); });
}

#else

bool vdb_export_available() {
  return false;
}

void write_surface_vdb(const std::filesystem::path& path, const FluidSurface&, double, double, long) {
  throw std::runtime_error("cannot write '" + path.string() + "': " + kNoOpenVdb);
}

#endif

}  // namespace surge
