// One granular DEM step over the per-grain equations of sim/dem/dem_physics.h, written once for any
// executor: CpuExecutor runs it in OpenMP loops, CudaExecutor in kernels that never wait for the host (the
// time step is fixed, so nothing needs reading back to choose it; status() and the downloads are the only
// copies, and the ledger records them).
//
//   index        sort the grains by cell; gather x, v, (w), id into cell order in one pass
//   forces       one pass over the grains: contacts with grains, fixed grains and wall planes; with Mindlin
//                friction each grain reads its history from last step's buffer and writes this step's
//                into the other, both indexed by creation id (no gather), then they swap
//   integration  symplectic Euler (and the spin), reflecting walls, the domain check and the largest
//                speed, tallied in the same pass; then one decision where the state lives (exec.single):
//                the clock, the step's contact figures and, on an unstable step, the grain that shows it
//
// Why the history is indexed by creation id rather than gathered into cell order with the grains: a
// grain's slots are one contiguous block (16 B a slot, in use from the first), so the thread that owns the
// grain reads and writes whole 32-byte sectors even though the ids of neighbouring threads are scattered;
// a gather by the sorted order would move the same slots once more every step (read + write of all
// `contact_slots` slots, 512 B per grain at 16 slots, against the (contacts + 1) x 32 B the contact pass
// moves). Only the thread of grain i touches grain i's slots, so there are no races and no atomics.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "sim/core/particle_arrays.h"
#include "sim/core/particle_frame.h"
#include "sim/core/render_targets.h"
#include "sim/core/stage_times.h"
#include "sim/core/step_status.h"
#include "sim/core/tally.h"
#include "sim/dem/dem_parameter_specs.h"
#include "sim/dem/dem_physics.h"
#include "sim/dem/dem_setup.h"

namespace surge {

// The grains' arrays in the solver's present order (cell order after a step), for the distributed driver
// (sim/distributed/distributed_dem.h), which loads the grains a rank steps and reads back its own. Executor
// memory: host pointers on the CPU.
struct DemGrainArrays {
  Vec4f* position;          // w = radius [m]
  Vec4f* velocity;          // w = mass [kg]
  Vec4f* angular_velocity;  // null without rotation
  std::uint32_t* id;
  const Vec4f* acceleration;  // the last step's; w = the mean contact stress [Pa]
};

// What to change when a granular run goes unstable (StepStatus::remedy).
inline constexpr const char* kDemRemedy =
    "a contact was too stiff for the time step, or a grain passed through a wall or out of an open face; "
    "lower [dem] collision_time_fraction or time_step, or close the face";

// Step bookkeeping, kept where the grains live (a device buffer on the GPU) and decided there.
struct DemStepState {
  double time_s;
  long long step;
  float max_speed;  // of the last step [m/s]
  int instability;  // Instability
  std::uint32_t bad_particle;
  long long bad_step;
  Vec3f bad_position, bad_velocity, bad_acceleration;
  // Counted by this step's passes, published by finish_dem_step: contacts kept (sum_a), contacts that found
  // no free slot (sum_b) and the most of one grain (max), with Mindlin friction; grains that failed the
  // domain check (sum_a) and the largest squared speed as ordered bits (max).
  TallyTotals contacts_counting, integration_counting;
  // The contact history's figures of the last step.
  unsigned long long contacts, overflow, overflow_total;
  unsigned int most_contacts;
};

// The end of a step, once: the clock, the largest speed and the contact figures and, when the domain check
// failed, the failing grain with the smallest creation id (so every backend names the same grain). That
// search is the rare path: one thread over the grains on the GPU, once, since the run then stops.
SURGE_HD void finish_dem_step(const DemParameters& p, DemStepState& s, const Vec4f* position,
                              const Vec4f* velocity, const Vec4f* acceleration, const std::uint32_t* id,
                              std::uint32_t n) {
  const TallyTotals contacts = s.contacts_counting, integration = s.integration_counting;
  s.contacts_counting = TallyTotals{};
  s.integration_counting = TallyTotals{};
  // Stopped at an earlier step: the clock and the figures stay where the run went unstable.
  if (s.instability != 0) return;
  s.step += 1;
  s.time_s += p.dt;
  s.max_speed = sqrtf(from_ordered_bits(integration.max));
  s.contacts = contacts.sum_a;
  s.overflow = contacts.sum_b;
  s.overflow_total += contacts.sum_b;
  s.most_contacts = contacts.max;
  if (integration.sum_a == 0) return;
  std::uint32_t worst = n;
  int code = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const int c = check_grain(p, position[i], velocity[i]);
    if (c != 0 && (worst == n || id[i] < id[worst])) {
      worst = i;
      code = c;
    }
  }
  if (worst == n) return;
  s.instability = code;
  s.bad_step = s.step;
  s.bad_particle = id[worst];
  s.bad_position = xyz(position[worst]);
  s.bad_velocity = xyz(velocity[worst]);
  s.bad_acceleration = xyz(acceleration[worst]);
}

