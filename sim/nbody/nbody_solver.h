// One n-body time step, written once for any executor: CpuExecutor runs it in OpenMP loops in double (the
// reference the conservation tests run), CudaExecutor in kernels in float. Kick-drift-kick leapfrog
// (gravity_physics.h) around one gravity evaluation:
//
//   kick + drift   v += a dt/2 with the last step's accelerations; x += v dt           (integration)
//   tree           Barnes-Hut only: the tree of the new positions; on the GPU the       (index)
//                  bodies move into Morton order
//   gravity        all pairs (the GPU's shared-memory tiled kernel or its naive twin,   (forces)
//                  the CPU's exact sum) or the tree walk
//   kick + check   v += a dt/2 with the new accelerations; a non-finite body stops      (integration)
//                  the run; the clock advances
//
// The gravity passes are the executor's (cpu_gravity.h, gpu_gravity.h): the shared-memory tiling and the
// radix tree built on the device are GPU techniques, each with its plain twin on the host. The clock, the
// instability and the tree's pull count live where the bodies do (NbodyState), so stepping on the GPU
// copies nothing to the host; status() reads them back.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/core/hd.h"
#include "sim/core/named_value.h"
#include "sim/core/particle_frame.h"
#include "sim/core/render_targets.h"
#include "sim/core/stage_times.h"
#include "sim/core/step_status.h"
#include "sim/nbody/cpu_gravity.h"
#include "sim/nbody/nbody_diagnostics.h"
#include "sim/nbody/nbody_parameter_specs.h"
#include "sim/nbody/nbody_setup.h"

namespace surge {

// The gravity passes of an executor: the host's in the solver's precision, the device's in float
// (sim/nbody/gpu_gravity.h, which only .cu files include).
class GpuGravity;
template <typename Exec, typename Real>
using NbodyGravity = std::conditional_t<Exec::kOnDevice, GpuGravity, CpuGravity<Real>>;

// The step's bookkeeping, in the executor's memory: written by the passes, read back by status().
struct NbodyState {
  static constexpr std::uint32_t kNoBody = 0xffffffffu;
  double time_s = 0;
  long long step = 0;
  Instability instability = Instability::none;
  std::uint32_t first_bad = kNoBody;  // lowest index of a body found non-finite in this step
  std::uint32_t bad_body = 0;         // its creation id
  long long bad_step = 0;
  Vec3f bad_position{}, bad_velocity{}, bad_acceleration{};
  unsigned long long interactions = 0;  // pulls summed by the last tree walk
};

namespace nbody_detail {

// The xyz of a velocity or acceleration as the executor stores it, and back.
template <typename T>
SURGE_HD Vec3<T> vector_xyz(const Vec3<T>& v) {
  return v;
}
SURGE_HD Vec3f vector_xyz(const Vec4f& v) {
  return xyz(v);
}
template <typename T>
SURGE_HD void set_vector(Vec3<T>& stored, Vec3<T> v) {
  stored = v;
}
SURGE_HD void set_vector(Vec4f& stored, Vec3f v) {
  stored = make_vec4(v, 0.0f);
}
template <typename T>
SURGE_HD Vec3f to_float(Vec3<T> v) {
  return {float(v.x), float(v.y), float(v.z)};
}

// *target = min(*target, value), atomically on either side: the lowest index wins however the bodies are
// shared out, so the CPU names the body a serial scan would.
SURGE_HD void lower_atomically(std::uint32_t* target, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  atomicMin(target, value);
#else
  std::atomic_ref<std::uint32_t> shared(*target);
  std::uint32_t seen = shared.load(std::memory_order_relaxed);
  while (value < seen && !shared.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
#endif
}

}  // namespace nbody_detail

template <typename Exec, typename Real>
class NbodySolver {
 public:
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;
  using Gravity = NbodyGravity<Exec, Real>;
  using Vector = typename Gravity::Vector;
  static_assert(!Exec::kOnDevice || std::is_same_v<Real, float>, "the GPU's gravity kernels sum in float");

