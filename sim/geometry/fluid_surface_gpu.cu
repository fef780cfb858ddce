#include <thrust/iterator/transform_iterator.h>

#include <cfloat>
#include <chrono>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "sim/core/cuda_launch.cuh"
#include "sim/geometry/fluid_surface_gpu.h"
#include "sim/geometry/fluid_surface_physics.h"

namespace surge {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct BoundsOfPoint {
  __host__ __device__ SurfaceBounds operator()(const Vec4f& p) const { return {xyz(p), xyz(p)}; }
};
struct MergeBounds {
  __host__ __device__ SurfaceBounds operator()(const SurfaceBounds& a, const SurfaceBounds& b) const {
    return {{fminf(a.low.x, b.low.x), fminf(a.low.y, b.low.y), fminf(a.low.z, b.low.z)},
            {fmaxf(a.high.x, b.high.x), fmaxf(a.high.y, b.high.y), fmaxf(a.high.z, b.high.z)}};
  }
};

// sorted[k] = positions[order[k]]: the particles in cell order, so a node's neighbours are contiguous.
__global__ void gather_by_cell(const Vec4f* __restrict__ positions, const std::uint32_t* __restrict__ order,
                               std::uint32_t n, Vec4f* __restrict__ sorted /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) sorted[k] = positions[order[k]];
}

// Threads to nodes by bricks of 8 x 8 x 4 nodes, a block each, x fastest inside: a warp's 8 x 4 nodes lie
// in one or two index cells (of edge h = 6 node cells at the defaults), so its threads walk the same
// particle ranges together (one load serves the warp) instead of the six cells a row of 32 nodes spans.
// The field is the same whatever the mapping: only the order of the nodes' threads changes.
struct NodeBricks {
  static constexpr int kX = 8, kY = 8, kZ = 4;  // kX * kY * kZ == kBlock
  int bricks_x, bricks_y, bricks_z;
  explicit NodeBricks(const SurfaceNodeGrid& nodes)
      : bricks_x((nodes.nx + kX - 1) / kX),
        bricks_y((nodes.ny + kY - 1) / kY),
        bricks_z((nodes.nz + kZ - 1) / kZ) {}
  std::size_t threads() const { return std::size_t(bricks_x) * bricks_y * bricks_z * kX * kY * kZ; }
  // The node of thread t; may lie past the grid's last node (the bricks overhang it).
  __device__ SurfaceNodeGrid::Coordinates node_of(std::size_t t) const {
    const int within = int(t % (kX * kY * kZ));
    const std::size_t brick = t / (kX * kY * kZ);
    const int bi = int(brick % std::size_t(bricks_x)),
              bj = int((brick / std::size_t(bricks_x)) % std::size_t(bricks_y)),
              bk = int(brick / (std::size_t(bricks_x) * std::size_t(bricks_y)));
    return {bi * kX + within % kX, bj * kY + (within / kX) % kY, bk * kZ + within / (kX * kY)};
  }
};
static_assert(NodeBricks::kX * NodeBricks::kY * NodeBricks::kZ == kBlock);

__global__ void sample_field(SurfaceSampling sampling, CellIndexView particles, NodeBricks bricks,
                             float* field /* out */) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const SurfaceNodeGrid::Coordinates c = bricks.node_of(t);
  const SurfaceNodeGrid& nodes = sampling.nodes;
  if (c.i >= nodes.nx || c.j >= nodes.ny || c.k >= nodes.nz) return;
  field[nodes.index(c.i, c.j, c.k)] = colour_field_minus_iso(sampling, particles, nodes.node(c.i, c.j, c.k));
}

// Per node (and a zero past the last, which the scans turn into the totals): 1 when the cube at the node
// is crossed (it will hold a vertex), and the number of its forward edges crossed (quads).
__global__ void count_outputs(const float* __restrict__ field, SurfaceNodeGrid nodes,
                              std::uint32_t* __restrict__ vertex_count /* out */,
                              std::uint32_t* __restrict__ quad_count /* out */) {
  const std::size_t node = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t count = nodes.count();
  if (node > count) return;
  std::uint32_t vertices = 0, quads = 0;
  if (node < count) {
    const SurfaceNodeGrid::Coordinates c = nodes.coordinates(node);
    if (c.i + 1 < nodes.nx && c.j + 1 < nodes.ny && c.k + 1 < nodes.nz &&
        cube_crosses_surface(cube_corners(field, nodes, c.i, c.j, c.k)))
      vertices = 1;
    EdgeQuad edge_quads[3];
    quads = std::uint32_t(crossed_edge_quads(field, nodes, c.i, c.j, c.k, edge_quads));
  }
  vertex_count[node] = vertices;
  quad_count[node] = quads;
}