template <typename Exec>
class DemSolver {
 public:
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  // The step state lives in an executor buffer and is decided there: SolverSimulation does not read it back
  // every step to tally figures.
  static constexpr bool kStatusOnDevice = true;
  // A grain's position.w is its radius (exports carry it as "radius").
  static constexpr const char* kPositionW = "radius";

  // reorder = false keeps the grains in creation order and reads neighbours through the sorted order
  // (DemCpuOptions, the memory-order lesson's switch): the same physics in another memory order.
  DemSolver(Exec& exec, const DemSetup& setup, bool reorder = true)
      : exec_(exec),
        params_(setup.params),
        grid_(setup.grid),
        n_(std::uint32_t(setup.grains.size())),
        capacity_(n_),
        fixed_count_(setup.fixed.size()),
        reorder_(reorder) {
    exec.upload(position_, setup.grains.position, "initial grains");
    exec.upload(velocity_, setup.grains.velocity, "initial grains");
    exec.upload(id_, setup.grains.id, "initial grains");
    if (!setup.fixed.empty()) {
      exec.upload(fixed_, setup.fixed, "fixed grains");
      exec.upload(fixed_cell_start_, setup.fixed_cell_start, "fixed grains");
    }
    exec.allocate(acceleration_, n_);
    if (reorder_) {
      exec.allocate(sorted_position_, n_);
      exec.allocate(sorted_velocity_, n_);
      exec.allocate(sorted_id_, n_);
    }
    if (params_.rotation) {
      if (setup.angular_velocity.empty()) {
        exec.allocate(angular_velocity_, n_);
      } else {
        exec.upload(angular_velocity_, setup.angular_velocity, "grain spin (continued run)");
      }
      exec.allocate(angular_acceleration_, n_);
      if (reorder_) exec.allocate(sorted_angular_velocity_, n_);
    }
    if (params_.friction_model == FrictionModel::mindlin) {
      const std::size_t slots = std::size_t(n_) * params_.contact_slots;
      if (setup.history.empty()) {
        exec.allocate(history_, slots);
        clear_history(history_);
      } else {
        exec.upload(history_, setup.history, "contact history (continued run)");
      }
      exec.allocate(next_history_, slots);
      clear_history(next_history_);
    }
    DemStepState initial{};
    initial.time_s = setup.grains.time_s;
    initial.step = setup.grains.step;
    exec.upload(state_, std::vector<DemStepState>{initial}, "initial step state");
  }

  // The StepSolver shape (sim/core/solver.h).
  void step() {
    if constexpr (!Exec::kOnDevice) {
      // Where the state is host memory the step stops with the run; on the device each pass checks it.
      if (state_[0].instability != 0) return;
    }
    if (n_ == 0) {
      // No grains to move (a rank whose slab is empty): the clock still advances, as every rank's must.
      const DemParameters params = params_;
      DemStepState* state = state_.data();
      exec_.single(
          [=] SURGE_LAMBDA() { finish_dem_step(params, *state, nullptr, nullptr, nullptr, nullptr, 0); });
      return;
    }
    exec_.begin(Stage::index);
    sort_by_cell();
    exec_.end();
    exec_.begin(Stage::forces);
    compute_accelerations();
    exec_.end();
    // No density or "other" stage for grains: the time step is fixed.
    exec_.begin(Stage::integration);
    integrate();
    exec_.end();
    exec_.count_step();
  }

  StepStatus status() {
    const DemStepState s = exec_.read_back(state_, "step status");
    StepStatus status;
    status.step = long(s.step);
    status.time_s = s.time_s;
    status.dt_s = params_.dt;
    status.max_speed = s.max_speed;
    if (s.instability != 0) {
      status.instability = Instability(s.instability);
      status.remedy = kDemRemedy;
      status.bad_step = long(s.bad_step);
      status.bad_particle = s.bad_particle;
      status.bad_position = s.bad_position;
      status.bad_velocity = s.bad_velocity;
      status.bad_acceleration = s.bad_acceleration;
    }
    return status;
  }