  // SolverSimulation tallies no per-step figures where reading the status waits for the device.
  static constexpr bool kStatusOnDevice = Exec::kOnDevice;
  // A body's position.w is its mass (exports carry it as "mass").
  static constexpr const char* kPositionW = "mass";

  NbodySolver(Exec& exec, const NbodySetup& setup)
      : exec_(exec), params_(setup.params), n_(std::uint32_t(setup.size())), gravity_(params_.method, n_) {
    std::vector<Body<Real>> bodies(n_);
    std::vector<Vector> velocities(n_);
    std::vector<std::uint32_t> ids(n_);
    for (std::uint32_t i = 0; i < n_; ++i) {
      const Body<double>& b = setup.bodies[i];
      const Vec3d v = setup.velocities[i];
      bodies[i] = {Vec3<Real>{Real(b.x.x), Real(b.x.y), Real(b.x.z)}, Real(b.m)};
      nbody_detail::set_vector(velocities[i], Vec3<Real>{Real(v.x), Real(v.y), Real(v.z)});
      ids[i] = i;
    }
    exec.upload(bodies_, bodies, "initial bodies");
    exec.upload(velocities_, velocities, "initial bodies");
    exec.upload(ids_, ids, "initial bodies");
    NbodyState initial;
    initial.time_s = setup.time_s;
    initial.step = setup.step;
    exec.upload(state_, std::vector<NbodyState>{initial}, "initial step state");
    // The first kick needs the accelerations of the initial positions; the energy change needs E(0).
    gravity_.prepare(exec_, bodies_, velocities_, ids_, n_, params_);
    gravity_.accelerate(exec_, bodies_, n_, params_, interactions());
    initial_energy_ = gravity_.energy(exec_, bodies_, velocities_, n_, params_);
  }

  // The StepSolver shape (sim/core/solver.h).
  void step() {
    // On the host the state is at hand and a stopped run does nothing; on the device every pass reads it.
    if constexpr (!Exec::kOnDevice) {
      if (exec_.read_back(state_, "step status").instability != Instability::none) return;
    }
    const Real dt = Real(params_.dt), half_dt = Real(0.5) * dt;
    exec_.begin(Stage::integration);
    kick_and_drift(half_dt, dt);
    exec_.end();
    exec_.begin(Stage::index);
    gravity_.prepare(exec_, bodies_, velocities_, ids_, n_, params_);
    exec_.end();
    exec_.begin(Stage::forces);
    gravity_.accelerate(exec_, bodies_, n_, params_, interactions());
    exec_.end();
    exec_.begin(Stage::integration);
    kick_and_check(half_dt);
    advance_clock(params_.dt);
    exec_.end();
    exec_.count_step();
  }

  StepStatus status() {
    const NbodyState s = exec_.read_back(state_, "step status");
    StepStatus status;
    status.step = long(s.step);
    status.time_s = s.time_s;
    status.dt_s = float(params_.dt);
    status.instability = s.instability;
    if (s.instability != Instability::none) {
      status.bad_step = long(s.bad_step);
      status.bad_particle = s.bad_body;
      status.bad_position = s.bad_position;
      status.bad_velocity = s.bad_velocity;
      status.bad_acceleration = s.bad_acceleration;
    }
    return status;
  }

  // Positions with the mass in w, velocities, creation ids; gravity has no density or pressure (zero).
  void download(ParticleFrame& frame) {
    const StepStatus now = status();
    std::vector<Body<Real>> bodies;
    std::vector<Vector> velocities;
    exec_.download(bodies, bodies_, n_, "export frame");
    exec_.download(velocities, velocities_, n_, "export frame");
    frame.resize(n_);
    exec_.download(frame.id, ids_, n_, "export frame");
    for (std::size_t i = 0; i < n_; ++i) {
      const Body<Real>& b = bodies[i];
      frame.position[i] = make_vec4(nbody_detail::to_float(b.x), float(b.m));
      frame.velocity[i] = make_vec4(nbody_detail::to_float(nbody_detail::vector_xyz(velocities[i])), 0.0f);
      frame.density[i] = 0.0f;
      frame.pressure[i] = 0.0f;
    }
    frame.time_s = now.time_s;
    frame.step = now.step;
  }

