// `surge validate dam-break` as CI runs it: a low-resolution WCSPH dam break on the CPU, held to tolerances
// stated for that resolution (docs/validation.md, "CI"), its files read back, and bad input refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "surge_process.h"

namespace {

namespace fs = std::filesystem;
using surge::testing_support::read_text_file;
using surge::testing_support::run_surge;
using surge::testing_support::SurgeResult;

class ValidateCli : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "surge-validate-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  SurgeResult surge(const std::vector<std::string>& args) const { return run_surge(dir_, args); }
  fs::path dir_;
};

testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << part << "' not in:\n" << text;
}

// Rows of a CSV written by surge: '#' lines skipped, the header checked, every field a number.
std::vector<std::vector<double>> read_numeric_csv(const fs::path& path, const std::string& header) {
  std::istringstream lines(read_text_file(path));
  std::string line;
  std::vector<std::vector<double>> rows;
  bool header_seen = false;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {
      EXPECT_EQ(line, header) << path;
      header_seen = true;
      continue;
    }
    std::vector<double> row;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) {
      char* end = nullptr;
      row.push_back(std::strtod(field.c_str(), &end));
      EXPECT_EQ(*end, '\0') << path << ": '" << field << "' is not a number";
    }
    rows.push_back(row);
  }
  EXPECT_TRUE(header_seen) << path;
  return rows;
}

std::uint32_t big_endian_u32(const std::string& bytes, std::size_t at) {
  return std::uint32_t(std::uint8_t(bytes[at])) << 24 | std::uint32_t(std::uint8_t(bytes[at + 1])) << 16 |
         std::uint32_t(std::uint8_t(bytes[at + 2])) << 8 | std::uint32_t(std::uint8_t(bytes[at + 3]));
}

// ---- The low-resolution run

