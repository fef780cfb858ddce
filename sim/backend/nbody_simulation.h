// The n-body solver (nbody_solver.h) behind surge::Simulation, on the CPU or the GPU executor through
// SolverSimulation (made in sim/backend/nbody_cpu.cpp and nbody_cuda.cu). make_simulation() picks one for a
// scene with solver = "nbody".
#pragma once

#include <memory>

#include "sim/backend/simulation.h"
#include "sim/nbody/nbody_setup.h"

namespace surge {

// OpenMP, in double: all_pairs and all_pairs_naive are the same exact sum here; barnes_hut uses the CPU
// tree (barnes_hut_cpu.h).
std::unique_ptr<Simulation> make_cpu_nbody_simulation(const NbodySetup& setup);
// Float on the device, nothing crosses the bus while stepping. Throws std::runtime_error without CUDA or
// a GPU, CapacityError when the bodies do not fit.
std::unique_ptr<Simulation> make_cuda_nbody_simulation(const NbodySetup& setup);

}  // namespace surge
