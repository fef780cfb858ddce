// The benchmark plot (app/bench_plot.h) with a record of all four modes, as a GPU machine would measure
// it: the crossover interpolation and what the SVG shows. CI has no GPU, so the CLI tests only ever draw
// the cpu bars.
#include "app/bench_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

namespace surge::app {
namespace {

TEST(BenchPlot, CrossoverIsInterpolatedInLogLog) {
  // Speedup 0.5 at 1e3 and 2 at 1e5: log s is linear in log N and crosses 0 halfway, at 1e4.
  const auto crossover = crossover_particles({{1e3, 0.5}, {1e5, 2.0}, {1e6, 8.0}});
  ASSERT_TRUE(crossover.has_value());
  EXPECT_NEAR(*crossover, 1e4, 1e-6 * 1e4);
  EXPECT_FALSE(crossover_particles({{1e3, 2.0}, {1e5, 3.0}}).has_value()) << "always faster: no crossover";
  EXPECT_FALSE(crossover_particles({{1e3, 0.2}, {1e5, 0.9}}).has_value()) << "never faster: no crossover";
  EXPECT_FALSE(crossover_particles({{1e3, 0.5}}).has_value());
  // The first crossing counts: 0.5 -> 4 between 1e3 and 1e4, a third of the way up in log (ln 2 of 3 ln 2).
  EXPECT_NEAR(*crossover_particles({{1e3, 0.5}, {1e4, 4.0}, {1e5, 0.5}}), 1e3 * std::pow(10.0, 1.0 / 3.0),
              1e-6 * 2e3);
}

BenchRun run(const char* mode, std::size_t particles, double ms_per_step, double cpu_ms_per_step) {
  BenchRun r;
  r.fluid_particles = particles;
  r.backend = mode;
  r.steps = 10;
  r.seconds = 10 * ms_per_step / 1e3;
  r.stages.steps = 10;
  r.stages.ms[int(Stage::index)] = 10 * 0.3 * ms_per_step;
  r.stages.ms[int(Stage::forces)] = 10 * 0.5 * ms_per_step;
  r.stages.ms[int(Stage::transfer)] = 10 * 0.2 * ms_per_step;
  r.speedup_over_cpu = cpu_ms_per_step / ms_per_step;
  return r;
}

TEST(BenchPlot, DrawsStageBarsPerModeAndTheSpeedupCurvesWithTheirCrossovers) {
  BenchRecord record;
  record.scene_name = "dam_break";
  // ms per step at 1e3, 1e4, 1e5 particles.
  const double cpu[] = {1, 10, 100}, hybrid[] = {4, 20, 50}, gpu[] = {2, 2.5, 5};
  const std::size_t sizes[] = {1000, 10000, 100000};
  for (int k = 0; k < 3; ++k) {
    record.runs.push_back(run("cpu", sizes[k], cpu[k], cpu[k]));
    record.runs.push_back(run("hybrid", sizes[k], hybrid[k], cpu[k]));
    record.runs.push_back(run("gpu", sizes[k], gpu[k], cpu[k]));
  }
  std::ostringstream out;
  write_bench_plot(out, record);
  const std::string svg = out.str();
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  for (const char* panel : {"1,000 particles", "10,000 particles", "100,000 particles"})
    EXPECT_NE(svg.find(panel), std::string::npos) << panel;
  EXPECT_NE(svg.find("<title>hybrid transfer: "), std::string::npos);
  // gpu: speedup 0.5 at 1e3, 4 at 1e4: crossover 1e3 * 10^(1/3) = 2.15e3. hybrid: 0.5 at 1e4, 2 at
  // 1e5: 3.16e4.
  const std::optional<double> gpu_crossover = crossover_particles({{1e3, 0.5}, {1e4, 4.0}, {1e5, 20.0}});
  ASSERT_TRUE(gpu_crossover.has_value());
  EXPECT_NEAR(*gpu_crossover, 1e3 * std::pow(10.0, 1.0 / 3.0), 1e-6 * *gpu_crossover);
  EXPECT_NE(svg.find("gpu: crossover ~2.15e3 particles"), std::string::npos) << svg;
  EXPECT_NE(svg.find("hybrid: crossover ~31.6e3 particles"), std::string::npos) << svg;
}

// The bar panels: one shared axis while the sizes' step times are within 5x of each other, each its own
// (labelled so) past that; every panel's axis is labelled. A CPU-only machine's plot says why the speedup
// panel is empty.
TEST(BenchPlot, BarPanelsShareAScaleWhenTheyCanAndSayWhyTheSpeedupIsMissing) {
  BenchRecord close;
  close.scene_name = "dam_break";
  close.runs = {run("cpu", 1000, 2, 2), run("cpu", 2000, 4, 4)};
  std::ostringstream shared;
  write_bench_plot(shared, close);
  EXPECT_NE(shared.str().find(">ms per step</text>"), std::string::npos) << shared.str();
  EXPECT_EQ(shared.str().find("this panel's scale"), std::string::npos);

  BenchRecord apart = close;
  apart.runs = {run("cpu", 1000, 1, 1), run("cpu", 100000, 100, 100)};
  apart.modes_skipped = "gpu (no CUDA GPU: no NVIDIA driver is installed)";
  std::ostringstream own;
  write_bench_plot(own, apart);
  const std::string svg = own.str();
  std::size_t labels = 0;
  for (std::size_t at = svg.find("ms per step (this panel's scale)"); at != std::string::npos;
       at = svg.find("ms per step (this panel's scale)", at + 1))
    ++labels;
  EXPECT_EQ(labels, 2u) << svg;
  EXPECT_NE(svg.find("skipped: gpu (no CUDA GPU: no NVIDIA driver is installed)"), std::string::npos) << svg;
}

}  // namespace
}  // namespace surge::app
