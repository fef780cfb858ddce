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
#include <functional>

#include "sim/index/neighbor_loop.h"

namespace surge {

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

  bool set() const { return bool(owned_average); }
};

}  // namespace surge
