// The SPHERIC Test 2 verdict (sim/validation/spheric2_validation.h) on synthetic gauge series: a run that
// meets every physical check, and runs that break one each (a front faster than Ritter's, the gauges
// reached out of order, a NaN, a wrong initial level, an instability).
#include "sim/validation/spheric2_validation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "sim/scene/scene.h"

namespace surge {
namespace {

// Samples every 1 ms from 1 ms to `end`: H1-H3 dry until their arrival time, then 2 cm rising to 0.1 m in 40
// ms; H4 0.55 m falling linearly to 0.1 m at 1 s; P1-P8 a pulse from 0.441 to 0.459 s, when the water reaches
// the box.
GaugeSeries synthetic(double end, double h3, double h2, double h1) {
  GaugeSeries s;
  for (const char* n : kSpheric2Levels) s.names.push_back(n);
  for (const char* n : kSpheric2Pressures) s.names.push_back(n);
  s.values.resize(s.names.size());
  const std::array<double, 3> arrival = {h1, h2, h3};
  for (int i = 1; i <= int(std::lround(end * 1000)); ++i) {
    const double t = i * 1e-3;
    s.time_s.push_back(t);
    for (std::size_t k = 0; k < 3; ++k)
      s.values[k].push_back(t < arrival[k] - 1e-9 ? 0.0 : std::min(0.1, 0.02 + 2.0 * (t - arrival[k])));
    s.values[3].push_back(0.55 - 0.45 * std::min(t, 1.0));
    for (std::size_t k = 4; k < 12; ++k)
      s.values[k].push_back(i > 440 && i < 460 ? 9000.0 - 500.0 * double(k) : 100.0);
  }
  return s;
}

const Spheric2Geometry kGeometry{};  // the paper's: face 1.992 m, depth 0.55 m, spacing 0.02 m

TEST(Spheric2Validation, PhysicalRunPasses) {
  const Spheric2Verdict v = evaluate_spheric2(synthetic(2.0, 0.25, 0.40, 0.60), kGeometry, true, 2.0);
  EXPECT_TRUE(v.pass()) << ::testing::PrintToString(v.failed());
  EXPECT_NEAR(v.ritter_speed, 2 * std::sqrt(9.81 * 0.55), 1e-12);
  EXPECT_NEAR(v.ritter_speed, 4.645, 1e-3);
  EXPECT_NEAR(v.arrival_s[2], 0.250, 1e-6);
  EXPECT_NEAR(v.arrival_s[1], 0.400, 1e-6);
  EXPECT_NEAR(v.arrival_s[0], 0.600, 1e-6);
  // Earliest arrival (x_face - x - spacing) / 2 sqrt(g d): H1 at 0.496 m no sooner than 0.318 s.
  EXPECT_NEAR(v.earliest_s[0], (1.992 - 0.496 - 0.02) / v.ritter_speed, 1e-12);
  EXPECT_NEAR(v.initial_h4, 0.55, 1e-3);
  ASSERT_EQ(v.peaks.size(), 12u);
  EXPECT_EQ(v.peaks[4].name, "P1");
  EXPECT_DOUBLE_EQ(v.peaks[4].max, 7000.0);
  EXPECT_NEAR(v.peaks[4].time_s, 0.441, 1e-9) << "the first sample at the maximum";
  EXPECT_EQ(v.peaks[3].name, "H4");
  EXPECT_NEAR(v.peaks[3].time_s, 0.001, 1e-12);
  ASSERT_EQ(v.checks.size(), 5u);
  EXPECT_EQ(v.checks[0].key, "initial_level");
  EXPECT_EQ(v.checks[1].key, "arrival_order");
  EXPECT_EQ(v.checks[2].key, "ritter_bound");
  EXPECT_EQ(v.checks[3].key, "finite");
  EXPECT_EQ(v.checks[4].key, "stable");
}

// H1 reached at 0.25 s: (1.992 - 0.496) m in 0.25 s is 6 m/s, faster than 4.65 m/s allows. The order is
// still H3, H2, H1, so only the Ritter bound fails.
TEST(Spheric2Validation, ArrivalAtH1FasterThanRitterFails) {
  const Spheric2Verdict v = evaluate_spheric2(synthetic(2.0, 0.15, 0.22, 0.25), kGeometry, true, 2.0);
  EXPECT_FALSE(v.pass());
  EXPECT_EQ(v.failed(), std::vector<std::string>{"ritter_bound"});
}

TEST(Spheric2Validation, GaugesReachedOutOfOrderFail) {
  const Spheric2Verdict h1_first = evaluate_spheric2(synthetic(2.0, 0.25, 0.60, 0.40), kGeometry, true, 2.0);
  EXPECT_EQ(h1_first.failed(), std::vector<std::string>{"arrival_order"});
  // H1 wet while H2 never is.
  const Spheric2Verdict skipped = evaluate_spheric2(synthetic(0.8, 0.25, 5.0, 0.60), kGeometry, true, 0.8);
  EXPECT_EQ(skipped.failed(), std::vector<std::string>{"arrival_order"});
}

// A short run may end before the water reaches H1; a run past 1.5 s may not.
TEST(Spheric2Validation, UnreachedGaugeFailsOnlyInALongRun) {
  const Spheric2Verdict short_run = evaluate_spheric2(synthetic(0.5, 0.25, 0.40, 5.0), kGeometry, true, 0.5);
  EXPECT_TRUE(short_run.pass()) << ::testing::PrintToString(short_run.failed());
  EXPECT_TRUE(std::isnan(short_run.arrival_s[0]));
  const Spheric2Verdict long_run = evaluate_spheric2(synthetic(2.0, 0.25, 0.40, 5.0), kGeometry, true, 2.0);
  EXPECT_EQ(long_run.failed(), std::vector<std::string>{"arrival_order"});
}

TEST(Spheric2Validation, NanInitialLevelAndInstabilityFail) {
  GaugeSeries with_nan = synthetic(2.0, 0.25, 0.40, 0.60);
  with_nan.values[6][700] = std::numeric_limits<double>::quiet_NaN();
  const Spheric2Verdict nan = evaluate_spheric2(with_nan, kGeometry, true, 2.0);
  EXPECT_EQ(nan.failed(), std::vector<std::string>{"finite"});
  EXPECT_EQ(nan.non_finite, 1);

  GaugeSeries low = synthetic(2.0, 0.25, 0.40, 0.60);
  low.values[3][0] = 0.55 - 0.025;  // more than one spacing (0.02 m) below the column's depth
  EXPECT_EQ(evaluate_spheric2(low, kGeometry, true, 2.0).failed(), std::vector<std::string>{"initial_level"});

  EXPECT_EQ(evaluate_spheric2(synthetic(0.3, 0.25, 5, 5), kGeometry, false, 0.3).failed(),
            std::vector<std::string>{"stable"});
  EXPECT_FALSE(evaluate_spheric2(GaugeSeries{}, kGeometry, true, 0.0).pass());
}

TEST(Spheric2Validation, ReadsTheRecordersCsvNanIncluded) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "surge_spheric2_gauges.csv";
  std::ofstream(path) << "time_s,H1,P1\n0.001,0,12.5\n0.002,0.02,nan\n";
  const GaugeSeries s = read_gauge_csv(path);
  ASSERT_EQ(s.names, (std::vector<std::string>{"H1", "P1"}));
  ASSERT_EQ(s.time_s.size(), 2u);
  EXPECT_DOUBLE_EQ(s.column("H1")->at(1), 0.02);
  EXPECT_TRUE(std::isnan(s.column("P1")->at(1)));
  EXPECT_EQ(s.column("P9"), nullptr);
  std::ofstream(path) << "time_s,H1\n0.001,zero\n";
  EXPECT_THROW(read_gauge_csv(path), std::runtime_error);
  std::filesystem::remove(path);
}

TEST(Spheric2Validation, GeometryFromTheScene) {
  const Scene scene =
      load_scene(std::filesystem::path(SURGE_SOURCE_DIR) / "scenes" / "spheric2_dam_break.toml");
  const Spheric2Geometry g = spheric2_geometry(scene);
  EXPECT_NEAR(g.face_x, 1.992, 1e-6);
  EXPECT_NEAR(g.depth, 0.55, 1e-6);
  EXPECT_NEAR(g.gravity, 9.81, 1e-6);
  EXPECT_NEAR(g.spacing, 0.02, 1e-7);
  EXPECT_NEAR(g.level_x[0], 0.496, 1e-6);
  EXPECT_NEAR(g.level_x[3], 2.638, 1e-6);
  Scene without_p8 = scene;
  without_p8.gauges.pop_back();
  EXPECT_THROW(spheric2_geometry(without_p8), SceneError);
}

}  // namespace
}  // namespace surge
