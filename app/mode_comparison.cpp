#include "app/mode_comparison.h"

#include <algorithm>

namespace surge::app {

double ModeMeasurement::total_ms_per_step() const {
  double total = 0.0;
  for (double ms : stage_ms_per_step) total += ms;
  return total;
}

void ModeComparison::record(ExecutionMode mode, const StageTimes& stages, std::size_t ledger_bytes) {
  if (stages.steps <= 0) return;
  ModeMeasurement measurement;
  for (std::size_t s = 0; s < measurement.stage_ms_per_step.size(); ++s)
    measurement.stage_ms_per_step[s] = stages.ms[s] / double(stages.steps);
  measurement.bytes_per_step = double(ledger_bytes) / double(stages.steps);
  measured_[std::size_t(mode)] = measurement;
}

const std::optional<ModeMeasurement>& ModeComparison::measured(ExecutionMode mode) const {
  return measured_[std::size_t(mode)];
}

std::optional<double> ModeComparison::speedup_over_cpu(ExecutionMode mode) const {
  const auto& cpu = measured(ExecutionMode::cpu);
  const auto& other = measured(mode);
  if (!cpu || !other || other->total_ms_per_step() <= 0.0) return std::nullopt;
  return cpu->total_ms_per_step() / other->total_ms_per_step();
}

double ModeComparison::slowest_ms_per_step() const {
  double slowest = 0.0;
  for (const auto& measurement : measured_)
    if (measurement) slowest = std::max(slowest, measurement->total_ms_per_step());
  return slowest;
}

std::string why_mode_unavailable(ExecutionMode mode, SolverKind solver, const std::string& why_no_gpu) {
  if (std::string why = why_solver_lacks_mode(solver, mode); !why.empty()) return why;
  if (mode_needs_gpu(mode) && !why_no_gpu.empty())
    return "hybrid, hybrid-overlap and gpu need a CUDA GPU: " + why_no_gpu;
  return "";
}

}  // namespace surge::app
