// The CUDA backend: the same WCSPH step as the CPU backend, one kernel per stage over the
// single-source physics in sim/sph/wcsph_physics.h. Everything stays on the device: the time step is
// chosen by a one-thread kernel from maxima the force kernel reduces, so stepping needs no copy to
// the host; status(), download() and the overlapped export (begin_download / finish_download, through
// sim/backend/frame_snapshots.cuh) are the only readbacks, and the ledger records them.
// Two lesson switches (GpuStepOptions): particles kept in creation order instead of reordered by cell
// (docs/lessons/3-memory-order.md), and the force pass split into fluid and wall passes
// (docs/lessons/4-divergence.md).
#include <thrust/iterator/counting_iterator.h>

#include <chrono>
#include <cub/device/device_select.cuh>

#include "sim/backend/frame_snapshots.cuh"
#include "sim/core/render_targets.h"
#include "sim/backend/wcsph_kernels.cuh"
#include "sim/index/cell_index_gpu.h"
#include "sim/sph/emitter.h"

namespace surge {

namespace {

// The renderer's view of the fluid: positions and one scalar per particle, into buffers it owns.
__global__ void write_render_attributes(std::uint32_t n, const Vec4f* __restrict__ position,
                                        const Vec4f* __restrict__ velocity, const float* __restrict__ density,
                                        const float* __restrict__ pressure, ParticleScalar scalar,
                                        Vec4f* __restrict__ d_position /* out */,
                                        float* __restrict__ d_scalar /* out, may be null */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  d_position[i] = position[i];
  if (d_scalar) d_scalar[i] = render_scalar(scalar, velocity[i], density[i], pressure[i]);
}

// ---- The emitter on the device (sim/sph/emitter.h). The time lives on the device, so the device decides:
// a slot check over the active particles, a one-thread decision, then the layer's kernel writes the new
// particles after the active ones and the decision has already grown active_count. Nothing crosses the bus.

// Flags the nozzle occupied when an active particle lies in the slot of the layer due now.
__global__ void nozzle_slot_kernel(EmitterNozzle nozzle, bool enabled, const Vec4f* __restrict__ position,
                                   std::uint32_t n, DeviceStepState* state) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!enabled || i >= n || i >= state->active_count) return;
  const long long layer = latest_due_layer(nozzle, state->time_s);
  if (layer < state->next_layer) return;
  // Every writer writes 1: the race is benign.
  if (in_layer_slot(nozzle, xyz(position[i]), layer_advance(nozzle, layer, state->time_s)))
    state->nozzle_occupied = 1u;
}

// One thread: layer_to_emit() of the host backends, on the device.
__global__ void decide_emission(EmitterNozzle nozzle, bool enabled, std::uint32_t capacity,
                                DeviceStepState* state) {
  state->emit_now = 0u;
  const bool occupied = state->nozzle_occupied != 0u;
  state->nozzle_occupied = 0u;
  if (!enabled || state->emitter_full != 0 || state->instability != 0) return;
  const long long layer = latest_due_layer(nozzle, state->time_s);
  if (layer < state->next_layer) return;
  if (std::size_t(state->active_count) + nozzle.layer_size > capacity) {
    state->emitter_full = 1;
    return;
  }
  state->next_layer = layer + 1;
  if (occupied) return;  // fluid still in the slot: skip this layer
  state->emit_now = 1u;
  state->emit_first = state->active_count;
  state->emit_first_id = state->next_id;
  state->emit_advance = layer_advance(nozzle, layer, state->time_s);
  state->active_count += nozzle.layer_size;
  state->next_id += nozzle.layer_size;
}

