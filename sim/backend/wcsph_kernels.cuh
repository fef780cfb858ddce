// The WCSPH step's CUDA kernels of the classroom's hybrid backends (hybrid_simulation.cu), over the
// single-source physics in sim/sph/wcsph_physics.h. The GPU-resident backend runs WcsphSolver
// (sim/sph/wcsph_solver.h) instead; this file goes when the hybrid modes become executors.
//
// Contents: launch sizing; DeviceStepState (step bookkeeping kept on the device) and its readback;
// kernels: gather_particles, density_kernel, acceleration_kernel, choose_time_step, integrate_kernel, advance_clock; StageEvents (per-stage CUDA event timing);
// the device-memory capacity check.
//
// Everything here has internal linkage (an unnamed namespace): each .cu file that includes it gets its
// own copy of the device code, which is what whole-program CUDA compilation needs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdio>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>
#include <vector>

#include "sim/core/cuda_launch.cuh"
#include "sim/backend/gpu_capacity.h"
#include "sim/backend/gpu_info.h"
#include "sim/backend/simulation.h"
#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {
namespace {

// Step bookkeeping that lives on the device. Non-negative floats order like their bit patterns, so
// maxima are reduced with integer atomicMax; the acceleration maximum carries the particle id in its
// low 32 bits, which names the particle when the time step collapses.
struct DeviceStepState {
  double time_s;
  long long step;
  float dt_s;
  float max_speed;  // of the last step [m/s]
  unsigned int max_speed2_bits;
  unsigned long long max_acceleration2_and_id;
  int instability;
  unsigned int bad_particle;
  long long bad_step;
  Vec3f bad_position, bad_velocity, bad_acceleration;
  // hybrid-overlap only: the largest squared distance [m^2] a particle has moved since the positions
  // its cell index was built from, and the largest acceleration of the last step [m/s^2].
  unsigned int max_displacement2_bits;
  float max_acceleration;
  // Particles taking part: the first active_count slots.
  unsigned int active_count;
};

DeviceStepState initial_step_state(const SphParameters& params, const ParticleFrame& fluid) {
  DeviceStepState initial{};
  initial.dt_s = params.dt_max;
  initial.time_s = fluid.time_s;
  initial.step = fluid.step;
  initial.active_count = std::uint32_t(fluid.size());
  return initial;
}

StepStatus to_step_status(const DeviceStepState& s) {
  StepStatus st;
  st.step = long(s.step);
  st.time_s = s.time_s;
  st.dt_s = s.dt_s;
  st.max_speed = s.max_speed;
  st.instability = Instability(s.instability);
  st.bad_step = long(s.bad_step);
  st.bad_particle = s.bad_particle;
  st.bad_position = s.bad_position;
  st.bad_velocity = s.bad_velocity;
  st.bad_acceleration = s.bad_acceleration;
  return st;
}

__device__ void record_instability(DeviceStepState* state, int code, std::uint32_t id, Vec4f x, Vec4f v,
                                   Vec3f a) {
  if (atomicCAS(&state->instability, 0, code) != 0) return;  // the first report wins
  state->bad_particle = id;
  state->bad_step = state->step;
  state->bad_position = xyz(x);
  state->bad_velocity = xyz(v);
  state->bad_acceleration = a;
}

// Moves particle k of the new cell order into place: sorted[k] = unsorted[order[k]].
__global__ void gather_particles(const std::uint32_t* __restrict__ order, std::uint32_t n,
                                 const Vec4f* __restrict__ position, const Vec4f* __restrict__ velocity,
                                 const std::uint32_t* __restrict__ id,
                                 Vec4f* __restrict__ sorted_position /* out */,
                                 Vec4f* __restrict__ sorted_velocity /* out */,
                                 std::uint32_t* __restrict__ sorted_id /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const std::uint32_t from = order[k];
  sorted_position[k] = position[from];
  sorted_velocity[k] = velocity[from];
  sorted_id[k] = id[from];
}

// The same for one array of float4 (hybrid-overlap: the reference positions of the skin check).
__global__ void gather_vec4(const std::uint32_t* __restrict__ order, std::uint32_t n,
                            const Vec4f* __restrict__ values, Vec4f* __restrict__ sorted_values /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  sorted_values[k] = values[order[k]];
}

template <typename Kernel>
__global__ void density_kernel(Kernel kernel, SphParameters params, GridGeometry grid, CellIndexView fluid,
                               CellIndexView boundary, std::uint32_t n, float* __restrict__ density /* out */,
                               float* __restrict__ pressure /* out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float rho = compute_density(kernel, params, grid, fluid, boundary, xyz(fluid.positions[i]));
  density[i] = rho;
  pressure[i] = tait_pressure(params, rho);
}

// This step's maxima of |a|^2 (with the particle id) and |v|^2, reduced per block, then by atomics.
// Every thread of the block calls it; those without a particle pass zeros.
__device__ __forceinline__ void reduce_step_maxima(float acceleration2, float speed2, std::uint32_t id,
                                                   DeviceStepState* state) {
  using Reduce = cub::BlockReduce<unsigned long long, kBlock>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ unsigned int block_max_speed2;
  if (threadIdx.x == 0) block_max_speed2 = 0u;
  __syncthreads();
  const unsigned long long acceleration2_and_id =
      (static_cast<unsigned long long>(__float_as_uint(acceleration2)) << 32) | id;
  if (speed2 > 0.0f) atomicMax(&block_max_speed2, __float_as_uint(speed2));
  const unsigned long long block_max = Reduce(reduce_storage).Reduce(acceleration2_and_id, cuda::maximum<>{});
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMax(&state->max_acceleration2_and_id, block_max);
    atomicMax(&state->max_speed2_bits, block_max_speed2);
  }
}

// The force pass in one kernel: each thread runs its particle's fluid loop and then its wall loop, so in
// a warp that holds both wall-side and interior particles the interior threads idle through the wall loop.
template <typename Kernel>
__global__ void __launch_bounds__(kBlock)
    acceleration_kernel(Kernel kernel, SphParameters params, GridGeometry grid, FluidFields fluid,
                        CellIndexView boundary, const std::uint32_t* __restrict__ id, std::uint32_t n,
                        ParticleAcceleration* __restrict__ out /* out */,
                        DeviceStepState* state /* in, out: maxima */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  float acceleration2 = 0.0f, speed2 = 0.0f;
  std::uint32_t particle_id = 0u;
  if (i < n && i < state->active_count) {
    const ParticleAcceleration a = compute_acceleration(kernel, params, grid, fluid, boundary, i);
    out[i] = a;
    acceleration2 = length_squared(a.acceleration);
    speed2 = length_squared(xyz(fluid.velocity[i]));
    particle_id = id[i];
  }
  reduce_step_maxima(acceleration2, speed2, particle_id, state);
}

// One thread: the next time step from this step's maxima; then the maxima are cleared for the next step.
__global__ void choose_time_step(SphParameters params, DeviceStepState* state) {
  if (state->instability != 0) return;
  const float max_speed = sqrtf(__uint_as_float(state->max_speed2_bits));
  const float max_acceleration = sqrtf(__uint_as_float(unsigned(state->max_acceleration2_and_id >> 32)));
  const float dt = adaptive_time_step(params, max_speed, max_acceleration);
  state->dt_s = dt;
  state->max_speed = max_speed;
  state->max_acceleration = max_acceleration;
  if (dt < params.dt_min && atomicCAS(&state->instability, 0, int(Instability::dt_collapse)) == 0) {
    state->bad_particle = unsigned(state->max_acceleration2_and_id & 0xffffffffull);
    state->bad_step = state->step;
  }
  state->max_speed2_bits = 0u;
  state->max_acceleration2_and_id = 0ull;
}

// Symplectic Euler for every particle. With `reference` set (hybrid-overlap), also the largest distance
// moved since the positions the cell index was built from: the skin check.
__global__ void integrate_kernel(SphParameters params, const ParticleAcceleration* __restrict__ acceleration,
                                 const std::uint32_t* __restrict__ id, std::uint32_t n,
                                 Vec4f* __restrict__ position /* in, out */,
                                 Vec4f* __restrict__ velocity /* in, out */, DeviceStepState* state,
                                 const Vec4f* __restrict__ reference = nullptr) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool stopped = state->instability != 0;
  if (i >= n || i >= state->active_count || stopped) return;
  ParticleAcceleration a = acceleration[i];
  Vec4f x = position[i], v = velocity[i];
  integrate_particle(state->dt_s, a, x, v);
  position[i] = x;
  velocity[i] = v;
  if (const int code = check_particle(params, x, v))
    record_instability(state, code, id[i], x, v, a.acceleration);
  if (reference != nullptr) {
    const float moved2 = length_squared(xyz(x) - xyz(reference[i]));
    // A NaN is caught above; a non-negative float orders like its bits. Most threads skip the atomic.
    if (moved2 > __uint_as_float(state->max_displacement2_bits))
      atomicMax(&state->max_displacement2_bits, __float_as_uint(moved2));
  }
}

