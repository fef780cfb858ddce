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
#include "sim/backend/render_attributes.h"
#include "sim/backend/wcsph_kernels.cuh"
#include "sim/index/cell_index_gpu.h"

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

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const SphSetup& setup, const GpuInfo& gpu, const GpuStepOptions& options)
      : params_(setup.params), grid_(setup.grid), gpu_(gpu), options_(options) {
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
    if (options_.force_pass == ForcePass::split) {
      near_wall_.resize(n_);
      near_wall_list_.resize(n_);
      near_wall_count_.resize(1);
    }
    const DeviceStepState initial = initial_step_state(params_, setup.fluid);
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
    char text[200];
    std::snprintf(text, sizeof text, "gpu (%s, CC %d.%d%s%s)", gpu_.name.c_str(), gpu_.compute_major,
                  gpu_.compute_minor, options_.reorder ? "" : ", particles in creation order",
                  options_.force_pass == ForcePass::split ? ", split force pass" : "");
    return text;
  }
  std::size_t fluid_count() const override { return n_; }
  std::size_t boundary_count() const override { return boundary_.size(); }

  void step() override {
    if (n_ == 0) return;
    if (events_.full()) events_.collect(times_);
    events_.mark(0, stream_);
    index_.build(grid_, position_.data(), n_, options_.index_build, stream_);
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
    return to_step_status(*host_state_);
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

  void begin_download(std::size_t slot) override {
    snapshots_.begin(slot,
                     {position_.data(), velocity_.data(), density_.data(), pressure_.data(), id_.data(), n_},
                     stream_);
  }
  void finish_download(std::size_t slot, ParticleFrame& frame) override {
    snapshots_.finish(slot, frame, ledger_);
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
        kernel, params_, grid_, fields, boundary, n_, acceleration_.data(), near_wall_.data());
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

  SphParameters params_;
  GridGeometry grid_;
  GpuInfo gpu_;
  GpuStepOptions options_;
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
