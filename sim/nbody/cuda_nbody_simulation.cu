// The n-body CUDA backend: leapfrog on the device in float, gravity by the tiled or naive all-pairs kernels
// (all_pairs_gpu.h) or the Barnes-Hut tree rebuilt every step (barnes_hut_gpu.h). Stepping copies nothing
// between host and device; status(), download() and step_figures() are the readbacks, and the ledger
// records them.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <chrono>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <numeric>
#include <optional>

#include "sim/core/cuda_launch.cuh"
#include "sim/backend/gpu_info.h"
#include "sim/core/render_targets.h"
#include "sim/backend/stage_events.h"
#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/nbody/all_pairs_gpu.h"
#include "sim/nbody/barnes_hut_gpu.h"
#include "sim/nbody/gravity_gpu_probe.h"
#include "sim/nbody/nbody_diagnostics.h"
#include "sim/nbody/nbody_simulation.h"

namespace surge {

namespace {

// Step bookkeeping that lives on the device, read back by status().
struct NbodyDeviceState {
  double time_s;
  long long step;
  int instability;
  unsigned int bad_body;  // creation id
  long long bad_step;
  Vec3f bad_position, bad_velocity, bad_acceleration;
  unsigned long long interactions;  // pulls summed by the last gravity evaluation
};

// First half of the step: v += a dt/2, then x += v dt (gravity_physics.h).
__global__ void kick_drift_kernel(Body<float>* __restrict__ bodies /* in, out */,
                                  Vec4f* __restrict__ velocities /* in, out */,
                                  const Vec4f* __restrict__ accelerations, std::uint32_t n, float dt,
                                  const NbodyDeviceState* state) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || state->instability != 0) return;
  Vec3f v = xyz(velocities[i]);
  Vec3f x = bodies[i].x;
  kick(v, xyz(accelerations[i]), 0.5f * dt);
  drift(x, v, dt);
  velocities[i] = make_vec4(v, 0.0f);
  bodies[i].x = x;
}

// Second half: v += a dt/2 with the new accelerations; a non-finite body stops the run (first one wins).
__global__ void kick_check_kernel(const Body<float>* __restrict__ bodies,
                                  Vec4f* __restrict__ velocities /* in, out */,
                                  const Vec4f* __restrict__ accelerations,
                                  const std::uint32_t* __restrict__ ids, std::uint32_t n, float dt,
                                  NbodyDeviceState* state) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || state->instability != 0) return;
  Vec3f v = xyz(velocities[i]);
  const Vec3f a = xyz(accelerations[i]);
  kick(v, a, 0.5f * dt);
  velocities[i] = make_vec4(v, 0.0f);
  const Vec3f x = bodies[i].x;
  if (isfinite(x.x + x.y + x.z + v.x + v.y + v.z)) return;
  if (atomicCAS(&state->instability, 0, int(Instability::nan_value)) != 0) return;
  state->bad_body = ids[i];
  state->bad_step = state->step + 1;
  state->bad_position = x;
  state->bad_velocity = v;
  state->bad_acceleration = a;
}

__global__ void advance_clock_kernel(NbodyDeviceState* state, double dt) {
  if (state->instability != 0) return;
  state->time_s += dt;
  state->step += 1;
}

// Per-body energy terms in double, for the CUB reduction of step_figures().
struct BodyEnergyAt {
  const Body<float>* bodies;
  const Vec4f* velocities;
  const Vec4f* field;  // w: potential
  __host__ __device__ NbodyEnergy operator()(std::uint32_t i) const {
    const Body<float> b = bodies[i];
    const Vec4f v = velocities[i];
    return body_energy(Vec3d{b.x.x, b.x.y, b.x.z}, Vec3d{v.x, v.y, v.z}, double(b.m), double(field[i].w));
  }
};
struct AddEnergy {
  __host__ __device__ NbodyEnergy operator()(const NbodyEnergy& a, const NbodyEnergy& b) const {
    return a + b;
  }
};
using EnergyIterator = thrust::transform_iterator<BodyEnergyAt, thrust::counting_iterator<std::uint32_t>>;

