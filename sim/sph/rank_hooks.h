// Several processes (sim/distributed/, docs/multi-rank.md): what an incompressible solver's iterations ask
// of the other ranks. A rank's solver steps the particles its slab owns plus halo copies of its
// neighbours' particles. An iteration reads its neighbours' current values of the iterated quantity
// (DFSPH's pressure values, PBF's lambda and corrected positions), which change every iteration: a halo
// copied once at the start of the step would be stale after the first one. So the solver asks, between a
// pass that writes such a value and the pass that reads it from neighbours, for the halo copies to be
// overwritten with their owners' current values; and it takes the convergence criterion (an average over
// the fluid) over the owned particles of every rank, so that every rank iterates as often as one process.
//
// Sums over the fluid that a process adds up once, after a step or inside it (the gauges, the fluid's force
// on a solid), must count each particle once over all the ranks: on ranks they run over the cell index of
// the particles the rank owns, which the driver makes from the solver's index (owned_fluid), and the
// driver adds the ranks' sums.
//
// A floating body is the exception: every rank holds all of its particles and integrates its motion, so
// every rank needs the whole fluid force on it, in the same bits (sum_in_rank_order), not a part for the
// driver to add later.
//
// Unset (one process, every executor but a distributed driver's) each call is one empty std::function test
// per iteration on the host; a device executor never calls them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "sim/index/neighbor_loop.h"

namespace surge {

// What a particle's step must compute on a rank, WCSPH (RankHooks::work_by_id). Its owner steps it whole.
// A halo copy's own results are dropped after the step, so it needs only what an owned particle reads of
// it: with summation density, a copy within one support of the slab its density and pressure (an owned
// particle's force reads them), a copy farther out nothing but its position (it is a neighbour of the
// near copies' densities); with continuity density every copy carries what is read of it (its pressure
// comes from its density in a pass with no neighbours).
enum RankWork : std::uint8_t { kRankNeighbourOnly = 0, kRankDensity = 1, kRankWhole = 2 };

// Whether particle i (creation id id[i]) may leave out a pass that needs `needed` (no mask: never).
SURGE_HD bool rank_skips(const std::uint8_t* work_by_id, const std::uint32_t* id, std::uint32_t i,
                         RankWork needed) {
  return work_by_id != nullptr && work_by_id[id[i]] < needed;
}

struct RankHooks {
  // Overwrites the halo copies' entries of a per-particle array (in the solver's slot order, value_bytes
  // each) with their owners' current values; the owned particles' entries are left as they are.
  std::function<void(void* values, std::size_t value_bytes)> refresh_halo;
  // The average of a per-particle value over the particles this rank owns, taken over every rank: the
  // same number on every rank.
  std::function<double(const float* values)> owned_average;
  // The solver's fluid index `all` narrowed to the particles this rank owns: the same arrays, through the
  // view's sorted_order, with cells of owned particles only.
  std::function<CellIndexView(const CellIndexView& all)> owned_fluid;
  // Replaces each of `count` values by its sum over every rank, added in rank order (0, 1, 2, ...) on
  // every rank: the same bits everywhere, which an MPI_Allreduce does not promise (its order may differ
  // from rank to rank).
  std::function<void(double* values, std::size_t count)> sum_in_rank_order;
  // By creation id, each particle's RankWork for this step (WCSPH reads it in its passes; null: every
  // particle whole). The driver rewrites it as it loads the solver. It saves the halo copies' force pass
  // and integration, and with summation density the far copies' density pass.
  const std::uint8_t* work_by_id = nullptr;

  bool set() const { return bool(owned_average); }
};

}  // namespace surge
