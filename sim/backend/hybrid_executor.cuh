// The classroom's hybrid modes (sim/backend/hybrid_options.h) as executors: CudaExecutor with the cell index
// built on the CPU (sim/index/cell_index_cpu.h). A solver template that sorts its particles through
// exec.build_index / exec.reorder and reads exec.cell_start / exec.neighbor_order (FluidState::sort_by_cell)
// runs in these modes unchanged: SolverSimulation<HybridExecutor, DfsphSolver<HybridExecutor>>.
//
//   HybridExecutor         hybrid: every step the positions go down into pinned memory, the CPU sorts them
//                          by cell, the sorted order and cell starts go up; the copies wait on the stream,
//                          so the bus and the CPU sit on the critical path (timed as Stage::transfer and
//                          Stage::index)
//   HybridOverlapExecutor  hybrid-overlap: an index with a skin (sim/backend/skin_schedule.h), built by a
//                          worker thread from positions copied right after an index is adopted, adopted k
//                          steps later; the copies run on their own stream, and the displacement since the
//                          index's positions, measured on the device every step, forces an early rebuild
//
// Both rename the index calls of CudaExecutor (the solver is instantiated on the derived type, so no call is
// virtual) and report their copies and builds through figures(), which SolverSimulation adds to
// step_figures().
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/backend/cuda_executor.cuh"
#include "sim/backend/hybrid_options.h"
#include "sim/backend/skin_schedule.h"
#include "sim/backend/transfer_clock.h"
#include "sim/core/pinned_buffer.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {

namespace hybrid_executor_detail {

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline std::string describe_gpu(const GpuInfo& gpu) {
  return gpu.name + ", CC " + std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor);
}

}  // namespace hybrid_executor_detail

class HybridExecutor : public CudaExecutor {
 public:
  // The GPU walks the cells the CPU built, as the lessons show it: no neighbour lists of its own.
  HybridExecutor(TransferLedger& ledger, const GpuInfo& gpu)
      : CudaExecutor(ledger, gpu, IndexBuild::radix_sort, true, false, false) {}

  std::string name() const {
    return "hybrid (CPU index, " + hybrid_executor_detail::describe_gpu(gpu_) + ")";
  }

  // Positions down, the CPU's counting sort, order and cell starts up: all waited for, every step.
  // The CPU builds from the host's count: a count only the device knows (WCSPH's on-device emitter) cannot
  // be indexed here, and the factory refuses such scenes in the hybrid modes.
  void build_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n,
                   const std::uint32_t* active_count = nullptr) {
    if (active_count != nullptr)
      throw std::logic_error("the hybrid executors index the host's particle count, not a device count");
    using namespace hybrid_executor_detail;
    host_positions_.resize(n);
    within_stage(Stage::transfer, [&] {
      const Clock::time_point start = Clock::now();
      SURGE_CUDA_CHECK(cudaMemcpyAsync(host_positions_.data(), positions.data(), host_positions_.bytes(),
                                       cudaMemcpyDeviceToHost, stream_));
      SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      ledger_.record(CopyDirection::device_to_host, host_positions_.bytes(), ms_since(start),
                     kPositionsForIndexReason);
    });
    ++position_downloads_;

    cpu_index_.build(grid, host_positions_.view());
    ++index_builds_;

    within_stage(Stage::transfer, [&] {
      const Clock::time_point start = Clock::now();
      const std::vector<std::uint32_t>& order = cpu_index_.sorted_order();
      const std::vector<std::uint32_t>& starts = cpu_index_.cell_start();
      order_.resize(order.size());
      cell_start_.resize(starts.size());
      SURGE_CUDA_CHECK(
          cudaMemcpyAsync(order_.data(), order.data(), order_.bytes(), cudaMemcpyHostToDevice, stream_));
      SURGE_CUDA_CHECK(cudaMemcpyAsync(cell_start_.data(), starts.data(), cell_start_.bytes(),
                                       cudaMemcpyHostToDevice, stream_));
      SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      ledger_.record(CopyDirection::host_to_device, order_.bytes() + cell_start_.bytes(), ms_since(start),
                     kIndexFromCpuReason);
    });
    ++index_uploads_;
    indexed_count_ = n;
  }
  const std::uint32_t* cell_start() const { return cell_start_.data(); }
  const std::uint32_t* neighbor_order() const { return nullptr; }
  // sorted_order()[k]: the particle (as they stood at build_index) that is k-th in cell order, for a solver
  // that gathers its arrays in one pass (DEM).
  const std::uint32_t* sorted_order() const { return order_.data(); }
  template <typename T>
  void reorder(Buffer<T>& values, Buffer<T>& scratch) {
    gather(order_.data(), indexed_count_, values, scratch);
  }

  // Counts so far (the names of WCSPH's hybrid backend, hybrid_simulation.h).
  std::vector<NamedValue> figures() {
    synchronize();
    return {{"index_builds", double(index_builds_)},
            {"early_rebuilds", 0.0},
            {"position_downloads", double(position_downloads_)},
            {"index_uploads", double(index_uploads_)}};
  }

 private:
  PinnedBuffer<Vec4f> host_positions_;
  CpuCellIndex cpu_index_;
  DeviceBuffer<std::uint32_t> order_, cell_start_;
  std::uint32_t indexed_count_ = 0;
  long index_builds_ = 0, position_downloads_ = 0, index_uploads_ = 0;
};

