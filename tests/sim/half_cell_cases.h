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

// The census figure `name` (surge bench's neighbour census); a test failure when it is missing.
inline double census_figure(const std::vector<NamedValue>& figures, const char* name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return 0.0;
}

}  // namespace surge
