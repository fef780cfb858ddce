// Without nvcc the CUDA entry points exist and say why they cannot run.
#include <stdexcept>

#include "sim/backend/incompressible_simulation.h"

namespace surge {

std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup&, const DfsphParameters&, IndexBuild,
                                                       bool) {
  throw std::runtime_error("built without CUDA");
}

std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup&, const PbfParameters&, IndexBuild,
                                                     bool) {
  throw std::runtime_error("built without CUDA");
}

std::unique_ptr<Simulation> make_hybrid_dfsph_simulation(const SphSetup&, const DfsphParameters&,
                                                         const HybridOptions&) {
  throw std::runtime_error("built without CUDA");
}

std::unique_ptr<Simulation> make_hybrid_pbf_simulation(const SphSetup&, const PbfParameters&,
                                                       const HybridOptions&) {
  throw std::runtime_error("built without CUDA");
}

}  // namespace surge
