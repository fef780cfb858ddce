// One entry point from a scene to a running simulation: the scene's `solver` picks the physics,
// the device picks the backend. The app and the tests go through here, so a new solver is added in one place.
#pragma once

#include <memory>

#include "sim/backend/simulation.h"
#include "sim/index/index_build.h"
#include "sim/scene/scene.h"

namespace surge {

enum class Device { cpu, gpu };

struct SimulationOptions {
  long particles_override = 0;  // > 0 replaces the scene's resolution by a target particle count
  IndexBuild index_build = IndexBuild::radix_sort;  // GPU cell index build
};

// Throws SceneError for a scene that yields no particles, CapacityError when they do not fit on the GPU,
// and std::runtime_error when the build has no CUDA backend or no GPU is present.
std::unique_ptr<Simulation> make_simulation(const Scene& scene, Device device,
                                            const SimulationOptions& options = {});

}  // namespace surge
