// The granular solver's backends: both implement surge::Simulation over the single-source contact law in
// sim/dem/dem_physics.h. make_simulation() (sim/backend/simulation_factory.cpp) picks one.
#pragma once

#include <memory>

#include "sim/backend/simulation.h"
#include "sim/dem/dem_setup.h"
#include "sim/index/index_build.h"

namespace surge {

// What to change when a granular run goes unstable (StepStatus::remedy).
inline constexpr const char* kDemRemedy =
    "a contact was too stiff for the time step, or a grain passed through a wall or out of an open face; "
    "lower [dem] collision_time_fraction or time_step, or close the face";

std::unique_ptr<Simulation> make_dem_cpu_simulation(const DemSetup& setup);
// Throws std::runtime_error when the build has no CUDA backend or no GPU is present, and CapacityError
// when the grains do not fit in device memory.
std::unique_ptr<Simulation> make_dem_cuda_simulation(const DemSetup& setup,
                                                     IndexBuild index_build = IndexBuild::radix_sort);

}  // namespace surge