  // As the exports carry grains: "density" is the material density, "pressure" the mean contact stress.
  // Grains keep no density or pressure array (download() derives them): those two are null.
  ParticleArrays particle_arrays() {
    if constexpr (Exec::kOnDevice) exec_.synchronize();
    return {position_.data(), velocity_.data(), nullptr, nullptr, id_.data(), n_, Exec::kOnDevice};
  }
  void download(ParticleFrame& frame) {
    const StepStatus status_now = status();
    std::vector<Vec4f> acceleration;
    exec_.download(frame.position, position_, n_, "export frame");
    exec_.download(frame.velocity, velocity_, n_, "export frame");
    exec_.download(frame.id, id_, n_, "export frame");
    exec_.download(acceleration, acceleration_, n_, "export frame");
    frame.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      frame.density[i] = grain_material_density(frame.position[i], frame.velocity[i]);
      frame.pressure[i] = acceleration[i].w;
    }
    frame.time_s = status_now.time_s;
    frame.step = status_now.step;
  }

  // The overlapped export's snapshot (executors with kSnapshotsOnDevice): the exported density and stress
  // are written into buffers of their own first, so the snapshot copies the same five arrays as a fluid's.
  void begin_snapshot(std::size_t slot) {
    if (snapshot_density_.size() != n_) {
      exec_.allocate(snapshot_density_, n_);
      exec_.allocate(snapshot_stress_, n_);
    }
    const Vec4f* position = position_.data();
    const Vec4f* velocity = velocity_.data();
    const Vec4f* acceleration = acceleration_.data();
    float* density = snapshot_density_.data();
    float* stress = snapshot_stress_.data();
    exec_.for_each(n_, [=] SURGE_LAMBDA(std::uint32_t i) {
      density[i] = grain_material_density(position[i], velocity[i]);
      stress[i] = acceleration[i].w;
    });
    exec_.begin_snapshot(slot, {position, velocity, density, stress, id_.data(), n_});
  }

  std::size_t particle_count() const { return n_; }
  std::size_t capacity() const { return capacity_; }

  // The distributed driver's access. It writes the grains a rank steps into the first `n` slots (n at most
  // the setup's grain count, which the buffers hold) and sets the count before a step; after the step the
  // first grain_count() slots hold them in cell order. The contact history stays indexed by creation id
  // (the setup's ids, below its grain count): a grain that arrives from another rank brings its slots.
  DemGrainArrays grain_arrays() {
    return {position_.data(), velocity_.data(), params_.rotation ? angular_velocity_.data() : nullptr,
            id_.data(), acceleration_.data()};
  }
  void set_grain_count(std::uint32_t n) {
    if (n > capacity_) throw std::logic_error("more grains than the solver was built for");
    n_ = n;
  }
  ContactSlot* contact_history() { return history_.size() != 0 ? history_.data() : nullptr; }  // or null
  unsigned contact_slots() const { return params_.contact_slots; }
  const DemParameters& dem_parameters() const { return params_; }
  std::size_t static_particle_count() const { return fixed_count_; }

  std::vector<NamedValue> parameters() const { return describe_parameters(params_); }
  // Every pass copies params_ when it launches: the next step uses the edit.
  std::vector<LiveParameter> live_parameters() const { return surge::live_parameters(params_); }
  bool set_parameter(std::string_view name, const ParameterValue& value) {
    return set_live_parameter(params_, name, value);
  }

  // The contact history's figures (Mindlin friction; none without): they travel with the step state, one
  // recorded readback. Waits for the device either way.
  std::vector<NamedValue> named_figures() {
    if (history_.size() == 0) {
      if constexpr (Exec::kOnDevice) exec_.synchronize();
      return {};
    }
    const DemStepState s = exec_.read_back(state_, "step status");
    return contact_history_figures(s.contacts, s.most_contacts, s.overflow, s.overflow_total,
                                   params_.contact_slots);
  }

  // The viewer's interop path: positions (w = radius) and the colouring scalar, written on the device; the
  // scalar's "density" and "pressure" are download()'s.
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) {
    if constexpr (Exec::kOnDevice) {
      const Vec4f* position = position_.data();
      const Vec4f* velocity = velocity_.data();
      const Vec4f* acceleration = acceleration_.data();
      Vec4f* out_position = targets.d_position;
      float* out_scalar = targets.d_scalar;
      const ParticleScalar scalar = targets.scalar;
      exec_.for_each(n_, [=] SURGE_LAMBDA(std::uint32_t i) {
        const Vec4f x = position[i];
        out_position[i] = x;
        if (out_scalar == nullptr) return;
        const Vec4f v = velocity[i];
        out_scalar[i] = render_scalar(scalar, v, grain_material_density(x, v), acceleration[i].w);
      });
      // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
      exec_.synchronize();
      return true;
    } else {
      (void)targets;
      return false;  // the grains are on the host: the caller downloads them
    }
  }

  // What only grains have (DemSimulation): the spin, in download()'s order (zero without rotation), and the
  // contact history by creation id (empty without Mindlin friction). Both wait.
  void download_angular_velocity(std::vector<Vec4f>& angular_velocity) {
    if (!params_.rotation) {
      if constexpr (Exec::kOnDevice) exec_.synchronize();
      angular_velocity.assign(n_, Vec4f{0, 0, 0, 0});
      return;
    }
    exec_.download(angular_velocity, angular_velocity_, n_, "angular velocity");
  }
  void download_contact_history(std::vector<ContactSlot>& slots) {
    if (history_.size() == 0) {
      if constexpr (Exec::kOnDevice) exec_.synchronize();
      slots.clear();
      return;
    }
    exec_.download(slots, history_, history_.size(), "contact history");
  }

  // The passes of step(), public because they hold device lambdas.

  void sort_by_cell() {
    exec_.build_index(grid_, position_, n_);
    if (!reorder_) return;  // neighbours are read through the sorted order instead
    const std::uint32_t* order = exec_.sorted_order();
    const Vec4f* position = position_.data();
    const Vec4f* velocity = velocity_.data();
    const Vec4f* angular_velocity = params_.rotation ? angular_velocity_.data() : nullptr;
    const std::uint32_t* id = id_.data();
    Vec4f* sorted_position = sorted_position_.data();
    Vec4f* sorted_velocity = sorted_velocity_.data();
    Vec4f* sorted_angular_velocity = params_.rotation ? sorted_angular_velocity_.data() : nullptr;
    std::uint32_t* sorted_id = sorted_id_.data();
    exec_.for_each(n_, [=] SURGE_LAMBDA(std::uint32_t k) {
      const std::uint32_t from = order[k];
      sorted_position[k] = position[from];
      sorted_velocity[k] = velocity[from];
      if (sorted_angular_velocity != nullptr) sorted_angular_velocity[k] = angular_velocity[from];
      sorted_id[k] = id[from];
    });
    position_.swap(sorted_position_);
    velocity_.swap(sorted_velocity_);
    if (params_.rotation) angular_velocity_.swap(sorted_angular_velocity_);
    id_.swap(sorted_id_);
  }

  void compute_accelerations() {
    if (uses_spin_or_history(params_)) {
      contact_pass<true>();
    } else {
      contact_pass<false>();
    }
    if (history_.size() != 0) history_.swap(next_history_);  // this step's slots become the last step's
  }

  // Compiled with and without the spin and history code (uses_spin_or_history): the models that need
  // neither keep the registers, and the speed, of a stateless gather.
  template <bool kSpinOrHistory>
  void contact_pass() {
    const DemParameters params = params_;
    const GridGeometry grid = grid_;
    DemGrainsView grains;
    grains.index = CellIndexView{position_.data(), exec_.cell_start()};
    if (!reorder_) grains.index.sorted_order = exec_.sorted_order();
    grains.velocity = velocity_.data();
    grains.angular_velocity = params.rotation ? angular_velocity_.data() : nullptr;
    grains.id = id_.data();
    const CellIndexView fixed{fixed_.data(), fixed_count_ == 0 ? nullptr : fixed_cell_start_.data()};
    ContactHistoryView history;
    if (history_.size() != 0) history = {history_.data(), next_history_.data(), params.contact_slots};
    Vec4f* acceleration = acceleration_.data();
    Vec4f* angular_acceleration = params.rotation ? angular_acceleration_.data() : nullptr;
    const auto contacts_of = [=] SURGE_LAMBDA(std::uint32_t i) {
      const GrainContactResult result =
          grain_contacts<kSpinOrHistory>(params, grid, grains, fixed, history, i);
      acceleration[i] = result.acceleration;
      if (angular_acceleration != nullptr) angular_acceleration[i] = result.angular_acceleration;
      return Tally{result.contacts, result.overflow, result.contacts};
    };
    if constexpr (kSpinOrHistory) {
      // Only a kept history counts contacts (Mindlin friction, which needs the full pass).
      if (history.current != nullptr) {
        exec_.for_each_tallied(n_, contacts_of, &state_.data()->contacts_counting);
        return;
      }
    }
    exec_.for_each(n_, contacts_of);
  }

  void integrate() {
    const DemParameters params = params_;
    const Vec4f* acceleration = acceleration_.data();
    const Vec4f* angular_acceleration = params.rotation ? angular_acceleration_.data() : nullptr;
    Vec4f* position = position_.data();
    Vec4f* velocity = velocity_.data();
    Vec4f* angular_velocity = params.rotation ? angular_velocity_.data() : nullptr;
    DemStepState* state = state_.data();
    exec_.for_each_tallied(
        n_,
        [=] SURGE_LAMBDA(std::uint32_t i) {
          if (state->instability != 0) return Tally{};
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
          Tally tally;
          tally.sum_a = check_grain(params, x, v) != 0 ? 1u : 0u;
          // A NaN speed is the domain check's to report, not the largest speed.
          const float speed2 = length_squared(xyz(v));
          tally.max = std::isnan(speed2) ? 0u : ordered_bits(speed2);
          return tally;
        },
        &state->integration_counting);
    const std::uint32_t* id = id_.data();
    const std::uint32_t n = n_;
    exec_.single(
        [=] SURGE_LAMBDA() { finish_dem_step(params, *state, position, velocity, acceleration, id, n); });
  }

  // Every slot free (partner kNoPartner): no grain has a contact yet.
  void clear_history(Buffer<ContactSlot>& slots) {
    ContactSlot* slot = slots.data();
    exec_.for_each(std::uint32_t(slots.size()), [=] SURGE_LAMBDA(std::uint32_t k) {
      slot[k] = ContactSlot{Vec3f{}, kNoPartner};
    });
  }

  // Checkpoints (sim/core/solver_state.h): the grains in their present order, their spin, the contact
  // history (by creation id; a grain's list ends at its first free slot, so the stale slots after it are
  // never read) and the step state. The sorted copies are written by each step first.
  template <typename Archive>
  void archive_state(Archive& a) {
    a.constant("dem.grains", n_);
    a.constant("dem.fixed_grains", std::uint64_t(fixed_count_));
    a.constant("dem.contact_slots", params_.contact_slots);
    a.buffer("dem.step_state", state_, 1);
    a.buffer("dem.position", position_, n_);
    a.buffer("dem.velocity", velocity_, n_);
    a.buffer("dem.id", id_, n_);
    if (params_.rotation) a.buffer("dem.angular_velocity", angular_velocity_, n_);
    if (history_.size() != 0) a.buffer("dem.contact_history", history_, history_.size());
    // Not read by the next step, but by an export of the restored state (the grains' contact stress).
    a.buffer("dem.acceleration", acceleration_, n_);
  }

 private:
  Exec& exec_;
  DemParameters params_;
  GridGeometry grid_;
  std::uint32_t n_;         // grains stepped
  std::uint32_t capacity_;  // grains the buffers hold: the setup's
  std::size_t fixed_count_;
  bool reorder_;
  Buffer<Vec4f> position_, velocity_, acceleration_;
  Buffer<std::uint32_t> id_;
  Buffer<Vec4f> sorted_position_, sorted_velocity_, sorted_angular_velocity_;  // the gather's targets
  Buffer<std::uint32_t> sorted_id_;
  Buffer<Vec4f> angular_velocity_, angular_acceleration_;  // rotation only
  Buffer<ContactSlot> history_, next_history_;             // Mindlin friction only; by creation id
  Buffer<Vec4f> fixed_;
  Buffer<std::uint32_t> fixed_cell_start_;
  Buffer<DemStepState> state_;                        // one entry
  Buffer<float> snapshot_density_, snapshot_stress_;  // the overlapped export's, on first use
};

}  // namespace surge
