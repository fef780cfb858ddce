// One weakly compressible SPH step, written once for any executor: CpuExecutor runs it in OpenMP loops,
// CudaExecutor in CUDA kernels. The per-particle equations are in wcsph_physics.h.
//
//   emit                   a layer from the nozzle when one is due (sim/sph/emitter.h)
//   sort by cell           neighbours of the current positions
//   density, pressure      summation density (Akinci et al. 2012, eq. 5); Tait equation of state (Becker &
//                          Teschner 2007, eq. 6). With continuity density the particles carry their density
//                          (sorted with them) and this stage is the equation of state alone
//   accelerations          pressure gradient, artificial viscosity (Monaghan 1992), XSPH, walls, gravity and
//                          the stirring hand; the largest |a| and |v| into the step state as the pass runs.
//                          With continuity density the same visit sums D rho/Dt with delta-SPH diffusion, so
//                          a step visits each neighbourhood once instead of twice
//   time step              Courant, force and viscous conditions, chosen where the state lives (exec.single)
//   integrate              symplectic Euler; with continuity density the Verlet scheme of DualSPHysics in v
//                          and rho (wcsph_physics.h, integrate_verlet); the nozzle's guide, the domain check
//   advance the clock
//
// The step's bookkeeping (WcsphStepState: clock, time step, maxima, instability, the emitter's counters)
// lives in a one-entry buffer on the executor's side, so on the GPU a step needs no readback: status() is
// the one, and the ledger records it. Two GPU techniques are named passes, each with a plain twin on the
// host: the emitter's decision on the device (emit_on_device; the twin, FluidState::emit, decides on the
// host) and the maxima fused into the force pass (for_each_with_max: a block reduction and an atomic on the
// GPU, an OpenMP max reduction on the CPU). ForcePass::split runs the force pass as the divergence lesson's
// fluid and wall passes (docs/lessons/4-divergence.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/max_keys.h"
#include "sim/core/named_value.h"
#include "sim/core/stage_times.h"
#include "sim/core/step_graph_key.h"
#include "sim/core/step_status.h"
#include "sim/sph/fluid_solver.h"
#include "sim/sph/force_pass.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {

// Step bookkeeping kept where the particles are.
struct WcsphStepState {
  double time_s = 0;
  long long step = 0;
  float dt_s = 0;       // of the last step [s]
  float max_speed = 0;  // of the last step [m/s]
  // This step's maxima as max_key()s (sim/core/max_keys.h): |a|^2 with the particle's index, which names the
  // particle when the time step collapses, and |v|^2. Cleared once the time step is chosen.
  unsigned long long maxima[2] = {};
  // The integrate pass's bad particle with the smallest creation id: id << 32 | index; kNoParticle if none.
  unsigned long long bad_key = ~0ull;
  int instability = 0;  // an Instability; the passes stop once it is set
  unsigned int bad_particle = 0;
  long long bad_step = 0;
  Vec3f bad_position{}, bad_velocity{}, bad_acceleration{};
  float bad_density = 0;  // [kg/m^3]: a particle pulled by tension reads below rest density
  // Particles taking part: the first active_count slots. The GPU's emitter grows it on the device.
  unsigned int active_count = 0;
  // The GPU emitter's schedule (EmitterSchedule), kept where the clock is.
  long long next_layer = 0;
  unsigned int next_id = 0;
  int emitter_full = 0;
  unsigned int nozzle_occupied = 0;  // set by the slot check, cleared by the decision
  unsigned int emit_now = 0;         // the decision: a layer enters at emit_first, ids from emit_first_id
  unsigned int emit_first = 0;
  unsigned int emit_first_id = 0;
  float emit_advance = 0;
};

inline constexpr unsigned long long kNoParticle = ~0ull;