  // The overlapped export's device-side snapshot (executors with kSnapshotsOnDevice): a body's position and
  // mass are a Vec4f's bytes; density and pressure come from a zero buffer made at the first export.
  void begin_snapshot(std::size_t slot) {
    static_assert(sizeof(Body<Real>) == sizeof(Vec4f) && sizeof(Vector) == sizeof(Vec4f));
    if (zeros_.size() != n_) exec_.allocate(zeros_, n_);
    exec_.begin_snapshot(slot, {reinterpret_cast<const Vec4f*>(bodies_.data()), velocities_.data(),
                                zeros_.data(), zeros_.data(), ids_.data(), n_});
  }

  // Checkpoints (sim/core/solver_state.h): bodies (in their present order), velocities, ids, the step state
  // and the start's energy the figures refer to. The first kick's accelerations are not stored: after a load
  // they are computed again from the same positions, as the step that ended there computed them.
  template <typename Archive>
  void archive_state(Archive& a) {
    a.constant("nbody.bodies_count", n_);
    a.buffer("nbody.step_state", state_, 1);
    a.buffer("nbody.bodies", bodies_, n_);
    a.buffer("nbody.velocities", velocities_, n_);
    a.buffer("nbody.ids", ids_, n_);
    a.value("nbody.initial_energy", initial_energy_);
    if constexpr (Archive::kLoading) {
      gravity_.prepare(exec_, bodies_, velocities_, ids_, n_, params_);
      gravity_.accelerate(exec_, bodies_, n_, params_, interactions());
    }
  }

  std::string variant_name() const { return std::is_same_v<Real, double> ? "double" : "float"; }
  std::size_t particle_count() const { return n_; }
  std::size_t capacity() const { return n_; }
  std::size_t static_particle_count() const { return 0; }

  std::vector<NamedValue> parameters() const { return describe_parameters(params_); }
  // The accelerations the next step's first kick uses were computed with the old values; its gravity pass
  // and every later one use the new ones. The energy figures keep the start's energy as their reference.
  std::vector<LiveParameter> live_parameters() const { return surge::live_parameters(params_); }
  bool set_parameter(std::string_view name, const ParameterValue& value) {
    return set_live_parameter(params_, name, value);
  }

  // Nothing a step needs to report: the energies are costly and come from diagnostics().
  std::vector<NamedValue> named_figures() const { return {}; }
  // Energies (one more gravity pass, for the potential), their change since the start, momenta, the virial
  // ratio, and the work of the last step.
  std::vector<NamedValue> diagnostics() {
    const bool tree = params_.method == NbodyMethod::barnes_hut;
    // All pairs are counted as the CUDA nbody sample counts them: N^2 pairs (the self-pairs included, which
    // contribute zero), 20 floating-point operations each.
    const double interactions =
        tree ? double(exec_.read_back(state_, "step status").interactions) : double(n_) * double(n_);
    std::vector<NamedValue> figures =
        energy_figures(gravity_.energy(exec_, bodies_, velocities_, n_, params_), initial_energy_);
    figures.push_back({"pair_interactions_per_step", interactions});
    if (!tree) figures.push_back({"flops_per_step", 20.0 * interactions});
    return figures;
  }

