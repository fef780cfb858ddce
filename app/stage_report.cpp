#include "app/stage_report.h"

namespace surge::app {

std::array<StageShare, kStageCount> stage_shares(const StageTimes& times) {
  std::array<StageShare, kStageCount> shares;
  const double total_ms = times.total_ms();
  for (int stage = 0; stage < kStageCount; ++stage) {
    const double ms = times.ms[std::size_t(stage)];
    shares[std::size_t(stage)] = {kStageNames[std::size_t(stage)],
                                  times.steps > 0 ? ms / double(times.steps) : 0.0,
                                  total_ms > 0 ? ms / total_ms : 0.0};
  }
  return shares;
}

}  // namespace surge::app