EnergyIterator energy_terms(const Body<float>* bodies, const Vec4f* velocities, const Vec4f* field) {
  return EnergyIterator(thrust::counting_iterator<std::uint32_t>(0), BodyEnergyAt{bodies, velocities, field});
}

std::vector<Body<float>> to_float(const std::vector<Body<double>>& bodies) {
  std::vector<Body<float>> out(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i)
    out[i] = {Vec3f{float(bodies[i].x.x), float(bodies[i].x.y), float(bodies[i].x.z)}, float(bodies[i].m)};
  return out;
}

// Gravity by the chosen method: the one code path both the simulation and the probe use.
class GpuGravity {
 public:
  GpuGravity(const NbodyParameters& params, std::uint32_t capacity) : params_(params) {
    if (params_.method == NbodyMethod::barnes_hut) tree_.emplace(capacity);
  }
  // A live edit (softening, theta); the method stays the one the tree was allocated for.
  void set_parameters(const NbodyParameters& params) { params_ = params; }
  // Barnes-Hut reorders the three buffers into Morton order first (the index stage).
  void prepare(DeviceBuffer<Body<float>>& bodies, DeviceBuffer<Vec4f>& velocities,
               DeviceBuffer<std::uint32_t>& ids, std::uint32_t n, cudaStream_t stream) {
    if (tree_) tree_->build(bodies, velocities, ids, n, float(params_.theta), stream);
  }
  // out.xyz = accelerations; out.w = potentials when asked for. All-pairs counts are known (n^2); the tree
  // adds its own to *d_interactions.
  void evaluate(const Body<float>* d_bodies, std::uint32_t n, bool with_potential, Vec4f* d_out,
                unsigned long long* d_interactions, cudaStream_t stream) {
    const float g = float(params_.gravitational_constant), eps = float(params_.softening);
    switch (params_.method) {
      case NbodyMethod::barnes_hut:
        tree_->gravity(d_bodies, n, g, eps, with_potential, d_out, d_interactions, stream);
        return;
      case NbodyMethod::all_pairs_naive:
        launch_all_pairs_naive(d_bodies, n, g, eps, d_out, stream);
        break;
      case NbodyMethod::all_pairs:
        launch_all_pairs_tiled(d_bodies, n, g, eps, d_out, stream);
        break;
    }
    if (with_potential) launch_all_pairs_potential(d_bodies, n, g, eps, d_out, stream);
  }

 private:
  NbodyParameters params_;
  std::optional<GpuBarnesHut> tree_;
};

// Bodies as the renderer draws them: position with the mass in w, and the scalar they are coloured by
// (speed; gravity has no density or pressure, which read as zero).
__global__ void write_body_render_attributes(std::uint32_t n, const Body<float>* __restrict__ bodies,
                                             const Vec4f* __restrict__ velocities, ParticleScalar scalar,
                                             Vec4f* __restrict__ d_position /* out */,
                                             float* __restrict__ d_scalar /* out, may be null */) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Body<float> body = bodies[i];
  d_position[i] = make_vec4(body.x, body.m);
  if (d_scalar) d_scalar[i] = render_scalar(scalar, velocities[i], 0.0f, 0.0f);
}