  // The viewer's interop path on a device executor: positions (w = mass) and the colouring scalar (speed;
  // gravity has no density or pressure, which read as zero), written on the device.
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) {
    if constexpr (Exec::kOnDevice) {
      const Body<Real>* bodies = bodies_.data();
      const Vector* velocity = velocities_.data();
      Vec4f* out_position = targets.d_position;
      float* out_scalar = targets.d_scalar;
      const ParticleScalar scalar = targets.scalar;
      exec_.for_each(n_, [=] SURGE_LAMBDA(std::uint32_t i) {
        const Body<Real> body = bodies[i];
        out_position[i] = make_vec4(body.x, body.m);
        if (out_scalar) out_scalar[i] = render_scalar(scalar, velocity[i], 0.0f, 0.0f);
      });
      // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
      exec_.synchronize();
      return true;
    } else {
      (void)targets;
      return false;  // the bodies are on the host: the caller downloads them
    }
  }

  // The passes of step(), public for nvcc's extended lambdas.
  void kick_and_drift(Real half_dt, Real dt) {
    Body<Real>* bodies = bodies_.data();
    Vector* velocity = velocities_.data();
    const Vector* acceleration = gravity_.acceleration();
    const NbodyState* state = state_.data();
    exec_.for_each(n_, [=] SURGE_LAMBDA(std::uint32_t i) {
      if (state->instability != Instability::none) return;
      Vec3<Real> v = nbody_detail::vector_xyz(velocity[i]);
      Vec3<Real> x = bodies[i].x;
      kick(v, nbody_detail::vector_xyz(acceleration[i]), half_dt);
      drift(x, v, dt);
      nbody_detail::set_vector(velocity[i], v);
      bodies[i].x = x;
    });
  }

  // The second kick; a body whose position or velocity is no longer finite is marked, the lowest index
  // winning (on the host the lowest creation id, as bodies keep their order there).
  void kick_and_check(Real half_dt) {
    const Body<Real>* bodies = bodies_.data();
    Vector* velocity = velocities_.data();
    const Vector* acceleration = gravity_.acceleration();
    NbodyState* state = state_.data();
    exec_.for_each(n_, [=] SURGE_LAMBDA(std::uint32_t i) {
      if (state->instability != Instability::none) return;
      Vec3<Real> v = nbody_detail::vector_xyz(velocity[i]);
      kick(v, nbody_detail::vector_xyz(acceleration[i]), half_dt);
      nbody_detail::set_vector(velocity[i], v);
      const Vec3<Real> x = bodies[i].x;
      if (!std::isfinite(x.x + x.y + x.z + v.x + v.y + v.z))
        nbody_detail::lower_atomically(&state->first_bad, i);
    });
  }

  // One decision where the state lives: the step counts, and a marked body stops the run.
  void advance_clock(double dt) {
    const Body<Real>* bodies = bodies_.data();
    const Vector* velocity = velocities_.data();
    const Vector* acceleration = gravity_.acceleration();
    const std::uint32_t* ids = ids_.data();
    NbodyState* state = state_.data();
    exec_.single([=] SURGE_LAMBDA() {
      NbodyState& s = *state;
      if (s.instability != Instability::none) return;
      s.step += 1;
      s.time_s += dt;
      if (s.first_bad == NbodyState::kNoBody) return;
      const std::uint32_t k = s.first_bad;
      s.instability = Instability::nan_value;
      s.bad_step = s.step;
      s.bad_body = ids[k];
      s.bad_position = nbody_detail::to_float(bodies[k].x);
      s.bad_velocity = nbody_detail::to_float(nbody_detail::vector_xyz(velocity[k]));
      s.bad_acceleration = nbody_detail::to_float(nbody_detail::vector_xyz(acceleration[k]));
    });
  }

 private:
  unsigned long long* interactions() { return &state_.data()->interactions; }

  Exec& exec_;
  NbodyParameters params_;
  std::uint32_t n_;
  Gravity gravity_;
  Buffer<Body<Real>> bodies_;
  Buffer<Vector> velocities_;
  Buffer<std::uint32_t> ids_;
  Buffer<NbodyState> state_;
  Buffer<float> zeros_;  // density and pressure of the overlapped export's frames
  NbodyEnergy initial_energy_;
};

}  // namespace surge
