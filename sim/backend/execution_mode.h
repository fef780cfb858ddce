// Where each stage of a step runs: the classroom's four execution modes (DESIGN.md, "One step"), the one
// name of that axis (the CLI's `auto` is resolved to one of them before anything is made).
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

// Why `solver` cannot run in `mode`, the hardware aside; empty when it can. The answer comes from the
// factory's table of {solver, mode} -> maker or reason (sim/backend/simulation_factory.cpp), which `--mode`,
// `--modes`, `surge modes` and the viewer's live switch all read.
std::string why_solver_lacks_mode(SolverKind solver, ExecutionMode mode);

}  // namespace surge