class CudaNbodySimulation final : public Simulation {
 public:
  CudaNbodySimulation(const NbodySetup& setup, const GpuInfo& gpu)
      : params_(setup.params), gpu_(gpu), n_(std::uint32_t(setup.size())), gravity_(params_, n_) {
    SURGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    std::vector<Vec4f> velocities(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      const Vec3d v = setup.velocities[i];
      velocities[i] = {float(v.x), float(v.y), float(v.z), 0.0f};
    }
    std::vector<std::uint32_t> ids(n_);
    std::iota(ids.begin(), ids.end(), 0u);
    copy_to_device(bodies_, to_float(setup.bodies), ledger_, "initial bodies");
    copy_to_device(velocities_, velocities, ledger_, "initial bodies");
    copy_to_device(ids_, ids, ledger_, "initial bodies");
    accelerations_.resize(n_);
    figure_field_.resize(n_);
    state_.resize(1);
    energy_.resize(1);
    std::size_t bytes = 0;
    SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, energy_terms(nullptr, nullptr, nullptr),
                                               energy_.data(), n_, AddEnergy{}, NbodyEnergy{}));
    reduce_scratch_.resize(bytes);
    NbodyDeviceState initial{};
    initial.time_s = setup.time_s;
    initial.step = setup.step;
    SURGE_CUDA_CHECK(cudaMemcpy(state_.data(), &initial, sizeof initial, cudaMemcpyHostToDevice));
    ledger_.record(CopyDirection::host_to_device, sizeof initial, 0.0, "initial step state");
    SURGE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_state_), sizeof(NbodyDeviceState)));
    // The first kick needs the accelerations of the initial positions; the energy drift needs E(0).
    gravity_.prepare(bodies_, velocities_, ids_, n_, stream_);
    gravity_.evaluate(bodies_.data(), n_, false, accelerations_.data(), &state_.data()->interactions,
                      stream_);
    initial_energy_ = measure_energy();
  }
  ~CudaNbodySimulation() override {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(host_state_);
    cudaStreamDestroy(stream_);
  }

  std::string backend_name() const override {
    char text[160];
    std::snprintf(text, sizeof text, "gpu (%s, CC %d.%d, float)", gpu_.name.c_str(), gpu_.compute_major,
                  gpu_.compute_minor);
    return text;
  }
  std::size_t fluid_count() const override { return n_; }
  std::size_t boundary_count() const override { return 0; }

  void step() override {
    if (n_ == 0) return;
    if (events_.full()) events_.collect(times_);
    const float dt = float(params_.dt);
    events_.mark(0, stream_);
    kick_drift_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(bodies_.data(), velocities_.data(),
                                                              accelerations_.data(), n_, dt, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("kick_drift_kernel");
    events_.mark(1, stream_);
    gravity_.prepare(bodies_, velocities_, ids_, n_, stream_);
    events_.mark(2, stream_);
    SURGE_CUDA_CHECK(cudaMemsetAsync(&state_.data()->interactions, 0, sizeof(unsigned long long), stream_));
    gravity_.evaluate(bodies_.data(), n_, false, accelerations_.data(), &state_.data()->interactions,
                      stream_);
    events_.mark(3, stream_);
    kick_check_kernel<<<blocks_for(n_), kBlock, 0, stream_>>>(
        bodies_.data(), velocities_.data(), accelerations_.data(), ids_.data(), n_, dt, state_.data());
    SURGE_CUDA_CHECK_LAUNCH("kick_check_kernel");
    advance_clock_kernel<<<1, 1, 0, stream_>>>(state_.data(), params_.dt);
    SURGE_CUDA_CHECK_LAUNCH("advance_clock_kernel");
    events_.mark(4, stream_);
  }

  StepStatus status() override {
    const NbodyDeviceState& s = read_state();
    StepStatus st;
    st.step = long(s.step);
    st.time_s = s.time_s;
    st.dt_s = float(params_.dt);
    st.instability = Instability(s.instability);
    st.bad_step = long(s.bad_step);
    st.bad_particle = s.bad_body;
    st.bad_position = s.bad_position;
    st.bad_velocity = s.bad_velocity;
    st.bad_acceleration = s.bad_acceleration;
    return st;
  }

  // The viewer's interop path: positions (w = mass) and the colouring scalar, written on the device.
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) override {
    if (n_ > 0) {
      write_body_render_attributes<<<blocks_for(n_), kBlock, 0, stream_>>>(
          n_, bodies_.data(), velocities_.data(), targets.scalar, targets.d_position, targets.d_scalar);
      SURGE_CUDA_CHECK_LAUNCH("write_body_render_attributes");
    }
    // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return true;
  }

  void download(ParticleFrame& frame) override {
    const StepStatus st = status();
    std::vector<Body<float>> bodies;
    copy_to_host(bodies, bodies_, ledger_, "export frame");
    copy_to_host(frame.velocity, velocities_, ledger_, "export frame");
    copy_to_host(frame.id, ids_, ledger_, "export frame");
    frame.position.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) frame.position[i] = make_vec4(bodies[i].x, bodies[i].m);
    frame.density.assign(n_, 0.0f);
    frame.pressure.assign(n_, 0.0f);
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
  std::vector<NamedValue> parameters() const override { return describe_parameters(params_); }
  // The accelerations the next step's first kick uses were computed with the old values; its force pass
  // and every later one use the new ones (as on the CPU).
  std::vector<LiveParameter> live_parameters() const override { return surge::live_parameters(params_); }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!set_live_parameter(params_, name, value)) refuse_parameter(*this, name);
    gravity_.set_parameters(params_);
  }

  std::vector<NamedValue> step_figures() override {
    const unsigned long long interactions = read_state().interactions;
    std::vector<NamedValue> figures = energy_figures(measure_energy(), initial_energy_);
    if (params_.method == NbodyMethod::barnes_hut) {
      figures.push_back({"pair_interactions_per_step", double(interactions)});
    } else {
      // Counted as the CUDA nbody sample counts them: N^2 pairs (the self-pairs included, which the tiled
      // kernel computes and which contribute zero), 20 floating-point operations each.
      const double pairs = double(n_) * double(n_);
      figures.push_back({"pair_interactions_per_step", pairs});
      figures.push_back({"flops_per_step", 20.0 * pairs});
    }
    return figures;
  }

 private:
  const NbodyDeviceState& read_state() {
    const auto start = std::chrono::steady_clock::now();
    SURGE_CUDA_CHECK(cudaMemcpyAsync(host_state_, state_.data(), sizeof(NbodyDeviceState),
                                     cudaMemcpyDeviceToHost, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto stop = std::chrono::steady_clock::now();
    ledger_.record(CopyDirection::device_to_host, sizeof(NbodyDeviceState),
                   std::chrono::duration<double, std::milli>(stop - start).count(), "step status");
    return *host_state_;
  }

  // Potentials by one more gravity pass (into a buffer of its own, so stepping's accelerations stay), then
  // one CUB reduction of the per-body terms in double.
  NbodyEnergy measure_energy() {
    if (n_ == 0) return {};
    SURGE_CUDA_CHECK(cudaMemsetAsync(scratch_interactions(), 0, sizeof(unsigned long long), stream_));
    gravity_.evaluate(bodies_.data(), n_, true, figure_field_.data(), scratch_interactions(), stream_);
    std::size_t bytes = reduce_scratch_.size();
    SURGE_CUDA_CHECK(cub::DeviceReduce::Reduce(
        reduce_scratch_.data(), bytes, energy_terms(bodies_.data(), velocities_.data(), figure_field_.data()),
        energy_.data(), n_, AddEnergy{}, NbodyEnergy{}, stream_));
    SURGE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<NbodyEnergy> energy;
    copy_to_host(energy, energy_, ledger_, "step figures");
    return energy[0];
  }
  unsigned long long* scratch_interactions() { return &scratch_interactions_.data()[0]; }

  NbodyParameters params_;
  GpuInfo gpu_;
  std::uint32_t n_;
  cudaStream_t stream_ = nullptr;
  GpuGravity gravity_;
  DeviceBuffer<Body<float>> bodies_;
  DeviceBuffer<Vec4f> velocities_, accelerations_, figure_field_;
  DeviceBuffer<std::uint32_t> ids_;
  DeviceBuffer<NbodyDeviceState> state_;
  DeviceBuffer<NbodyEnergy> energy_;
  DeviceBuffer<unsigned long long> scratch_interactions_{1};
  DeviceBuffer<unsigned char> reduce_scratch_;
  NbodyDeviceState* host_state_ = nullptr;  // pinned, for the status readback
  NbodyEnergy initial_energy_;
  // Marks: start | kick + drift | tree build | gravity | kick + clock.
  StageEventTimer events_{{Stage::integration, Stage::index, Stage::forces, Stage::integration}};
  StageTimes times_;
};

}  // namespace