__global__ void advance_clock(DeviceStepState* state) {
  if (state->instability != 0) return;
  state->time_s += state->dt_s;
  state->step += 1;
}

// Hybrid-overlap: a new cell index replaces the old one, so displacements count from its positions.
__global__ void clear_displacement(DeviceStepState* state) {
  state->max_displacement2_bits = 0u;
}

// Events around each stage of every step; read back (and summed) only when asked, so timing adds no
// synchronisation to the step. A backend names the stage of each interval between consecutive marks.
// With `gap_stage` set, the time the device waited between one step's last mark and the next step's
// first (the host was busy: a status readback, an index not ready) is charged to that stage, minus the
// host time the backend charges itself with charge_host().
class StageEvents {
 public:
  explicit StageEvents(std::vector<Stage> intervals, bool charge_gaps = false, Stage gap_stage = Stage::other)
      : intervals_(std::move(intervals)), charge_gaps_(charge_gaps), gap_stage_(gap_stage) {}
  ~StageEvents() {
    for (auto& set : pool_)
      for (cudaEvent_t e : set) cudaEventDestroy(e);
    if (previous_end_) cudaEventDestroy(previous_end_);
  }
  StageEvents(const StageEvents&) = delete;
  StageEvents& operator=(const StageEvents&) = delete;

