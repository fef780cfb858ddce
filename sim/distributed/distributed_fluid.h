// What every solver on ranks shares (docs/multi-rank.md): the options, the figures, the interface the
// commands see, and the steps of the driver that do not depend on the solver: the first cuts, the load
// balance, the migration's tally and the end-of-step reduction of the status. The SPH driver
// (distributed_sph.h) and the DEM driver (distributed_dem.h) call them at the same points of their steps.
#pragma once

#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/named_value.h"
#include "sim/core/particle_frame.h"
#include "sim/core/solver_state.h"
#include "sim/core/step_status.h"
#include "sim/core/vec.h"
#include "sim/distributed/communicator.h"
#include "sim/distributed/particle_exchange.h"
#include "sim/distributed/slab_decomposition.h"
#include "sim/sph/gauge.h"

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
  std::size_t refresh_bytes = 0;      // the last step's halo refreshes inside the iterations and floating
                                      // bodies' force sums over the ranks, sent
  int refreshes = 0;                  // the last step's (DFSPH and PBF; 0 for WCSPH and DEM)
  double exchange_seconds = 0;        // the last step's halo, refreshes, migration and collectives [s]
  double step_seconds = 0;            // the last step's solver work on this rank [s]
  double total_exchange_seconds = 0;  // over the run [s]
  double total_step_seconds = 0;      // over the run [s]
  long long total_halo_bytes = 0;     // sent, over the run
  long long total_refresh_bytes = 0;  // sent, over the run
  long long total_refreshes = 0;      // over the run
  long long total_migrated = 0;       // particles sent, over the run
  int rebalances = 0;                 // load balances that moved a cut
};

// What the commands see of a distributed run, whichever solver runs it. The driver's step keeps the slabs,
// the figures and the status here.
class DistributedFluid : public GaugeSource {
 public:
  virtual void step() = 0;
  // The clock and dt (the same on every rank) and the first instability any rank found.
  StepStatus status() const { return status_; }
  // This rank's owned particles after the last step.
  virtual ParticleFrame owned_frame() const = 0;
  virtual std::size_t owned_count() const = 0;
  const SlabDecomposition& slabs() const { return slabs_; }
  const DistributedFigures& figures() const { return figures_; }
  // The solver's figures of the last step (DFSPH's and PBF's iterations: the same on every rank).
  virtual std::vector<NamedValue> solver_figures() const = 0;
  // Gauges: the SPH drivers' (distributed_sph.h); none for DEM.
  bool set_gauges(const std::vector<GaugeProbe>&) override { return false; }
  void sample_gauges(std::vector<float>& values) override { values.clear(); }
  // Checkpoints (docs/checkpoints.md, "On ranks"). gather_state, a collective after a step: the run's
  // state in one process's checkpoint sections (sim/core/solver_state.h), every rank's owned particles
  // gathered in rank order, plus the ranks' layout (their count, cuts and owned counts), into `state` on
  // rank 0 (left empty on the others); false on every rank for a solver that keeps none on ranks.
  // restore_state, on every rank with the whole state (each rank reads the file): on as many ranks as
  // wrote it, each takes its own particles back in their order and the cuts, so the run continues bit for
  // bit; on another count, or from a one-process checkpoint (no layout), the first cuts are balanced over
  // the particles and each rank takes those in its slab. Not a collective (a rank that finds the state
  // wrong throws while the others go on: the caller agrees on the outcome, rank_agreement.h). StateMismatch,
  // naming the section, for a state this run cannot take.
  virtual bool gather_state(SolverState& state) {
    state.sections.clear();
    return false;
  }
  virtual void restore_state(const SolverState&) {
    throw StateMismatch("this solver keeps no checkpoints on several ranks");
  }

 protected:
  SlabDecomposition slabs_;
  DistributedFigures figures_;
  StepStatus status_;
};

// The drivers' clock: what the exchange and the solver's work took [s].
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The first slabs, along the domain's longest axis: cut evenly, or to balance `positions`. Every rank
// passes the same whole setup, so every rank computes the same cuts without communicating.
SlabDecomposition first_slabs(Vec3f domain_min, Vec3f domain_max, std::span<const Vec4f> positions, int ranks,
                              const DistributedOptions& options);

// Whether the step after `steps` steps starts with a load balance.
inline bool rebalance_due(const DistributedOptions& options, long long steps) {
  return options.rebalance_every > 0 && steps > 0 && steps % options.rebalance_every == 0;
}

// The load balance: the cuts moved to split the owned particles of every rank evenly (one sum of a
// histogram); a move is counted in `figures`. The caller then migrates what the new cuts gave away.
void rebalance_slabs(Communicator& comm, SlabDecomposition& slabs, std::span<const Vec4f> owned_positions,
                     int histogram_bins, DistributedFigures& figures);
template <typename Record>
void rebalance_slabs(Communicator& comm, SlabDecomposition& slabs, const std::vector<Record>& owned,
                     int histogram_bins, DistributedFigures& figures) {
  std::vector<Vec4f> positions(owned.size());
  for (std::size_t k = 0; k < owned.size(); ++k) positions[k] = owned[k].position;
  rebalance_slabs(comm, slabs, std::span<const Vec4f>(positions), histogram_bins, figures);
}

void add_exchange(ExchangeCount& into, const ExchangeCount& more);

// A checkpoint written on ranks (DistributedFluid::gather_state) is one process's with the ranks' layout
// after it, in sections named "ranks.*": without them one process resumes it.
bool is_rank_layout_section(std::string_view name);
// Whether `state` had the ranks' layout (it was written on ranks).
bool remove_rank_layout(SolverState& state);

// The end of a step on every rank (one max reduction): the largest instability code over the ranks goes
// into `status` (one rank's blow-up stops them all), and the largest of the ranks' `owned_speed` [m/s] is
// returned, the speed one process would have found over all its particles.
float reduce_step_status(Communicator& comm, StepStatus& status, float owned_speed);

// The step's exchange time and figures added to the run's totals.
void add_step_to_totals(DistributedFigures& figures, double exchange_seconds);

}  // namespace surge
