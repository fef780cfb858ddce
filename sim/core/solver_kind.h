// The solvers a scene can name (`solver = "..."`, docs/scenes.md). The loader parses the name once, so the
// rest of the program compares enums and a misspelt name cannot reach a backend.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace surge {

enum class SolverKind { wcsph, dfsph, pbf, nbody, dem };
inline constexpr std::array<SolverKind, 5> kSolverKinds = {
    SolverKind::wcsph, SolverKind::dfsph, SolverKind::pbf, SolverKind::nbody, SolverKind::dem};

// The name a scene file writes; a C string so messages can append it to a std::string.
constexpr const char* solver_name(SolverKind solver) {
  switch (solver) {
    case SolverKind::wcsph:
      return "wcsph";
    case SolverKind::dfsph:
      return "dfsph";
    case SolverKind::pbf:
      return "pbf";
    case SolverKind::nbody:
      return "nbody";
    case SolverKind::dem:
      return "dem";
  }
  return "?";
}

constexpr std::optional<SolverKind> parse_solver_kind(std::string_view name) {
  for (SolverKind solver : kSolverKinds)
    if (name == solver_name(solver)) return solver;
  return std::nullopt;
}

// The SPH fluids: they share [domain], [resolution], [fluid], [[emitter]] and the fluid backends' setup.
constexpr bool is_fluid_solver(SolverKind solver) {
  return solver == SolverKind::wcsph || solver == SolverKind::dfsph || solver == SolverKind::pbf;
}

}  // namespace surge
