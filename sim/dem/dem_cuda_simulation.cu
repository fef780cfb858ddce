// The granular solver's CUDA backend: the same DEM step as the CPU backend, one kernel per stage over
// sim/dem/dem_physics.h. Everything stays on the device (the time step is fixed, so no readback is
// needed to choose it); status() and download() are the only copies, and the ledger records them.
//
//   index        cell keys -> CUB radix sort -> cell starts (GpuCellIndex); gather x, v, (w), id in cell
//   order forces       one thread per grain: contacts with grains, fixed grains and wall planes; with Mindlin
//                friction each thread reads its grain's contact history from last step's buffer and writes
//                this step's into the other, both indexed by creation id (no gather), then they swap
//   integration  symplectic Euler (and the spin), reflecting walls, the domain check and the largest
//                speed; the clock and the contact counts of the step
//
// Why the history is indexed by creation id rather than gathered into cell order with the grains: a grain's
// slots are one contiguous block (16 B a slot, in use from the first), so the thread that owns the grain
// reads and writes whole 32-byte sectors even though the ids of neighbouring threads are scattered; a gather
// by the sorted order would move the same slots once more every step (read + write of all `contact_slots`
// slots, 512 B per grain at 16 slots, against the (contacts + 1) x 32 B the contact pass moves). Only the
// thread of grain i touches grain i's slots, so there are no races and no atomics.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "sim/backend/gpu_info.h"
#include "sim/core/render_targets.h"
// gather_particles, StageEvents, kBlock and blocks_for: shared by the GPU backends.
#include "sim/backend/wcsph_kernels.cuh"
#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/core/pinned_buffer.h"
#include "sim/dem/dem_physics.h"
#include "sim/dem/dem_simulation.h"
#include "sim/index/cell_index_cpu.h"
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
  // Contact history (Mindlin friction): counted by the contact pass, published by advance_dem_clock.
  unsigned long long contacts_counting, overflow_counting;
  unsigned int most_contacts_counting;
  unsigned long long contacts, overflow, overflow_total;
  unsigned int most_contacts;
};

// The grains' per-grain state gathered into cell order; angular velocity only with rotation.
__global__ void __launch_bounds__(kBlock)
    gather_grains(const std::uint32_t* __restrict__ order, std::uint32_t n,
                  const Vec4f* __restrict__ position, const Vec4f* __restrict__ velocity,
                  const Vec4f* __restrict__ angular_velocity, const std::uint32_t* __restrict__ id,
                  Vec4f* __restrict__ sorted_position /* out */,
                  Vec4f* __restrict__ sorted_velocity /* out */,
                  Vec4f* __restrict__ sorted_angular_velocity /* out, null without rotation */,
                  std::uint32_t* __restrict__ sorted_id /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const std::uint32_t from = order[k];
  sorted_position[k] = position[from];
  sorted_velocity[k] = velocity[from];
  if (sorted_angular_velocity != nullptr) sorted_angular_velocity[k] = angular_velocity[from];
  sorted_id[k] = id[from];
}

template <bool kSpinOrHistory>
__global__ void __launch_bounds__(kBlock)
    contact_kernel(DemParameters params, GridGeometry grid, DemGrainsView grains, CellIndexView fixed,
                   ContactHistoryView history /* previous in, current out */, std::uint32_t n,
                   Vec4f* __restrict__ acceleration /* out */,
                   Vec4f* __restrict__ angular_acceleration /* out, null without rotation */,
                   DeviceDemState* state /* in, out: contact counts */) {
  __shared__ unsigned int block_contacts, block_overflow, block_most;
  const bool counting = history.current != nullptr;
  if (counting) {
    if (threadIdx.x == 0) block_contacts = block_overflow = block_most = 0u;
    __syncthreads();
  }
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const GrainContactResult result = grain_contacts<kSpinOrHistory>(params, grid, grains, fixed, history, i);
    acceleration[i] = result.acceleration;
    if (angular_acceleration != nullptr) angular_acceleration[i] = result.angular_acceleration;
    if (counting) {
      atomicAdd(&block_contacts, result.contacts);
      atomicAdd(&block_overflow, result.overflow);
      atomicMax(&block_most, result.contacts);
    }
  }
  if (!counting) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&state->contacts_counting, (unsigned long long)block_contacts);
    atomicAdd(&state->overflow_counting, (unsigned long long)block_overflow);
    atomicMax(&state->most_contacts_counting, block_most);
  }
}

