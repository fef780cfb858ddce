// The SPH solvers over several ranks (docs/multi-rank.md): WCSPH, DFSPH and PBF. Each rank runs the
// ordinary solver (on the CPU executor) over the particles its slab owns plus halo copies of the particles
// within two supports of it on other ranks, then keeps only its owned particles' results:
//
//   load balance   every rebalance_every steps the cuts move to split a global histogram evenly; particles
//                  the moved cuts give another rank migrate to it
//   halo           copies of the owned particles within 2 H of each other rank's slab go to that rank
//                  (continuity density: H, halo_supports)
//   step           the solver steps owned + halo. WCSPH: before it chooses the time step a hook takes the
//                  maxima of the owned particles over every rank (one all-reduce). DFSPH and PBF
//                  (sim/sph/rank_hooks.h): inside their iterations the halo copies of the iterated values
//                  are refreshed from their owners, and the convergence criterion is averaged over every
//                  rank's owned particles, so every rank iterates as often as one process
//   keep           owned particles only; the halo copies are dropped (they are re-sent next step)
//   migrate        an owned particle now in another rank's slab goes to it, however many cuts it crossed
//
// Two supports of halo: an owned particle's force reads its neighbours' densities and pressures (one
// support), and each of those densities is a sum over the neighbour's own neighbours (a second support).
// The halo particles' own results are wrong at the halo's outer edge (their neighbourhoods are cut), which
// is why they are dropped and why the maxima and averages skip them; WCSPH does not compute them at all
// (RankWork, rank_hooks.h: a copy gets only the density an owned particle reads of it). Every rank keeps all
// the wall particles.
//
// Emitters (emit_layer): every rank takes one process's decision from global figures and keeps the new
// particles that fall in its slab, with one process's creation ids.
//
// Moving and floating solids: every rank keeps all of every solid's particles too (among the walls) and
// moves them itself, rather than only those in its slab and halo: a solid's particles are a shell, few
// beside the fluid (the scenes' bodies have hundreds to a few thousand), and a body that moves across a cut
// then needs no migration of its particles, no halo of walls and no second index of them. A prescribed
// pose is a function of the time, which is the same on every rank. A floating body's fluid force is
// summed per particle over the fluid each rank owns, then over the ranks in rank order
// (sum_in_rank_order), so every rank adds the same contacts and integrates the same motion, bit for bit;
// a body gauge reads that state on any rank.
//
// Sums that one process takes over all its fluid once (the gauges after a step; a fixed solid's force, which
// a force gauge reads, inside it) run on each rank over the particles it owns, through a cell index of
// those alone (owned_fluid, rank_hooks.h), and are added over the ranks: every particle counted once.
//
// WCSPH with continuity density: the density is state, carried in the record, so the halo copies carry
// their owners' density of the step's start, which is all an owned particle's rates read of a neighbour
// (one support; delta-SPH diffusion reads the neighbours' densities and positions, nothing computed in the
// step), so its halo is one support wide (halo_supports). The Verlet scheme's previous step (v^{n-1},
// rho^{n-1}) is read by its own particle only: it is kept by creation id between steps and migrates with its
// particle; the halo copies take an Euler step instead (their results are dropped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/core/named_value.h"
#include "sim/core/particle_frame.h"
#include "sim/core/step_status.h"
#include "sim/core/transfer_ledger.h"
#include "sim/distributed/communicator.h"
#include "sim/distributed/distributed_fluid.h"
#include "sim/distributed/particle_exchange.h"
#include "sim/distributed/slab_decomposition.h"
#include "sim/sph/dfsph_solver.h"
#include "sim/sph/emitter.h"
#include "sim/sph/pbf_solver.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_solver.h"

namespace surge {

// The solver's own settings beside the setup: none for WCSPH.
struct NoSolverSettings {};
template <typename Solver>
struct SolverSettingsOf {
  using type = NoSolverSettings;
};
template <>
struct SolverSettingsOf<DfsphSolver<CpuExecutor>> {
  using type = DfsphParameters;
};
template <>
struct SolverSettingsOf<PbfSolver<CpuExecutor>> {
  using type = PbfParameters;
};

// How many supports of halo a step needs. Summation density (and DFSPH, PBF): 2, as above. WCSPH with
// continuity density: 1. An owned particle's rates read of a neighbour its position, velocity and carried
// density (the pressure is each particle's own, from its density; delta-SPH diffusion reads densities and
// positions): nothing the step computes, so the neighbours within one support are all it needs. Half the
// halo's bytes, and half the copies each rank's solver steps beside its own.
template <typename Solver>
int halo_supports(const SphParameters& params) {
  if constexpr (std::is_same_v<Solver, WcsphSolver<CpuExecutor>>) return params.continuity_density ? 1 : 2;
  return 2;
}

template <typename Solver>
class DistributedSph final : public DistributedFluid {
 public:
  using Settings = typename SolverSettingsOf<Solver>::type;
  static constexpr bool kWcsph = std::is_same_v<Solver, WcsphSolver<CpuExecutor>>;
  static constexpr bool kDfsph = std::is_same_v<Solver, DfsphSolver<CpuExecutor>>;
  // DFSPH's particles carry their warm-start pressure sums from step to step, and across ranks.
  using Record = std::conditional_t<kDfsph, DfsphParticleRecord, ParticleRecord>;

