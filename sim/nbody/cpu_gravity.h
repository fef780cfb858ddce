// The n-body solver's gravity passes on a host executor, in the solver's precision (double for the
// reference): the exact all-pairs sum and the CPU Barnes-Hut tree (barnes_hut_cpu.h). They are the plain
// twins of the GPU's passes (gpu_gravity.h): the shared-memory tiled sum and the radix tree built on the
// device, which tests/gpu/nbody_gravity_test.cpp compares with them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/nbody/barnes_hut_cpu.h"
#include "sim/nbody/nbody_diagnostics.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

template <typename Real>
class CpuGravity {
 public:
  // Velocities and accelerations as the host stores them.
  using Vector = Vec3<Real>;

  CpuGravity(NbodyMethod, std::uint32_t) {}

  // The index stage: Barnes-Hut's tree of the current positions; the bodies keep their order here.
  template <typename Exec>
  void prepare(Exec&, const std::vector<Body<Real>>& bodies, std::vector<Vector>&,
               std::vector<std::uint32_t>&, std::uint32_t, const NbodyParameters& params) {
    if (params.method == NbodyMethod::barnes_hut) tree_.build(bodies, Real(params.theta));
  }

  // The forces stage: acceleration() of every body; *interactions = the pulls summed (all pairs: N^2).
  // all_pairs and all_pairs_naive are the same exact sum on the host.
  template <typename Exec>
  void accelerate(Exec&, const std::vector<Body<Real>>& bodies, std::uint32_t, const NbodyParameters& params,
                  unsigned long long* interactions) {
    if (params.method == NbodyMethod::barnes_hut) {
      tree_.gravity(Real(params.gravitational_constant), Real(params.softening),
                    std::uint32_t(params.leaf_size), false, field_);
    } else {
      all_pairs_gravity(bodies, Real(params.gravitational_constant), Real(params.softening), false, field_);
    }
    *interactions = field_.interactions;
  }
  const Vector* acceleration() const { return field_.acceleration.data(); }

  // Energies need the potential, which stepping does not compute: one more gravity pass, into a field of
  // its own so that stepping's accelerations stay.
  template <typename Exec>
  NbodyEnergy energy(Exec&, const std::vector<Body<Real>>& bodies, const std::vector<Vector>& velocities,
                     std::uint32_t, const NbodyParameters& params) {
    GravityField<Real> with_potential;
    if (params.method == NbodyMethod::barnes_hut) {
      tree_.compute(bodies, Real(params.gravitational_constant), Real(params.softening), Real(params.theta),
                    std::uint32_t(params.leaf_size), true, with_potential);
    } else {
      all_pairs_gravity(bodies, Real(params.gravitational_constant), Real(params.softening), true,
                        with_potential);
    }
    return measure_energy(bodies, velocities, with_potential.potential);
  }

 private:
  CpuBarnesHut<Real> tree_;
  GravityField<Real> field_;
};

}  // namespace surge