std::size_t device_bytes_per_body(NbodyMethod method) {
  // Body (16), velocity, acceleration and the figures' field (3 x 16), id (4), energy reduction scratch (~0).
  const std::size_t common = sizeof(Body<float>) + 3 * sizeof(Vec4f) + sizeof(std::uint32_t);
  return common + (method == NbodyMethod::barnes_hut ? GpuBarnesHut::device_bytes_per_body() : 0);
}

std::unique_ptr<Simulation> make_cuda_nbody_simulation(const NbodySetup& setup) {
  std::string why_not;
  const auto gpu = query_gpu(&why_not);
  if (!gpu) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::size_t n = setup.size();
  const std::size_t fixed = std::size_t(64) << 20;
  const std::size_t needed = n * device_bytes_per_body(setup.params.method) + fixed;
  if (needed > gpu->free_memory) {
    const std::size_t fit = gpu->free_memory > fixed
                                ? (gpu->free_memory - fixed) / device_bytes_per_body(setup.params.method)
                                : 0;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%zu bodies need %.2f GiB of GPU memory; %s has %.2f GiB free, enough for about %zu", n,
                  double(needed) / double(1ull << 30), gpu->name.c_str(),
                  double(gpu->free_memory) / double(1ull << 30), fit);
    throw CapacityError(text, n, fit);
  }
  return std::make_unique<CudaNbodySimulation>(setup, *gpu);
}

