// The granular solver's CUDA backend: the same DEM step as the CPU backend, one kernel per stage over
// sim/dem/dem_physics.h. Everything stays on the device (the time step is fixed, so no readback is
// needed to choose it); status() and download() are the only copies, and the ledger records them.
//
//   index        cell keys -> CUB radix sort -> cell starts (GpuCellIndex); gather x, v, id in cell order
//   forces       one thread per grain: contacts with grains, fixed grains and wall planes
//   integration  symplectic Euler, reflecting walls, the domain check and the largest speed; the clock
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "sim/backend/gpu_info.h"
// gather_particles, StageEvents, kBlock and blocks_for: shared by the GPU backends.
#include "sim/backend/wcsph_kernels.cuh"
#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/dem/dem_physics.h"
#include "sim/dem/dem_simulation.h"
#include "sim/index/cell_index_gpu.h"

namespace surge {

namespace {

// Step bookkeeping that lives on the device. Speeds are non-negative, so their float bits order like
// unsigned integers and the maximum is an integer atomicMax.
struct DeviceDemState {
  double time_s;
  long long step;
  float max_speed;  // of the last step [m/s]
  unsigned int max_speed2_bits;
  int instability;
  unsigned int bad_particle;
  long long bad_step;
  Vec3f bad_position, bad_velocity, bad_acceleration;
};

__global__ void __launch_bounds__(kBlock)
    contact_kernel(DemParameters params, GridGeometry grid, CellIndexView grains,
                   const Vec4f* __restrict__ velocity, CellIndexView fixed, std::uint32_t n,
                   Vec4f* __restrict__ acceleration /* out */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  acceleration[i] = grain_acceleration(params, grid, grains, velocity, fixed, i);
}

__global__ void __launch_bounds__(kBlock)
    integrate_grains_kernel(DemParameters params, const Vec4f* __restrict__ acceleration,
                            const std::uint32_t* __restrict__ id, std::uint32_t n,
                            Vec4f* __restrict__ position /* in, out */,
                            Vec4f* __restrict__ velocity /* in, out */, DeviceDemState* state /* in, out */) {
  __shared__ unsigned int block_max_speed2;
  if (threadIdx.x == 0) block_max_speed2 = 0u;
  __syncthreads();
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && state->instability == 0) {
    const Vec4f a = acceleration[i];
    Vec4f x = position[i], v = velocity[i];
    integrate_grain(params, a, x, v);
    position[i] = x;
    velocity[i] = v;
    atomicMax(&block_max_speed2, __float_as_uint(length_squared(xyz(v))));
    if (const int code = check_grain(params, x, v)) {
      if (atomicCAS(&state->instability, 0, code) == 0) {  // the first report wins
        state->bad_particle = id[i];
        state->bad_step = state->step + 1;
        state->bad_position = xyz(x);
        state->bad_velocity = xyz(v);
        state->bad_acceleration = xyz(a);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&state->max_speed2_bits, block_max_speed2);
}

__global__ void advance_dem_clock(DemParameters params, DeviceDemState* state) {
  state->max_speed = sqrtf(__uint_as_float(state->max_speed2_bits));
  state->max_speed2_bits = 0u;
  // The clock stops after the step that went unstable, as the CPU backend's does.
  if (state->instability != 0 && state->bad_step <= state->step) return;
  state->time_s += params.dt;
  state->step += 1;
}

class DemCudaSimulation final : public Simulation {
 public:
  DemCudaSimulation(const DemSetup& setup, const GpuInfo& gpu, IndexBuild index_build)
      : params_(setup.params), grid_(setup.grid), gpu_(gpu), index_build_(index_build) {
    n_ = std::uint32_t(setup.grains.size());
    SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    copy_to_device(position_, setup.grains.position, ledger_, "initial grains");
    copy_to_device(velocity_, setup.grains.velocity, ledger_, "initial grains");
    copy_to_device(id_, setup.grains.id, ledger_, "initial grains");
    if (!setup.fixed.empty()) {
      copy_to_device(fixed_, setup.fixed, ledger_, "fixed grains");
      copy_to_device(fixed_cell_start_, setup.fixed_cell_start, ledger_, "fixed grains");
    }
    sorted_position_.resize(n_);
    sorted_velocity_.resize(n_);
    sorted_id_.resize(n_);
    acceleration_.resize(n_);
    SURGE_CUDA_CHECK(cudaMemsetAsync(acceleration_.data(), 0, acceleration_.bytes(), stream_));
    state_.resize(1);
    const DeviceDemState initial{};
    SURGE_CUDA_CHECK(cudaMemcpy(state_.data(), &initial, sizeof initial, cudaMemcpyHostToDevice));
    ledger_.record(CopyDirection::host_to_device, sizeof initial, 0.0, "initial step state");
    SURGE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_state_), sizeof(DeviceDemState)));
  }
  ~DemCudaSimulation() override {
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
  std::size_t boundary_count() const override { return fixed_.size(); }

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

    const CellIndexView grains{position_.data(), index_.d_cell_start()};
    const CellIndexView fixed{fixed_.data(), fixed_.size() == 0 ? nullptr : fixed_cell_start_.data()};
    contact_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(params_, grid_, grains, velocity_.data(), fixed,
                                                           n_, acceleration_.data());
    SURGE_CUDA_CHECK_LAUNCH("contact_kernel");
    events_.mark(2, stream_);  // no density or "other" stage for grains: the time step is fixed

    integrate_grains_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        params_, acceleration_.data(), id_.data(), n_, position_.data(), velocity_.data(), state_.data());
    SURGE_CUDA_CHECK_LAUNCH("integrate_grains_kernel");
    advance_dem_clock<<<1, 1, 0, stream_>>>(params_, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("advance_dem_clock");
    events_.mark(3, stream_);
  }

