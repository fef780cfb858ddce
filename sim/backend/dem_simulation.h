// The granular solver's backends: DemSolver (sim/dem/dem_solver.h, over the single-source contact law in
// sim/dem/dem_physics.h) on the CPU, GPU or hybrid executor behind surge::Simulation. make_simulation()
// (sim/backend/simulation_factory.cpp) picks one.
#pragma once

#include <memory>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/dem/contact_history.h"
#include "sim/dem/dem_setup.h"
#include "sim/index/index_build.h"

namespace surge {

// A granular run, with what only grains have: spin and contact history (for tests and diagnostics).
class DemSimulation : public Simulation {
 public:
  // Angular velocity of every grain, xyz [rad/s], in the order download() gives the grains (zero without
  // rotation). Waits; a copy the ledger records on the GPU.
  virtual void download_angular_velocity(std::vector<Vec4f>& angular_velocity) = 0;
  // The contact history after the last step: contact_slots slots per grain, by creation id
  // (sim/dem/contact_history.h); empty without Mindlin friction. Waits; a recorded copy on the GPU.
  virtual void download_contact_history(std::vector<ContactSlot>& slots) = 0;
};

// How the CPU backend steps (the GPU backends always reorder). reorder = false keeps the grains in creation
// order and reads neighbours through the sorted order instead (the memory-order lesson's switch): the physics
// is the same, and a test compares the two to show that the contact history does not depend on where a grain
// sits in memory.
struct DemCpuOptions {
  bool reorder = true;
};

std::unique_ptr<DemSimulation> make_dem_cpu_simulation(const DemSetup& setup, DemCpuOptions options = {});
// Throws std::runtime_error when the build has no CUDA backend or no GPU is present, and CapacityError
// when the grains do not fit in device memory.
std::unique_ptr<DemSimulation> make_dem_cuda_simulation(const DemSetup& setup,
                                                        IndexBuild index_build = IndexBuild::radix_sort);
// The classroom's hybrid mode for grains: the cell index built on the CPU every step (positions down, sorted
// order and cell starts up, all on the step's critical path), contacts and integration on the GPU. Throws
// as make_dem_cuda_simulation.
std::unique_ptr<DemSimulation> make_dem_hybrid_simulation(const DemSetup& setup);

}  // namespace surge