__global__ void write_layer(EmitterNozzle nozzle, const Vec4f* __restrict__ offsets, float rest_density,
                            const DeviceStepState* state, Vec4f* __restrict__ position /* out */,
                            Vec4f* __restrict__ velocity /* out */, std::uint32_t* __restrict__ id /* out */,
                            float* __restrict__ density /* out */, float* __restrict__ pressure /* out */) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nozzle.layer_size || state->emit_now == 0u) return;
  const std::uint32_t slot = state->emit_first + k;
  place_emitted_particle(nozzle, offsets[k], state->emit_advance, position[slot], velocity[slot]);
  id[slot] = state->emit_first_id + k;
  density[slot] = rest_density;
  pressure[slot] = 0.0f;
}

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const SphSetup& setup, const GpuInfo& gpu, const GpuStepOptions& options)
      : params_(setup.params),
        grid_(setup.grid),
        gpu_(gpu),
        options_(options),
        emitter_(setup.emitter),
        capacity_(std::uint32_t(setup.capacity())) {
    n_ = std::uint32_t(setup.fluid.size());
    known_count_ = n_;
    SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // Every per-particle buffer holds capacity_ entries; slots past the active count stay zero until a
    // layer fills them.
    for (DeviceBuffer<Vec4f>* buffer : {&position_, &velocity_, &sorted_position_, &sorted_velocity_}) {
      buffer->resize(capacity_);
      SURGE_CUDA_CHECK(cudaMemset(buffer->data(), 0, buffer->bytes()));
    }
    for (DeviceBuffer<std::uint32_t>* buffer : {&id_, &sorted_id_}) {
      buffer->resize(capacity_);
      SURGE_CUDA_CHECK(cudaMemset(buffer->data(), 0, buffer->bytes()));
    }
    copy_to_device(position_, setup.fluid.position, ledger_, "initial fluid particles");
    copy_to_device(velocity_, setup.fluid.velocity, ledger_, "initial fluid particles");
    copy_to_device(id_, setup.fluid.id, ledger_, "initial fluid particles");
    for (DeviceBuffer<Vec4f>* buffer : {&position_, &velocity_}) buffer->resize(capacity_);  // keeps contents
    id_.resize(capacity_);
    copy_to_device(boundary_, setup.boundary, ledger_, "boundary particles");
    copy_to_device(boundary_cell_start_, setup.boundary_cell_start, ledger_, "boundary particles");
    if (emitter_.present) copy_to_device(emitter_layer_, emitter_.layer, ledger_, "emitter nozzle layer");
    density_.resize(capacity_);
    pressure_.resize(capacity_);
    acceleration_.resize(capacity_);
    state_.resize(1);
    if (options_.force_pass == ForcePass::split) {
      near_wall_.resize(capacity_);
      near_wall_list_.resize(capacity_);
      near_wall_count_.resize(1);
    }
    DeviceStepState initial = initial_step_state(params_, setup.fluid);
    if (emitter_.present) initial.next_layer = first_layer_from(emitter_.nozzle, setup.fluid.time_s);
    SURGE_CUDA_CHECK(cudaMemcpy(state_.data(), &initial, sizeof initial, cudaMemcpyHostToDevice));
    ledger_.record(CopyDirection::host_to_device, sizeof initial, 0.0, "initial step state");
    SURGE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_state_), sizeof(DeviceStepState)));
    // The memsets and copies above ran on the default stream, which stream_ (non-blocking) does not wait
    // for: finish them before the first step's kernels.
    SURGE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~CudaSimulation() override {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(host_state_);
    cudaStreamDestroy(stream_);
  }

  std::string backend_name() const override {
    char text[200];
    std::snprintf(text, sizeof text, "gpu (%s, CC %d.%d%s%s)", gpu_.name.c_str(), gpu_.compute_major,
                  gpu_.compute_minor, options_.reorder ? "" : ", particles in creation order",
                  options_.force_pass == ForcePass::split ? ", split force pass" : "");
    return text;
  }
  // The count of the last status(): the device grows it as layers enter (see step()).
  std::size_t fluid_count() const override { return known_count_; }
  std::size_t capacity() const override { return capacity_; }
  bool has_emitter() const override { return emitter_.present; }
  // Passed to the emitter's kernels as an argument at each step: nothing to copy.
  bool set_emitter_enabled(bool enabled) override {
    emitter_enabled_ = enabled;
    return emitter_.present;
  }
  bool emitter_enabled() const override { return emitter_.present && emitter_enabled_; }
  std::size_t boundary_count() const override { return boundary_.size(); }

  void step() override {
    if (n_ == 0 && !emitter_.present) return;
    if (events_.full()) events_.collect(times_);
    events_.mark(0, stream_);
    // The emitter's kernels are timed with the index build they precede.
    const std::uint32_t* d_active_count = nullptr;
    if (emitter_.present) {
      emit();
      d_active_count = &state_.data()->active_count;
    }
    index_.build(grid_, position_.data(), n_, options_.index_build, stream_, d_active_count);
    if (options_.reorder) {
      gather_particles<<<blocks_for(n_), kBlock, 0, stream_>>>(
          index_.d_sorted_order(), n_, position_.data(), velocity_.data(), id_.data(),
          sorted_position_.data(), sorted_velocity_.data(), sorted_id_.data());
      SURGE_CUDA_CHECK_LAUNCH("gather_particles");
      position_.swap(sorted_position_);
      velocity_.swap(sorted_velocity_);
      id_.swap(sorted_id_);
    }
    events_.mark(1, stream_);

    // Without the reorder, arrays stay in creation order and neighbours are read through the sorted order.
    const CellIndexView fluid{position_.data(), index_.d_cell_start(),
                              options_.reorder ? nullptr : index_.d_sorted_order()};
    const CellIndexView boundary{boundary_.data(), boundary_cell_start_.data()};
    with_kernel(params_.kernel, params_.support, [&](auto kernel) {
      density_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(kernel, params_, grid_, fluid, boundary, n_,
                                                             density_.data(), pressure_.data());
      SURGE_CUDA_CHECK_LAUNCH("density_kernel");
      events_.mark(2, stream_);
      const FluidFields fields{fluid, velocity_.data(), density_.data(), pressure_.data()};
      if (options_.force_pass == ForcePass::split) {
        split_force_pass(kernel, fields, boundary);
      } else {
        acceleration_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
            kernel, params_, grid_, fields, boundary, id_.data(), n_, acceleration_.data(), state_.data());
        SURGE_CUDA_CHECK_LAUNCH("acceleration_kernel");
      }
      return 0;
    });
    events_.mark(3, stream_);
    choose_time_step<<<1, 1, 0, stream_>>>(params_, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("choose_time_step");
    events_.mark(4, stream_);
    integrate_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        params_, acceleration_.data(), id_.data(), n_, position_.data(), velocity_.data(), state_.data(),
        nullptr, emitter_.nozzle, emitter_.present && emitter_enabled_);
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
    // The device's count is known again: launches shrink back to it.
    known_count_ = host_state_->active_count;
    n_ = known_count_;
    layers_possible_since_status_ = 0;
    return to_step_status(*host_state_);
  }

  void download(ParticleFrame& frame) override {
    const StepStatus st = status();
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    // status() made known_count_ the device's count: the active particles are the first known_count_ slots.
    copy_to_host(frame.position, position_, known_count_, ledger_, "export frame");
    copy_to_host(frame.velocity, velocity_, known_count_, ledger_, "export frame");
    copy_to_host(frame.density, density_, known_count_, ledger_, "export frame");
    copy_to_host(frame.pressure, pressure_, known_count_, ledger_, "export frame");
    copy_to_host(frame.id, id_, known_count_, ledger_, "export frame");
    frame.time_s = st.time_s;
    frame.step = st.step;
  }

  void begin_download(std::size_t slot) override {
    snapshots_.begin(slot,
                     {position_.data(), velocity_.data(), density_.data(), pressure_.data(), id_.data(), n_},
                     stream_);
  }
  void finish_download(std::size_t slot, ParticleFrame& frame) override {
    snapshots_.finish(slot, frame, ledger_);
  }

  bool copy_to_device_buffers(const DeviceParticleTargets& targets) override {
    // fluid_count() entries, as the targets hold; particles that entered since the last status() show
    // from the next one.
    if (known_count_ > 0) {
      write_render_attributes<<<blocks_for(known_count_), kBlock, 0, stream_>>>(
          known_count_, position_.data(), velocity_.data(), density_.data(), pressure_.data(), targets.scalar,
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
  // The divergence lesson's other variant: the fluid loop for all particles, then the wall loop only for
  // the particles next to a wall (compacted into a list by CUB), then the XSPH scaling and maxima.
  template <typename Kernel>
  void split_force_pass(const Kernel& kernel, const FluidFields& fields, const CellIndexView& boundary) {
    fluid_acceleration_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        kernel, params_, grid_, fields, boundary, n_, acceleration_.data(), near_wall_.data(), state_.data());
    SURGE_CUDA_CHECK_LAUNCH("fluid_acceleration_kernel");
    const thrust::counting_iterator<std::uint32_t> particles(0);
    std::size_t temp_bytes = 0;
    SURGE_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, particles, near_wall_.data(),
                                                near_wall_list_.data(), near_wall_count_.data(), n_,
                                                stream_));
    select_storage_.resize(temp_bytes);
    SURGE_CUDA_CHECK(cub::DeviceSelect::Flagged(select_storage_.data(), temp_bytes, particles,
                                                near_wall_.data(), near_wall_list_.data(),
                                                near_wall_count_.data(), n_, stream_));
    boundary_acceleration_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        kernel, params_, grid_, fields, boundary, near_wall_list_.data(), near_wall_count_.data(),
        acceleration_.data());
    SURGE_CUDA_CHECK_LAUNCH("boundary_acceleration_kernel");
    finish_acceleration_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        params_, velocity_.data(), id_.data(), n_, acceleration_.data(), state_.data());
    SURGE_CUDA_CHECK_LAUNCH("finish_acceleration_kernel");
  }

  // The emitter's kernels, before the index build. The host does not know whether a layer enters (the
  // time is on the device), so it launches the step over an upper bound, n_: at most one layer per step
  // with the emitter on since the last status(). Slots past the device's active_count are left alone by every
  // kernel and sorted past every cell by the index.
  void emit() {
    if (emitter_enabled_) ++layers_possible_since_status_;
    const std::uint64_t bound = std::uint64_t(known_count_) +
                                std::uint64_t(layers_possible_since_status_) * emitter_.nozzle.layer_size;
    n_ = std::uint32_t(std::min<std::uint64_t>(bound, capacity_));
    nozzle_slot_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(emitter_.nozzle, emitter_enabled_,
                                                               position_.data(), n_, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("nozzle_slot_kernel");
    decide_emission<<<1, 1, 0, stream_>>>(emitter_.nozzle, emitter_enabled_, capacity_, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("decide_emission");
    write_layer<<<blocks_for(emitter_.nozzle.layer_size), kBlock, 0, stream_>>>(
        emitter_.nozzle, emitter_layer_.data(), params_.rest_density, state_.data(), position_.data(),
        velocity_.data(), id_.data(), density_.data(), pressure_.data());
    SURGE_CUDA_CHECK_LAUNCH("write_layer");
  }

  SphParameters params_;
  GridGeometry grid_;
  GpuInfo gpu_;
  GpuStepOptions options_;
  EmitterSetup emitter_;
  std::uint32_t capacity_ = 0;
  bool emitter_enabled_ = true;
  DeviceBuffer<Vec4f> emitter_layer_;
  std::uint32_t known_count_ = 0;  // active particles at the last status()
  long layers_possible_since_status_ = 0;
  std::uint32_t n_ = 0;  // particles the kernels are launched over: the active count, or a bound on it
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
  DeviceBuffer<std::uint32_t> near_wall_, near_wall_list_, near_wall_count_;  // split force pass only
  DeviceBuffer<unsigned char> select_storage_;
  // Marks: 0 start, then the end of index, density, forces, other, integration.
  StageEvents events_{{Stage::index, Stage::density, Stage::forces, Stage::other, Stage::integration}};
  StageTimes times_;
  // Declared last so it is destroyed first: its destructor waits for copies that read the arrays above.
  DeviceFrameSnapshots snapshots_;
};

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

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup, const GpuStepOptions& options) {
  const GpuInfo gpu = gpu_for(setup);
  return std::make_unique<CudaSimulation>(setup, gpu, options);
}

std::unique_ptr<Simulation> make_cuda_simulation(const SphSetup& setup, IndexBuild index_build) {
  return make_cuda_simulation(setup, GpuStepOptions{.index_build = index_build});
}

}  // namespace surge
