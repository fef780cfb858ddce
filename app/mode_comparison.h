// What the viewer's Lessons panel compares (app/viewer/lessons_panel.h), kept apart from its drawing so it
// can be tested without a window: the last stage times and bus bytes per step of each execution mode run in a
// session, the speedup over cpu, and which modes a machine and a solver can switch to.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "sim/backend/execution_mode.h"
#include "sim/backend/simulation.h"

namespace surge::app {

// One measurement of a mode: per-stage milliseconds per step and transfer-ledger bytes per step.
struct ModeMeasurement {
  std::array<double, kStageCount> stage_ms_per_step{};
  double bytes_per_step = 0.0;
  double total_ms_per_step() const;
};

class ModeComparison {
 public:
  // Some steps run in `mode`: their stage times (since the last reset) and the ledger bytes they moved.
  // Replaces that mode's earlier measurement; a record without steps is ignored.
  void record(ExecutionMode mode, const StageTimes& stages, std::size_t ledger_bytes);
  const std::optional<ModeMeasurement>& measured(ExecutionMode mode) const;
  // cpu's ms per step over `mode`'s, when both were measured.
  std::optional<double> speedup_over_cpu(ExecutionMode mode) const;
  // The largest total ms per step measured, 0 before any: the scale the bars share.
  double slowest_ms_per_step() const;

 private:
  std::array<std::optional<ModeMeasurement>, kExecutionModes.size()> measured_;
};

// Why the live switch cannot take a `solver` run to `mode` here, or "" when it can. why_no_gpu is
// query_gpu's reason, empty when a CUDA GPU is present. The factory's table says which solver has which mode.
std::string why_mode_unavailable(ExecutionMode mode, SolverKind solver, const std::string& why_no_gpu);

}  // namespace surge::app
