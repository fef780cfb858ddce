// The CPU executor: what the solver templates (sim/sph/*_solver.h) need from a backend, as OpenMP loops.
// Its twin is CudaExecutor (cuda_executor.cuh); a solver written against this interface runs on both.
//
//   Buffer<T>           per-particle storage (std::vector here, DeviceBuffer there)
//   for_each(n, f)      f(i) for every particle
//   sum(n, f), max(n, f) reductions whose result the host needs (on the GPU: a small readback)
//   for_each_tallied    f(i) for every particle, adding up the counts f returns (sim/core/tally.h)
//   max_into, sum_into, for_each_with_max, single   results that stay where the particles live
//   build_index, reorder  particles sorted by grid cell, and any per-particle array carried along
//   begin/end(stage)    stage timers
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/core/max_keys.h"
#include "sim/core/tally.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {

class CpuExecutor {
 public:
  template <typename T>
  using Buffer = std::vector<T>;

  explicit CpuExecutor(TransferLedger&) {}
  // The particles are host memory: a solver may read them (and its status) directly, and choose the passes
  // written for the host (`if constexpr (Exec::kOnDevice)`).
  static constexpr bool kOnDevice = false;
  // Simulation's default (synchronous) download serves the overlapped export.
  static constexpr bool kSnapshotsOnDevice = false;
  // Every step builds its index from the particles: a solver's archive_state is all a checkpoint needs.
  static constexpr bool kCheckpoints = true;

  std::string name() const { return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)"; }