  int marks() const { return int(intervals_.size()) + 1; }
  // which = 0 starts a step's set; which = m ends interval m - 1.
  void mark(int which, cudaStream_t stream) {
    if (which == 0) {
      if (used_ == pool_.size()) {
        std::vector<cudaEvent_t> set(static_cast<std::size_t>(marks()));
        for (cudaEvent_t& e : set) SURGE_CUDA_CHECK(cudaEventCreate(&e));
        pool_.push_back(std::move(set));
      }
      ++used_;
    }
    SURGE_CUDA_CHECK(cudaEventRecord(pool_[used_ - 1][std::size_t(which)], stream));
  }
  // Host-measured time [ms] that belongs to `stage` and was spent inside the gaps.
  void charge_host(Stage stage, double ms) { host_ms_[std::size_t(stage)] += ms; }

  void collect(StageTimes& times) {
    if (used_ == 0) return;
    SURGE_CUDA_CHECK(cudaEventSynchronize(pool_[used_ - 1][std::size_t(marks() - 1)]));
    double gaps_ms = 0.0;
    for (std::size_t s = 0; s < used_; ++s) {
      for (std::size_t m = 0; m < intervals_.size(); ++m) {
        float ms = 0.0f;
        SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, pool_[s][m], pool_[s][m + 1]));
        times.ms[int(intervals_[m])] += ms;
      }
      if (charge_gaps_) {
        cudaEvent_t before = s == 0 ? previous_end_ : pool_[s - 1][std::size_t(marks() - 1)];
        if (before != nullptr) {
          float ms = 0.0f;
          SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, before, pool_[s][0]));
          gaps_ms += ms;
        }
      }
    }
    double host_total = 0.0;
    for (int stage = 0; stage < kStageCount; ++stage) {
      times.ms[std::size_t(stage)] += host_ms_[std::size_t(stage)];
      host_total += host_ms_[std::size_t(stage)];
    }
    if (charge_gaps_) times.ms[int(gap_stage_)] += std::max(0.0, gaps_ms - host_total);
    host_ms_ = {};
    times.steps += long(used_);
    keep_last_end();
    used_ = 0;
  }
  bool full() const { return used_ >= 256; }
  void discard() {
    used_ = 0;
    host_ms_ = {};
    if (previous_end_) SURGE_CUDA_CHECK(cudaEventDestroy(previous_end_));
    previous_end_ = nullptr;
  }

 private:
  // The next batch's first gap is measured from this batch's last mark: keep a copy of that event.
  void keep_last_end() {
    if (!charge_gaps_) return;
    if (previous_end_ == nullptr) SURGE_CUDA_CHECK(cudaEventCreate(&previous_end_));
    // Swap the event out of the pool so that the pool's reuse does not re-record it.
    std::swap(previous_end_, pool_[used_ - 1][std::size_t(marks() - 1)]);
  }

  std::vector<Stage> intervals_;
  bool charge_gaps_;
  Stage gap_stage_;
  std::vector<std::vector<cudaEvent_t>> pool_;
  std::size_t used_ = 0;
  std::array<double, kStageCount> host_ms_{};
  cudaEvent_t previous_end_ = nullptr;
};

}  // namespace
}  // namespace surge