// 10 particles across a, 4 deep (800 fluid particles), WCSPH on the CPU, to tau = 7.5 (about 6,500 steps).
// Measured at this resolution (docs/validation.md): Z within 6.8 % of Martin & Moyce after a shift of
// +0.11; late slope 1.26; fastest front 1.37; eta within 0.18 of Table 6. The tolerances below are the
// validation's own for Z (10 %) and the slope (1.32 +- 0.15), and 0.25 for eta, which at this resolution
// is dominated by the one-particle-thick layer left on the floor late in the run (0.05 H per particle).
TEST_F(ValidateCli, LowResolutionWcsphOnCpuMeetsItsTolerances) {
  const SurgeResult r = surge({"validate", "dam-break", "--solver", "wcsph", "--resolution", "10", "--depth",
                               "4", "--backend", "cpu", "--out", "val", "--z-tolerance", "0.10",
                               "--slope-tolerance", "0.15", "--eta-tolerance", "0.25", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "validation passed"));
  EXPECT_TRUE(contains(r.out, "late slope dZ/dT"));

  const fs::path out = dir_ / "val";
  for (const char* file :
       {"front.csv", "height.csv", "comparison.csv", "summary.json", "dam_break.svg", "dam_break.png"})
    EXPECT_TRUE(fs::exists(out / file)) << file;
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_NE(entry.path().extension(), ".tmp") << "a temporary file was left: " << entry.path();

  // Front: T from 0 in steps of about 0.025, Z = 1 at the start (the column's edge, a), and the front
  // never runs backwards by more than a particle (0.1 a) before it reaches the far wall.
  const auto front =
      read_numeric_csv(out / "front.csv", "T,Z,Z_all,t_s,x_m,body_particles,spray_particles,body_groups");
  ASSERT_GT(front.size(), 140u);
  EXPECT_DOUBLE_EQ(front[0][0], 0.0);
  EXPECT_NEAR(front[0][1], 1.0, 1e-4);
  double furthest = 0;
  for (std::size_t k = 1; k < front.size(); ++k) {
    EXPECT_GT(front[k][0], front[k - 1][0]);
    EXPECT_LT(front[k][0] - front[k - 1][0], 0.05) << "sampled at most every dT = 0.05";
    EXPECT_GE(front[k][2], front[k][1] - 1e-9) << "spray included cannot be behind the body";
    EXPECT_EQ(front[k][5] + front[k][6], 800.0);
    if (front[k][0] <= 3.5) {
      EXPECT_GT(front[k][1], furthest - 0.1) << "T = " << front[k][0];
    }
    furthest = std::max(furthest, front[k][1]);
  }
  // Height: eta = 1 at the start (H = 2a), then below it.
  const auto height = read_numeric_csv(out / "height.csv", "tau,eta,t_s,h_m");
  ASSERT_EQ(height.size(), front.size());
  EXPECT_NEAR(height[0][1], 1.0, 1e-4);
  EXPECT_LT(height.back()[1], 0.5);

  const nlohmann::json summary = nlohmann::json::parse(read_text_file(out / "summary.json"));
  EXPECT_EQ(summary["pass"], true);
  EXPECT_EQ(summary["solver"], "wcsph");
  EXPECT_EQ(summary["resolution"], 10);
  EXPECT_EQ(summary["fluid_particles"], 10 * 20 * 4);
  EXPECT_GT(summary["boundary_particles"].get<long>(), 0);
  EXPECT_FALSE(summary["commit"].get<std::string>().empty());
  ASSERT_EQ(summary["requirements"].size(), 5u);
  for (const auto& requirement : summary["requirements"]) EXPECT_EQ(requirement["pass"], true) << requirement;
  const auto& metrics = summary["metrics"];
  const double shift = metrics["front_vs_martin_moyce_fitted"]["shift"];
  EXPECT_LT(std::abs(shift), 0.2) << "the fit should not need the whole allowed shift";
  EXPECT_LE(metrics["front_vs_martin_moyce_fitted"]["max_relative_error"].get<double>(), 0.10);
  EXPECT_EQ(metrics["front_vs_martin_moyce_fitted"]["points"], 15);
  EXPECT_NEAR(metrics["late_slope"].get<double>(), 1.32, 0.15);
  EXPECT_LE(metrics["max_front_speed"].get<double>(), 2.0);
  EXPECT_LE(metrics["height_vs_martin_moyce_raw"]["max_absolute_error"].get<double>(), 0.25);
  // Both Koshizuka & Oka digitisations are compared too.
  EXPECT_EQ(metrics["front_vs_koshizuka_oka_raw"].size(), 2u);

  // The PNG is a PNG of the figure's size: signature, then the IHDR chunk's width and height.
  const std::string png = read_text_file(out / "dam_break.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian_u32(png, 16), 1400u);
  EXPECT_EQ(big_endian_u32(png, 20), 600u);
  const std::string svg = read_text_file(out / "dam_break.svg");
  EXPECT_TRUE(contains(svg, "<svg"));
  EXPECT_TRUE(contains(svg, "Martin &amp; Moyce 1952"));
  EXPECT_TRUE(contains(svg, "Koshizuka &amp; Oka 1996"));
  EXPECT_TRUE(contains(svg, "Ritter"));
}

// The incompressible solvers at the same resolution, held to the front tolerances (Z within 10 %
// after one shift, late slope 1.32 +- 0.15, never faster than Ritter). Measured here: DFSPH Z 6.1 % (dT
// +0.09), slope 1.32; PBF (the slab scene sets scorr_k = 0, see its comment) Z 5.9 % (dT +0.08), slope 1.27.
TEST_F(ValidateCli, LowResolutionDfsphAndPbfOnCpuMeetTheFrontTolerances) {
  for (const std::string solver : {"dfsph", "pbf"}) {
    const SurgeResult r = surge({"validate", "dam-break", "--solver", solver, "--resolution", "10", "--depth",
                                 "4", "--backend", "cpu", "--out", "val-" + solver, "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << solver << "\n" << r.out << r.err;
    const nlohmann::json summary =
        nlohmann::json::parse(read_text_file(dir_ / ("val-" + solver) / "summary.json"));
    EXPECT_EQ(summary["solver"], solver);
    for (const auto& requirement : summary["requirements"])
      EXPECT_EQ(requirement["pass"], true) << solver << ": " << requirement;
    EXPECT_LE(summary["metrics"]["front_vs_martin_moyce_fitted"]["max_relative_error"].get<double>(), 0.10);
    EXPECT_NEAR(summary["metrics"]["late_slope"].get<double>(), 1.32, 0.15) << solver;
  }
}

// A requirement missed is exit code 4, with every file still written so the user can see why.
TEST_F(ValidateCli, MissedRequirementExitsFourAndKeepsTheResults) {
  const SurgeResult r = surge({"validate", "dam-break", "--resolution", "6", "--depth", "2", "--backend",
                               "cpu", "--out", "val", "--z-tolerance", "0.001", "--quiet"});
  ASSERT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "FAIL"));
  EXPECT_TRUE(contains(r.out, "validation FAILED"));
  const nlohmann::json summary = nlohmann::json::parse(read_text_file(dir_ / "val" / "summary.json"));
  EXPECT_EQ(summary["pass"], false);
  EXPECT_EQ(summary["requirements"][0]["key"], "front_error");
  EXPECT_EQ(summary["requirements"][0]["pass"], false);
  EXPECT_TRUE(fs::exists(dir_ / "val" / "front.csv"));
}

// ---- Bad input: exit 2, a message naming what is wrong, nothing written

TEST_F(ValidateCli, UnknownSolverIsBadInput) {
  const SurgeResult r = surge({"validate", "dam-break", "--solver", "sph", "--out", "val"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--solver"));
  EXPECT_TRUE(contains(r.err, "sph"));
  EXPECT_FALSE(fs::exists(dir_ / "val"));
}

TEST_F(ValidateCli, ResolutionOutOfRangeIsBadInput) {
  for (const char* resolution : {"3", "201", "ten"}) {
    const SurgeResult r = surge({"validate", "dam-break", "--resolution", resolution, "--out", "val"});
    EXPECT_EQ(r.exit_code, 2) << resolution;
    EXPECT_TRUE(contains(r.err, "--resolution")) << resolution;
    EXPECT_FALSE(fs::exists(dir_ / "val"));
  }
}

TEST_F(ValidateCli, MissingReferenceDataIsBadInput) {
  const SurgeResult r = surge({"validate", "dam-break", "--resolution", "6", "--backend", "cpu", "--data",
                               "nowhere", "--out", "val"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "nowhere/martin_moyce_1952_front.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "val"));
}

TEST_F(ValidateCli, SceneWhoseColumnIsNotTwiceAsHighAsWideIsBadInput) {
  std::string scene =
      read_text_file(fs::path(SURGE_SOURCE_DIR) / "scenes" / "validation" / "dam_break_slab.toml");
  const std::string column = "max = [0.05715, 0.02286, 0.1143]";
  const std::size_t at = scene.find(column);
  ASSERT_NE(at, std::string::npos);
  scene.replace(at, column.size(), "max = [0.05715, 0.02286, 0.2]");
  std::ofstream(dir_ / "square.toml") << scene;
  const SurgeResult r =
      surge({"validate", "dam-break", "--scene", "square.toml", "--resolution", "6", "--out", "val"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "square.toml:"));
  EXPECT_TRUE(contains(r.err, "H = 2a"));
  EXPECT_FALSE(fs::exists(dir_ / "val"));
}

TEST_F(ValidateCli, HelpListsEveryOption) {
  const SurgeResult r = surge({"validate", "dam-break", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option :
       {"--solver", "--resolution", "--depth", "--backend", "--out", "--scene", "--data", "--z-tolerance",
        "--max-shift", "--slope-tolerance", "--eta-tolerance", "--quiet"})
    EXPECT_TRUE(contains(r.out, option)) << option;
  EXPECT_TRUE(contains(r.out, "pbf"));
  EXPECT_TRUE(contains(r.out, "dfsph"));
  const SurgeResult top = surge({"validate"});
  EXPECT_EQ(top.exit_code, 2) << "validate needs a case";
}

// ---- `surge validate spheric2`: SPHERIC Test 2 at a coarse resolution, to 0.5 s (the impact on the box)

// 4,000 fluid particles (3,960; spacing 0.055 m) on the CPU to t = 0.5 s, 24-45 s on 2 shared cores
// (8,000 to 0.6 s took 103 s): the front passes H3 (0.27 s) and H2 (0.44 s) and hits the box; the run must
// meet the physical checks (H4 starts at 0.55 m, arrivals in order and no faster than Ritter's front, every
// value finite, stable).
TEST_F(ValidateCli, Spheric2CoarseRunOnCpuWritesGaugesPlotsAndAVerdict) {
  const SurgeResult r = surge({"validate", "spheric2", "--particles", "4000", "--time", "0.5", "--backend",
                               "cpu", "--out", "s2", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "validation passed"));
  for (const char* text : {"spacing", "wall", "arrival (>1 cm)", "H4 at the first sample", "Ritter front",
                           "H3, then H2, then H1", "every gauge value finite", "P1 "})
    EXPECT_TRUE(contains(r.out, text)) << text;

  const fs::path out = dir_ / "s2";
  for (const char* file : {"gauges.csv", "heights.svg", "pressures.svg", "summary.json"})
    EXPECT_TRUE(fs::exists(out / file)) << file;
  if (r.err.find("no heights.png") == std::string::npos) {  // rsvg-convert is there
    EXPECT_TRUE(fs::exists(out / "heights.png"));
    EXPECT_TRUE(fs::exists(out / "pressures.png"));
  }
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_NE(entry.path().extension(), ".tmp") << "a temporary file was left: " << entry.path();

  // One row per millisecond from 1 ms to 0.5 s, 13 numbers each; H4 starts at the column's depth.
  const auto rows = read_numeric_csv(out / "gauges.csv", "time_s,H1,H2,H3,H4,P1,P2,P3,P4,P5,P6,P7,P8");
  ASSERT_GE(rows.size(), 499u);
  EXPECT_LE(rows.size(), 501u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 13u);
    for (double value : row) EXPECT_TRUE(std::isfinite(value));
  }
  EXPECT_NEAR(rows.front()[0], 0.001, 5e-4);
  EXPECT_NEAR(rows.back()[0], 0.5, 2e-3);
  EXPECT_NEAR(rows.front()[4], 0.55, 0.05);

  const nlohmann::json summary = nlohmann::json::parse(read_text_file(out / "summary.json"));
  EXPECT_EQ(summary["case"], "spheric2");
  EXPECT_EQ(summary["pass"], true);
  EXPECT_NEAR(summary["fluid_particles"].get<double>(), 4000, 800);
  ASSERT_EQ(summary["checks"].size(), 5u);
  for (const auto& check : summary["checks"]) EXPECT_EQ(check["pass"], true) << check;
  // The front has passed H3 by 0.5 s, after the Ritter front could have.
  const auto& h3 = summary["gauges"]["H3"];
  ASSERT_TRUE(h3["arrival_s"].is_number()) << h3;
  EXPECT_GT(h3["arrival_s"].get<double>(), h3["ritter_earliest_s"].get<double>());
  const std::string svg = read_text_file(out / "heights.svg");
  EXPECT_TRUE(contains(svg, "H1 (x = 0.496 m)"));
  EXPECT_TRUE(contains(read_text_file(out / "pressures.svg"), "P4"));
}

TEST_F(ValidateCli, Spheric2BadInputIsExitTwoAndWritesNothing) {
  const std::vector<std::vector<std::string>> cases = {
      {"--solver", "pbf"},                           // no physical pressure for P1-P8
      {"--particles", "8000", "--spacing", "0.05"},  // one or the other
      {"--time", "-1"},
      {"--scene", "nowhere.toml"},
  };
  for (const auto& extra : cases) {
    std::vector<std::string> args = {"validate", "spheric2", "--backend", "cpu", "--out", "s2"};
    args.insert(args.end(), extra.begin(), extra.end());
    const SurgeResult r = surge(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << "\n" << r.out << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "s2")) << extra[0];
  }
  const SurgeResult help = surge({"validate", "spheric2", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* option : {"--solver", "--backend", "--mode", "--particles", "--spacing", "--time", "--out",
                             "--scene", "--quiet"})
    EXPECT_TRUE(contains(help.out, option)) << option;
}

}  // namespace
