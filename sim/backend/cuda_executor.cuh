// The CUDA executor: the interface of CpuExecutor (cpu_executor.h) on one stream of the GPU. Loop bodies are
// extended lambdas launched by one generic kernel; reductions go through CUB into pinned memory, and that
// small readback (8 bytes) is recorded in the ledger as what it is: the host deciding whether to iterate.
// Particle data never crosses: index, reorder and every pass stay on the device.
#pragma once

#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <array>
#include <chrono>
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/functional>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/backend/cuda_step_graphs.h"
#include "sim/backend/frame_snapshots.cuh"
#include "sim/backend/simulation.h"
#include "sim/core/cuda_check.h"
#include "sim/core/cuda_launch.cuh"
#include "sim/core/cuda_stream.h"
#include "sim/core/device_buffer.h"
#include "sim/core/gpu_info.h"
#include "sim/core/max_keys.h"
#include "sim/core/pinned_buffer.h"
#include "sim/core/step_graph_key.h"
#include "sim/core/tally.h"
#include "sim/geometry/fluid_surface_gpu.h"
#include "sim/index/cell_index_gpu.h"
#include "sim/index/neighbor_lists_gpu.h"
#include "sim/index/neighbor_loop.h"

namespace surge {

namespace cuda_executor_detail {

template <typename F>
__global__ void __launch_bounds__(kBlock) for_each_kernel(F f, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// for_each with the counts f returns summed per block in shared memory, then one atomic per block into
// *totals: the tally costs no pass of its own.
template <typename F>
__global__ void __launch_bounds__(kBlock) for_each_tallied_kernel(F f, std::uint32_t n, TallyTotals* totals) {
  __shared__ unsigned int block_sum_a, block_sum_b, block_max;
  if (threadIdx.x == 0) block_sum_a = block_sum_b = block_max = 0u;
  __syncthreads();
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const Tally tally = f(i);
    if (tally.sum_a != 0u) atomicAdd(&block_sum_a, tally.sum_a);
    if (tally.sum_b != 0u) atomicAdd(&block_sum_b, tally.sum_b);
    if (tally.max != 0u) atomicMax(&block_max, tally.max);
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (block_sum_a != 0u) atomicAdd(&totals->sum_a, (unsigned long long)block_sum_a);
  if (block_sum_b != 0u) atomicAdd(&totals->sum_b, (unsigned long long)block_sum_b);
  if (block_max != 0u) atomicMax(&totals->max, block_max);
}

template <typename F>
__global__ void single_kernel(F f) {
  f();
}

// f(i) for every thread's particle, its K keys reduced over the block, then one atomicMax a block per key.
// These are WCSPH's neighbour passes (forces, rates), which wait on their neighbours' loads: at 76 registers
// (Wendland, continuity density and delta-SPH) three blocks of 256 fit an SM, 37.5 % occupancy, and Nsight
// Compute found 1.2 eligible warps a scheduler and 61 % of issue slots used (H200, spheric2dam at 652k,
// 2026-12-03). Four blocks cap the registers at 64 (ptxas spills 40-64 bytes in the rates pass).
template <int K, typename F>
__global__ void __launch_bounds__(kBlock, 4)
    for_each_with_max_kernel(F f, std::uint32_t n, unsigned long long* destination) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  MaxKeys<K> keys;
  if (i < n) keys = f(i);
  using Reduce = cub::BlockReduce<unsigned long long, kBlock>;
  __shared__ typename Reduce::TempStorage storage;
  for (int k = 0; k < K; ++k) {
    const unsigned long long block_max = Reduce(storage).Reduce(keys.key[k], cuda::maximum<>{});
    if (threadIdx.x == 0 && block_max != 0ull) atomicMax(&destination[k], block_max);
    __syncthreads();  // the next key reuses the storage
  }
}

template <typename T>
__global__ void gather_kernel(const std::uint32_t* __restrict__ order, std::uint32_t n,
                              const T* __restrict__ values, T* __restrict__ sorted /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) sorted[k] = values[order[k]];
}

// f(i) as a double or float, for CUB to reduce over a counting iterator.
template <typename F, typename T>
struct AsValue {
  F f;
  __host__ __device__ T operator()(std::uint32_t i) const { return T(f(i)); }
};

}  // namespace cuda_executor_detail

