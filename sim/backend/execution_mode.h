// Where each stage of a step runs: the classroom's four execution modes (DESIGN.md, "One step").
//
//   mode            index build   physics passes   bus traffic per step
//   cpu             CPU           CPU              none
//   hybrid          CPU           GPU              positions down, sorted order + cell starts up
//   hybrid-overlap  CPU, ahead    GPU              the same every k steps, hidden behind GPU work
//   gpu             GPU           GPU              none
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/solver_kind.h"

namespace surge {

enum class ExecutionMode { cpu, hybrid, hybrid_overlap, gpu };
inline constexpr std::array<ExecutionMode, 4> kExecutionModes = {
    ExecutionMode::cpu, ExecutionMode::hybrid, ExecutionMode::hybrid_overlap, ExecutionMode::gpu};

inline const char* mode_name(ExecutionMode mode) {
  switch (mode) {
    case ExecutionMode::cpu:
      return "cpu";
    case ExecutionMode::hybrid:
      return "hybrid";
    case ExecutionMode::hybrid_overlap:
      return "hybrid-overlap";
    case ExecutionMode::gpu:
      return "gpu";
  }
  return "?";
}

inline std::optional<ExecutionMode> parse_mode(std::string_view name) {
  for (ExecutionMode mode : kExecutionModes)
    if (name == mode_name(mode)) return mode;
  return std::nullopt;
}

inline bool mode_needs_gpu(ExecutionMode mode) {
  return mode != ExecutionMode::cpu;
}

// Why `solver` cannot run in `mode` (`--mode`, and the viewer's live switch); empty when it can, the
// hardware aside. Every solver runs in cpu and gpu, and switches between them live from a download (grains
// with their spin and contact history). The hybrid mode exists for wcsph and for grains (the same cell
// index, built on the CPU); hybrid-overlap, with its skin index, for wcsph only.
inline std::string why_solver_lacks_mode(SolverKind solver, ExecutionMode mode) {
  if (solver == SolverKind::wcsph || mode == ExecutionMode::cpu || mode == ExecutionMode::gpu) return "";
  if (mode == ExecutionMode::hybrid)
    return solver == SolverKind::dem
               ? ""
               : std::string("the hybrid mode runs the wcsph and dem solvers only, not ") +
                     solver_name(solver);
  return std::string("hybrid-overlap runs the wcsph solver only, not ") + solver_name(solver);
}

}  // namespace surge
