// The solver cases that step alike with cells of one and of half a support, shared by the CPU test
// (tests/sim/half_cell_search_test.cpp) and its GPU twin (tests/gpu/half_cells_gpu_test.cpp), and the figure
// lookup both read the neighbour census with.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "sim/core/named_value.h"
#include "sim/core/solver_kind.h"
#include "sim/scene/scene.h"

namespace surge {

struct HalfCellSolverCase {
  const char* name;
  SolverKind solver;
  bool continuity;
  int steps;
  // Largest position difference allowed, in spacings: WCSPH's sums in another order differ by rounding;
  // DFSPH and PBF iterate to a target, which such rounding can move by an iteration.
  double tolerance;
};

inline const HalfCellSolverCase kHalfCellSolverCases[] = {
    {"wcsph", SolverKind::wcsph, false, 100, 1e-3},
    {"wcsph_continuity", SolverKind::wcsph, true, 100, 1e-3},
    {"dfsph", SolverKind::dfsph, false, 30, 1e-2},
    {"pbf", SolverKind::pbf, false, 30, 1e-2}};

inline std::string half_cell_case_name(const ::testing::TestParamInfo<HalfCellSolverCase>& info) {
  return info.param.name;
}

// The dam break under the case's solver, with whole cells. Fixed iteration counts: an adaptive count one
// iteration apart is a rounding matter, not a wrong pass.
inline Scene half_cell_case_scene(const HalfCellSolverCase& c) {
  Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/dam_break.toml"));
  scene.solver = c.solver;
  scene.continuity_density = c.continuity;
  scene.dfsph.min_iterations = scene.dfsph.max_iterations = 4;
  scene.dfsph.density_error = 1e-6f;
  scene.dfsph.divergence_error = 1.0f;
  scene.pbf.density_error = 0.0f;
  return scene;
}

// The census figure `name` (surge bench's neighbour census); a test failure when it is missing.
inline double census_figure(const std::vector<NamedValue>& figures, const char* name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return 0.0;
}

}  // namespace surge