class HybridOverlapExecutor : public CudaExecutor {
 public:
  // `skin` [m]: the solver's grid must have cells of support + skin (grid_with_skin), the walls' index too.
  // The index pipeline (an index built from positions some steps old, adopted on a schedule) is state no
  // checkpoint keeps: a restored run would adopt its indices at other steps.
  static constexpr bool kCheckpoints = false;

  HybridOverlapExecutor(TransferLedger& ledger, const GpuInfo& gpu, const HybridOptions& options, float skin)
      : CudaExecutor(ledger, gpu, IndexBuild::radix_sort, true, false, false),
        options_(options),
        skin_(skin) {
    SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&snapshot_ready_, cudaEventDisableTiming));
    SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&positions_downloaded_, cudaEventDisableTiming));
    SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&upload_done_, cudaEventDisableTiming));
    moved2_.resize(1);
    host_moved2_.resize(1);
    reuse_steps_ = options.fixed_reuse_steps > 0 ? options.fixed_reuse_steps : 1;
  }
  ~HybridOverlapExecutor() {
    if (worker_.valid()) worker_.wait();
    cudaStreamSynchronize(stream_);
    cudaStreamSynchronize(copy_stream_);
    cudaEventDestroy(snapshot_ready_);
    cudaEventDestroy(positions_downloaded_);
    cudaEventDestroy(upload_done_);
  }

  std::string name() const {
    return "hybrid-overlap (CPU index, " + hybrid_executor_detail::describe_gpu(gpu_) + ")";
  }

  // Once per step: measure how far the particles are from the index's positions, then rebuild now (no index
  // yet, the particle count changed, or the skin is used up), or send the positions down for the next index
  // (the step after one is adopted), or adopt the next index (k steps after the last), or keep the index.
  // The CPU builds from the host's count: a count only the device knows (WCSPH's on-device emitter) cannot
  // be indexed here, and the factory refuses such scenes in the hybrid modes.
  void build_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n,
                   const std::uint32_t* active_count = nullptr) {
    if (active_count != nullptr)
      throw std::logic_error("the hybrid executors index the host's particle count, not a device count");
    transfers_.flush(ledger_, /*wait=*/false);
    upload_if_built();
    gather_now_ = false;
    ++steps_;
    const bool same_particles = has_index_ && n == indexed_count_;
    bool skin_used_up = false;
    if (same_particles) {
      // The skin check: the largest displacement since the index's positions (the particles have kept
      // their order since: reference_ is in it), read back every step.
      const Vec4f* x = positions.data();
      const Vec4f* reference = reference_.data();
      max_into(moved2_.data(), n,
               [=] SURGE_LAMBDA(std::uint32_t i) { return length_squared(xyz(x[i]) - xyz(reference[i])); });
      within_stage(Stage::transfer, [&] {
        // Timed by events (the copy alone, not the step it waits for), as the ledger's other copies here.
        const cudaEvent_t down = transfers_.start(stream_);
        SURGE_CUDA_CHECK(cudaMemcpyAsync(host_moved2_.data(), moved2_.data(), sizeof(float),
                                         cudaMemcpyDeviceToHost, stream_));
        transfers_.stop(down, stream_, CopyDirection::device_to_host, sizeof(float), kSkinCheckReason);
        SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
        last_moved2_ = *host_moved2_.data();
      });
      last_moved_age_ = steps_ - reference_step_;
      // Verlet's margin: every pair closer than the support stays in neighbouring cells while no particle has
      // moved more than skin / 2.
      skin_used_up = options_.check_displacement && last_moved2_ > 0.25f * skin_ * skin_;
    }
    if (!same_particles || skin_used_up) {
      if (skin_used_up) ++early_rebuilds_;
      rebuild_now(grid, positions, n);
      return;
    }
    if (snapshot_due_) {
      start_worker(grid, positions, n);
      snapshot_due_ = false;
    }
    if (steps_ - adopted_step_ >= reuse_steps_ && (worker_.valid() || uploaded_)) {
      // Waiting for the worker here is the part of the CPU build the GPU work did not hide: charged to the
      // solver's index stage, which is open.
      if (worker_.valid()) finish_worker();
      upload_if_built();
      adopt(n);
    }
  }
  const std::uint32_t* cell_start() const { return cell_start_.data(); }
  // Null: an adopted index is applied by one gather (reorder below), after which the particles are in its
  // cell order until the next; reading through the order instead would put a random access into every
  // neighbour visit of the k steps to save one gather.
  const std::uint32_t* neighbor_order() const { return nullptr; }
  // Only in the step that adopts an index; in between, the particles keep their order.
  template <typename T>
  void reorder(Buffer<T>& values, Buffer<T>& scratch) {
    if (gather_now_) gather(order_.data(), indexed_count_, values, scratch);
  }

  // Counts so far, with the skin schedule's state (the names of WCSPH's hybrid backend, hybrid_simulation.h).
  std::vector<NamedValue> figures() {
    synchronize();
    copy_stream_.synchronize();
    transfers_.flush(ledger_, /*wait=*/true);
    return {{"index_builds", double(index_builds_)},
            {"early_rebuilds", double(early_rebuilds_)},
            {"position_downloads", double(position_downloads_)},
            {"index_uploads", double(index_uploads_)},
            {"skin_m", double(skin_)},
            {"reuse_steps", double(reuse_steps_)},
            {"cells", double(cells_)},
            {"hidden_cpu_index_ms", hidden_cpu_index_ms_}};
  }

 private:
  void allocate_for(const GridGeometry& grid, const Buffer<Vec4f>& positions) {
    // Once: positions.size() is the solver's capacity (an emitter's particles included).
    if (snapshot_.size() < positions.size()) {
      snapshot_.resize(positions.size());
      reference_.resize(positions.size());
      order_.resize(positions.size());
      pinned_positions_.resize(positions.size());
      host_order_.resize(positions.size());
    }
    cells_ = grid.cell_count();
    cell_start_.resize(std::size_t(cells_) + 1);
    next_cell_start_.resize(std::size_t(cells_) + 1);
    host_cell_start_.resize(std::size_t(cells_) + 1);
  }

  // Synchronous, on the critical path: positions down, the CPU index, the index up, adopted at once.
  void rebuild_now(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n) {
    using namespace hybrid_executor_detail;
    // A build from older positions is of no use now: wait for it (rethrowing what it threw) and drop it.
    if (worker_.valid()) worker_.get();
    built_ = uploaded_ = false;
    copy_stream_.synchronize();  // its upload may still read the pinned index
    allocate_for(grid, positions);
    const std::size_t bytes = std::size_t(n) * sizeof(Vec4f);
    within_stage(Stage::transfer, [&] {
      SURGE_CUDA_CHECK(
          cudaMemcpyAsync(snapshot_.data(), positions.data(), bytes, cudaMemcpyDeviceToDevice, stream_));
      const cudaEvent_t down = transfers_.start(stream_);
      SURGE_CUDA_CHECK(cudaMemcpyAsync(pinned_positions_.data(), snapshot_.data(), bytes,
                                       cudaMemcpyDeviceToHost, stream_));
      transfers_.stop(down, stream_, CopyDirection::device_to_host, bytes, kPositionsForIndexReason);
      SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    });
    ++position_downloads_;
    snapshot_step_ = steps_;

    build_on_cpu(grid, n);
    ++index_builds_;

    within_stage(Stage::transfer, [&] {
      enqueue_upload(stream_, n);
      SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    });
    has_index_ = true;
    adopt(n);
  }

  // The next index's positions: copied aside on the device (the particles go on moving), sent down on the
  // copy stream, sorted by a worker thread while the GPU steps.
  void start_worker(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n) {
    using namespace hybrid_executor_detail;
    const std::size_t bytes = std::size_t(n) * sizeof(Vec4f);
    SURGE_CUDA_CHECK(
        cudaMemcpyAsync(snapshot_.data(), positions.data(), bytes, cudaMemcpyDeviceToDevice, stream_));
    SURGE_CUDA_CHECK(cudaEventRecord(snapshot_ready_, stream_));
    SURGE_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, snapshot_ready_, 0));
    const cudaEvent_t down = transfers_.start(copy_stream_);
    SURGE_CUDA_CHECK(cudaMemcpyAsync(pinned_positions_.data(), snapshot_.data(), bytes,
                                     cudaMemcpyDeviceToHost, copy_stream_));
    transfers_.stop(down, copy_stream_, CopyDirection::device_to_host, bytes, kPositionsForIndexReason);
    // The worker's own event: the ledger's events are recycled once their copy is entered.
    SURGE_CUDA_CHECK(cudaEventRecord(positions_downloaded_, copy_stream_));
    ++position_downloads_;
    snapshot_step_ = steps_;
    built_ = false;
    const cudaEvent_t downloaded = positions_downloaded_;
    worker_ = std::async(std::launch::async, [this, grid, n, downloaded] {
      SURGE_CUDA_CHECK(cudaEventSynchronize(downloaded));
      const Clock::time_point start = Clock::now();
      build_on_cpu(grid, n);
      worker_build_ms_ = ms_since(start);
    });
  }

  // The counting sort of the pinned positions, its result copied into pinned memory for the upload.
  void build_on_cpu(const GridGeometry& grid, std::uint32_t n) {
    cpu_index_.build(grid, std::span<const Vec4f>(pinned_positions_.data(), n));
    const std::vector<std::uint32_t>& order = cpu_index_.sorted_order();
    const std::vector<std::uint32_t>& starts = cpu_index_.cell_start();
    std::memcpy(host_order_.data(), order.data(), order.size() * sizeof(std::uint32_t));
    std::memcpy(host_cell_start_.data(), starts.data(), starts.size() * sizeof(std::uint32_t));
  }

  // Rethrows what the worker threw; afterwards its index is in host_order_ and host_cell_start_.
  void finish_worker() {
    worker_.get();
    ++index_builds_;
    hidden_cpu_index_ms_ += worker_build_ms_;
    built_ = true;
  }

  // As soon as the worker is done, its index goes up on the copy stream, ahead of the step that adopts it.
  void upload_if_built() {
    if (worker_.valid() && worker_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      finish_worker();
    if (!built_) return;
    enqueue_upload(copy_stream_, indexed_count_);
    built_ = false;
    uploaded_ = true;
  }

  // Order into order_ (the gathers that read the last one were queued before the snapshot this index came
  // from), cell starts into next_cell_start_ (the present index's stay in use until adoption).
  void enqueue_upload(cudaStream_t stream, std::uint32_t n) {
    const std::size_t order_bytes = std::size_t(n) * sizeof(std::uint32_t);
    const cudaEvent_t up = transfers_.start(stream);
    SURGE_CUDA_CHECK(
        cudaMemcpyAsync(order_.data(), host_order_.data(), order_bytes, cudaMemcpyHostToDevice, stream));
    SURGE_CUDA_CHECK(cudaMemcpyAsync(next_cell_start_.data(), host_cell_start_.data(),
                                     host_cell_start_.bytes(), cudaMemcpyHostToDevice, stream));
    transfers_.stop(up, stream, CopyDirection::host_to_device, order_bytes + host_cell_start_.bytes(),
                    kIndexFromCpuReason);
    SURGE_CUDA_CHECK(cudaEventRecord(upload_done_, stream));
    ++index_uploads_;
  }

  // The uploaded index becomes the present one: this step's reorders gather the particles into its order,
  // and its positions (the snapshot, gathered the same way) become the skin check's reference.
  void adopt(std::uint32_t n) {
    SURGE_CUDA_CHECK(cudaStreamWaitEvent(stream_, upload_done_, 0));
    uploaded_ = false;
    cell_start_.swap(next_cell_start_);
    gather(order_.data(), n, snapshot_, reference_);
    snapshot_.swap(reference_);
    indexed_count_ = n;
    gather_now_ = true;
    snapshot_due_ = true;
    choose_reuse_steps();
    reference_step_ = snapshot_step_;
    adopted_step_ = steps_;
  }

  // k, the steps until the next adoption, from the displacement the last check measured rather than from a
  // solver's speed bound (skin_schedule.h).
  void choose_reuse_steps() {
    if (options_.fixed_reuse_steps > 0 || last_moved_age_ <= 0) return;
    reuse_steps_ = reuse_steps_from_displacement(skin_, std::sqrt(last_moved2_), last_moved_age_,
                                                 steps_ - snapshot_step_, options_.max_reuse_steps);
  }

  HybridOptions options_;
  float skin_;  // [m]
  CudaStream copy_stream_;
  cudaEvent_t snapshot_ready_ = nullptr, positions_downloaded_ = nullptr, upload_done_ = nullptr;
  DeviceBuffer<Vec4f> snapshot_, reference_;  // positions of the next / the present index
  DeviceBuffer<std::uint32_t> order_, cell_start_, next_cell_start_;
  DeviceBuffer<float> moved2_;  // the skin check's largest squared displacement [m^2]
  PinnedBuffer<float> host_moved2_;
  PinnedBuffer<Vec4f> pinned_positions_;
  PinnedBuffer<std::uint32_t> host_order_, host_cell_start_;
  CpuCellIndex cpu_index_;  // the worker's, or rebuild_now's while no worker runs
  std::future<void> worker_;
  double worker_build_ms_ = 0.0;
  TransferClock transfers_;
  std::uint32_t indexed_count_ = 0, cells_ = 0;
  bool has_index_ = false, built_ = false, uploaded_ = false, snapshot_due_ = false, gather_now_ = false;
  float last_moved2_ = 0.0f;
  long steps_ = 0, adopted_step_ = 0, snapshot_step_ = 0, reference_step_ = 0, last_moved_age_ = 0;
  long reuse_steps_ = 1;
  long index_builds_ = 0, early_rebuilds_ = 0, position_downloads_ = 0, index_uploads_ = 0;
  double hidden_cpu_index_ms_ = 0.0;
};

}  // namespace surge
