// The CUDA backend: the same WCSPH step as the CPU backend, one kernel per stage over the
// single-source physics in sim/sph/wcsph_physics.h. Everything stays on the device: the time step is
// chosen by a one-thread kernel from maxima the force kernel reduces, so stepping needs no copy to
// the host; status() and download() are the only readbacks, and the ledger records them.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>
#include <vector>

#include "sim/backend/gpu_info.h"
#include "sim/backend/simulation.h"
#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/index/cell_index_gpu.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {

namespace {

constexpr int kBlock = 256;
unsigned blocks_for(std::size_t n) {
  return unsigned((n + kBlock - 1) / kBlock);
}

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
};

__device__ void record_instability(DeviceStepState* state, int code, std::uint32_t id, Vec4f x, Vec4f v,
                                   Vec3f a) {
  if (atomicCAS(&state->instability, 0, code) != 0) return;  // the first report wins
  state->bad_particle = id;
  state->bad_step = state->step;
  state->bad_position = xyz(x);
  state->bad_velocity = xyz(v);
  state->bad_acceleration = a;
}

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

template <typename Kernel>
__global__ void __launch_bounds__(kBlock)
    acceleration_kernel(Kernel kernel, SphParameters params, GridGeometry grid, FluidFields fluid,
                        CellIndexView boundary, const std::uint32_t* __restrict__ id, std::uint32_t n,
                        ParticleAcceleration* __restrict__ out /* out */,
                        DeviceStepState* state /* in, out: maxima */) {
  using Reduce = cub::BlockReduce<unsigned long long, kBlock>;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ unsigned int block_max_speed2;
  if (threadIdx.x == 0) block_max_speed2 = 0u;
  __syncthreads();
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long acceleration2_and_id = 0ull;
  if (i < n) {
    const ParticleAcceleration a = compute_acceleration(kernel, params, grid, fluid, boundary, i);
    out[i] = a;
    const float a2 = length_squared(a.acceleration);
    acceleration2_and_id = (static_cast<unsigned long long>(__float_as_uint(a2)) << 32) | id[i];
    atomicMax(&block_max_speed2, __float_as_uint(length_squared(xyz(fluid.velocity[i]))));
  }
  const unsigned long long block_max = Reduce(reduce_storage).Reduce(acceleration2_and_id, cuda::maximum<>{});
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMax(&state->max_acceleration2_and_id, block_max);
    atomicMax(&state->max_speed2_bits, block_max_speed2);
  }
}

// One thread: the next time step from this step's maxima; then the maxima are cleared for the next step.
__global__ void choose_time_step(SphParameters params, DeviceStepState* state) {
  if (state->instability != 0) return;
  const float max_speed = sqrtf(__uint_as_float(state->max_speed2_bits));
  const float max_acceleration = sqrtf(__uint_as_float(unsigned(state->max_acceleration2_and_id >> 32)));
  const float dt = adaptive_time_step(params, max_speed, max_acceleration);
  state->dt_s = dt;
  state->max_speed = max_speed;
  if (dt < params.dt_min && atomicCAS(&state->instability, 0, int(Instability::dt_collapse)) == 0) {
    state->bad_particle = unsigned(state->max_acceleration2_and_id & 0xffffffffull);
    state->bad_step = state->step;
  }
  state->max_speed2_bits = 0u;
  state->max_acceleration2_and_id = 0ull;
}

__global__ void integrate_kernel(SphParameters params, const ParticleAcceleration* __restrict__ acceleration,
                                 const std::uint32_t* __restrict__ id, std::uint32_t n,
                                 Vec4f* __restrict__ position /* in, out */,
                                 Vec4f* __restrict__ velocity /* in, out */, DeviceStepState* state) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool stopped = state->instability != 0;
  if (i >= n || stopped) return;
  const ParticleAcceleration a = acceleration[i];
  Vec4f x = position[i], v = velocity[i];
  integrate_particle(state->dt_s, a, x, v);
  position[i] = x;
  velocity[i] = v;
  if (const int code = check_particle(params, x, v))
    record_instability(state, code, id[i], x, v, a.acceleration);
}

__global__ void advance_clock(DeviceStepState* state) {
  if (state->instability != 0) return;
  state->time_s += state->dt_s;
  state->step += 1;
}

// Events around each stage of every step; read back (and summed) only when asked, so timing adds no
// synchronisation to the step.
// The renderer's view of the fluid: positions and one scalar per particle, into buffers it owns.
__global__ void write_render_attributes(std::uint32_t n, const Vec4f* __restrict__ position,
                                        const Vec4f* __restrict__ velocity, const float* __restrict__ density,
                                        const float* __restrict__ pressure, ParticleScalar scalar,
                                        Vec4f* __restrict__ d_position /* out */,
                                        float* __restrict__ d_scalar /* out, may be null */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  d_position[i] = position[i];
  if (!d_scalar) return;
  switch (scalar) {
    case ParticleScalar::speed:
      d_scalar[i] = sqrtf(length_squared(xyz(velocity[i])));
      break;
    case ParticleScalar::density:
      d_scalar[i] = density[i];
      break;
    case ParticleScalar::pressure:
      d_scalar[i] = pressure[i];
      break;
    case ParticleScalar::none:
      d_scalar[i] = 0.0f;
      break;
  }
}