  // Every rank passes the same whole setup (each builds it from the scene); it keeps its slab's particles.
  DistributedSph(Communicator& comm, const SphSetup& setup, DistributedOptions options = {},
                 const Settings& settings = {});

  void step() override;
  ParticleFrame owned_frame() const override;
  std::size_t owned_count() const override { return owned_.size(); }
  std::vector<NamedValue> solver_figures() const override { return solver_->named_figures(); }
  // Gauges (sim/sph/gauges.h, "On ranks"): each rank's sums over the fluid it owned in the last step, added
  // over the ranks (one all-reduce: every rank calls sample_gauges at the same steps), and the values from
  // the totals on every rank; a body gauge from the body's state, the same on every rank.
  // std::invalid_argument for a kind the solver cannot measure.
  bool set_gauges(const std::vector<GaugeProbe>& probes) override;
  void sample_gauges(std::vector<float>& values) override;
  bool gather_state(SolverState& state) override;
  void restore_state(const SolverState& state) override;
  const Solver& solver() const { return *solver_; }
  // The solids' states after the last step (the same bits on every rank).
  std::vector<BodyState> body_states();
  Communicator& communicator() { return comm_; }

 private:
  void emit_layer();
  SolverState owned_particle_sections() const;
  void load_solver();
  void keep_owned();
  ExchangeCount migrate();
  void reduce_maxima(unsigned long long* maxima, const Vec3f* acceleration);
  void refresh_halo(void* values, std::size_t value_bytes);
  void find_halo_slots();
  double owned_average(const float* values);
  void sum_in_rank_order(double* values, std::size_t count);
  CellIndexView owned_fluid(const CellIndexView& all);

  Communicator& comm_;
  DistributedOptions options_;
  float halo_width_;  // halo_supports supports [m]
  TransferLedger ledger_;
  CpuExecutor exec_;
  std::unique_ptr<Solver> solver_;
  std::vector<Record> owned_, halo_;
  long long global_count_ = 0;  // fluid particles over every rank (the emitter adds to it)
  // By creation id, the particles this rank owned in the solver's last (or current) step: kept after the
  // step, so that the gauges count them, and cleared as the next step loads the solver.
  std::vector<std::uint8_t> is_owned_;
  // owned_fluid's index: the owned particles' slots in cell order, and each cell's start among them.
  std::vector<std::uint32_t> owned_cell_start_, owned_order_;
  // WCSPH: by creation id, what each loaded particle's step must compute (RankWork, rank_hooks.h), which
  // the solver reads through its hooks; empty for DFSPH and PBF.
  std::vector<std::uint8_t> work_by_id_;
  // WCSPH with continuity density: the owned particles' Verlet state by creation id (empty otherwise).
  std::vector<Vec4f> verlet_before_by_id_;
  // The halo refreshes of this step: who sent and received which copies, and their slots in the solver
  // once its sort has placed them (found at the first refresh of a step).
  HaloLinks halo_links_;
  bool halo_slots_found_ = false;
  std::vector<std::uint32_t> slot_of_id_;
  std::vector<std::vector<std::uint32_t>> send_slots_, receive_slots_;
  long long steps_ = 0;
  double hook_seconds_ = 0;  // the collectives inside the step (maxima, refreshes, averages): exchange
};

extern template class DistributedSph<WcsphSolver<CpuExecutor>>;
extern template class DistributedSph<DfsphSolver<CpuExecutor>>;
extern template class DistributedSph<PbfSolver<CpuExecutor>>;
using DistributedWcsph = DistributedSph<WcsphSolver<CpuExecutor>>;
using DistributedDfsph = DistributedSph<DfsphSolver<CpuExecutor>>;
using DistributedPbf = DistributedSph<PbfSolver<CpuExecutor>>;

}  // namespace surge
