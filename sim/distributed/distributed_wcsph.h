// WCSPH over several ranks (docs/multi-rank.md). Each rank runs the ordinary solver (WcsphSolver on the
// CPU executor) over the particles its slab owns plus halo copies of the particles within two supports of
// it on other ranks, then keeps only its owned particles' results:
//
//   load balance   every rebalance_every steps the cuts move to split a global histogram evenly; particles
//                  the moved cuts give another rank migrate to it
//   halo           copies of the owned particles within 2 H of each other rank's slab go to that rank
//   step           the solver steps owned + halo; before it chooses the time step a hook takes the maxima
//                  of the owned particles over every rank (one all-reduce), so all ranks take the same dt
//   keep           owned particles only; the halo copies are dropped (they are re-sent next step)
//   migrate        an owned particle now in another rank's slab goes to it, however many cuts it crossed
//
// Two supports of halo: an owned particle's force reads its neighbours' densities and pressures (one
// support), and each of those densities is a sum over the neighbour's own neighbours (a second support).
// The halo particles' own results are wrong at the halo's outer edge (their neighbourhoods are cut), which
// is why they are dropped and why the maxima skip them. Every rank keeps all the wall particles (static).
// What this cannot do yet is refused when it is built (emitters, moving and floating solids, continuity
// density), with the feature named.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/core/particle_frame.h"
#include "sim/core/step_status.h"
#include "sim/core/transfer_ledger.h"
#include "sim/distributed/communicator.h"
#include "sim/distributed/particle_exchange.h"
#include "sim/distributed/slab_decomposition.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_solver.h"

namespace surge {

enum class InitialCuts { balanced, even };

struct DistributedOptions {
  int rebalance_every = 50;   // steps between load balances; 0 keeps the first cuts
  int histogram_bins = 4096;  // the load balance's resolution along the axis
  InitialCuts initial_cuts = InitialCuts::balanced;
};

// This rank's figures, of the last step and summed over the run.
struct DistributedFigures {
  ExchangeCount halo, migration;      // the last step's
  double exchange_seconds = 0;        // the last step's halo, migration and collectives [s]
  double step_seconds = 0;            // the last step's solver work on this rank [s]
  double total_exchange_seconds = 0;  // over the run [s]
  double total_step_seconds = 0;      // over the run [s]
  long long total_halo_bytes = 0;     // sent, over the run
  long long total_migrated = 0;       // particles sent, over the run
  int rebalances = 0;                 // load balances that moved a cut
};

class DistributedWcsph {
 public:
  // Every rank passes the same whole setup (each builds it from the scene); it keeps its slab's particles.
  // Throws std::invalid_argument naming a feature the ranks cannot share yet.
  DistributedWcsph(Communicator& comm, const SphSetup& setup, DistributedOptions options = {});

  void step();
  // The clock and dt (the same on every rank) and the first instability any rank found.
  StepStatus status() const { return status_; }
  // This rank's owned particles after the last step.
  ParticleFrame owned_frame() const;
  std::size_t owned_count() const { return owned_.size(); }
  const SlabDecomposition& slabs() const { return slabs_; }
  const DistributedFigures& figures() const { return figures_; }
  Communicator& communicator() { return comm_; }

 private:
  void rebalance();
  void load_solver();
  void keep_owned();
  void reduce_maxima(unsigned long long* maxima, const ParticleAcceleration* acceleration);

  Communicator& comm_;
  DistributedOptions options_;
  float halo_width_;  // 2 supports [m]
  SlabDecomposition slabs_;
  TransferLedger ledger_;
  CpuExecutor exec_;
  std::unique_ptr<WcsphSolver<CpuExecutor>> solver_;
  std::vector<ParticleRecord> owned_, halo_;
  std::vector<std::uint8_t> is_owned_;  // by creation id, for the particles in the solver this step
  StepStatus status_;
  long long steps_ = 0;
  double hook_seconds_ = 0;  // the maxima's all-reduce inside the step, counted as exchange
  DistributedFigures figures_;
};

}  // namespace surge