class StageEvents {
 public:
  static constexpr int kMarks = kStageCount + 1;
  ~StageEvents() {
    for (auto& set : pool_)
      for (cudaEvent_t e : set) cudaEventDestroy(e);
  }
  void mark(int which, cudaStream_t stream) {
    if (which == 0) {
      if (used_ == pool_.size()) {
        std::array<cudaEvent_t, kMarks> set{};
        for (cudaEvent_t& e : set) SURGE_CUDA_CHECK(cudaEventCreate(&e));
        pool_.push_back(set);
      }
      ++used_;
    }
    SURGE_CUDA_CHECK(cudaEventRecord(pool_[used_ - 1][which], stream));
  }
  // Marks: 0 start, then the end of index, density, forces, other, integration.
  void collect(StageTimes& times) {
    if (used_ == 0) return;
    SURGE_CUDA_CHECK(cudaEventSynchronize(pool_[used_ - 1][kMarks - 1]));
    static constexpr std::array<Stage, kStageCount> order = {Stage::index, Stage::density, Stage::forces,
                                                             Stage::other, Stage::integration};
    for (std::size_t s = 0; s < used_; ++s)
      for (int m = 0; m < kStageCount; ++m) {
        float ms = 0.0f;
        SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, pool_[s][m], pool_[s][m + 1]));
        times.ms[int(order[m])] += ms;
      }
    times.steps += long(used_);
    used_ = 0;
  }
  bool full() const { return used_ >= 256; }
  void discard() { used_ = 0; }

 private:
  std::vector<std::array<cudaEvent_t, kMarks>> pool_;
  std::size_t used_ = 0;
};

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const SphSetup& setup, const GpuInfo& gpu, IndexBuild index_build)
      : params_(setup.params), grid_(setup.grid), gpu_(gpu), index_build_(index_build) {
    n_ = std::uint32_t(setup.fluid.size());
    SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    copy_to_device(position_, setup.fluid.position, ledger_, "initial fluid particles");
    copy_to_device(velocity_, setup.fluid.velocity, ledger_, "initial fluid particles");
    copy_to_device(id_, setup.fluid.id, ledger_, "initial fluid particles");
    copy_to_device(boundary_, setup.boundary, ledger_, "boundary particles");
    copy_to_device(boundary_cell_start_, setup.boundary_cell_start, ledger_, "boundary particles");
    sorted_position_.resize(n_);
    sorted_velocity_.resize(n_);
    sorted_id_.resize(n_);
    density_.resize(n_);
    pressure_.resize(n_);
    acceleration_.resize(n_);
    state_.resize(1);
    DeviceStepState initial{};
    initial.dt_s = params_.dt_max;
    SURGE_CUDA_CHECK(cudaMemcpy(state_.data(), &initial, sizeof initial, cudaMemcpyHostToDevice));
    ledger_.record(CopyDirection::host_to_device, sizeof initial, 0.0, "initial step state");
    SURGE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_state_), sizeof(DeviceStepState)));
  }
  ~CudaSimulation() override {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(host_state_);
    cudaStreamDestroy(stream_);
  }

  std::string backend_name() const override {
    char text[160];
    std::snprintf(text, sizeof text, "gpu (%s, CC %d.%d)", gpu_.name.c_str(), gpu_.compute_major,
                  gpu_.compute_minor);
    return text;
  }
  std::size_t fluid_count() const override { return n_; }
  std::size_t boundary_count() const override { return boundary_.size(); }

  void step() override {
    if (n_ == 0) return;
    if (events_.full()) events_.collect(times_);
    events_.mark(0, stream_);
    index_.build(grid_, position_.data(), n_, index_build_, stream_);
    gather_particles<<<blocks_for(n_), kBlock, 0, stream_>>>(
        index_.d_sorted_order(), n_, position_.data(), velocity_.data(), id_.data(), sorted_position_.data(),
        sorted_velocity_.data(), sorted_id_.data());
    SURGE_CUDA_CHECK_LAUNCH("gather_particles");
    position_.swap(sorted_position_);
    velocity_.swap(sorted_velocity_);
    id_.swap(sorted_id_);
    events_.mark(1, stream_);

    const CellIndexView fluid{position_.data(), index_.d_cell_start()};
    const CellIndexView boundary{boundary_.data(), boundary_cell_start_.data()};
    with_kernel(params_.kernel, params_.support, [&](auto kernel) {
      density_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(kernel, params_, grid_, fluid, boundary, n_,
                                                             density_.data(), pressure_.data());
      SURGE_CUDA_CHECK_LAUNCH("density_kernel");
      events_.mark(2, stream_);
      const FluidFields fields{fluid, velocity_.data(), density_.data(), pressure_.data()};
      acceleration_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
          kernel, params_, grid_, fields, boundary, id_.data(), n_, acceleration_.data(), state_.data());
      SURGE_CUDA_CHECK_LAUNCH("acceleration_kernel");
      return 0;
    });
    events_.mark(3, stream_);
    choose_time_step<<<1, 1, 0, stream_>>>(params_, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("choose_time_step");
    events_.mark(4, stream_);
    integrate_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        params_, acceleration_.data(), id_.data(), n_, position_.data(), velocity_.data(), state_.data());
    SURGE_CUDA_CHECK_LAUNCH("integrate_kernel");
    advance_clock<<<1, 1, 0, stream_>>>(state_.data());
    SURGE_CUDA_CHECK_LAUNCH("advance_clock");
    events_.mark(5, stream_);
  }

  StepStatus status() override {
    const auto start = std::chrono::steady_clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(host_state_, state_.data(), sizeof(DeviceStepState),
                                     cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto stop = std::chrono::steady_clock::now();
    ledger_.record(CopyDirection::device_to_host, sizeof(DeviceStepState),
                   std::chrono::duration<double, std::milli>(stop - start).count(), "step status");
    const DeviceStepState& s = *host_state_;
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

  void download(ParticleFrame& frame) override {
    const StepStatus st = status();
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    copy_to_host(frame.position, position_, ledger_, "export frame");
    copy_to_host(frame.velocity, velocity_, ledger_, "export frame");
    copy_to_host(frame.density, density_, ledger_, "export frame");
    copy_to_host(frame.pressure, pressure_, ledger_, "export frame");
    copy_to_host(frame.id, id_, ledger_, "export frame");
    frame.time_s = st.time_s;
    frame.step = st.step;
  }

  bool copy_to_device_buffers(const DeviceParticleTargets& targets) override {
    if (n_ > 0) {
      write_render_attributes<<<blocks_for(n_), kBlock, 0, stream_>>>(
          n_, position_.data(), velocity_.data(), density_.data(), pressure_.data(), targets.scalar,
          targets.d_position, targets.d_scalar);
      SURGE_CUDA_CHECK_LAUNCH("write_render_attributes");
    }
    // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return true;
  }

  StageTimes stage_times() override {
    events_.collect(times_);
    return times_;
  }
  std::vector<NamedValue> parameters() const override { return describe_parameters(params_); }
  // The kernels take params_ by value at each launch, so the next step sees the new hand.
  bool set_stirring(const Stirring& stirring) override {
    params_.stirring = stirring;
    return true;
  }
  void reset_timers() override {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    events_.discard();
    times_ = StageTimes{};
  }

 private:
  SphParameters params_;
  GridGeometry grid_;
  GpuInfo gpu_;
  IndexBuild index_build_;
  std::uint32_t n_ = 0;
  cudaStream_t stream_ = nullptr;
  GpuCellIndex index_;
  DeviceBuffer<Vec4f> position_, velocity_, sorted_position_, sorted_velocity_;
  DeviceBuffer<std::uint32_t> id_, sorted_id_;
  DeviceBuffer<float> density_, pressure_;
  DeviceBuffer<ParticleAcceleration> acceleration_;
  DeviceBuffer<Vec4f> boundary_;
  DeviceBuffer<std::uint32_t> boundary_cell_start_;
  DeviceBuffer<DeviceStepState> state_;
  DeviceStepState* host_state_ = nullptr;  // pinned, for the status readback
  StageEvents events_;
  StageTimes times_;
};

// Device bytes a setup needs: per-particle arrays, the cell table and CUB's sort scratch (about one
// more key and value per particle).
std::size_t required_device_bytes(const SphSetup& setup) {
  const std::size_t n = setup.fluid.size();
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  return n * device_bytes_per_fluid_particle() +
         setup.boundary.size() * device_bytes_per_boundary_particle() + cells * sizeof(std::uint32_t) * 2 +
         (std::size_t(64) << 20);
}

}  // namespace

