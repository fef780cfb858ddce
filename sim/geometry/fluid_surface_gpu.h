// The fluid's surface mesh made on the GPU: extract_fluid_surface's field and surface nets
// (sim/geometry/fluid_surface_physics.h, the same formulas) on particles that live in device memory, so
// that only the finished mesh crosses the bus (docs/surfaces.md). The stages, each over every grid node:
//
//   bounds     CUB reduction of the positions; 24 bytes read back to size the grid on the host
//   index      the particles sorted into cells of edge h (GpuCellIndex, radix sort) and gathered in that
//   order field      c(node) - iso, one thread a node, gathered from the 27 cells around it classify   a flag
//   per crossed cube and a count of crossed edges per node, each turned into output
//              offsets by a CUB exclusive scan in place; the two totals (8 bytes) read back
//   assemble   each crossed cube writes its vertex and normal at its offset, each node its edges' quads
//              (two triangles each) at its offset: the CPU's order, vertex for vertex and triangle for
//              triangle
//   download   vertices, normals and triangles to the host, 12 bytes each, in the transfer ledger
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "sim/core/device_buffer.h"
#include "sim/core/pinned_buffer.h"
#include "sim/core/transfer_ledger.h"
#include "sim/core/vec.h"
#include "sim/geometry/fluid_surface.h"
#include "sim/index/cell_index_gpu.h"

namespace surge {

// Device time of one extract()'s stages, by CUDA events [ms].
struct GpuSurfaceStageMs {
  float bounds = 0, index = 0, field = 0, classify = 0, assemble = 0, download = 0;
  float total() const { return bounds + index + field + classify + assemble + download; }
};

// The particles' bounding box, reduced on the device.
struct SurfaceBounds {
  Vec3f low, high;  // [m]
};

// The ledger's reasons for the mesher's copies.
inline constexpr const char* kSurfaceMeshTransfer = "surface mesh";
inline constexpr const char* kSurfaceSizesTransfer = "surface mesh sizes";  // bounds and counts

class GpuFluidSurfaceMesher {
 public:
  GpuFluidSurfaceMesher() = default;
  ~GpuFluidSurfaceMesher();
  GpuFluidSurfaceMesher(const GpuFluidSurfaceMesher&) = delete;
  GpuFluidSurfaceMesher& operator=(const GpuFluidSurfaceMesher&) = delete;

  // extract_fluid_surface of the n particles at d_positions (device memory; w unused), queued on `stream`
  // behind the work already there; returns when the mesh is on the host. Every copy to the host is
  // recorded in `ledger`: the sizes (32 bytes) and the mesh (12 bytes a vertex, a normal and a triangle).
  // Throws what extract_fluid_surface throws for bad settings or too large a grid.
  FluidSurface extract(const Vec4f* d_positions, std::uint32_t n, const FluidSurfaceSettings& settings,
                       cudaStream_t stream, TransferLedger& ledger);

  // The last extract()'s stages.
  const GpuSurfaceStageMs& stage_ms() const { return stage_ms_; }

 private:
  enum Mark { kStart, kBounds, kIndex, kField, kClassify, kAssemble, kDownload, kMarks };
  void mark(Mark m, cudaStream_t stream);

  GpuCellIndex index_;
  DeviceBuffer<Vec4f> sorted_positions_;
  DeviceBuffer<float> field_;                  // c - iso per node
  DeviceBuffer<std::uint32_t> vertex_offset_;  // per cube, + a total: the first vertex it writes
  DeviceBuffer<std::uint32_t> quad_offset_;    // per node, + a total: the first quad it writes
  DeviceBuffer<Vec3f> vertices_, normals_;
  DeviceBuffer<std::array<std::uint32_t, 3>> triangles_;
  DeviceBuffer<SurfaceBounds> bounds_;
  DeviceBuffer<unsigned char> scan_scratch_;  // CUB's temporary storage
  PinnedBuffer<SurfaceBounds> host_bounds_;
  PinnedBuffer<std::uint32_t> host_totals_;  // vertices, quads
  std::array<cudaEvent_t, kMarks> events_{};
  GpuSurfaceStageMs stage_ms_;
};

}  // namespace surge
