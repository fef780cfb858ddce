// The Lessons panel's arithmetic (app/mode_comparison.h), on hand-made stage times with exact answers.
#include "app/mode_comparison.h"

#include <gtest/gtest.h>

namespace surge::app {
namespace {

StageTimes stages_over(long steps, std::array<double, kStageCount> total_ms) {
  StageTimes stages;
  stages.ms = total_ms;
  stages.steps = steps;
  return stages;
}

TEST(ModeComparison, KeepsPerStageMillisecondsAndBytesPerStep) {
  ModeComparison comparison;
  // 4 steps: 8 ms of index, 20 ms of forces; 4000 ledger bytes.
  comparison.record(ExecutionMode::hybrid, stages_over(4, {8.0, 0.0, 20.0, 0.0, 0.0, 0.0}), 4000);
  const auto& hybrid = comparison.measured(ExecutionMode::hybrid);
  ASSERT_TRUE(hybrid.has_value());
  EXPECT_DOUBLE_EQ(hybrid->stage_ms_per_step[0], 2.0);
  EXPECT_DOUBLE_EQ(hybrid->stage_ms_per_step[2], 5.0);
  EXPECT_DOUBLE_EQ(hybrid->total_ms_per_step(), 7.0);
  EXPECT_DOUBLE_EQ(hybrid->bytes_per_step, 1000.0);
  EXPECT_FALSE(comparison.measured(ExecutionMode::cpu).has_value());
  EXPECT_DOUBLE_EQ(comparison.slowest_ms_per_step(), 7.0);
}

TEST(ModeComparison, TheLastMeasurementOfAModeReplacesTheEarlierOne) {
  ModeComparison comparison;
  comparison.record(ExecutionMode::gpu, stages_over(1, {1.0, 1.0, 1.0, 1.0, 0.0, 0.0}), 0);
  comparison.record(ExecutionMode::gpu, stages_over(2, {1.0, 0.0, 0.0, 0.0, 0.0, 0.0}), 64);
  EXPECT_DOUBLE_EQ(comparison.measured(ExecutionMode::gpu)->total_ms_per_step(), 0.5);
  EXPECT_DOUBLE_EQ(comparison.measured(ExecutionMode::gpu)->bytes_per_step, 32.0);
  // A frame without steps (paused) leaves it as it was.
  comparison.record(ExecutionMode::gpu, stages_over(0, {9.0, 9.0, 9.0, 9.0, 9.0, 9.0}), 999);
  EXPECT_DOUBLE_EQ(comparison.measured(ExecutionMode::gpu)->total_ms_per_step(), 0.5);
}

TEST(ModeComparison, SpeedupIsCpuTimeOverTheModesTimeOnceCpuIsMeasured) {
  ModeComparison comparison;
  comparison.record(ExecutionMode::gpu, stages_over(10, {1.0, 2.0, 2.0, 0.0, 0.0, 0.0}), 0);  // 0.5 ms/step
  EXPECT_FALSE(comparison.speedup_over_cpu(ExecutionMode::gpu).has_value());
  comparison.record(ExecutionMode::cpu, stages_over(2, {2.0, 4.0, 4.0, 0.0, 0.0, 0.0}), 0);  // 5 ms/step
  ASSERT_TRUE(comparison.speedup_over_cpu(ExecutionMode::gpu).has_value());
  EXPECT_DOUBLE_EQ(*comparison.speedup_over_cpu(ExecutionMode::gpu), 10.0);
  EXPECT_DOUBLE_EQ(*comparison.speedup_over_cpu(ExecutionMode::cpu), 1.0);
  EXPECT_FALSE(comparison.speedup_over_cpu(ExecutionMode::hybrid).has_value());
  EXPECT_DOUBLE_EQ(comparison.slowest_ms_per_step(), 5.0);
}

TEST(ModeComparison, ModesThatNeedAGpuOrAnotherSolverAreRefusedWithTheReason) {
  const std::string no_gpu = "no CUDA device";
  for (ExecutionMode mode : kExecutionModes) {
    EXPECT_EQ(why_mode_unavailable(mode, SolverKind::wcsph, ""), "") << mode_name(mode);
  }
  // Every solver switches between cpu and gpu; the fluids have the hybrid modes too (their cell index built
  // on the CPU), grains only the hybrid mode, bodies (no cell index) neither.
  for (const char* solver : {"dfsph", "pbf", "dem", "nbody"}) {
    EXPECT_EQ(why_mode_unavailable(ExecutionMode::cpu, *parse_solver_kind(solver), ""), "");
    EXPECT_EQ(why_mode_unavailable(ExecutionMode::gpu, *parse_solver_kind(solver), ""), "");
  }
  for (const char* solver : {"dfsph", "pbf"}) {
    EXPECT_EQ(why_mode_unavailable(ExecutionMode::hybrid, *parse_solver_kind(solver), ""), "") << solver;
    EXPECT_EQ(why_mode_unavailable(ExecutionMode::hybrid_overlap, *parse_solver_kind(solver), ""), "")
        << solver;
  }
  EXPECT_EQ(why_mode_unavailable(ExecutionMode::hybrid, SolverKind::dem, ""), "");
  EXPECT_NE(why_mode_unavailable(ExecutionMode::hybrid_overlap, SolverKind::dem, ""), "");
  for (ExecutionMode mode : {ExecutionMode::hybrid, ExecutionMode::hybrid_overlap})
    EXPECT_NE(why_mode_unavailable(mode, SolverKind::nbody, ""), "") << mode_name(mode);
  EXPECT_EQ(why_mode_unavailable(ExecutionMode::cpu, SolverKind::wcsph, no_gpu), "");
  for (ExecutionMode mode : {ExecutionMode::hybrid, ExecutionMode::hybrid_overlap, ExecutionMode::gpu}) {
    const std::string why = why_mode_unavailable(mode, SolverKind::wcsph, no_gpu);
    EXPECT_NE(why.find(no_gpu), std::string::npos) << mode_name(mode) << ": " << why;
  }
}

}  // namespace
}  // namespace surge::app
