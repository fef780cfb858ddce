// The granular solver on the GPU: DemSolver's step in CudaExecutor's kernels, and the classroom's hybrid
// mode, the same step with the cell index built on the CPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "sim/backend/cuda_executor.cuh"
#include "sim/dem/dem_solver_simulation.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {

// The hybrid mode's executor (sim/backend/execution_mode.h) until HybridExecutor serves every solver: a
// CudaExecutor whose build_index downloads the positions (pinned), runs the CPU's stable counting sort by
// cell (sim/index/cell_index_cpu.h: the same order the GPU's stable sorts give) and uploads the sorted order
// and the cell starts. Every copy waits, since the GPU has nothing to do until the index is back; the
// copies are host-timed and shown as the transfer stage instead of inside the index stage.
class DemHybridExecutor : public CudaExecutor {
 public:
  DemHybridExecutor(TransferLedger& ledger, const GpuInfo& gpu)
      : CudaExecutor(ledger, gpu), ledger_(ledger) {}

  void build_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n) {
    using Clock = std::chrono::steady_clock;
    const auto ms_since = [](Clock::time_point start) {
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    pinned_positions_.resize(n);
    auto start = Clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(pinned_positions_.data(), positions.data(), pinned_positions_.bytes(),
                                     cudaMemcpyDeviceToHost, stream()));
    synchronize();
    double ms = ms_since(start);
    ledger_.record(CopyDirection::device_to_host, pinned_positions_.bytes(), ms,
                   "hybrid: positions to the CPU index");
    transfer_ms_ += ms;

    cpu_index_.build(grid, pinned_positions_.view());
    const std::vector<std::uint32_t>& order = cpu_index_.sorted_order();
    const std::vector<std::uint32_t>& starts = cpu_index_.cell_start();
    pinned_index_.resize(order.size() + starts.size());
    std::copy(order.begin(), order.end(), pinned_index_.data());
    std::copy(starts.begin(), starts.end(), pinned_index_.data() + order.size());
    sorted_order_.resize(order.size());
    cell_start_.resize(starts.size());
    start = Clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(sorted_order_.data(), pinned_index_.data(), sorted_order_.bytes(),
                                     cudaMemcpyHostToDevice, stream()));
    SURGE_CUDA_CHECK(cudaMemcpyAsync(cell_start_.data(), pinned_index_.data() + order.size(),
                                     cell_start_.bytes(), cudaMemcpyHostToDevice, stream()));
    synchronize();
    ms = ms_since(start);
    ledger_.record(CopyDirection::host_to_device, sorted_order_.bytes() + cell_start_.bytes(), ms,
                   "hybrid: cell index from the CPU");
    transfer_ms_ += ms;
  }
  const std::uint32_t* cell_start() const { return cell_start_.data(); }
  const std::uint32_t* sorted_order() const { return sorted_order_.data(); }
  // CudaExecutor's reorder follows the GPU's index, which this executor does not build.
  template <typename T>
  void reorder(Buffer<T>&, Buffer<T>&) = delete;

  // The copies lie inside the events' index stage (the GPU waits for them): moved to their own stage, as
  // the fluid's hybrid mode shows them.
  StageTimes stage_times() {
    StageTimes shown = CudaExecutor::stage_times();
    shown.ms[int(Stage::index)] -= transfer_ms_;
    shown.ms[int(Stage::transfer)] += transfer_ms_;
    return shown;
  }
  void reset_timers() {
    CudaExecutor::reset_timers();
    transfer_ms_ = 0.0;
  }

 private:
  TransferLedger& ledger_;
  CpuCellIndex cpu_index_;
  PinnedBuffer<Vec4f> pinned_positions_;
  PinnedBuffer<std::uint32_t> pinned_index_;
  DeviceBuffer<std::uint32_t> sorted_order_, cell_start_;
  double transfer_ms_ = 0.0;  // host-timed copies since reset_timers()
};

std::size_t device_bytes_per_grain() {
  // position + velocity double-buffered for the reorder (4 x 16), acceleration (16), id double-buffered
  // (8), cell keys, sorted keys, identity, order (16), CUB scratch (8).
  return 5 * sizeof(Vec4f) + 2 * sizeof(std::uint32_t) + 4 * sizeof(std::uint32_t) +
         2 * sizeof(std::uint32_t);
}

namespace {

// Extra bytes of device memory per moving grain for the spin (angular velocity double-buffered for the
// reorder, angular acceleration) and the contact history (two buffers of contact_slots slots).
std::size_t device_bytes_per_grain(const DemParameters& params) {
  std::size_t bytes = surge::device_bytes_per_grain();
  if (params.rotation) bytes += 3 * sizeof(Vec4f);
  if (params.friction_model == FrictionModel::mindlin)
    bytes += 2 * std::size_t(params.contact_slots) * sizeof(ContactSlot);
  return bytes;
}

// The GPU the grains run on; throws when there is none, and CapacityError when they do not fit.
GpuInfo gpu_for_grains(const DemSetup& setup) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  const std::size_t fixed_bytes =
      (setup.fixed.size() * sizeof(Vec4f)) + cells * sizeof(std::uint32_t) * 2 + (std::size_t(64) << 20);
  const std::size_t per_grain = device_bytes_per_grain(setup.params);
  const std::size_t needed = setup.grains.size() * per_grain + fixed_bytes;
  if (needed > gpu->free_memory) {
    const std::size_t fit = gpu->free_memory > fixed_bytes ? (gpu->free_memory - fixed_bytes) / per_grain : 0;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%zu grains need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu",
                  setup.grains.size(), double(needed) / double(1ull << 30), gpu->name.c_str(),
                  double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, setup.grains.size(), fit);
  }
  return *gpu;
}

}  // namespace

std::unique_ptr<DemSimulation> make_dem_cuda_simulation(const DemSetup& setup, IndexBuild index_build) {
  const GpuInfo gpu = gpu_for_grains(setup);
  return std::make_unique<DemSolverSimulation<CudaExecutor>>(std::forward_as_tuple(setup),
                                                             std::forward_as_tuple(gpu, index_build));
}

std::unique_ptr<DemSimulation> make_dem_hybrid_simulation(const DemSetup& setup) {
  const GpuInfo gpu = gpu_for_grains(setup);
  return std::make_unique<DemSolverSimulation<DemHybridExecutor>>(std::forward_as_tuple(setup),
                                                                  std::forward_as_tuple(gpu));
}

}  // namespace surge
