// The viewer's Lessons panel (docs/lessons/): switch the running WCSPH simulation between the four execution
// modes with the same particles, and compare what each mode measured in this session: stage times per step
// as a stacked bar, bus bytes per step from the transfer ledger, and the speedup over the cpu mode.
#pragma once

#include <optional>
#include <string>

#include "app/mode_comparison.h"

namespace surge::app {

class LessonsPanel {
 public:
  // Queries the GPU once: a mode that needs one is greyed out with the reason when there is none.
  LessonsPanel();

  // One frame's steps in `mode` (ModeComparison::record).
  void record(ExecutionMode mode, const StageTimes& stages, std::size_t ledger_bytes) {
    comparison_.record(mode, stages, ledger_bytes);
  }

  // Draws the panel's contents (inside the caller's ImGui window). Returns the mode the user picked, when
  // it differs from `current`.
  std::optional<ExecutionMode> draw(ExecutionMode current, SolverKind solver) const;

 private:
  std::string why_no_gpu_;  // empty when a CUDA GPU is present
  ModeComparison comparison_;
};

}  // namespace surge::app