__global__ void __launch_bounds__(kBlock)
    integrate_grains_kernel(DemParameters params, const Vec4f* __restrict__ acceleration,
                            const Vec4f* __restrict__ angular_acceleration /* null without rotation */,
                            const std::uint32_t* __restrict__ id, std::uint32_t n,
                            Vec4f* __restrict__ position /* in, out */,
                            Vec4f* __restrict__ velocity /* in, out */,
                            Vec4f* __restrict__ angular_velocity /* in, out; null without rotation */,
                            DeviceDemState* state /* in, out */) {
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
    if (angular_velocity != nullptr) {
      Vec4f w = angular_velocity[i];
      integrate_grain_spin(params, angular_acceleration[i], w);
      angular_velocity[i] = w;
    }
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
  state->contacts = state->contacts_counting;
  state->overflow = state->overflow_counting;
  state->overflow_total += state->overflow_counting;
  state->most_contacts = state->most_contacts_counting;
  state->contacts_counting = state->overflow_counting = 0ull;
  state->most_contacts_counting = 0u;
  // The clock stops after the step that went unstable, as the CPU backend's does.
  if (state->instability != 0 && state->bad_step <= state->step) return;
  state->time_s += params.dt;
  state->step += 1;
}

// Grains as the renderer draws them (see copy_to_device_buffers).
__global__ void write_grain_render_attributes(std::uint32_t n, const Vec4f* __restrict__ position,
                                              const Vec4f* __restrict__ velocity,
                                              const Vec4f* __restrict__ acceleration, ParticleScalar scalar,
                                              Vec4f* __restrict__ d_position /* out */,
                                              float* __restrict__ d_scalar /* out, may be null */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Vec4f x = position[i];
  d_position[i] = x;
  if (!d_scalar) return;
  const float r = x.w;
  const float material_density = velocity[i].w / (4.0f / 3.0f * 3.14159265f * r * r * r);
  d_scalar[i] = render_scalar(scalar, velocity[i], material_density, acceleration[i].w);
}

