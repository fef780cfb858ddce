// The entry points of the incompressible SPH solvers (DFSPH, PBF): SolverSimulation
// (sim/backend/solver_simulation.h) over the CPU executor (incompressible_cpu.cpp), the CUDA executor
// (incompressible_cuda.cu) or the hybrid executors (incompressible_hybrid.cu).
#pragma once

#include <memory>

#include "sim/backend/hybrid_options.h"
#include "sim/backend/simulation.h"
#include "sim/index/index_build.h"
#include "sim/sph/solver_parameters.h"
#include "sim/sph/sph_setup.h"

namespace surge {

std::unique_ptr<Simulation> make_cpu_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph);
std::unique_ptr<Simulation> make_cpu_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf);
// Throw std::runtime_error without CUDA or a GPU, CapacityError when the particles do not fit.
// `neighbor_lists`: the solver's passes read per-step neighbour lists (CudaExecutor::build_neighbor_lists);
// false walks the cells in every pass, as before the lists (for comparing the two).
std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build = IndexBuild::radix_sort,
                                                       bool neighbor_lists = true);
std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build = IndexBuild::radix_sort,
                                                     bool neighbor_lists = true);
// The hybrid modes (hybrid_options.h): the cell index built on the CPU; the same exceptions. The ledger and
// step_figures() carry the copies and builds under the names of WCSPH's hybrid backend (hybrid_simulation.h).
std::unique_ptr<Simulation> make_hybrid_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                         const HybridOptions& options);
std::unique_ptr<Simulation> make_hybrid_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                       const HybridOptions& options);

}  // namespace surge
