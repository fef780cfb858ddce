// Per-stage timings as a run summary and a benchmark table show them: milliseconds per step and the
// stage's share of the timed step.
#pragma once

#include <array>

#include "sim/backend/simulation.h"

namespace surge::app {

struct StageShare {
  const char* name = "";
  double ms_per_step = 0.0;
  double share = 0.0;  // fraction of the sum of all stages, 0..1
};

std::array<StageShare, kStageCount> stage_shares(const StageTimes& times);

}  // namespace surge::app
