// The granular (DEM) solver over several ranks (docs/multi-rank.md), on the SPH driver's slabs, exchange
// and load balance (distributed_fluid.h, particle_exchange.h). Each rank runs the ordinary DemSolver (on the
// CPU executor) over the grains its slab owns plus halo copies of the grains within one contact reach of
// it, then keeps only its owned grains' results:
//
//   load balance   every rebalance_every steps the cuts move to split a global histogram evenly; grains the
//                  moved cuts give another rank migrate to it
//   halo           copies of the owned grains within 2 r_max of each other rank's slab go to that rank
//   step           the solver steps owned + halo: one contact pass, no iteration, no hook (the time step is
//                  fixed, so nothing is reduced before it)
//   keep           owned grains only; the halo copies are dropped (they are re-sent next step)
//   migrate        an owned grain now in another rank's slab goes to it, with its contact history
//
// One contact reach of halo: an owned grain's force reads only its touching neighbours (within r_i + r_j,
// at most 2 r_max: the grid's cell) and its own contact history, never a neighbour's computed value. A
// halo grain's own contacts are cut at the halo's outer edge, which is why its results are dropped.
//
// The contact history (Mindlin friction) stays in the solver, indexed by creation id, as in one process:
// the solver on every rank is built for all the setup's grains, so every creation id has its slots there.
// Only the owner's slots of a grain are right (the halo copy's are written from a cut neighbourhood and
// never read); a migrating grain's slots travel after its record (MigrantAttachment) into its new owner's
// solver. The partner keys in them (creation ids, fixed grains, wall faces) mean the same on every rank.
// Every rank keeps all the fixed grains (static).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/core/transfer_ledger.h"
#include "sim/dem/dem_setup.h"
#include "sim/dem/dem_solver.h"
#include "sim/distributed/distributed_fluid.h"

namespace surge {

class DistributedDem final : public DistributedFluid {
 public:
  // Every rank passes the same whole setup (each builds it from the scene); it keeps its slab's grains.
  DistributedDem(Communicator& comm, const DemSetup& setup, DistributedOptions options = {});

  void step() override;
  // Density: the grain's material density; pressure: its mean contact stress (as one process exports).
  ParticleFrame owned_frame() const override;
  std::size_t owned_count() const override { return owned_.size(); }
  // Checkpoints (DistributedFluid): the grains as one process's archive, and the contact history with
  // every grain's slots from its owner.
  bool gather_state(SolverState& state) override;
  void restore_state(const SolverState& state) override;
  // None: the contact history's figures (DemSolver::named_figures) would count the halo copies' contacts.
  std::vector<NamedValue> solver_figures() const override { return {}; }
  // This rank's owned grains after the last step, with their spin (zero without rotation).
  const std::vector<GrainRecord>& owned_grains() const { return owned_; }
  // Tests: what a rank does with a migrating grain's contact history. Carried is the design; dropped (the
  // slots cleared on arrival, as a solver that forgot them would start) shows what carrying them is worth.
  enum class MigratingHistory { carried, dropped };
  void set_migrating_history(MigratingHistory handling) { migrating_history_ = handling; }

 private:
  void load_solver();
  void keep_owned();
  ExchangeCount migrate();

  Communicator& comm_;
  DistributedOptions options_;
  float halo_width_;  // one contact reach, 2 r_max [m]
  TransferLedger ledger_;
  CpuExecutor exec_;
  std::unique_ptr<DemSolver<CpuExecutor>> solver_;
  std::vector<GrainRecord> owned_, halo_;
  std::vector<std::uint8_t> is_owned_;  // by creation id, for the grains in the solver this step
  HaloLinks halo_links_;                // unused: the contact pass needs no refresh
  MigratingHistory migrating_history_ = MigratingHistory::carried;
  long long steps_ = 0;
};

}  // namespace surge