// Each crossed cube's vertex and normal at its offset (offsets: the exclusive scan of count_outputs').
__global__ void write_vertices(const float* __restrict__ field, SurfaceNodeGrid nodes,
                               const std::uint32_t* __restrict__ vertex_offset, Vec3f* __restrict__ vertices,
                               Vec3f* __restrict__ normals /* out */) {
  const std::size_t node = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node >= nodes.count()) return;
  const std::uint32_t v = vertex_offset[node];
  if (vertex_offset[node + 1] == v) return;  // not crossed
  const SurfaceNodeGrid::Coordinates c = nodes.coordinates(node);
  const SurfaceNetVertex vertex =
      surface_net_vertex(cube_corners(field, nodes, c.i, c.j, c.k), nodes.node(c.i, c.j, c.k), nodes.cell);
  vertices[v] = vertex.position;
  normals[v] = vertex.normal;
}

// Each node's crossed edges as two triangles each, from its quad offset on, joining its cubes' vertices.
__global__ void write_triangles(const float* __restrict__ field, SurfaceNodeGrid nodes,
                                const std::uint32_t* __restrict__ vertex_offset,
                                const std::uint32_t* __restrict__ quad_offset,
                                std::array<std::uint32_t, 3>* __restrict__ triangles /* out */) {
  const std::size_t node = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node >= nodes.count()) return;
  const SurfaceNodeGrid::Coordinates at = nodes.coordinates(node);
  EdgeQuad quads[3];
  const int count = crossed_edge_quads(field, nodes, at.i, at.j, at.k, quads);
  for (int q = 0; q < count; ++q) {
    const std::uint32_t a = vertex_offset[quads[q].cube[0]], b = vertex_offset[quads[q].cube[1]],
                        c = vertex_offset[quads[q].cube[2]], d = vertex_offset[quads[q].cube[3]];
    const std::size_t t = 2 * (std::size_t(quad_offset[node]) + std::size_t(q));
    triangles[t] = {a, b, c};
    triangles[t + 1] = {a, c, d};
  }
}

}  // namespace

GpuFluidSurfaceMesher::~GpuFluidSurfaceMesher() {
  for (cudaEvent_t event : events_)
    if (event) cudaEventDestroy(event);
}

void GpuFluidSurfaceMesher::mark(Mark m, cudaStream_t stream) {
  if (!events_[m]) SURGE_CUDA_CHECK(cudaEventCreate(&events_[m]));
  SURGE_CUDA_CHECK(cudaEventRecord(events_[m], stream));
}

