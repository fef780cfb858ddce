// The hybrid backends (sim/backend/hybrid_simulation.h): the cell index is built on the CPU
// (sim/index/cell_index_cpu.h), the physics passes run on the GPU with the kernels of the GPU-resident
// backend (sim/backend/wcsph_kernels.cuh).
//
// Index of this file:
//   HybridSimulation   shared state, the physics passes, status and download
//     step_naive       hybrid: positions down, CPU index, index up, every step, all synchronous
//     step_overlapped  hybrid-overlap: adopt a finished index, step, take a snapshot for the next one
//   make_hybrid_simulation
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <vector>

#include "sim/backend/hybrid_simulation.h"
#include "sim/backend/skin_schedule.h"
#include "sim/backend/transfer_clock.h"
#include "sim/backend/wcsph_kernels.cuh"
#include "sim/core/pinned_buffer.h"
#include "sim/index/cell_index_cpu.h"

namespace surge {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The index the CPU worker built, waiting in pinned memory to go up.
struct HostIndex {
  PinnedBuffer<std::uint32_t> sorted_order, cell_start;
  double build_ms = 0.0;
};

class HybridSimulation final : public Simulation {
 public:
  HybridSimulation(const SphSetup& setup, const GpuInfo& gpu, const HybridOptions& options)
      : params_(setup.params),
        skin_(options.overlap ? options.skin_ratio * setup.params.support : 0.0f),
        grid_(options.overlap ? grid_with_skin(setup.grid, setup.params.support, skin_) : setup.grid),
        gpu_(gpu),
        options_(options),
        events_(options.overlap
                    ? std::vector<Stage>{Stage::transfer, Stage::index, Stage::density, Stage::forces,
                                         Stage::other, Stage::integration, Stage::transfer}
                    : std::vector<Stage>{Stage::transfer, Stage::index, Stage::transfer, Stage::index,
                                         Stage::density, Stage::forces, Stage::other, Stage::integration},
                /*charge_gaps=*/options.overlap) {
    n_ = std::uint32_t(setup.fluid.size());
    SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&snapshot_ready_, cudaEventDisableTiming));
    SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&positions_downloaded_, cudaEventDisableTiming));
    copy_to_device(position_, setup.fluid.position, ledger_, "initial fluid particles");
    copy_to_device(velocity_, setup.fluid.velocity, ledger_, "initial fluid particles");
    copy_to_device(id_, setup.fluid.id, ledger_, "initial fluid particles");
    upload_boundary(setup);
    sorted_position_.resize(n_);
    sorted_velocity_.resize(n_);
    sorted_id_.resize(n_);
    order_.resize(n_);
    cell_start_.resize(std::size_t(grid_.cell_count()) + 1);
    density_.resize(n_);
    pressure_.resize(n_);
    acceleration_.resize(n_);
    if (options_.overlap) {
      snapshot_.resize(n_);
      reference_.resize(n_);
      next_cell_start_.resize(cell_start_.size());
      pinned_positions_.resize(n_);
      worker_index_.sorted_order.resize(n_);
      worker_index_.cell_start.resize(cell_start_.size());
    } else {
      host_positions_.resize(n_);
    }
    state_.resize(1);
    const DeviceStepState initial = initial_step_state(params_, setup.fluid);
    SURGE_CUDA_CHECK(cudaMemcpy(state_.data(), &initial, sizeof initial, cudaMemcpyHostToDevice));
    ledger_.record(CopyDirection::host_to_device, sizeof initial, 0.0, "initial step state");
    host_state_.resize(1);
    *host_state_.data() = initial;
    reuse_steps_ = options_.fixed_reuse_steps > 0 ? options_.fixed_reuse_steps : 1;
  }

  ~HybridSimulation() override {
    if (worker_.valid()) worker_.wait();
    cudaStreamSynchronize(stream_);
    cudaStreamSynchronize(copy_stream_);
    cudaEventDestroy(snapshot_ready_);
    cudaEventDestroy(positions_downloaded_);
    if (upload_done_) cudaEventDestroy(upload_done_);
    cudaStreamDestroy(copy_stream_);
    cudaStreamDestroy(stream_);
  }

  std::string backend_name() const override {
    char text[200];
    std::snprintf(text, sizeof text, "%s (CPU index, %s, CC %d.%d)",
                  options_.overlap ? "hybrid-overlap" : "hybrid", gpu_.name.c_str(), gpu_.compute_major,
                  gpu_.compute_minor);
    return text;
  }
  std::size_t fluid_count() const override { return n_; }
  std::size_t boundary_count() const override { return boundary_.size(); }

  void step() override {
    if (n_ == 0 || stopped_) return;
    if (events_.full()) events_.collect(times_);
    if (options_.overlap)
      step_overlapped();
    else
      step_naive();
  }

  StepStatus status() override {
    transfers_.flush(ledger_, /*wait=*/false);
    const StepStatus st = read_status("step status");
    transfers_.flush(ledger_, /*wait=*/false);
    return st;
  }

  void download(ParticleFrame& frame) override {
    const StepStatus st = status();
    copy_to_host(frame.position, position_, ledger_, "export frame");
    copy_to_host(frame.velocity, velocity_, ledger_, "export frame");
    copy_to_host(frame.density, density_, ledger_, "export frame");
    copy_to_host(frame.pressure, pressure_, ledger_, "export frame");
    copy_to_host(frame.id, id_, ledger_, "export frame");
    frame.time_s = st.time_s;
    frame.step = st.step;
  }

  StageTimes stage_times() override {
    events_.collect(times_);
    return times_;
  }
  void reset_timers() override {
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    events_.discard();
    times_ = StageTimes{};
  }
  std::vector<NamedValue> parameters() const override {
    std::vector<NamedValue> values = describe_parameters(params_);
    if (options_.overlap) values.push_back({"skin_m", double(skin_)});
    return values;
  }
  // The kernels take params_ by value at each launch. The skin's reuse count is chosen from params_ (gravity
  // included) at each index build, and the device displacement check forces an early build in between.
  std::vector<LiveParameter> live_parameters() const override { return surge::live_parameters(params_); }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!set_live_parameter(params_, name, value)) refuse_parameter(*this, name);
  }
  bool set_stirring(const Stirring& stirring) override {
    params_.stirring = stirring;
    return true;
  }
  std::vector<NamedValue> step_figures() override {
    // Everything counted so far has been enqueued; wait for it so the ledger and the figures agree.
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(copy_stream_));
    transfers_.flush(ledger_, /*wait=*/true);
    std::vector<NamedValue> figures = {{"index_builds", double(index_builds_)},
                                       {"early_rebuilds", double(early_rebuilds_)},
                                       {"position_downloads", double(position_downloads_)},
                                       {"index_uploads", double(index_uploads_)}};
    if (options_.overlap) {
      figures.push_back({"skin_m", double(skin_)});
      figures.push_back({"reuse_steps", double(reuse_steps_)});
      figures.push_back({"cells", double(grid_.cell_count())});
      figures.push_back({"hidden_cpu_index_ms", hidden_cpu_index_ms_});
    }
    return figures;
  }

 private:
  // ---- Shared

  void upload_boundary(const SphSetup& setup) {
    if (!options_.overlap) {
      copy_to_device(boundary_, setup.boundary, ledger_, "boundary particles");
      copy_to_device(boundary_cell_start_, setup.boundary_cell_start, ledger_, "boundary particles");
      return;
    }
    // The walls do not move: sorted once into the skin grid's cells.
    CpuCellIndex index;
    index.build(grid_, setup.boundary);
    std::vector<Vec4f> sorted(setup.boundary.size());
    for (std::size_t k = 0; k < sorted.size(); ++k) sorted[k] = setup.boundary[index.sorted_order()[k]];
    copy_to_device(boundary_, sorted, ledger_, "boundary particles");
    copy_to_device(boundary_cell_start_, index.cell_start(), ledger_, "boundary particles");
  }

  // Reorders the particles by `order` (device), and with `reference_from` also the skin's reference.
  void gather(const std::uint32_t* d_order, const Vec4f* reference_from) {
    gather_particles<<<blocks_for(n_), kBlock, 0, stream_>>>(d_order, n_, position_.data(), velocity_.data(),
                                                             id_.data(), sorted_position_.data(),
                                                             sorted_velocity_.data(), sorted_id_.data());
    SURGE_CUDA_CHECK_LAUNCH("gather_particles");
    position_.swap(sorted_position_);
    velocity_.swap(sorted_velocity_);
    id_.swap(sorted_id_);
    if (reference_from != nullptr) {
      gather_vec4<<<blocks_for(n_), kBlock, 0, stream_>>>(d_order, n_, reference_from, reference_.data());
      SURGE_CUDA_CHECK_LAUNCH("gather_vec4");
      clear_displacement<<<1, 1, 0, stream_>>>(state_.data());
      SURGE_CUDA_CHECK_LAUNCH("clear_displacement");
    }
  }

  // Density, forces, time step, integration: the GPU-resident backend's kernels. `first_mark` is the
  // event mark that ends the stage before density.
  void physics_passes(int first_mark) {
    const CellIndexView fluid{position_.data(), cell_start_.data()};
    const CellIndexView boundary{boundary_.data(), boundary_cell_start_.data()};
    with_kernel(params_.kernel, params_.support, [&](auto kernel) {
      density_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(kernel, params_, grid_, fluid, boundary, n_,
                                                             density_.data(), pressure_.data());
      SURGE_CUDA_CHECK_LAUNCH("density_kernel");
      events_.mark(first_mark + 1, stream_);
      const FluidFields fields{fluid, velocity_.data(), density_.data(), pressure_.data()};
      acceleration_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
          kernel, params_, grid_, fields, boundary, id_.data(), n_, acceleration_.data(), state_.data());
      SURGE_CUDA_CHECK_LAUNCH("acceleration_kernel");
      return 0;
    });
    events_.mark(first_mark + 2, stream_);
    choose_time_step<<<1, 1, 0, stream_>>>(params_, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("choose_time_step");
    events_.mark(first_mark + 3, stream_);
    const bool check = options_.overlap && options_.check_displacement;
    integrate_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        params_, acceleration_.data(), id_.data(), n_, position_.data(), velocity_.data(), state_.data(),
        check ? reference_.data() : nullptr);
    SURGE_CUDA_CHECK_LAUNCH("integrate_kernel");
    advance_clock<<<1, 1, 0, stream_>>>(state_.data());
    SURGE_CUDA_CHECK_LAUNCH("advance_clock");
    events_.mark(first_mark + 4, stream_);
  }

  // Copies the device's step state into pinned memory on the compute stream and waits for it.
  StepStatus read_status(const char* reason) {
    const cudaEvent_t started = transfers_.start(stream_);
    SURGE_CUDA_CHECK(cudaMemcpyAsync(host_state_.data(), state_.data(), sizeof(DeviceStepState),
                                     cudaMemcpyDeviceToHost, stream_));
    transfers_.stop(started, stream_, CopyDirection::device_to_host, sizeof(DeviceStepState), reason);
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const StepStatus st = to_step_status(*host_state_.data());
    if (st.instability != Instability::none) stopped_ = true;
    return st;
  }

  // ---- hybrid: everything on the critical path, every step

  void step_naive() {
    // The previous step must be done before its positions can go down: the first synchronisation.
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    events_.mark(0, stream_);
    const Clock::time_point down = Clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(host_positions_.data(), position_.data(), position_.bytes(),
                                     cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ledger_.record(CopyDirection::device_to_host, position_.bytes(), ms_since(down), kPositionsForIndexReason);
    ++position_downloads_;
    events_.mark(1, stream_);

    cpu_index_.build(grid_, host_positions_);
    ++index_builds_;
    events_.mark(2, stream_);

    const Clock::time_point up = Clock::now();
    const auto& order = cpu_index_.sorted_order();
    const auto& starts = cpu_index_.cell_start();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(order_.data(), order.data(), order.size() * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice, stream_));
    SURGE_CUDA_CHECK(cudaMemcpyAsync(cell_start_.data(), starts.data(), starts.size() * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ledger_.record(CopyDirection::host_to_device, (order.size() + starts.size()) * sizeof(std::uint32_t),
                   ms_since(up), kIndexFromCpuReason);
    ++index_uploads_;
    events_.mark(3, stream_);

    gather(order_.data(), nullptr);
    events_.mark(4, stream_);
    physics_passes(4);
  }

  // ---- hybrid-overlap: the index for later steps is built while the GPU steps

  void step_overlapped() {
    transfers_.flush(ledger_, /*wait=*/false);
    upload_if_built();
    // Marks: 0 start, 1 after waiting for the upload, 2 after the gather, then the physics passes
    // (3 density, 4 forces, 5 time step, 6 integration), 7 after the status readback.
    bool adopt = false, fresh_snapshot = false;
    if (!has_index_ || displacement_exceeded_) {
      // No index yet, or the skin check found a particle too far: build from the present positions now.
      if (has_index_) ++early_rebuilds_;
      rebuild_now();
      fresh_snapshot = true;
    } else if (steps_since_adoption_ >= reuse_steps_ && (worker_.valid() || uploaded_)) {
      if (worker_.valid()) {
        const Clock::time_point wait = Clock::now();
        finish_worker();
        upload_if_built();
        events_.charge_host(Stage::index, ms_since(wait));  // the part of the CPU build not hidden
      }
      adopt = true;
      uploaded_ = false;
    }
    events_.mark(0, stream_);
    if (adopt) SURGE_CUDA_CHECK(cudaStreamWaitEvent(stream_, upload_done_, 0));
    events_.mark(1, stream_);
    if (adopt) {
      std::swap(cell_start_, next_cell_start_);
      gather(order_.data(), snapshot_.data());
      steps_since_adoption_ = 0;
      fresh_snapshot = true;
      choose_reuse_steps();
    }
    events_.mark(2, stream_);
    physics_passes(2);
    ++steps_since_adoption_;
    // The positions the next index is built from: right after an index is adopted.
    if (fresh_snapshot) start_worker();
    // The skin check: the largest displacement since the index's positions, read every step.
    read_status(kSkinCheckReason);
    events_.mark(7, stream_);
    float moved2 = 0.0f;
    std::memcpy(&moved2, &host_state_.data()->max_displacement2_bits, sizeof moved2);
    displacement_exceeded_ = options_.check_displacement && moved2 > 0.25f * skin_ * skin_;
  }

  // k from the present maximum speed and acceleration (or the fixed k of a test).
  void choose_reuse_steps() {
    if (options_.fixed_reuse_steps > 0) return;
    const DeviceStepState& s = *host_state_.data();
    // Before the first step the state has no acceleration yet; particles at rest still fall.
    const float acceleration = std::max(s.max_acceleration, std::sqrt(length_squared(params_.gravity)));
    reuse_steps_ = index_reuse_steps(params_, skin_, s.max_speed, acceleration, options_.max_reuse_steps);
  }

  // Synchronous: positions down, CPU index, index up, reorder, with the present positions as reference.
  void rebuild_now() {
    // A build from older positions is of no use now: wait for it and drop it.
    if (worker_.valid()) {
      worker_.wait();
      worker_ = std::future<void>();
    }
    built_ = false;
    uploaded_ = false;
    SURGE_CUDA_CHECK(cudaStreamSynchronize(copy_stream_));  // its upload may still read the pinned index
    const Clock::time_point start = Clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(snapshot_.data(), position_.data(), position_.bytes(),
                                     cudaMemcpyDeviceToDevice, stream_));
    const cudaEvent_t down = transfers_.start(stream_);
    SURGE_CUDA_CHECK(cudaMemcpyAsync(pinned_positions_.data(), snapshot_.data(), snapshot_.bytes(),
                                     cudaMemcpyDeviceToHost, stream_));
    transfers_.stop(down, stream_, CopyDirection::device_to_host, snapshot_.bytes(), kPositionsForIndexReason);
    ++position_downloads_;
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const double transfer_ms = ms_since(start);

    const Clock::time_point build = Clock::now();
    cpu_index_.build(grid_, pinned_positions_.view());
    ++index_builds_;
    const double build_ms = ms_since(build);

    const Clock::time_point up = Clock::now();
    const auto& order = cpu_index_.sorted_order();
    const auto& starts = cpu_index_.cell_start();
    std::memcpy(worker_index_.sorted_order.data(), order.data(), order.size() * sizeof(std::uint32_t));
    std::memcpy(worker_index_.cell_start.data(), starts.data(), starts.size() * sizeof(std::uint32_t));
    enqueue_upload(stream_);
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::swap(cell_start_, next_cell_start_);
    gather(order_.data(), snapshot_.data());
    steps_since_adoption_ = 0;
    choose_reuse_steps();
    events_.charge_host(Stage::transfer, transfer_ms + ms_since(up));
    events_.charge_host(Stage::index, build_ms);
    has_index_ = true;
    displacement_exceeded_ = false;
  }

  // After the step: copy the positions aside on the device, send them down on the copy stream, and let
  // a worker thread build the next index from them while the GPU goes on.
  void start_worker() {
    SURGE_CUDA_CHECK(cudaMemcpyAsync(snapshot_.data(), position_.data(), position_.bytes(),
                                     cudaMemcpyDeviceToDevice, stream_));
    SURGE_CUDA_CHECK(cudaEventRecord(snapshot_ready_, stream_));
    SURGE_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, snapshot_ready_, 0));
    const cudaEvent_t down = transfers_.start(copy_stream_);
    SURGE_CUDA_CHECK(cudaMemcpyAsync(pinned_positions_.data(), snapshot_.data(), snapshot_.bytes(),
                                     cudaMemcpyDeviceToHost, copy_stream_));
    transfers_.stop(down, copy_stream_, CopyDirection::device_to_host, snapshot_.bytes(), kPositionsForIndexReason);
    // The worker's own event: the ledger's events are recycled once their copy is entered.
    SURGE_CUDA_CHECK(cudaEventRecord(positions_downloaded_, copy_stream_));
    const cudaEvent_t downloaded = positions_downloaded_;
    ++position_downloads_;
    built_ = false;
    worker_ = std::async(std::launch::async, [this, downloaded] {
      SURGE_CUDA_CHECK(cudaEventSynchronize(downloaded));
      const Clock::time_point start = Clock::now();
      worker_cell_index_.build(grid_, pinned_positions_.view());
      const auto& order = worker_cell_index_.sorted_order();
      const auto& starts = worker_cell_index_.cell_start();
      std::memcpy(worker_index_.sorted_order.data(), order.data(), order.size() * sizeof(std::uint32_t));
      std::memcpy(worker_index_.cell_start.data(), starts.data(), starts.size() * sizeof(std::uint32_t));
      worker_index_.build_ms = ms_since(start);
    });
  }

  // Rethrows what the worker threw; afterwards its index is in worker_index_.
  void finish_worker() {
    worker_.get();
    ++index_builds_;
    hidden_cpu_index_ms_ += worker_index_.build_ms;
    built_ = true;
  }

  // As soon as the worker is done, its index goes up on the copy stream (ahead of the step that adopts it).
  void upload_if_built() {
    if (worker_.valid() && worker_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      finish_worker();
    if (!built_) return;
    enqueue_upload(copy_stream_);
    built_ = false;
    uploaded_ = true;
  }

  void enqueue_upload(cudaStream_t stream) {
    if (upload_done_ == nullptr)
      SURGE_CUDA_CHECK(cudaEventCreateWithFlags(&upload_done_, cudaEventDisableTiming));
    const cudaEvent_t up = transfers_.start(stream);
    SURGE_CUDA_CHECK(cudaMemcpyAsync(order_.data(), worker_index_.sorted_order.data(),
                                     worker_index_.sorted_order.bytes(), cudaMemcpyHostToDevice, stream));
    SURGE_CUDA_CHECK(cudaMemcpyAsync(next_cell_start_.data(), worker_index_.cell_start.data(),
                                     worker_index_.cell_start.bytes(), cudaMemcpyHostToDevice, stream));
    transfers_.stop(up, stream, CopyDirection::host_to_device,
                    worker_index_.sorted_order.bytes() + worker_index_.cell_start.bytes(), kIndexFromCpuReason);
    SURGE_CUDA_CHECK(cudaEventRecord(upload_done_, stream));
    ++index_uploads_;
  }

  SphParameters params_;
  float skin_;  // [m]; 0 in the naive mode
  GridGeometry grid_;
  GpuInfo gpu_;
  HybridOptions options_;
  std::uint32_t n_ = 0;
  cudaStream_t stream_ = nullptr, copy_stream_ = nullptr;
  cudaEvent_t snapshot_ready_ = nullptr, positions_downloaded_ = nullptr, upload_done_ = nullptr;
  DeviceBuffer<Vec4f> position_, velocity_, sorted_position_, sorted_velocity_;
  DeviceBuffer<std::uint32_t> id_, sorted_id_;
  DeviceBuffer<std::uint32_t> order_, cell_start_, next_cell_start_;
  DeviceBuffer<float> density_, pressure_;
  DeviceBuffer<ParticleAcceleration> acceleration_;
  DeviceBuffer<Vec4f> boundary_;
  DeviceBuffer<std::uint32_t> boundary_cell_start_;
  DeviceBuffer<Vec4f> snapshot_, reference_;  // overlap: positions the next / the current index came from
  DeviceBuffer<DeviceStepState> state_;
  PinnedBuffer<DeviceStepState> host_state_;
  std::vector<Vec4f> host_positions_;  // naive: ordinary (pageable) memory
  PinnedBuffer<Vec4f> pinned_positions_;
  CpuCellIndex cpu_index_, worker_cell_index_;
  HostIndex worker_index_;
  std::future<void> worker_;
  bool built_ = false, uploaded_ = false, has_index_ = false, displacement_exceeded_ = false;
  bool stopped_ = false;
  long steps_since_adoption_ = 0, reuse_steps_ = 1;
  long index_builds_ = 0, early_rebuilds_ = 0, position_downloads_ = 0, index_uploads_ = 0;
  double hidden_cpu_index_ms_ = 0.0;
  TransferClock transfers_;
  StageEvents events_;
  StageTimes times_;
};

}  // namespace

std::unique_ptr<Simulation> make_hybrid_simulation(const SphSetup& setup, const HybridOptions& options) {
  // Beyond the GPU-resident backend: the snapshot and reference positions (32 B) of hybrid-overlap.
  const GpuInfo gpu = gpu_for(setup, options.overlap ? 2 * sizeof(Vec4f) : 0);
  return std::make_unique<HybridSimulation>(setup, gpu, options);
}

}  // namespace surge