  // Below kParallelFrom items one thread runs the loop: starting a team costs microseconds (milliseconds when
  // the cores are shared), more than a handful of items take (a two-body orbit steps 10^5 times).
  static constexpr std::uint32_t kParallelFrom = 64;
  template <typename F>
  void for_each(std::uint32_t n, const F& f) {
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) f(std::uint32_t(i));
  }

  // f(i) returns a Tally; its sums and largest value are added into *totals.
  template <typename F>
  void for_each_tallied(std::uint32_t n, const F& f, TallyTotals* totals) {
    unsigned long long sum_a = 0, sum_b = 0;
    unsigned int largest = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum_a, sum_b) reduction(max : largest)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      const Tally tally = f(std::uint32_t(i));
      sum_a += tally.sum_a;
      sum_b += tally.sum_b;
      largest = std::max(largest, tally.max);
    }
    totals->sum_a += sum_a;
    totals->sum_b += sum_b;
    totals->max = std::max(totals->max, largest);
  }

  template <typename F>
  double sum(std::uint32_t n, const F& f) {
    double total = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) total += double(f(std::uint32_t(i)));
    return total;
  }

  template <typename F>
  float max(std::uint32_t n, const F& f) {
    float largest = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : largest)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i)
      largest = std::max(largest, float(f(std::uint32_t(i))));
    return largest;
  }

  // Device-resident results, for solvers that decide on the device and never wait for it (WCSPH's time
  // step, DEM's and n-body's status). On the CPU "the device" is host memory: these are plain loops.
  // *destination = the largest of 0 and f(i) over i < n; nothing is returned to the caller.
  template <typename T, typename F>
  void max_into(T* destination, std::uint32_t n, const F& f) {
    T largest = T(0);
#pragma omp parallel for schedule(static) reduction(max : largest)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) largest = std::max(largest, T(f(std::uint32_t(i))));
    *destination = largest;
  }
  // f(i) for every i < n, each returning K keys (sim/core/max_keys.h) that raise destination[0..K) to their
  // largest: a pass and its maxima in one loop (an OpenMP max reduction here, one atomic a block on the GPU).
  template <int K, typename F>
  void for_each_with_max(unsigned long long* destination, std::uint32_t n, const F& f) {
    unsigned long long largest[K] = {};
#pragma omp parallel for schedule(static) reduction(max : largest[:K])
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      const MaxKeys<K> keys = f(std::uint32_t(i));
      for (int k = 0; k < K; ++k) largest[k] = std::max(largest[k], keys.key[k]);
    }
    for (int k = 0; k < K; ++k) destination[k] = std::max(destination[k], largest[k]);
  }
  template <typename F>
  void sum_into(double* destination, std::uint32_t n, const F& f) {
    *destination = sum(n, f);
  }
  // f() once, where the particles live: a decision from device-resident values (the CUDA twin is a
  // one-thread kernel).
  template <typename F>
  void single(const F& f) {
    f();
  }
  // The first value of `buffer`, for the host (on the GPU a small readback the ledger records as `reason`).
  template <typename T>
  T read_back(const Buffer<T>& buffer, const char*) {
    return buffer.front();
  }

  // The indices i < n with flags[i] != 0, in order, into list; their count into *count.
  void select_flagged(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* list,
                      std::uint32_t* count) {
    std::uint32_t listed = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      if (flags[i] != 0u) list[listed++] = i;
    *count = listed;
  }

  // Sorts the first n particles (the active ones; the buffer may hold more, allocated for an emitter). The
  // host always knows the active count: `active_count`, a count that grows on the device, is for the GPU.
  void build_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n,
                   const std::uint32_t* active_count = nullptr) {
    (void)active_count;
    index_.build(grid, std::span<const Vec4f>(positions.data(), n));
  }
  // Particles are always gathered into cell order here: neighbours need no indirection.
  const std::uint32_t* neighbor_order() const {
    return nullptr;
  }
  const std::uint32_t* cell_start() const {
    return index_.cell_start().data();
  }
  // sorted_order()[k]: the particle (as they stood at build_index) that is k-th in cell order.
  const std::uint32_t* sorted_order() const {
    return index_.sorted_order().data();
  }

  // A second index, over the wall particles, for scenes whose solids move (sim/sph/solid_bodies.h): built
  // every step after the solids are placed. Stable, as the fluid's.
  void build_boundary_index(const GridGeometry& grid, const Buffer<Vec4f>& positions, std::uint32_t n) {
    boundary_index_.build(grid, std::span<const Vec4f>(positions.data(), n));
  }
  const std::uint32_t* boundary_cell_start() const {
    return boundary_index_.cell_start().data();
  }
  const std::uint32_t* boundary_sorted_order() const {
    return boundary_index_.sorted_order().data();
  }

  // Neighbour lists (CSR) of every particle, fluid and wall, from the cells: the iterative solvers visit each
  // particle's neighbourhood ten or more times per step, and a list visits ~35 neighbours where the 27 cells
  // hold ~200 candidates. Built in two passes: count, then (after a scan) fill.
  void build_neighbor_lists(const GridGeometry& grid, const CellIndexView& fluid,
                            const CellIndexView& boundary, std::uint32_t n, float support) {
    build_list(grid, fluid, fluid.positions, n, support * support, fluid_list_start_, fluid_list_);
    build_list(grid, boundary, fluid.positions, n, support * support, boundary_list_start_, boundary_list_);
    gradients_cached_ = false;
  }
  // grad W of every listed fluid pair at the current positions, for solvers whose positions stand still until
  // the next list build (DFSPH): its iterations then read a gradient per pair instead of recomputing it. (Its
  // wall pairs it sums once a step, DfsphWallTerms: no wall gradient is read twice.)
  template <typename Kernel>
  void cache_pair_gradients(const Kernel& kernel, const Vec4f* fluid_positions, std::uint32_t n) {
    fill_gradients(kernel, fluid_positions, fluid_positions, n, fluid_list_start_, fluid_list_,
                   fluid_gradient_);
    gradients_cached_ = true;
  }
  const Vec4f* fluid_list_gradient() const {
    return gradients_cached_ ? fluid_gradient_.data() : nullptr;
  }
  const std::uint32_t* fluid_list_start() const {
    return fluid_list_start_.data();
  }
  const std::uint32_t* fluid_list() const {
    return fluid_list_.data();
  }
  const std::uint32_t* boundary_list_start() const {
    return boundary_list_start_.data();
  }
  const std::uint32_t* boundary_list() const {
    return boundary_list_.data();
  }
  template <typename T>
  void reorder(Buffer<T>& values, Buffer<T>& scratch) {
    gather_in_order(values, index_.sorted_order(), scratch);
  }

  // Copies `source` into the first entries of a buffer of `capacity` entries.
  template <typename T>
  void upload(Buffer<T>& destination, const std::vector<T>& source, std::size_t capacity, const char*) {
    destination.reserve(capacity);
    destination = source;
    destination.resize(capacity);
  }
  template <typename T>
  void upload(Buffer<T>& destination, const std::vector<T>& source, const char* reason) {
    upload(destination, source, source.size(), reason);
  }
  // Copies the first `count` entries.
  template <typename T>
  void download(std::vector<T>& destination, const Buffer<T>& source, std::size_t count, const char*) {
    destination.assign(source.begin(), source.begin() + std::ptrdiff_t(count));
  }
  template <typename T>
  void allocate(Buffer<T>& buffer, std::size_t n) {
    buffer.assign(n, T{});
  }

  void begin(Stage stage) {
    stage_ = stage;
    start_ = std::chrono::steady_clock::now();
  }
  void end() {
    times_.ms[int(stage_)] +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  void count_step() {
    times_.steps += 1;
  }
  StageTimes stage_times() {
    return times_;
  }
  void reset_timers() {
    times_ = StageTimes{};
  }

 private:
  static void build_list(const GridGeometry& grid, const CellIndexView& index, const Vec4f* queries,
                         std::uint32_t n, float support2, std::vector<std::uint32_t>& start,
                         std::vector<std::uint32_t>& list) {
    start.assign(std::size_t(n) + 1, 0u);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      std::uint32_t count = 0;
      for_each_neighbor(grid, index, xyz(queries[i]), support2,
                        [&](std::uint32_t, Vec3f, float) { ++count; });
      start[std::size_t(i) + 1] = count;
    }
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    list.resize(start[n]);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      std::uint32_t k = start[std::size_t(i)];
      for_each_neighbor(grid, index, xyz(queries[i]), support2,
                        [&](std::uint32_t j, Vec3f, float) { list[k++] = j; });
    }
  }

  template <typename Kernel>
  static void fill_gradients(const Kernel& kernel, const Vec4f* queries, const Vec4f* positions,
                             std::uint32_t n, const std::vector<std::uint32_t>& start,
                             const std::vector<std::uint32_t>& list, std::vector<Vec4f>& gradient) {
    gradient.resize(list.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      const Vec3f x_i = xyz(queries[i]);
      for (std::uint32_t k = start[std::size_t(i)]; k < start[std::size_t(i) + 1]; ++k) {
        const Vec3f r_ij = x_i - xyz(positions[list[k]]);
        gradient[k] = make_vec4(kernel.gradient(r_ij, std::sqrt(length_squared(r_ij))), 0.0f);
      }
    }
  }

  CpuCellIndex index_;
  CpuCellIndex boundary_index_;
  std::vector<std::uint32_t> fluid_list_start_, fluid_list_, boundary_list_start_, boundary_list_;
  std::vector<Vec4f> fluid_gradient_;
  bool gradients_cached_ = false;
  StageTimes times_;
  Stage stage_ = Stage::other;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace surge
