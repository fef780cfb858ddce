// Summation-order twins. Two runs that sum each particle's neighbours in different orders (the CPU and the
// GPU, cells of one and of half a support, the gpu and hybrid-overlap modes, one process and several ranks)
// differ by rounding that the flow then amplifies, DFSPH's and PBF's solves most of all: an iteration that
// stops where an error falls below a target can stop one iteration apart. How far that goes is a property of
// the run, not of the code under test, so a fixed figure set from one build's spread is too tight for the
// next build's code generation. The twin measures it: the same run with its fluid particles in reverse order,
// which changes nothing but the order of every neighbour sum (the cell sort is stable). A comparison of two
// orders is then bounded by kSummationOrderFactor times what the reference differs from its twin.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// Two arbitrary orders against one pair of them. The ranks' tests (tests/distributed/mpi_ranks_test.cpp)
// measured up to 1.13 times the twin's difference for positions after long runs; the GPU adds fused
// multiply-adds and its own reciprocal square root on top of the order, so a little more room.
constexpr double kSummationOrderFactor = 3.0;

// Applies `reorder` (one call per array) to every per-particle array of `frame`, so that each reordering
// names the arrays once.
template <typename Reorder>
void reorder_particles(ParticleFrame& frame, Reorder&& reorder) {
  reorder(frame.position);
  reorder(frame.velocity);
  reorder(frame.id);
  reorder(frame.density);
  reorder(frame.pressure);
}

inline void reverse_particles(ParticleFrame& frame) {
  reorder_particles(frame, [](auto& values) { std::reverse(values.begin(), values.end()); });
}

// `setup` with its fluid particles (and their hydrostatic start) in reverse order.
inline SphSetup reversed(SphSetup setup) {
  reverse_particles(setup.fluid);
  std::reverse(setup.hydrostatic_pressure.begin(), setup.hydrostatic_pressure.end());
  return setup;
}

// `setup` with its fluid particles (and their hydrostatic start) in a shuffled order, the same for a given
// seed: a second sample of the order's effect beside the reversed one. (Reversed, every cell's particles are
// summed in the opposite order; shuffled, in an unrelated one.)
inline SphSetup shuffled(SphSetup setup, unsigned seed) {
  const std::size_t n = setup.fluid.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  const auto permute = [&](auto& values) {
    if (values.size() != n) return;  // the hydrostatic start is empty where a scene has none
    auto copy = values;
    for (std::size_t k = 0; k < n; ++k) values[k] = copy[order[k]];
  };
  reorder_particles(setup.fluid, permute);
  permute(setup.hydrostatic_pressure);
  return setup;
}

// The fluid scene `scene` as make_simulation(scene, mode, options) makes it, its particles in reverse order.
// The cpu and gpu modes (the references the GPU tests compare against).
inline std::unique_ptr<Simulation> make_reversed_simulation(const Scene& scene, ExecutionMode mode,
                                                            const SimulationOptions& options = {}) {
  const SphSetup setup = reversed(build_setup(scene, options.particles_override));
  const bool gpu = mode == ExecutionMode::gpu;
  if (!gpu && mode != ExecutionMode::cpu) throw std::invalid_argument("reversed twins: cpu or gpu mode");
  switch (scene.solver) {
    case SolverKind::wcsph:
      return make_wcsph_simulation(setup, mode, options);
    case SolverKind::dfsph:
      return gpu ? make_cuda_dfsph_simulation(setup, scene.dfsph, options.index_build)
                 : make_cpu_dfsph_simulation(setup, scene.dfsph);
    case SolverKind::pbf:
      return gpu ? make_cuda_pbf_simulation(setup, scene.pbf, options.index_build)
                 : make_cpu_pbf_simulation(setup, scene.pbf);
    default:
      throw std::invalid_argument("reversed twins: a fluid solver");
  }
}

// The bound of a comparison between two summation orders: kSummationOrderFactor times the reference's
// difference from its twin, and never below `floor` (the fixed bound the comparison had, which the runs
// meet when their twin differs by little). `ceiling` keeps the bound meaningful: a twin that differs by more
// means the run amplifies rounding into another flow, and then the comparison proves nothing, which fails.
inline double summation_order_bound(const char* what, double twin_difference, double floor, double ceiling) {
  EXPECT_LE(kSummationOrderFactor * twin_difference, ceiling)
      << what << ": the run's own order sensitivity is too large for a comparison to mean anything";
  const double bound = std::max(floor, kSummationOrderFactor * twin_difference);
  std::printf("[ order ] %s: the reversed twin differs by %.3e; allowed %.3e (floor %.3e, ceiling %.3e)\n",
              what, twin_difference, bound, floor, ceiling);
  return bound;
}

}  // namespace surge
