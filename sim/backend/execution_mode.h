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

// Why a run of `solver` cannot be switched live into `mode` (the viewer's Lessons panel); empty when it
// can, the hardware aside. Every solver's state continues from a download (grains with their spin and
// contact history), so all switch between cpu and gpu; the hybrid modes exist for wcsph only.
inline std::string why_no_live_switch(const std::string& solver, ExecutionMode mode) {
  if (solver == "wcsph" || mode == ExecutionMode::cpu || mode == ExecutionMode::gpu) return "";
  return "the hybrid modes run the wcsph solver only";
}

}  // namespace surge