class DemCudaSimulation final : public DemSimulation {
 public:
  // index_on_cpu: the classroom's hybrid mode (sim/backend/execution_mode.h): the cell index is built on the
  // CPU every step, positions down and the sorted order and cell starts up.
  DemCudaSimulation(const DemSetup& setup, const GpuInfo& gpu, IndexBuild index_build, bool index_on_cpu)
      : params_(setup.params),
        grid_(setup.grid),
        gpu_(gpu),
        index_build_(index_build),
        index_on_cpu_(index_on_cpu) {
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
    if (params_.rotation) {
      angular_velocity_.resize(n_);
      sorted_angular_velocity_.resize(n_);
      angular_acceleration_.resize(n_);
      if (setup.angular_velocity.empty())
        SURGE_CUDA_CHECK(cudaMemsetAsync(angular_velocity_.data(), 0, angular_velocity_.bytes(), stream_));
      else
        copy_to_device(angular_velocity_, setup.angular_velocity, ledger_, "grain spin (continued run)");
      SURGE_CUDA_CHECK(
          cudaMemsetAsync(angular_acceleration_.data(), 0, angular_acceleration_.bytes(), stream_));
    }
    if (params_.friction_model == FrictionModel::mindlin) {
      history_.resize(std::size_t(n_) * params_.contact_slots);
      next_history_.resize(history_.size());
      // All bytes 0xFF: every slot's partner is kNoPartner, so every grain starts with no contacts.
      if (setup.history.empty())
        SURGE_CUDA_CHECK(cudaMemsetAsync(history_.data(), 0xFF, history_.bytes(), stream_));
      else
        copy_to_device(history_, setup.history, ledger_, "contact history (continued run)");
      SURGE_CUDA_CHECK(cudaMemsetAsync(next_history_.data(), 0xFF, next_history_.bytes(), stream_));
    }
    state_.resize(1);
    DeviceDemState initial{};
    initial.time_s = setup.grains.time_s;
    initial.step = setup.grains.step;
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
    const std::uint32_t* sorted_order = nullptr;
    const std::uint32_t* cell_start = nullptr;
    if (index_on_cpu_) {
      build_index_on_cpu();
      sorted_order = cpu_sorted_order_.data();
      cell_start = cpu_cell_start_.data();
    } else {
      index_.build(grid_, position_.data(), n_, index_build_, stream_);
      sorted_order = index_.d_sorted_order();
      cell_start = index_.d_cell_start();
    }
    const bool rotation = params_.rotation;
    gather_grains<<<blocks_for(n_), kBlock, 0, stream_>>>(
        sorted_order, n_, position_.data(), velocity_.data(), rotation ? angular_velocity_.data() : nullptr,
        id_.data(), sorted_position_.data(), sorted_velocity_.data(),
        rotation ? sorted_angular_velocity_.data() : nullptr, sorted_id_.data());
    SURGE_CUDA_CHECK_LAUNCH("gather_grains");
    position_.swap(sorted_position_);
    velocity_.swap(sorted_velocity_);
    if (rotation) angular_velocity_.swap(sorted_angular_velocity_);
    id_.swap(sorted_id_);
    events_.mark(1, stream_);

    DemGrainsView grains;
    grains.index = CellIndexView{position_.data(), cell_start};
    grains.velocity = velocity_.data();
    grains.angular_velocity = rotation ? angular_velocity_.data() : nullptr;
    grains.id = id_.data();
    const CellIndexView fixed{fixed_.data(), fixed_.size() == 0 ? nullptr : fixed_cell_start_.data()};
    ContactHistoryView history;
    if (history_.size() != 0) history = {history_.data(), next_history_.data(), params_.contact_slots};
    Vec4f* angular_acceleration = rotation ? angular_acceleration_.data() : nullptr;
    if (uses_spin_or_history(params_)) {
      contact_kernel<true><<<blocks_for(n_), kBlock, 0, stream_>>>(params_, grid_, grains, fixed, history, n_,
                                                                   acceleration_.data(), angular_acceleration,
                                                                   state_.data());
    } else {
      contact_kernel<false><<<blocks_for(n_), kBlock, 0, stream_>>>(params_, grid_, grains, fixed, history,
                                                                    n_, acceleration_.data(),
                                                                    angular_acceleration, state_.data());
    }
    SURGE_CUDA_CHECK_LAUNCH("contact_kernel");
    if (history_.size() != 0) history_.swap(next_history_);  // this step's slots become the last step's
    events_.mark(2, stream_);  // no density or "other" stage for grains: the time step is fixed

    integrate_grains_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        params_, acceleration_.data(), rotation ? angular_acceleration_.data() : nullptr, id_.data(), n_,
        position_.data(), velocity_.data(), rotation ? angular_velocity_.data() : nullptr, state_.data());
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