std::size_t device_bytes_per_fluid_particle() {
  // position + velocity, double-buffered for the reorder (4 x 16), acceleration + XSPH (24), density and
  // pressure (8), id double-buffered (8), cell keys, sorted keys, identity, order (16), CUB scratch (8).
  return 4 * sizeof(Vec4f) + sizeof(ParticleAcceleration) + 2 * sizeof(float) + 2 * sizeof(std::uint32_t) +
         4 * sizeof(std::uint32_t) + 2 * sizeof(std::uint32_t);
}
std::size_t device_bytes_per_boundary_particle() {
  return sizeof(Vec4f);
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup, IndexBuild index_build) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t needed = required_device_bytes(setup);
  if (needed > gpu->free_memory) {
    const std::size_t fixed = needed - setup.fluid.size() * device_bytes_per_fluid_particle();
    const std::size_t fit =
        gpu->free_memory > fixed ? (gpu->free_memory - fixed) / device_bytes_per_fluid_particle() : 0;
    char text[256];
    std::snprintf(
        text, sizeof text,
        "%zu fluid particles need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu",
        setup.fluid.size(), double(needed) / double(1ull << 30), gpu->name.c_str(),
        double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, setup.fluid.size(), fit);
  }
  return std::make_unique<CudaSimulation>(setup, *gpu, index_build);
}

}  // namespace surge