// Smallest-wins for the integrate pass's report, from any thread of either executor.
SURGE_HD void atomic_min(unsigned long long* address, unsigned long long value) {
#if defined(__CUDA_ARCH__)
  atomicMin(address, value);
#else
  unsigned long long seen = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (value < seen &&
         !__atomic_compare_exchange_n(address, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

// Whether the wall loop around x would visit at least one wall particle.
SURGE_HD bool near_wall_cells(const GridGeometry& grid, const CellIndexView& boundary, Vec3f x) {
  return cell_candidates(grid, boundary, x) > 0;
}

// The step's two maxima keys for particle i (the speed at the start of the step, as the time step needs).
SURGE_HD MaxKeys<2> step_maxima(const Vec3f& a, const Vec4f& v, std::uint32_t i) {
  MaxKeys<2> keys;
  keys.key[0] = max_key(length_squared(a), i);
  keys.key[1] = max_key(length_squared(xyz(v)));
  return keys;
}

SURGE_HD void record_instability(WcsphStepState& s, int code, std::uint32_t id, const Vec4f& x,
                                 const Vec4f& v, const Vec3f& a, float rho) {
  s.instability = code;
  s.bad_step = s.step;
  s.bad_particle = id;
  s.bad_position = xyz(x);
  s.bad_velocity = xyz(v);
  s.bad_acceleration = a;
  s.bad_density = rho;
}

// The GPU emitter's decision, one thread: layer_to_emit() of the host, from the state's clock and schedule.
SURGE_HD void decide_emission(const EmitterNozzle& nozzle, bool enabled, std::uint32_t capacity,
                              WcsphStepState& s) {
  s.emit_now = 0u;
  const bool occupied = s.nozzle_occupied != 0u;
  s.nozzle_occupied = 0u;
  if (!enabled || s.emitter_full != 0 || s.instability != 0) return;
  const long long layer = latest_due_layer(nozzle, s.time_s);
  if (layer < s.next_layer) return;
  if (std::uint64_t(s.active_count) + nozzle.layer_size > capacity) {
    s.emitter_full = 1;
    return;
  }
  s.next_layer = layer + 1;
  if (occupied) return;  // fluid still in the slot: skip this layer
  s.emit_now = 1u;
  s.emit_first = s.active_count;
  s.emit_first_id = s.next_id;
  s.emit_advance = layer_advance(nozzle, layer, s.time_s);
  s.active_count += nozzle.layer_size;
  s.next_id += nozzle.layer_size;
}

inline StepStatus to_step_status(const WcsphStepState& s) {
  StepStatus st;
  st.step = long(s.step);
  st.time_s = s.time_s;
  st.dt_s = s.dt_s;
  st.max_speed = s.max_speed;
  st.emitter_full = s.emitter_full != 0;
  st.instability = Instability(s.instability);
  st.bad_step = long(s.bad_step);
  st.bad_particle = s.bad_particle;
  st.bad_position = s.bad_position;
  st.bad_velocity = s.bad_velocity;
  st.bad_acceleration = s.bad_acceleration;
  st.bad_density = s.bad_density;
  return st;
}

template <typename Exec>
class WcsphSolver : public FluidSolver<Exec> {
 public:
  using FluidSolver<Exec>::fluid_;
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  // On the GPU reading the status waits for the device and copies: SolverSimulation does not per step.
  static constexpr bool kStatusOnDevice = Exec::kOnDevice;

  WcsphSolver(Exec& exec, const SphSetup& setup, ForcePass force_pass = ForcePass::single)
      : FluidSolver<Exec>(exec, setup),
        force_pass_(force_pass),
        continuity_(setup.params.continuity_density) {
    fluid_.neighbor_lists = false;  // one or two visits a neighbourhood a step: the cells serve them
    const std::uint32_t capacity = fluid_.capacity;
    exec.allocate(acceleration_, capacity);
    allocate_xsph();
    if (continuity_) {
      // The density is state now: the setup's (hydrostatic, or a frame's), moved with the particles.
      exec.upload(fluid_.density, setup.fluid.density, capacity, "initial fluid density");
      exec.allocate(density_rate_, capacity);
      exec.allocate(fluid_.float_scratch, capacity);
      // The Verlet scheme's previous step: none yet (zero density), so the first step is an Euler step. The
      // GPU's reorder swaps the vectors with the scratch, so it must have the capacity too.
      exec.allocate(verlet_before_, capacity);
      fluid_.zero_new(verlet_before_, 0, capacity);
    }
    if (force_pass_ == ForcePass::split) {
      exec.allocate(near_wall_, capacity);
      exec.allocate(near_wall_list_, capacity);
      exec.allocate(near_wall_count_, 1);
    }
    WcsphStepState initial;
    initial.dt_s = setup.params.dt_max;
    // A run continued from a frame (a live mode switch) goes on at the frame's time and step.
    initial.time_s = setup.fluid.time_s;
    initial.step = setup.fluid.step;
    initial.active_count = fluid_.n;
    initial.next_id = fluid_.n;
    initial.next_layer = fluid_.schedule.next_layer;
    exec.upload(state_, std::vector<WcsphStepState>{initial}, "initial step state");
    if constexpr (Exec::kOnDevice) {
      // The device's count of the emitter's particles: without an emitter the host's count is exact.
      if (fluid_.emitter.present) fluid_.device_count = &state_.data()->active_count;
      // The passes cover slots the emitter has not filled yet: they hold zeros, in the arrays and in the
      // reorder's scratch that is swapped with them, rather than whatever the allocation held.
      const std::uint32_t unused = capacity - fluid_.n;
      fluid_.zero_new(fluid_.position, fluid_.n, unused);
      fluid_.zero_new(fluid_.velocity, fluid_.n, unused);
      fluid_.zero_new(fluid_.id, fluid_.n, unused);
      if (continuity_) fluid_.zero_new(fluid_.density, fluid_.n, unused);
      exec.allocate(fluid_.vec4_scratch, capacity);
      exec.allocate(fluid_.id_scratch, capacity);
    }
  }

  // The StepSolver shape (sim/core/solver.h); the members on the particles are FluidSolver's.
  void step() {
    if constexpr (!Exec::kOnDevice) {
      // The host reads the state for free: stop at once. On the GPU every pass checks it instead.
      if (state_.front().instability != 0) return;
    }
    this->with_scene_kernel([&](const auto& kernel) { step(kernel); });
  }
  // What this step's launches take from the host, for a CUDA graph of the step (sim/backend/
  // cuda_step_graphs.h): every buffer address a pass reads (the reorder swaps them step by step), the counts,
  // the parameters and switches by value. None while the emitter runs: the slots the passes cover grow by a
  // layer a step until status() (emit_on_device), so each step would be a new graph.
  std::optional<StepGraphKey> step_graph_key() const {
    if (fluid_.emitter.present && fluid_.schedule.enabled) return std::nullopt;
    StepGraphKey key;
    for (const void* address :
         {(const void*)fluid_.position.data(), (const void*)fluid_.velocity.data(),
          (const void*)fluid_.vec4_scratch.data(), (const void*)fluid_.id.data(),
          (const void*)fluid_.id_scratch.data(), (const void*)fluid_.density.data(),
          (const void*)fluid_.pressure.data(), (const void*)fluid_.float_scratch.data(),
          (const void*)fluid_.boundary.data(), (const void*)fluid_.boundary_cell_start.data(),
          (const void*)fluid_.emitter_layer.data(), (const void*)acceleration_.data(),
          (const void*)xsph_.data(), (const void*)density_rate_.data(), (const void*)verlet_before_.data(),
          (const void*)state_.data(), (const void*)near_wall_.data(), (const void*)near_wall_list_.data(),
          (const void*)near_wall_count_.data()})
      key.add(address);
    key.add(fluid_.n).add(fluid_.pending).add(fluid_.capacity).add(fluid_.params).add(fluid_.grid);
    key.add(fluid_.schedule.enabled).add(this->gauge_count_);
    for (std::uint32_t b = 0; b < fluid_.solids.count(); ++b) key.add(fluid_.solids.summed(b));
    return key;
  }

  // The state, through one small readback on the GPU ("step status"); the active count is known again.
  StepStatus status() {
    const WcsphStepState s = fluid_.exec.read_back(state_, "step status");
    fluid_.n = s.active_count;
    fluid_.pending = 0;
    return to_step_status(s);
  }
  void download(ParticleFrame& frame) {
    const StepStatus st = status();
    fluid_.download(frame);
    frame.time_s = st.time_s;
    frame.step = st.step;
  }
  std::vector<NamedValue> parameters() const { return describe_parameters(fluid_.params, SolverKind::wcsph); }
  std::vector<LiveParameter> live_parameters() const { return surge::live_parameters(fluid_.params); }
  bool set_parameter(std::string_view name, const ParameterValue& value) {
    const bool set = set_live_parameter(fluid_.params, name, value);
    allocate_xsph();  // XSPH turned on while running
    return set;
  }
  // Passes over the fluid that visit the neighbours: density and forces (the split force pass visits the
  // same pairs in two kernels), or with continuity density the one rates pass.
  std::vector<NamedValue> named_figures() const { return {{"neighbor_passes", continuity_ ? 1.0 : 2.0}}; }
  // Figures worth a reduction only when asked (Solver::diagnostics: a run's end, a bench's timed steps done):
  // the average density excess, max(rho_i - rho0, 0) / rho0 over the fluid, the measure DFSPH's and PBF's
  // density_error_percent stop at, so that WCSPH and they compare at equal density error. Not on ranks, where
  // the halo's copies would count twice. (Public: it holds a device lambda.)
  std::vector<NamedValue> diagnostics() {
    if (this->on_ranks() || fluid_.n == 0) return {};
    const float* rho = fluid_.density.data();
    const float rho0 = fluid_.params.rest_density;
    const double excess =
        fluid_.exec.sum(fluid_.n, [=] SURGE_LAMBDA(std::uint32_t i) { return fmaxf(rho[i] - rho0, 0.0f); });
    return {{"density_excess_percent", 100.0 * excess / (double(fluid_.n) * double(rho0))}};
  }
  // The memory floor of a step (Simulation::stage_floor_bytes): the bytes each stage moves if every array
  // it reads or writes is touched once and the neighbours' reads hit the cache. Per fluid particle:
  //   index        read x, write key and slot (24); per 8-bit pass of the radix sort read and write key and
  //                slot (16); the gather of x, v, id and the carried arrays, read and written (72, +40 with
  //                continuity density's rho and Verlet state); 4 B per cell start
  //   density      read x, write rho and p, and p / rho^2 into v's w (56: a 4-byte store into each 16-byte v
  //                moves its sectors both ways, 32); with continuity density read rho, write p, v's w and
  //                x's w (the density, for the force pairs: 72)
  //   forces       read x, v (its w the pressure term), rho, write acceleration and XSPH (60);
  //                continuity adds D rho/Dt (64)
  //   integration  read acceleration, XSPH, x, v, write x, v (88); the Verlet scheme also reads and
  //                writes rho and its previous state (132)
  // and every wall particle read once per neighbour pass (16 B). docs/perf/README.md uses it.
  StageBytes stage_floor_bytes() const {
    const double n = double(fluid_.n), walls = double(this->static_count_);
    const double radix_passes = double((fluid_.grid.key_bits() + 7) / 8);
    StageBytes bytes{};
    bytes[int(Stage::index)] = n * (24.0 + 16.0 * radix_passes + (continuity_ ? 112.0 : 72.0)) +
                               4.0 * double(fluid_.grid.cell_count());
    bytes[int(Stage::density)] = continuity_ ? 72.0 * n : 56.0 * n + 16.0 * walls;
    bytes[int(Stage::forces)] = (continuity_ ? 64.0 : 60.0) * n + 16.0 * walls;
    bytes[int(Stage::integration)] = (continuity_ ? 132.0 : 88.0) * n;
    return bytes;
  }
  std::string variant_name() const { return force_pass_ == ForcePass::split ? "split force pass" : ""; }
  bool continuity_density() const { return continuity_; }
  // With continuity density, the Verlet scheme's previous step (v^{n-1} in xyz, rho^{n-1} in w) in the
  // particles' slot order, carried between steps: a driver of several ranks moves it with its particles.
  Buffer<Vec4f>& verlet_before() { return verlet_before_; }

  // Several processes (sim/distributed/): a host function run after the force pass and before the time
  // step is chosen, given this step's maxima and accelerations, so that a rank can replace the maxima by
  // those of its own particles over every rank and all ranks take the same step. Unset, as in one process,
  // the step is what it always was; a device executor never runs it (a device transport would reduce the
  // maxima where they are).
  using MaximaHook = std::function<void(unsigned long long* maxima, const Vec3f* acceleration)>;
  void set_maxima_hook(MaximaHook hook) { maxima_hook_ = std::move(hook); }
  // The step's bookkeeping where the host can write it (a host executor only): a driver that hands the
  // solver a new set of particles between steps sets the active count with them.
  WcsphStepState& host_step_state() {
    static_assert(!Exec::kOnDevice, "the step state is on the device");
    return state_.front();
  }

  template <typename Kernel>
  void step(const Kernel& kernel) {
    Exec& exec = fluid_.exec;
    exec.begin(Stage::other);
    emit();
    exec.end();

    exec.begin(Stage::index);
    if (continuity_) {
      fluid_.sort_by_cell(fluid_.density, verlet_before_);
    } else {
      fluid_.sort_by_cell();
    }
    exec.end();

    exec.begin(Stage::density);
    if (continuity_) {
      compute_pressure();
    } else {
      compute_density_and_pressure(kernel);
    }
    exec.end();

    exec.begin(Stage::forces);
    if (force_pass_ == ForcePass::split) {
      compute_accelerations_split(kernel);
    } else if (continuity_) {
      compute_rates(kernel);
    } else {
      compute_accelerations(kernel);
    }
    // The floating and gauged solids' force and torque: the reaction to the walls' terms just summed
    // (solid_bodies.h), from the fluid this process counts (on ranks its owned particles).
    FluidFields counted = fluid_fields();
    counted.index = this->counted_fluid(counted.index);
    fluid_.solids.sum_forces(WcsphWallReaction<Kernel>{kernel, fluid_.params, fluid_.grid, counted},
                             fluid_.grid, fluid_.boundary_view());
    exec.end();

    exec.begin(Stage::other);
    if constexpr (!Exec::kOnDevice) {
      if (maxima_hook_) maxima_hook_(state_.front().maxima, acceleration_.data());
    }
    choose_time_step();
    exec.end();

    exec.begin(Stage::integration);
    integrate();
    advance_clock();
    // The solids to the new time, read from the step state where the clock is.
    fluid_.solids.advance(0.0, 0.0f, fluid_.params.gravity, &state_.data()->time_s, &state_.data()->dt_s);
    exec.end();
    exec.count_step();
  }

  // Slots the passes cover: the active particles, and on the GPU those the device may have emitted since.
  std::uint32_t slots() const { return fluid_.n + fluid_.pending; }

  void emit() {
    if (!fluid_.emitter.present) return;
    if constexpr (Exec::kOnDevice) {
      emit_on_device();
    } else {
      emit_on_host();
    }
  }

  // Plain twin of emit_on_device: the host decides from its clock (FluidState::emit, as DFSPH and PBF do).
  void emit_on_host() {
    WcsphStepState& s = state_.front();
    fluid_.status.time_s = s.time_s;  // FluidState::emit schedules by this clock
    if (continuity_) {
      fluid_.emit(verlet_before_);  // a new particle has no previous step
    } else {
      fluid_.emit();
    }
    s.active_count = fluid_.n;
    s.emitter_full = fluid_.schedule.full ? 1 : 0;
  }

  // The emitter on the device, where the clock is: a slot check over the active particles, a one-thread
  // decision, then the layer written after the active ones, which the decision has already counted. The
  // host does not know whether a layer entered, so the passes cover a bound: one layer more per step with
  // the emitter on since the last status(). Nothing crosses the bus.
  void emit_on_device() {
    Exec& exec = fluid_.exec;
    const bool enabled = fluid_.schedule.enabled;
    const EmitterNozzle nozzle = fluid_.emitter.nozzle;
    if (enabled) fluid_.pending = std::min(fluid_.pending + nozzle.layer_size, fluid_.capacity - fluid_.n);
    WcsphStepState* state = state_.data();
    const Vec4f* position = fluid_.position.data();
    if (enabled) {
      exec.for_each(slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
        if (i >= state->active_count) return;
        const long long layer = latest_due_layer(nozzle, state->time_s);
        if (layer < state->next_layer) return;
        // Every writer writes 1: the race is benign.
        if (in_layer_slot(nozzle, xyz(position[i]), layer_advance(nozzle, layer, state->time_s)))
          state->nozzle_occupied = 1u;
      });
    }
    const std::uint32_t capacity = fluid_.capacity;
    exec.single([=] SURGE_LAMBDA() { decide_emission(nozzle, enabled, capacity, *state); });
    const Vec4f* offsets = fluid_.emitter_layer.data();
    const float rest_density = fluid_.params.rest_density;
    Vec4f* positions = fluid_.position.data();
    Vec4f* velocities = fluid_.velocity.data();
    std::uint32_t* ids = fluid_.id.data();
    float* densities = fluid_.density.data();
    float* pressures = fluid_.pressure.data();
    Vec4f* verlet_before = verlet_before_.data();  // null unless continuity density
    exec.for_each(nozzle.layer_size, [=] SURGE_LAMBDA(std::uint32_t k) {
      if (state->emit_now == 0u) return;
      const std::uint32_t slot = state->emit_first + k;
      place_emitted_particle(nozzle, offsets[k], state->emit_advance, positions[slot], velocities[slot]);
      ids[slot] = state->emit_first_id + k;
      densities[slot] = rest_density;
      pressures[slot] = 0.0f;
      if (verlet_before != nullptr) verlet_before[slot] = Vec4f{};  // a new particle has no previous step
    });
  }

  // rho_i by summation over fluid and wall neighbours (Akinci et al. 2012, eq. 5), then p_i from the Tait
  // equation (Becker & Teschner 2007, eq. 6), and p_i / rho_i^2 into v_i's w for the force pass
  // (set_equation_of_state; this pass reads no velocity).
  template <typename Kernel>
  void compute_density_and_pressure(const Kernel& kernel) {
    const SphParameters p = fluid_.params;
    const GridGeometry grid = fluid_.grid;
    const CellIndexView fluid = fluid_.fluid_view(), boundary = fluid_.boundary_view();
    float* density = fluid_.density.data();
    float* pressure = fluid_.pressure.data();
    Vec4f* velocity = fluid_.velocity.data();
    const std::uint8_t* work = this->rank_work();
    const std::uint32_t* id = fluid_.id.data();
    fluid_.exec.for_each(slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
      if (rank_skips(work, id, i, kRankDensity)) return;  // a far halo copy: nobody reads its density
      const float rho = compute_density(kernel, p, grid, fluid, boundary, xyz(fluid.positions[i]));
      density[i] = rho;
      set_equation_of_state(p, rho, pressure[i], velocity[i]);
    });
  }

  // p_i (and p_i / rho_i^2 in v_i's w) from the density the particle carries (continuity density): no
  // neighbours. The density goes into the position's w as well (FluidFields::density_in_position_w), for the
  // force pass's pairs.
  void compute_pressure() {
    const SphParameters p = fluid_.params;
    const WcsphStepState* state = state_.data();
    const float* density = fluid_.density.data();
    float* pressure = fluid_.pressure.data();
    Vec4f* velocity = fluid_.velocity.data();
    Vec4f* position = fluid_.position.data();
    fluid_.exec.for_each(slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
      if (i >= state->active_count) return;
      set_equation_of_state(p, density[i], pressure[i], velocity[i]);
      position[i].w = density[i];
    });
  }

  // a_i and D rho_i / Dt in one pass (wcsph_physics.h, compute_rates), the step's maxima fused into it.
  template <typename Kernel>
  void compute_rates(const Kernel& kernel) {
    const SphParameters p = fluid_.params;
    const GridGeometry grid = fluid_.grid;
    const FluidFields fields = fluid_fields();
    const CellIndexView boundary = fluid_.boundary_view();
    const AccelerationArrays acceleration = acceleration_arrays();
    float* density_rate = density_rate_.data();
    const WcsphStepState* state = state_.data();
    const std::uint8_t* work = this->rank_work();
    const std::uint32_t* id = fluid_.id.data();
    fluid_.exec.template for_each_with_max<2>(
        state_.data()->maxima, slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
          if (i >= state->active_count) return MaxKeys<2>{};
          if (rank_skips(work, id, i, kRankWhole)) {  // a halo copy: its rates would be dropped
            acceleration.store(i, ParticleAcceleration{});
            density_rate[i] = 0.0f;
            return MaxKeys<2>{};
          }
          const ParticleRates rates = surge::compute_rates(kernel, p, grid, fields, boundary, i);
          acceleration.store(i, rates.acceleration);
          density_rate[i] = rates.density_rate;
          return step_maxima(rates.acceleration.acceleration, fields.velocity[i], i);
        });
  }

  // a_i in one pass (wcsph_physics.h, compute_acceleration), the step's maxima fused into it.
  template <typename Kernel>
  void compute_accelerations(const Kernel& kernel) {
    const SphParameters p = fluid_.params;
    const GridGeometry grid = fluid_.grid;
    const FluidFields fields = fluid_fields();
    const CellIndexView boundary = fluid_.boundary_view();
    const AccelerationArrays acceleration = acceleration_arrays();
    const WcsphStepState* state = state_.data();
    const std::uint8_t* work = this->rank_work();
    const std::uint32_t* id = fluid_.id.data();
    fluid_.exec.template for_each_with_max<2>(
        state_.data()->maxima, slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
          if (i >= state->active_count) return MaxKeys<2>{};
          if (rank_skips(work, id, i, kRankWhole)) {  // a halo copy: its acceleration would be dropped
            acceleration.store(i, ParticleAcceleration{});
            return MaxKeys<2>{};
          }
          const ParticleAcceleration a = compute_acceleration(kernel, p, grid, fields, boundary, i);
          acceleration.store(i, a);
          return step_maxima(a.acceleration, fields.velocity[i], i);
        });
  }

  // The divergence lesson's variant of the same sums: the fluid loop for every particle (uniform work across
  // a warp), the wall loop only for the particles next to a wall (compacted into a list), then the XSPH
  // scaling and the maxima.
  template <typename Kernel>
  void compute_accelerations_split(const Kernel& kernel) {
    Exec& exec = fluid_.exec;
    const SphParameters p = fluid_.params;
    const GridGeometry grid = fluid_.grid;
    const FluidFields fields = fluid_fields();
    const CellIndexView boundary = fluid_.boundary_view();
    const AccelerationArrays acceleration = acceleration_arrays();
    const WcsphStepState* state = state_.data();
    std::uint32_t* near_wall = near_wall_.data();
    const bool continuity = continuity_;
    float* density_rate = density_rate_.data();
    const std::uint8_t* work = this->rank_work();
    const std::uint32_t* id = fluid_.id.data();
    exec.for_each(slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
      if (i >= state->active_count) {
        near_wall[i] = 0u;  // not a particle (yet): no wall pass
        return;
      }
      if (rank_skips(work, id, i, kRankWhole)) {  // a halo copy: its acceleration would be dropped
        acceleration.store(i, ParticleAcceleration{});
        if (continuity) density_rate[i] = 0.0f;
        near_wall[i] = 0u;
        return;
      }
      ParticleAcceleration a = start_acceleration(p, fields, i);
      if (continuity) {
        density_rate[i] = add_fluid_rates(kernel, p, grid, fields, i, a);
      } else {
        add_fluid_acceleration(kernel, p, grid, fields, i, a);
      }
      acceleration.store(i, a);
      near_wall[i] = near_wall_cells(grid, boundary, xyz(fields.index.positions[i])) ? 1u : 0u;
    });
    std::uint32_t* listed = near_wall_list_.data();
    const std::uint32_t* count = near_wall_count_.data();
    exec.select_flagged(near_wall, slots(), listed, near_wall_count_.data());
    // Over every slot, as the host does not know the count: those past it leave at once.
    exec.for_each(slots(), [=] SURGE_LAMBDA(std::uint32_t k) {
      if (k >= *count) return;
      const std::uint32_t i = listed[k];
      ParticleAcceleration a = acceleration.load(i);
      if (continuity) {
        density_rate[i] += add_boundary_rates(kernel, p, grid, fields, boundary, i, a);
      } else {
        add_boundary_acceleration(kernel, p, grid, fields, boundary, i, a);
      }
      acceleration.store(i, a);
    });
    exec.template for_each_with_max<2>(state_.data()->maxima, slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
      if (i >= state->active_count) return MaxKeys<2>{};
      ParticleAcceleration a = acceleration.load(i);
      finish_acceleration(p, a);
      acceleration.store(i, a);
      return step_maxima(a.acceleration, fields.velocity[i], i);
    });
  }

  // One thread: the time step from this step's maxima (adaptive_time_step); a collapsed one names the
  // particle with the largest acceleration. The maxima are cleared for the next step.
  void choose_time_step() {
    const SphParameters p = fluid_.params;
    WcsphStepState* state = state_.data();
    const Vec3f* acceleration = acceleration_.data();
    const Vec4f* position = fluid_.position.data();
    const Vec4f* velocity = fluid_.velocity.data();
    const std::uint32_t* id = fluid_.id.data();
    const float* density = fluid_.density.data();
    fluid_.exec.single([=] SURGE_LAMBDA() {
      WcsphStepState& s = *state;
      if (s.instability != 0) return;
      const float max_speed = sqrtf(max_key_value(s.maxima[1]));
      const float max_acceleration = sqrtf(max_key_value(s.maxima[0]));
      s.dt_s = adaptive_time_step(p, max_speed, max_acceleration);
      s.max_speed = max_speed;
      if (s.dt_s < p.dt_min && s.active_count > 0) {
        const std::uint32_t i = max_key_low(s.maxima[0]);
        record_instability(s, int(Instability::dt_collapse), id[i], position[i], velocity[i], acceleration[i],
                           density[i]);
      }
      s.maxima[0] = 0ull;
      s.maxima[1] = 0ull;
    });
  }

  // Symplectic Euler for every particle, or with continuity density the Verlet scheme in v and rho
  // (integrate_verlet); the nozzle guides the layer it let out last (sim/sph/emitter.h) and holds its
  // density. A particle that is not finite or has left the domain is noted for advance_clock's report.
  void integrate() {
    const SphParameters p = fluid_.params;
    const EmitterNozzle nozzle = fluid_.emitter.nozzle;
    const bool guide = fluid_.emitter.present && fluid_.schedule.enabled;
    WcsphStepState* state = state_.data();
    const AccelerationArrays acceleration = acceleration_arrays();
    Vec4f* position = fluid_.position.data();
    Vec4f* velocity = fluid_.velocity.data();
    const std::uint32_t* id = fluid_.id.data();
    const bool continuity = continuity_;
    float* density = fluid_.density.data();
    const float* density_rate = density_rate_.data();
    Vec4f* verlet_before = verlet_before_.data();
    const std::uint8_t* work = this->rank_work();
    fluid_.exec.for_each(slots(), [=] SURGE_LAMBDA(std::uint32_t i) {
      const WcsphStepState& s = *state;
      if (i >= s.active_count || s.instability != 0) return;
      if (rank_skips(work, id, i, kRankWhole)) return;  // a halo copy: dropped after the step
      ParticleAcceleration a = acceleration.load(i);
      Vec4f x = position[i], v = velocity[i];
      bool guided = false;
      if (guide && s.emitter_full == 0 && nozzle_open(nozzle, s.time_s) &&
          in_nozzle_guide(nozzle, xyz(x), id[i])) {
        a = ParticleAcceleration{};
        acceleration.store(i, a);
        v = nozzle_velocity(nozzle);
        guided = true;
      }
      if (continuity) {
        // A guided particle keeps the nozzle's velocity and its density: an Euler step without rates.
        float rho = density[i];
        Vec4f before = verlet_before[i];
        integrate_verlet(s.dt_s, guided || s.step % kVerletEulerInterval == 0, a,
                         guided ? 0.0f : density_rate[i], x, v, rho, before);
        density[i] = rho;
        verlet_before[i] = before;
      } else {
        integrate_particle(s.dt_s, a, x, v);
      }
      position[i] = x;
      velocity[i] = v;
      if (check_particle(p, x, v) != 0) atomic_min(&state->bad_key, (std::uint64_t(id[i]) << 32) | i);
    });
  }

  // One thread: time += dt, and the report of the bad particle with the smallest creation id, if any.
  void advance_clock() {
    const SphParameters p = fluid_.params;
    WcsphStepState* state = state_.data();
    const Vec3f* acceleration = acceleration_.data();
    const Vec4f* position = fluid_.position.data();
    const Vec4f* velocity = fluid_.velocity.data();
    const float* density = fluid_.density.data();
    fluid_.exec.single([=] SURGE_LAMBDA() {
      WcsphStepState& s = *state;
      if (s.instability != 0) return;
      s.step += 1;
      s.time_s += s.dt_s;
      if (s.bad_key == kNoParticle) return;
      const std::uint32_t i = std::uint32_t(s.bad_key & 0xffffffffull);
      record_instability(s, check_particle(p, position[i], velocity[i]), std::uint32_t(s.bad_key >> 32),
                         position[i], velocity[i], acceleration[i], density[i]);
    });
  }

  // Checkpoints (sim/core/solver_state.h): the fluid, the step state where the clock and the device emitter
  // live, and with continuity density the Verlet scheme's previous step.
  template <typename Archive>
  void archive_state(Archive& a) {
    fluid_.archive_state(a);
    a.buffer("wcsph.step_state", state_, 1);
    if (continuity_) a.buffer("wcsph.verlet_before", verlet_before_, fluid_.n);
  }

 private:
  // The XSPH corrections' array, once xsph_epsilon is not zero (at the start or set while running); kept
  // when it goes back to zero.
  void allocate_xsph() {
    if (fluid_.params.xsph_epsilon != 0.0f && xsph_.size() < fluid_.capacity)
      fluid_.exec.allocate(xsph_, fluid_.capacity);
  }
  AccelerationArrays acceleration_arrays() {
    return {acceleration_.data(), xsph_.size() > 0 ? xsph_.data() : nullptr};
  }
  FluidFields fluid_fields() const {
    return {fluid_.fluid_view(), fluid_.velocity.data(), fluid_.density.data(), fluid_.pressure.data(),
            continuity_};
  }

  ForcePass force_pass_;
  bool continuity_;  // continuity density (SphParameters::continuity_density), fixed for the run
  Buffer<Vec3f> acceleration_;
  Buffer<Vec3f> xsph_;          // allocated once XSPH is on (allocate_xsph), else empty
  Buffer<float> density_rate_;  // D rho/Dt of this step, continuity density only
  // v^{n-1} (xyz) and rho^{n-1} (w) of the Verlet scheme, continuity density only; carried through the sort.
  Buffer<Vec4f> verlet_before_;
  Buffer<WcsphStepState> state_;                                        // one entry
  Buffer<std::uint32_t> near_wall_, near_wall_list_, near_wall_count_;  // the split force pass's
  MaximaHook maxima_hook_;                                              // host executors, several ranks
};

}  // namespace surge