class CudaExecutor {
 public:
  template <typename T>
  using Buffer = DeviceBuffer<T>;

  // `reorder` false keeps the particles in creation order: the memory-order lesson
  // (docs/lessons/3-memory-order.md) reads neighbours through the cell index's sorted order instead.
  // `step_graphs`: steps run as CUDA graphs where the solver allows (graphed_step).
  // `neighbor_lists`: the iterative solvers' passes read per-step lists (build_neighbor_lists) rather than
  // walk the cells.
  CudaExecutor(TransferLedger& ledger, const GpuInfo& gpu, IndexBuild index_build = IndexBuild::radix_sort,
               bool reorder = true, bool step_graphs = false, bool neighbor_lists = true)
      : ledger_(ledger),
        gpu_(gpu),
        index_build_(index_build),
        reorder_(reorder),
        step_graphs_(step_graphs),
        neighbor_lists_(neighbor_lists) {
    host_result_.resize(1);
    read_back_.resize(kReadBackBytes);
    result_.resize(1);
  }
  ~CudaExecutor() {
    stream_.synchronize();
    for (const Mark& mark : marks_) {
      cudaEventDestroy(mark.start);
      cudaEventDestroy(mark.stop);
    }
  }
  CudaExecutor(const CudaExecutor&) = delete;
  CudaExecutor& operator=(const CudaExecutor&) = delete;

  std::string name() const {
    return "gpu (" + gpu_.name + ", CC " + std::to_string(gpu_.compute_major) + "." +
           std::to_string(gpu_.compute_minor) + (reorder_ ? "" : ", particles in creation order") +
           (neighbor_lists_ ? "" : ", no neighbour lists") + (step_graphs_ ? ", CUDA graphs" : "") + ")";
  }
  cudaStream_t stream() const { return stream_; }
  void synchronize() { stream_.synchronize(); }
  // The particles are device memory: reading them or a status waits for the stream and crosses the bus.
  static constexpr bool kOnDevice = true;

  // The overlapped export (Simulation::begin_download): a snapshot queued on this executor's stream behind
  // the steps, copied to pinned memory on a copy stream while the next steps run.
  static constexpr bool kSnapshotsOnDevice = true;
  // Every step builds its index from the particles: a solver's archive_state is all a checkpoint needs.
  static constexpr bool kCheckpoints = true;
  void begin_snapshot(std::size_t slot, const DeviceParticleArrays& arrays) {
    snapshots_.begin(slot, arrays, stream_);
  }
  void finish_snapshot(std::size_t slot, ParticleFrame& frame) { snapshots_.finish(slot, frame, ledger_); }

  // The fluid's surface mesh of the n particles at d_positions (Simulation::mesh_fluid_surface), made on
  // this stream behind the steps; only the finished mesh crosses the bus, and the ledger records it.
  FluidSurface mesh_fluid_surface(const Vec4f* d_positions, std::uint32_t n,
                                  const FluidSurfaceSettings& settings) {
    return surface_mesher_.extract(d_positions, n, settings, stream_, ledger_);
  }

  template <typename F>
  void for_each(std::uint32_t n, const F& f) {
    using namespace cuda_executor_detail;
    if (n == 0) return;
    for_each_kernel<<<blocks_for(n), kBlock, 0, stream_>>>(f, n);
    SURGE_CUDA_CHECK_LAUNCH("for_each_kernel");
  }