GpuGravityProbe gpu_gravity(const std::vector<Body<float>>& bodies, const NbodyParameters& params,
                            bool with_potential) {
  std::string why_not;
  if (!query_gpu(&why_not)) throw std::runtime_error("no CUDA GPU: " + why_not);
  const std::uint32_t n = std::uint32_t(bodies.size());
  TransferLedger ledger;
  DeviceBuffer<Body<float>> d_bodies;
  DeviceBuffer<Vec4f> d_velocities(n), d_field(n);
  DeviceBuffer<std::uint32_t> d_ids;
  DeviceBuffer<unsigned long long> d_interactions(1);
  std::vector<std::uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);
  copy_to_device(d_bodies, bodies, ledger, "probe bodies");
  copy_to_device(d_ids, ids, ledger, "probe bodies");
  SURGE_CUDA_CHECK(cudaMemset(d_interactions.data(), 0, sizeof(unsigned long long)));
  GpuGravity gravity(params, n);
  gravity.prepare(d_bodies, d_velocities, d_ids, n, nullptr);
  gravity.evaluate(d_bodies.data(), n, with_potential, d_field.data(), d_interactions.data(), nullptr);
  SURGE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Vec4f> field;
  std::vector<unsigned long long> interactions;
  copy_to_host(field, d_field, ledger, "probe result");
  copy_to_host(ids, d_ids, ledger, "probe result");
  copy_to_host(interactions, d_interactions, ledger, "probe result");
  // Barnes-Hut returns bodies in Morton order; ids lead each back to its place.
  GpuGravityProbe probe;
  probe.field.resize(n);
  for (std::uint32_t k = 0; k < n; ++k) probe.field[ids[k]] = field[k];
  probe.interactions =
      params.method == NbodyMethod::barnes_hut ? std::uint64_t(interactions[0]) : std::uint64_t(n) * n;
  return probe;
}

}  // namespace surge
