// The entry points of the incompressible SPH solvers (DFSPH, PBF): SolverSimulation
// (sim/backend/solver_simulation.h) over the CPU executor (incompressible_cpu.cpp) or the CUDA executor
// (incompressible_cuda.cu).
#pragma once

#include <memory>

#include "sim/backend/simulation.h"
#include "sim/index/index_build.h"
#include "sim/sph/solver_parameters.h"
#include "sim/sph/sph_setup.h"

namespace surge {

std::unique_ptr<Simulation> make_cpu_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph);
std::unique_ptr<Simulation> make_cpu_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf);
// Throw std::runtime_error without CUDA or a GPU, CapacityError when the particles do not fit.
std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build = IndexBuild::radix_sort);
std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build = IndexBuild::radix_sort);

}  // namespace surge