  // f(i) returns a Tally; its sums and largest value are added into *totals (device memory) in the same
  // kernel.
  template <typename F>
  void for_each_tallied(std::uint32_t n, const F& f, TallyTotals* totals) {
    using namespace cuda_executor_detail;
    if (n == 0) return;
    for_each_tallied_kernel<<<blocks_for(n), kBlock, 0, stream_>>>(f, n, totals);
    SURGE_CUDA_CHECK_LAUNCH("for_each_tallied_kernel");
  }

  template <typename F>
  double sum(std::uint32_t n, const F& f) {
    return reduce<double>(n, f, cuda::std::plus<>{}, 0.0, "solver reduction (sum)");
  }
  template <typename F>
  float max(std::uint32_t n, const F& f) {
    return float(reduce<float>(n, f, cuda::maximum<>{}, 0.0f, "solver reduction (max)"));
  }

  // Device-resident results (CpuExecutor has the same calls): the solver decides on the device and the
  // host never waits. *destination (device memory) = max of f(i) over i < n, through CUB on the stream.
  template <typename T, typename F>
  void max_into(T* destination, std::uint32_t n, const F& f) {
    reduce_into<T>(destination, n, f, cuda::maximum<>{}, T(0));
  }
  // f(i) for every i < n, each returning K keys (sim/core/max_keys.h) that raise destination[0..K) (device
  // memory) to their largest: the maxima are fused into the pass, a block reduction and one atomicMax a block
  // per key, where a max_into after it would read its results again.
  template <int K, typename F>
  void for_each_with_max(unsigned long long* destination, std::uint32_t n, const F& f) {
    using namespace cuda_executor_detail;
    if (n == 0) return;
    for_each_with_max_kernel<K><<<blocks_for(n), kBlock, 0, stream_>>>(f, n, destination);
    SURGE_CUDA_CHECK_LAUNCH("for_each_with_max_kernel");
  }
  template <typename F>
  void sum_into(double* destination, std::uint32_t n, const F& f) {
    reduce_into<double>(destination, n, f, cuda::std::plus<>{}, 0.0);
  }
  // f() once on the device, in stream order: a one-thread kernel for a decision from device-resident values.
  template <typename F>
  void single(const F& f) {
    using namespace cuda_executor_detail;
    single_kernel<<<1, 1, 0, stream_>>>(f);
    SURGE_CUDA_CHECK_LAUNCH("single_kernel");
  }
  // The first value of `buffer`, copied to pinned memory after the work queued so far: waits, and the
  // ledger records the bytes as `reason`.
  template <typename T>
  T read_back(const Buffer<T>& buffer, const char* reason) {
    static_assert(sizeof(T) <= kReadBackBytes, "read_back: the value is larger than the pinned staging");
    const auto start = std::chrono::steady_clock::now();
    SURGE_CUDA_CHECK(
        cudaMemcpyAsync(read_back_.data(), buffer.data(), sizeof(T), cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ledger_.record(
        CopyDirection::device_to_host, sizeof(T),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(), reason);
    T value;
    std::memcpy(&value, read_back_.data(), sizeof(T));
    return value;
  }

  // The indices i < n with flags[i] != 0 (device memory), in order, into list; their count into *count,
  // on the device: CUB's stream compaction.
  void select_flagged(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* list,
                      std::uint32_t* count) {
    const thrust::counting_iterator<std::uint32_t> indices(0);
    std::size_t bytes = 0;
    SURGE_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, indices, flags, list, count, n, stream_));
    if (bytes > temp_.size()) temp_.resize(bytes);
    SURGE_CUDA_CHECK(
        cub::DeviceSelect::Flagged(temp_.data(), bytes, indices, flags, list, count, n, stream_));
  }