FluidSurface GpuFluidSurfaceMesher::extract(const Vec4f* d_positions, std::uint32_t n,
                                            const FluidSurfaceSettings& settings, cudaStream_t stream,
                                            TransferLedger& ledger) {
  check_surface_settings(settings);
  FluidSurface surface;
  stage_ms_ = {};
  if (n == 0) return surface;
  mark(kStart, stream);

  // bounds: the grid's size is the host's to know, to allocate it.
  bounds_.resize(1);
  host_bounds_.resize(1);
  const auto points = thrust::make_transform_iterator(d_positions, BoundsOfPoint{});
  const SurfaceBounds empty{{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
  std::size_t scratch_bytes = 0;
  SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, scratch_bytes, points, bounds_.data(), n, MergeBounds{},
                                             empty, stream));
  if (scratch_bytes > scan_scratch_.size()) scan_scratch_.resize(scratch_bytes);
  SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(scan_scratch_.data(), scratch_bytes, points, bounds_.data(), n,
                                             MergeBounds{}, empty, stream));
  // Read-backs are timed as CudaExecutor::read_back times them: from the copy's call until it has landed.
  auto read_back_start = std::chrono::steady_clock::now();
  SURGE_CUDA_CHECK(cudaMemcpyAsync(host_bounds_.data(), bounds_.data(), sizeof(SurfaceBounds),
                                   cudaMemcpyDeviceToHost, stream));
  mark(kBounds, stream);
  SURGE_CUDA_CHECK(cudaStreamSynchronize(stream));
  ledger.record(CopyDirection::device_to_host, sizeof(SurfaceBounds), milliseconds_since(read_back_start),
                kSurfaceSizesTransfer);
  const SurfaceSampling sampling =
      make_surface_sampling(host_bounds_.data()->low, host_bounds_.data()->high, settings);
  const SurfaceNodeGrid& nodes = sampling.nodes;
  const std::size_t node_count = nodes.count();
  surface.grid_nodes = node_count;

  // index: the CPU's stable order (radix sort), so a node sums its particles in the CPU's order.
  index_.build(sampling.cells, d_positions, n, IndexBuild::radix_sort, stream);
  sorted_positions_.resize(n);
  launch("gather_by_cell", n, stream, gather_by_cell, d_positions, index_.d_sorted_order(), n,
         sorted_positions_.data());
  mark(kIndex, stream);

  field_.resize(node_count);
  const CellIndexView particles{.positions = sorted_positions_.data(), .cell_start = index_.d_cell_start()};
  const NodeBricks bricks(nodes);
  launch("sample_field", bricks.threads(), stream, sample_field, sampling, particles, bricks, field_.data());
  mark(kField, stream);

  // classify: counts per node, scanned in place into offsets; entry node_count becomes the total.
  vertex_offset_.resize(node_count + 1);
  quad_offset_.resize(node_count + 1);
  launch("count_outputs", node_count + 1, stream, count_outputs, field_.data(), nodes, vertex_offset_.data(),
         quad_offset_.data());
  // Both scans are of node_count + 1 counts: one size of scratch serves them.
  SURGE_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, vertex_offset_.data(), node_count + 1, stream));
  if (scratch_bytes > scan_scratch_.size()) scan_scratch_.resize(scratch_bytes);
  for (DeviceBuffer<std::uint32_t>* offsets : {&vertex_offset_, &quad_offset_}) {
    SURGE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch_.data(), scratch_bytes, offsets->data(),
                                                   node_count + 1, stream));
  }
  host_totals_.resize(2);
  read_back_start = std::chrono::steady_clock::now();
  SURGE_CUDA_CHECK(cudaMemcpyAsync(host_totals_.data(), vertex_offset_.data() + node_count,
                                   sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  SURGE_CUDA_CHECK(cudaMemcpyAsync(host_totals_.data() + 1, quad_offset_.data() + node_count,
                                   sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  mark(kClassify, stream);
  SURGE_CUDA_CHECK(cudaStreamSynchronize(stream));
  ledger.record(CopyDirection::device_to_host, 2 * sizeof(std::uint32_t), milliseconds_since(read_back_start),
                kSurfaceSizesTransfer);
  const std::size_t vertex_count = host_totals_.data()[0];
  const std::size_t triangle_count = 2 * std::size_t(host_totals_.data()[1]);

  // assemble
  vertices_.resize(vertex_count);
  normals_.resize(vertex_count);
  triangles_.resize(triangle_count);
  launch("write_vertices", node_count, stream, write_vertices, field_.data(), nodes, vertex_offset_.data(),
         vertices_.data(), normals_.data());
  launch("write_triangles", node_count, stream, write_triangles, field_.data(), nodes, vertex_offset_.data(),
         quad_offset_.data(), triangles_.data());
  mark(kAssemble, stream);

  // download: into pageable memory, so each copy returns when it has landed.
  std::vector<Vec3f> vertices(vertex_count);
  surface.normals.resize(vertex_count);
  surface.mesh.triangles.resize(triangle_count);
  if (vertex_count > 0) {
    SURGE_CUDA_CHECK(cudaMemcpyAsync(vertices.data(), vertices_.data(), vertices_.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
    SURGE_CUDA_CHECK(cudaMemcpyAsync(surface.normals.data(), normals_.data(), normals_.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
  }
  if (triangle_count > 0) {
    SURGE_CUDA_CHECK(cudaMemcpyAsync(surface.mesh.triangles.data(), triangles_.data(), triangles_.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
  }
  mark(kDownload, stream);
  SURGE_CUDA_CHECK(cudaStreamSynchronize(stream));

  float ms[kMarks] = {};
  for (int m = kBounds; m < kMarks; ++m)
    SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms[m], events_[m - 1], events_[m]));
  stage_ms_ = {ms[kBounds], ms[kIndex], ms[kField], ms[kClassify], ms[kAssemble], ms[kDownload]};
  // The download's time shared out by bytes, one entry per array as the particle exports make.
  const double mesh_bytes = double(vertices_.bytes() + normals_.bytes() + triangles_.bytes());
  for (const std::size_t bytes : {vertices_.bytes(), normals_.bytes(), triangles_.bytes()}) {
    ledger.record(CopyDirection::device_to_host, bytes,
                  mesh_bytes > 0 ? double(stage_ms_.download) * double(bytes) / mesh_bytes : 0.0,
                  kSurfaceMeshTransfer);
  }

  surface.mesh.vertices.resize(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v)
    surface.mesh.vertices[v] = {double(vertices[v].x), double(vertices[v].y), double(vertices[v].z)};
  return surface;
}

}  // namespace surge
