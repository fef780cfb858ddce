// The granular solver behind DemSimulation: SolverSimulation (the one adapter) plus what only grains have,
// forwarded to the solver. Included by the files that make the backends (dem_cpu.cpp, dem_cuda.cu).
#pragma once

#include <vector>

#include "sim/backend/dem_simulation.h"
#include "sim/backend/solver_simulation.h"
#include "sim/dem/dem_solver.h"

namespace surge {

template <typename Exec>
class DemSolverSimulation final : public SolverSimulation<Exec, DemSolver<Exec>, DemSimulation> {
 public:
  using SolverSimulation<Exec, DemSolver<Exec>, DemSimulation>::SolverSimulation;

  void download_angular_velocity(std::vector<Vec4f>& angular_velocity) override {
    this->solver().download_angular_velocity(angular_velocity);
  }
  void download_contact_history(std::vector<ContactSlot>& slots) override {
    this->solver().download_contact_history(slots);
  }
};

}  // namespace surge