  StepStatus status() override {
    const auto start = std::chrono::steady_clock::now();
    SURGE_CUDA_CHECK(
        cudaMemcpyAsync(host_state_, state_.data(), sizeof(DeviceDemState), cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto stop = std::chrono::steady_clock::now();
    ledger_.record(CopyDirection::device_to_host, sizeof(DeviceDemState),
                   std::chrono::duration<double, std::milli>(stop - start).count(), "step status");
    const DeviceDemState& s = *host_state_;
    StepStatus st;
    st.step = long(s.step);
    st.time_s = s.time_s;
    st.dt_s = params_.dt;
    st.max_speed = s.max_speed;
    st.instability = Instability(s.instability);
    st.bad_step = long(s.bad_step);
    st.bad_particle = s.bad_particle;
    st.bad_position = s.bad_position;
    st.bad_velocity = s.bad_velocity;
    st.bad_acceleration = s.bad_acceleration;
    if (st.instability != Instability::none) st.remedy = kDemRemedy;
    return st;
  }

  void download(ParticleFrame& frame) override {
    const StepStatus st = status();
    std::vector<Vec4f> acceleration;
    copy_to_host(frame.position, position_, ledger_, "export frame");
    copy_to_host(frame.velocity, velocity_, ledger_, "export frame");
    copy_to_host(frame.id, id_, ledger_, "export frame");
    copy_to_host(acceleration, acceleration_, ledger_, "export frame");
    frame.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      const float r = frame.position[i].w;
      frame.density[i] = frame.velocity[i].w / (4.0f / 3.0f * 3.14159265f * r * r * r);
      frame.pressure[i] = acceleration[i].w;
    }
    frame.time_s = st.time_s;
    frame.step = st.step;
  }

  StageTimes stage_times() override {
    events_.collect(times_);
    return times_;
  }
  std::vector<NamedValue> parameters() const override { return describe_parameters(params_); }
  // The contact and integration kernels take params_ by value at each launch: the next step uses the edit.
  std::vector<LiveParameter> live_parameters() const override { return surge::live_parameters(params_); }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!set_live_parameter(params_, name, value)) refuse_parameter(*this, name);
  }
  void reset_timers() override {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    events_.discard();
    times_ = StageTimes{};
  }

 private:
  DemParameters params_;
  GridGeometry grid_;
  GpuInfo gpu_;
  IndexBuild index_build_;
  std::uint32_t n_ = 0;
  cudaStream_t stream_ = nullptr;
  GpuCellIndex index_;
  DeviceBuffer<Vec4f> position_, velocity_, sorted_position_, sorted_velocity_, acceleration_;
  DeviceBuffer<std::uint32_t> id_, sorted_id_;
  DeviceBuffer<Vec4f> fixed_;
  DeviceBuffer<std::uint32_t> fixed_cell_start_;
  DeviceBuffer<DeviceDemState> state_;
  DeviceDemState* host_state_ = nullptr;  // pinned, for the status readback
  StageEvents events_{{Stage::index, Stage::forces, Stage::integration}};
  StageTimes times_;
};

}  // namespace

std::size_t device_bytes_per_grain() {
  // position + velocity double-buffered for the reorder (4 x 16), acceleration (16), id double-buffered
  // (8), cell keys, sorted keys, identity, order (16), CUB scratch (8).
  return 5 * sizeof(Vec4f) + 2 * sizeof(std::uint32_t) + 4 * sizeof(std::uint32_t) +
         2 * sizeof(std::uint32_t);
}

std::unique_ptr<Simulation> make_dem_cuda_simulation(const DemSetup& setup, IndexBuild index_build) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t cells = std::size_t(setup.grid.cell_count()) + 1;
  const std::size_t fixed_bytes =
      (setup.fixed.size() * sizeof(Vec4f)) + cells * sizeof(std::uint32_t) * 2 + (std::size_t(64) << 20);
  const std::size_t needed = setup.grains.size() * device_bytes_per_grain() + fixed_bytes;
  if (needed > gpu->free_memory) {
    const std::size_t fit =
        gpu->free_memory > fixed_bytes ? (gpu->free_memory - fixed_bytes) / device_bytes_per_grain() : 0;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%zu grains need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu",
                  setup.grains.size(), double(needed) / double(1ull << 30), gpu->name.c_str(),
                  double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, setup.grains.size(), fit);
  }
  return std::make_unique<DemCudaSimulation>(setup, *gpu, index_build);
}

}  // namespace surge
