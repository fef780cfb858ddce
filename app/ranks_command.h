// `surge run` and `surge bench` under a launcher that started several ranks (mpirun -np N, N > 1): the
// scene's fluid (WCSPH, DFSPH or PBF) split into slabs over the ranks (sim/distributed/,
// docs/multi-rank.md). What the ranks cannot share yet is refused before any step, naming the feature
// (exit 2); a build without MPI says so.
#pragma once

#include "app/bench_command.h"
#include "app/run_command.h"

namespace surge::app {

// Whether a launcher started more than one rank (its environment says so, MPI built or not).
bool launched_on_several_ranks();
int run_scene_on_ranks(const RunOptions& options);
int run_bench_on_ranks(const BenchOptions& options);

}  // namespace surge::app