  // The viewer's interop path: positions (w = radius) and the colouring scalar, written on the device. As in
  // download(): "density" is the grain's material density, "pressure" its mean contact stress.
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) override {
    if (n_ > 0) {
      write_grain_render_attributes<<<blocks_for(n_), kBlock, 0, stream_>>>(
          n_, position_.data(), velocity_.data(), acceleration_.data(), targets.scalar, targets.d_position,
          targets.d_scalar);
      SURGE_CUDA_CHECK_LAUNCH("write_grain_render_attributes");
    }
    // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return true;
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
    // The hybrid mode's copies lie inside the events' index stage (the GPU waits for them): move them to
    // their own stage, as the fluid's hybrid mode shows them.
    StageTimes shown = times_;
    shown.ms[int(Stage::index)] -= transfer_ms_;
    shown.ms[int(Stage::transfer)] += transfer_ms_;
    return shown;
  }

  std::vector<NamedValue> step_figures() override {
    if (history_.size() == 0) {
      SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      return {};
    }
    status();  // the counts travel with the step state: one recorded readback
    const DeviceDemState& s = *host_state_;
    return contact_history_figures(s.contacts, s.most_contacts, s.overflow, s.overflow_total,
                                   params_.contact_slots);
  }

  void download_angular_velocity(std::vector<Vec4f>& angular_velocity) override {
    if (!params_.rotation) {
      SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      angular_velocity.assign(n_, Vec4f{0, 0, 0, 0});
      return;
    }
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    copy_to_host(angular_velocity, angular_velocity_, ledger_, "angular velocity");
  }

  void download_contact_history(std::vector<ContactSlot>& slots) override {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (history_.size() == 0) {
      slots.clear();
      return;
    }
    copy_to_host(slots, history_, ledger_, "contact history");
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
    transfer_ms_ = 0.0;
  }

 private:
  // The hybrid mode's index: the positions down (pinned), the CPU's stable counting sort by cell
  // (sim/index/cell_index_cpu.h: the same order the GPU's stable sorts give), the sorted order and the
  // cell starts up. Every copy waits: the GPU has nothing to do until the index is back.
  void build_index_on_cpu() {
    using Clock = std::chrono::steady_clock;
    const auto ms_since = [](Clock::time_point start) {
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    pinned_positions_.resize(n_);
    auto start = Clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(pinned_positions_.data(), position_.data(), pinned_positions_.bytes(),
                                     cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    double ms = ms_since(start);
    ledger_.record(CopyDirection::device_to_host, pinned_positions_.bytes(), ms,
                   "hybrid: positions to the CPU index");
    transfer_ms_ += ms;

    cpu_index_.build(grid_, pinned_positions_.view());
    const std::vector<std::uint32_t>& order = cpu_index_.sorted_order();
    const std::vector<std::uint32_t>& starts = cpu_index_.cell_start();
    pinned_index_.resize(order.size() + starts.size());
    std::copy(order.begin(), order.end(), pinned_index_.data());
    std::copy(starts.begin(), starts.end(), pinned_index_.data() + order.size());
    cpu_sorted_order_.resize(order.size());
    cpu_cell_start_.resize(starts.size());
    start = Clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(cpu_sorted_order_.data(), pinned_index_.data(),
                                     cpu_sorted_order_.bytes(), cudaMemcpyHostToDevice, stream_));
    SURGE_CUDA_CHECK(cudaMemcpyAsync(cpu_cell_start_.data(), pinned_index_.data() + order.size(),
                                     cpu_cell_start_.bytes(), cudaMemcpyHostToDevice, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ms = ms_since(start);
    ledger_.record(CopyDirection::host_to_device, cpu_sorted_order_.bytes() + cpu_cell_start_.bytes(), ms,
                   "hybrid: cell index from the CPU");
    transfer_ms_ += ms;
  }

  DemParameters params_;
  GridGeometry grid_;
  GpuInfo gpu_;
  IndexBuild index_build_;
  bool index_on_cpu_ = false;
  // The hybrid mode's index (index_on_cpu_ only).
  CpuCellIndex cpu_index_;
  PinnedBuffer<Vec4f> pinned_positions_;
  PinnedBuffer<std::uint32_t> pinned_index_;
  DeviceBuffer<std::uint32_t> cpu_sorted_order_, cpu_cell_start_;
  double transfer_ms_ = 0.0;  // host-timed copies of the hybrid mode since reset_timers()
  std::uint32_t n_ = 0;
  cudaStream_t stream_ = nullptr;
  GpuCellIndex index_;
  DeviceBuffer<Vec4f> position_, velocity_, sorted_position_, sorted_velocity_, acceleration_;
  DeviceBuffer<std::uint32_t> id_, sorted_id_;
  DeviceBuffer<Vec4f> angular_velocity_, sorted_angular_velocity_, angular_acceleration_;  // rotation only
  DeviceBuffer<ContactSlot> history_, next_history_;  // Mindlin friction only; by creation id
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

// Extra bytes of device memory per moving grain for the spin (angular velocity double-buffered for the
// reorder, angular acceleration) and the contact history (two buffers of contact_slots slots).
static std::size_t device_bytes_per_grain(const DemParameters& params) {
  std::size_t bytes = device_bytes_per_grain();
  if (params.rotation) bytes += 3 * sizeof(Vec4f);
  if (params.friction_model == FrictionModel::mindlin)
    bytes += 2 * std::size_t(params.contact_slots) * sizeof(ContactSlot);
  return bytes;
}

static std::unique_ptr<DemSimulation> make_dem_gpu_simulation(const DemSetup& setup, IndexBuild index_build,
                                                              bool index_on_cpu) {
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
  return std::make_unique<DemCudaSimulation>(setup, *gpu, index_build, index_on_cpu);
}

std::unique_ptr<DemSimulation> make_dem_cuda_simulation(const DemSetup& setup, IndexBuild index_build) {
  return make_dem_gpu_simulation(setup, index_build, false);
}

std::unique_ptr<DemSimulation> make_dem_hybrid_simulation(const DemSetup& setup) {
  return make_dem_gpu_simulation(setup, IndexBuild::radix_sort, true);
}

}  // namespace surge