  // The index: build_index, reorder, cell_start and neighbor_order are what a solver calls, and what the
  // hybrid executors (hybrid_executor.cuh) replace by name (the solver templates are instantiated on the
  // derived type: no virtual call in a step).
  //
  // Sorts the first n particles (the active ones; the buffer may hold more, allocated for an emitter). With
  // `active_count` (device memory: a count the device grows, the GPU WCSPH emitter's) n is a bound and only
  // the first *active_count take part; the others sort past every cell.
  void build_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n,
                   const std::uint32_t* active_count = nullptr) {
    index_.build(grid, positions.data(), n, index_build_, stream_, active_count);
    sorted_count_ = n;
  }
  // Null when reorder() gathers the particles into cell order; else the order to read neighbours through.
  const std::uint32_t* neighbor_order() const { return reorder_ ? nullptr : index_.d_sorted_order(); }
  const std::uint32_t* cell_start() const { return index_.d_cell_start(); }
  // sorted_order()[k]: the particle (as they stood at build_index) that is k-th in cell order.
  const std::uint32_t* sorted_order() const { return index_.d_sorted_order(); }
  // A second index, over the wall particles, for scenes whose solids move (sim/sph/solid_bodies.h): built
  // every step after the solids are placed, by the stable radix sort (the CPU's order, for any index_build).
  void build_boundary_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n) {
    boundary_index_.build(grid, positions.data(), n, IndexBuild::radix_sort, stream_);
  }
  const std::uint32_t* boundary_cell_start() const { return boundary_index_.d_cell_start(); }
  const std::uint32_t* boundary_sorted_order() const { return boundary_index_.d_sorted_order(); }
  // Per-step neighbour lists of every fluid particle, fluid and wall (neighbor_lists_gpu.h), for the
  // iterative solvers, which visit each neighbourhood ten or more times a step: the other passes then read
  // ~30 listed neighbours where the cells hold ~200 candidates (docs/perf/2026-12-04-gpu-neighbour-lists.md).
  // Made without them (`neighbor_lists` false, `surge bench --neighbor-lists off`), the passes walk the
  // cells.
  void build_neighbor_lists(const GridGeometry& grid, const CellIndexView& fluid,
                            const CellIndexView& boundary, std::uint32_t n, float support) {
    lists_built_ = neighbor_lists_;
    if (!neighbor_lists_) return;
    const float support2 = support * support;
    fluid_lists_.build(grid, fluid, fluid.positions, n, support2, stream_, ledger_);
    boundary_lists_.build(grid, boundary, fluid.positions, n, support2, stream_, ledger_);
  }
  const std::uint32_t* fluid_list_start() const { return lists_built_ ? fluid_lists_.d_start() : nullptr; }
  const std::uint32_t* fluid_list() const { return lists_built_ ? fluid_lists_.d_list() : nullptr; }
  const std::uint32_t* boundary_list_start() const {
    return lists_built_ ? boundary_lists_.d_start() : nullptr;
  }
  const std::uint32_t* boundary_list() const { return lists_built_ ? boundary_lists_.d_list() : nullptr; }
  // The pairs' gradients are computed again where they are read: reading a cached 16-byte gradient a pair
  // would move more bytes than the kernel's few flops cost.
  template <typename Kernel>
  void cache_pair_gradients(const Kernel&, const Vec4f*, std::uint32_t) {}
  const Vec4f* fluid_list_gradient() const { return nullptr; }
  template <typename T>
  void reorder(Buffer<T>& values, Buffer<T>& scratch) {
    if (!reorder_) return;  // creation order kept: neighbor_order() gives the cell order
    gather(index_.d_sorted_order(), sorted_count_, values, scratch);
  }

  // Copies `source` into the first entries of a buffer of `capacity` entries; only source's bytes cross.
  template <typename T>
  void upload(Buffer<T>& destination, const std::vector<T>& source, std::size_t capacity,
              const char* reason) {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    destination.resize(capacity);
    copy_to_device(destination, source, ledger_, reason);
    destination.resize(capacity);  // within the allocation: keeps the contents
  }
  template <typename T>
  void upload(Buffer<T>& destination, const std::vector<T>& source, const char* reason) {
    upload(destination, source, source.size(), reason);
  }
  // Copies the first `count` entries.
  template <typename T>
  void download(std::vector<T>& destination, const Buffer<T>& source, std::size_t count, const char* reason) {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    copy_to_host(destination, source, count, ledger_, reason);
  }
  template <typename T>
  void allocate(Buffer<T>& buffer, std::size_t n) {
    buffer.resize(n);
    SURGE_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0, buffer.bytes(), stream_));
  }

  // CUDA graphs of whole steps (cuda_step_graphs.h), when the executor was made with them: SolverSimulation
  // runs a step through graphed_step, with the key its solver gives (WCSPH's step_graph_key), or none where
  // the solver cannot name what its launches depend on this step: then the step runs as ever.
  bool step_graphs() const { return step_graphs_; }
  template <typename Step>
  void graphed_step(const std::optional<StepGraphKey>& key, Step&& step) {
    const CudaStepGraphs::Graph* graph = key ? graphs_.find(*key, stream_) : nullptr;
    if (graph == nullptr && (!key || !graphs_.settled())) {
      step();
      graphs_.settle();
      return;
    }
    // A graph is one launch, timed whole as `other`: the stages' marks are not recorded inside it.
    if (graph == nullptr) {
      graph = &graphs_.capture(stream_, *key, recording_, step);
      begin(Stage::other);
      graphs_.launch_captured(*graph, stream_);
      end();
    } else {
      begin(Stage::other);
      graphs_.replay(*graph, stream_);
      end();
    }
  }
  // The entries of the last step's neighbour lists, fluid and wall, where the solver had them built; and
  // steps captured, replayed, and run without a graph, when the executor makes graphs.
  std::vector<NamedValue> figures() const {
    std::vector<NamedValue> all;
    if (lists_built_)
      all.push_back({"neighbor_list_entries", double(fluid_lists_.entries() + boundary_lists_.entries())});
    if (!step_graphs_) return all;
    const CudaStepGraphs::Counts counts = graphs_.counts();
    all.push_back({"cuda_graph_captures", double(counts.captures)});
    all.push_back({"cuda_graph_replays", double(counts.replays)});
    all.push_back({"steps_without_graph", double(counts.uncaptured)});
    return all;
  }

  // Stage timers: events recorded on the stream, read when the times are asked for. While a step is
  // captured into a graph they record nothing (graphed_step times the graph).
  void begin(Stage stage) {
    if (recording_ != nullptr) return;
    stage_open_ = true;
    if (used_ == marks_.size()) {
      Mark mark{};
      SURGE_CUDA_CHECK(cudaEventCreate(&mark.start));
      SURGE_CUDA_CHECK(cudaEventCreate(&mark.stop));
      marks_.push_back(mark);
    }
    marks_[used_].stage = stage;
    SURGE_CUDA_CHECK(cudaEventRecord(marks_[used_].start, stream_));
  }
  void end() {
    if (recording_ != nullptr) return;
    stage_open_ = false;
    SURGE_CUDA_CHECK(cudaEventRecord(marks_[used_].stop, stream_));
    ++used_;
    if (used_ >= 4096) collect();
  }
  void count_step() {
    host_effect([this] { times_.steps += 1; });
  }
  StageTimes stage_times() {
    collect();
    return times_;
  }
  void reset_timers() {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    used_ = 0;
    times_ = StageTimes{};
  }

 protected:
  // values[k] = values[order[k]] for k < n (through `scratch`, which it swaps with).
  template <typename T>
  void gather(const std::uint32_t* order, std::uint32_t n, Buffer<T>& values, Buffer<T>& scratch) {
    using namespace cuda_executor_detail;
    scratch.resize(values.size());
    if (n == 0) return;
    gather_kernel<<<blocks_for(n), kBlock, 0, stream_>>>(order, n, values.data(), scratch.data());
    SURGE_CUDA_CHECK_LAUNCH("gather_kernel");
    host_effect([&values, &scratch] { values.swap(scratch); });
  }
  // Runs `effect`, a change a step makes to host state; while the step is captured, also keeps it for the
  // graph's replays, which launch no host code of the step.
  template <typename Effect>
  void host_effect(Effect effect) {
    effect();
    if (recording_ != nullptr) recording_->push_back(std::move(effect));
  }
  // Times what `work` queues (or waits for on the host, while the stream is idle) as `stage`, inside the
  // stage the caller has open (a solver's index stage): that stage's mark ends before and begins again after.
  template <typename Work>
  void within_stage(Stage stage, Work&& work) {
    const bool nested = stage_open_;
    const Stage open = nested ? marks_[used_].stage : Stage::other;
    if (nested) end();
    begin(stage);
    work();
    end();
    if (nested) begin(open);
  }

  TransferLedger& ledger_;
  GpuInfo gpu_;
  CudaStream stream_;  // declared before the buffers the queued work reads: destroyed after them

 private:
  struct Mark {
    cudaEvent_t start, stop;
    Stage stage;
  };

  void collect() {
    if (used_ == 0) return;
    SURGE_CUDA_CHECK(cudaEventSynchronize(marks_[used_ - 1].stop));
    for (std::size_t k = 0; k < used_; ++k) {
      float ms = 0.0f;
      SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, marks_[k].start, marks_[k].stop));
      times_.ms[int(marks_[k].stage)] += ms;
    }
    used_ = 0;
  }

  template <typename T, typename F, typename Op>
  void reduce_into(T* destination, std::uint32_t n, const F& f, Op op, T init) {
    using namespace cuda_executor_detail;
    const auto input =
        thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), AsValue<F, T>{f});
    std::size_t bytes = 0;
    SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, input, destination, n, op, init, stream_));
    if (bytes > temp_.size()) temp_.resize(bytes);
    SURGE_CUDA_CHECK(
        cub::DeviceReduce::Reduce(temp_.data(), bytes, input, destination, n, op, init, stream_));
  }

  template <typename T, typename F, typename Op>
  double reduce(std::uint32_t n, const F& f, Op op, T init, const char* reason) {
    T* result = reinterpret_cast<T*>(result_.data());
    reduce_into<T>(result, n, f, op, init);
    const auto start = std::chrono::steady_clock::now();
    SURGE_CUDA_CHECK(
        cudaMemcpyAsync(host_result_.data(), result, sizeof(T), cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ledger_.record(
        CopyDirection::device_to_host, sizeof(T),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(), reason);
    return double(*reinterpret_cast<const T*>(host_result_.data()));
  }

  IndexBuild index_build_;
  bool reorder_;
  bool step_graphs_;
  CudaStepGraphs graphs_;
  std::vector<std::function<void()>>* recording_ = nullptr;  // the host effects of a step being captured
  bool neighbor_lists_;
  bool lists_built_ = false;
  GpuNeighborLists fluid_lists_, boundary_lists_;
  GpuCellIndex index_;
  GpuCellIndex boundary_index_;
  std::uint32_t sorted_count_ = 0;
  DeviceBuffer<double> result_;
  DeviceBuffer<unsigned char> temp_;
  PinnedBuffer<double> host_result_;
  // Pinned staging for read_back: a status struct of up to kReadBackBytes.
  static constexpr std::size_t kReadBackBytes = 1024;
  PinnedBuffer<unsigned char> read_back_;
  std::vector<Mark> marks_;
  std::size_t used_ = 0;
  bool stage_open_ = false;
  StageTimes times_;
  GpuFluidSurfaceMesher surface_mesher_;  // its buffers are allocated on the first mesh and kept
  DeviceFrameSnapshots snapshots_;        // destroyed first: waits for copies still in flight
};

}  // namespace surge
