// The viewer's Lessons panel (docs/lessons/): switch the running WCSPH simulation between the four execution
// modes with the same particles, and compare what each mode measured in this session: stage times per step
// as a stacked bar, bus bytes per step from the transfer ledger, and the speedup over the cpu mode.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "sim/backend/execution_mode.h"
#include "sim/backend/simulation.h"

namespace surge::app {

// The last measurement of one mode: per-stage milliseconds per step and ledger bytes per step.
struct ModeMeasurement {
  std::array<double, kStageCount> stage_ms_per_step{};
  double bytes_per_step = 0.0;
  double total_ms_per_step() const;
};

class LessonsPanel {
 public:
  // Queries the GPU once: a mode that needs one is greyed out with the reason when there is none.
  LessonsPanel();

  // Why `mode` cannot run `solver` here, or "" when it can.
  std::string why_unavailable(ExecutionMode mode, const std::string& solver) const;

  // One frame's steps in `mode`: the stage times since the last reset and the ledger bytes those steps
  // moved. Frames without steps are ignored.
  void record(ExecutionMode mode, const StageTimes& stages, std::size_t ledger_bytes);

  const std::optional<ModeMeasurement>& measured(ExecutionMode mode) const;
  // cpu ms/step over `mode`'s ms/step, when both were measured.
  std::optional<double> speedup_over_cpu(ExecutionMode mode) const;

  // Draws the panel's contents (inside the caller's ImGui window). Returns the mode the user picked, when
  // it differs from `current`.
  std::optional<ExecutionMode> draw(ExecutionMode current, const std::string& solver) const;

 private:
  std::string why_no_gpu_;  // empty when a CUDA GPU is present
  std::array<std::optional<ModeMeasurement>, kExecutionModes.size()> measured_;
};

}  // namespace surge::app
