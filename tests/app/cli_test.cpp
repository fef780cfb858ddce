// The `surge` binary as a user meets it: the commands the README shows work and write what they promise,
// and every kind of bad input ends with exit code 2, a message naming file, line and key, and no output.
// Each test runs the real binary in a fresh temporary directory and captures stdout, stderr and exit code.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/app/surge_process.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDamBreak = fs::path(SURGE_SOURCE_DIR) / "scenes" / "dam_break.toml";

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using surge::testing_support::read_text_file;

// A scene small enough (a 3 x 5 x 5 block of fluid) that a run takes milliseconds. Tests replace one line
// to make it wrong, so every key sits on its own line.
const std::string kTinyScene = R"(name = "tiny"

[domain]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.1, 0.2]

[resolution]
spacing = 0.02

[fluid]
viscosity_alpha = 0.05

[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.06, 0.1, 0.1]

[time]
end = 0.002

[output]
formats = ["vtk"]
every = 5
)";

// 1-based line of the first line of `text` that contains `needle`.
int line_of(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find(needle) != std::string::npos) return number;
  }
  ADD_FAILURE() << "no line contains '" << needle << "'";
  return 0;
}

std::string replace_line(const std::string& text, const std::string& old_line, const std::string& new_line) {
  const std::size_t at = text.find(old_line);
  EXPECT_NE(at, std::string::npos) << old_line;
  return text.substr(0, at) + new_line + text.substr(at + old_line.size());
}

class Cli : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "surge-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs surge with `args` in the temporary directory; stdout and stderr go to files, so neither is a
  // terminal (as in CI) and a chatty child cannot block on a full pipe.
  Result surge(const std::vector<std::string>& args, long data_limit_bytes = 0) const {
    const surge::testing_support::SurgeResult r =
        surge::testing_support::run_surge(dir_, args, data_limit_bytes);
    return {r.exit_code, r.out, r.err};
  }

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path;
  }

  // A bad scene must fail before anything is written: exit 2, "FILE:LINE: key 'KEY'" on stderr, no --out.
  void expect_rejected(const std::string& scene_text, int line, const std::string& key) const {
    write("bad.toml", scene_text);
    const Result r = surge(
        {"run", "bad.toml", "--backend", "cpu", "--out", "frames", "--export", "vtk,ply", "--every", "1"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("bad.toml:" + std::to_string(line) + ": key '" + key + "'"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "frames")) << "a rejected scene created the output directory";
    EXPECT_EQ(r.out.find("summary"), std::string::npos) << r.out;
  }

  fs::path dir_;
};

testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << part << "' not in:\n" << text;
}

std::string with_thousands(long count) {
  std::string digits = std::to_string(count), grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

// ---- Version and help

TEST_F(Cli, VersionNamesVersionAndCommit) {
  const Result r = surge({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^surge 0\.1\.0 \(commit [0-9a-z]+\)\n)"))) << r.out;
  // And which scenes and shaders it reads: the build tree's binary reads its source tree.
  EXPECT_TRUE(contains(r.out, std::string("\ndata: ") + SURGE_SOURCE_DIR + " (source tree)\n")) << r.out;
}

TEST_F(Cli, HelpListsSubcommands) {
  const Result r = surge({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "run"));
  EXPECT_TRUE(contains(r.out, "bench"));
}

TEST_F(Cli, RunHelpListsEveryOption) {
  const Result r = surge({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--backend", "--steps", "--time", "--particles", "--out", "--export", "--every",
                             "--export-sync", "--export-queue", "--quiet", "--style", "--filter",
                             "--filter-radius", "--absorption", "--refraction", "--particle-passes"}) {
    EXPECT_TRUE(contains(r.out, option));
  }
}

TEST_F(Cli, BenchHelpListsEveryOption) {
  const Result r = surge({"bench", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--backend", "--particles", "--steps", "--warmup", "--json"}) {
    EXPECT_TRUE(contains(r.out, option));
  }
}

// ---- surge run

TEST_F(Cli, RunExportsFramesEveryKStepsAndSummarises) {
  const Result r = surge({"run", kDamBreak.string(), "--backend", "cpu", "--steps", "20", "--export",
                          "vtk,ply", "--every", "10", "--out", "frames"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  for (const char* frame : {"000000", "000001", "000002"}) {
    EXPECT_TRUE(fs::exists(dir_ / "frames" / (std::string("dam_break_") + frame + ".vtp"))) << frame;
    EXPECT_TRUE(fs::exists(dir_ / "frames" / (std::string("dam_break_") + frame + ".ply"))) << frame;
  }
  EXPECT_FALSE(fs::exists(dir_ / "frames" / "dam_break_000003.vtp"));
  const std::string series = read_text_file(dir_ / "frames" / "dam_break.pvd");
  EXPECT_TRUE(contains(series, "dam_break_000002.vtp"));

  EXPECT_TRUE(contains(r.out, "backend: cpu ("));
  EXPECT_TRUE(contains(r.out, " fluid + "));
  EXPECT_TRUE(contains(r.out, "steps             20"));
  EXPECT_TRUE(contains(r.out, "particle-steps/s"));
  for (const char* stage : {"index", "density", "forces", "integration", "other"}) {
    EXPECT_TRUE(contains(r.out, stage));
  }
  EXPECT_TRUE(
      contains(r.out, "frames written    3: frames/dam_break.pvd (VTK series), frames/dam_break_*.ply (PLY)"))
      << r.out;
  // The first lines say where the files go, before any step.
  EXPECT_LT(
      r.out.find("output: frames/dam_break.pvd (VTK series), frames/dam_break_*.ply (PLY), every 10 steps"),
      r.out.find("summary:"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "bus traffic"));
}

TEST_F(Cli, OverlappedAndSerialExportsWriteTheSameBytes) {
  // The default (a writer thread) and --export-sync (the stepping thread writes) on the same run: the CPU
  // backend is deterministic, so every file must be byte for byte the same.
  const std::vector<std::string> common = {
      "run", kDamBreak.string(), "--backend", "cpu",      "--particles", "1500", "--steps",
      "30",  "--every",          "10",        "--export", "vtk,ply"};
  std::vector<std::string> overlapped = common, serial = common;
  overlapped.insert(overlapped.end(), {"--out", "overlapped"});
  serial.insert(serial.end(), {"--out", "serial", "--export-sync"});
  const Result a = surge(overlapped);
  const Result b = surge(serial);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_TRUE(contains(a.out, "export            overlapped: a writer thread, queue of 2 frames"));
  EXPECT_TRUE(contains(a.out, "blocked on a full queue"));
  EXPECT_TRUE(contains(b.out, "export            serial (--export-sync)"));
  for (const Result* r : {&a, &b}) {
    EXPECT_TRUE(contains(r->out, "frames written    4: "));
    EXPECT_TRUE(contains(r->out, "setup             "));
    // The CPU backend's particles are on the host: nothing crosses a bus.
    EXPECT_TRUE(contains(r->out, "bus per frame     0 bytes (0 B)"));
  }
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "serial")) {
    ++files;
    const std::string name = entry.path().filename().string();
    ASSERT_TRUE(fs::exists(dir_ / "overlapped" / name)) << name;
    EXPECT_TRUE(read_text_file(entry.path()) == read_text_file(dir_ / "overlapped" / name))
        << name << " differs";
  }
  EXPECT_EQ(files, 9);  // 4 frames as .vtp and .ply, and the .pvd
}

TEST_F(Cli, ExportWriteErrorStopsTheRunWithNoTemporaryFile) {
  // A directory stands where frame 1's file goes, so its rename fails whatever the user's rights.
  write("tiny.toml", kTinyScene);
  fs::create_directories(dir_ / "frames" / "tiny_000001.vtp");
  for (const bool sync : {false, true}) {
    std::vector<std::string> args = {"run", "tiny.toml", "--backend", "cpu", "--out", "frames", "--quiet"};
    if (sync) args.push_back("--export-sync");
    const Result r = surge(args);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "error: "));
    EXPECT_TRUE(contains(r.err, "cannot write 'frames/tiny_000001.vtp'"));
    EXPECT_EQ(r.out.find("summary"), std::string::npos) << r.out;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "frames")) {
      EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    }
    EXPECT_FALSE(fs::exists(dir_ / "frames" / "tiny_000002.vtp"));
    EXPECT_FALSE(contains(read_text_file(dir_ / "frames" / "tiny.pvd"), "tiny_000001.vtp"));
  }
}

TEST_F(Cli, ExportQueueOutOfRangeIsAUsageError) {
  const Result r =
      surge({"run", kDamBreak.string(), "--backend", "cpu", "--steps", "1", "--export-queue", "9"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--export-queue"));
  const Result both = surge({"run", kDamBreak.string(), "--backend", "cpu", "--steps", "1", "--export-queue",
                             "3", "--export-sync"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

TEST_F(Cli, ProgressWithoutTerminalIsPlainLines) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "30"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "progress: 100.0 %"));
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_EQ(r.err.find("\033["), std::string::npos);
}

TEST_F(Cli, QuietHasNoProgress) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "5", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "summary"));
}

TEST_F(Cli, SceneOutputSettingsApplyWithoutOverrides) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "10", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // formats = ["vtk"], every = 5, and the loader's default directory out/NAME.
  EXPECT_TRUE(fs::exists(dir_ / "out" / "tiny" / "tiny.pvd"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "tiny" / "tiny_000002.vtp"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "tiny" / "tiny_000000.ply"));
}

TEST_F(Cli, RunWithoutExportsCreatesNoDirectory) {
  write("tiny.toml", kTinyScene);
  const Result r =
      surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "5", "--every", "0", "--out", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "x"));
  EXPECT_TRUE(contains(r.out, "frames written    0"));
}

TEST_F(Cli, RunStopsAtTheScenesEndTime) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch time, steps;
  ASSERT_TRUE(std::regex_search(r.out, time, std::regex(R"(simulated time +([0-9.e+-]+) s)"))) << r.out;
  ASSERT_TRUE(std::regex_search(r.out, steps, std::regex(R"(steps +([0-9,]+))"))) << r.out;
  const double end_s = std::stod(time[1]);
  const double mean_dt_s = end_s / std::stod(steps[1]);
  EXPECT_GE(end_s, 0.002);
  EXPECT_LT(end_s, 0.002 + 2 * mean_dt_s);  // the step that crossed the end was the last
}

// Without a display the main job runs headless (with one, `surge` opens the viewer instead).
TEST_F(Cli, NoSubcommandRunsTheWorkingDirectorysDamBreak) {
  unsetenv("DISPLAY");
  unsetenv("WAYLAND_DISPLAY");
  write("scenes/dam_break.toml", kTinyScene);
  const Result r = surge({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "headless"));
  EXPECT_TRUE(contains(r.out, "summary: tiny"));
}

TEST_F(Cli, UnstableRunStopsWithDiagnosisAndKeepsFrames) {
  // No walls and a block thrown down at 20 m/s: the fluid leaves the domain within a few dozen steps.
  std::string scene = replace_line(kTinyScene, "max = [0.2, 0.1, 0.2]", "max = [0.2, 0.1, 0.2]\nwalls = []");
  scene =
      replace_line(scene, "max = [0.06, 0.1, 0.1]", "max = [0.06, 0.1, 0.1]\nvelocity = [0.0, 0.0, -20.0]");
  scene = replace_line(scene, "every = 5", "every = 10");
  write("falling.toml", scene);
  const Result r = surge({"run", "falling.toml", "--backend", "cpu", "--time", "1", "--out", "frames"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "unstable: step "));
  // The diagnosis names the particle's state, its density among it (tension shows as a low one).
  EXPECT_TRUE(contains(r.err, "kg/m^3)")) << r.err;
  EXPECT_TRUE(contains(r.err, "frames/tiny.pvd"));
  EXPECT_TRUE(fs::exists(dir_ / "frames" / "tiny_000000.vtp"));
  EXPECT_EQ(r.out.find("summary"), std::string::npos);
  // DFSPH and PBF find their bad particle through the shared fluid state: the same report.
  for (const char* solver : {"dfsph", "pbf"}) {
    const Result other = surge({"run", "falling.toml", "--backend", "cpu", "--solver", solver, "--time", "1",
                                "--every", "0", "--quiet"});
    EXPECT_EQ(other.exit_code, 3) << solver << ": " << other.out << other.err;
    EXPECT_TRUE(contains(other.err, "kg/m^3)")) << solver << ": " << other.err;
  }
}

// ---- surge bench

TEST_F(Cli, BenchPrintsATableAndWritesJson) {
  const Result r = surge({"bench", kDamBreak.string(), "--backend", "cpu", "--particles", "2000,4000",
                          "--steps", "5", "--warmup", "2", "--json", "bench.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(dir_ / "bench.json"));
  EXPECT_FALSE(fs::exists(dir_ / "bench.json.tmp"));
  const nlohmann::json result = nlohmann::json::parse(read_text_file(dir_ / "bench.json"));

  EXPECT_EQ(result["surge"]["version"], "0.1.0");
  EXPECT_TRUE(result["surge"]["commit"].is_string());
  EXPECT_TRUE(
      std::regex_match(result["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_TRUE(contains(result["command_line"].get<std::string>(), "--particles 2000,4000"));
  EXPECT_FALSE(result["machine"]["hostname"].get<std::string>().empty());
  EXPECT_TRUE(result["machine"]["cpu_model"].is_string());
  EXPECT_GE(result["machine"]["logical_cores"].get<int>(), 1);
  EXPECT_GE(result["machine"]["openmp_threads"].get<int>(), 1);
  EXPECT_TRUE(result["gpu"].is_null() || result["gpu"].contains("compute_capability"));
  EXPECT_TRUE(contains(result["scene"]["path"].get<std::string>(), "dam_break.toml"));

  const nlohmann::json& runs = result["runs"];
  ASSERT_EQ(runs.size(), 2u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const nlohmann::json& run = runs[i];
    const long particles = run["particles"].get<long>();
    const long target = i == 0 ? 2000 : 4000;
    EXPECT_GT(particles, target * 7 / 10) << i;
    EXPECT_LT(particles, target * 13 / 10) << i;
    EXPECT_GT(run["boundary_particles"].get<long>(), 0);
    EXPECT_EQ(run["backend"], "cpu");
    EXPECT_EQ(run["steps"], 5);
    EXPECT_GT(run["ms_per_step"].get<double>(), 0.0);
    EXPECT_GT(run["particle_steps_per_s"].get<double>(), 0.0);
    double share_sum = 0.0;
    for (const char* stage : {"index", "density", "forces", "integration", "other"}) {
      ASSERT_TRUE(run["stages"].contains(stage)) << stage;
      EXPECT_GE(run["stages"][stage]["ms_per_step"].get<double>(), 0.0);
      share_sum += run["stages"][stage]["share"].get<double>();
    }
    EXPECT_NEAR(share_sum, 1.0, 1e-6);
    const nlohmann::json& parameters = run["parameters"];
    for (const char* key : {"spacing_m", "support_m", "rest_density_kg_per_m3", "particle_mass_kg",
                            "speed_of_sound_m_per_s", "tait_exponent", "tait_stiffness_pa", "viscosity_alpha",
                            "xsph_epsilon", "cfl", "dt_max_s", "dt_min_s"}) {
      EXPECT_TRUE(parameters.contains(key) && parameters[key].is_number()) << key;
    }
    EXPECT_GT(parameters["spacing_m"].get<double>(), 0.0);
    EXPECT_EQ(parameters["gravity_m_per_s2"].size(), 3u);
    EXPECT_EQ(parameters["domain_min_m"].size(), 3u);
    EXPECT_EQ(parameters["domain_max_m"].size(), 3u);
    EXPECT_EQ(parameters["kernel"], "cubic_spline");
    // The work at which runs compare (docs/perf/README.md): the dam break's cubic spline at support 2
    // spacings has at most 4/3 pi 2^3 = 33.5 neighbours inside the fluid and fewer at the free surface; the
    // walls add some near the floor and the sides.
    const nlohmann::json& neighbors = run["neighbors"];
    ASSERT_TRUE(neighbors.is_object()) << run.dump();
    EXPECT_GT(neighbors["fluid_mean"].get<double>(), 15.0);
    EXPECT_LT(neighbors["fluid_mean"].get<double>(), 34.0);
    EXPECT_GT(neighbors["wall_mean"].get<double>(), 1.0);
    EXPECT_NEAR(neighbors["mean"].get<double>(),
                neighbors["fluid_mean"].get<double>() + neighbors["wall_mean"].get<double>(), 1e-9);
    EXPECT_NEAR(neighbors["pairs_per_pass"].get<double>(),
                neighbors["mean"].get<double>() * double(particles),
                1e-6 * neighbors["pairs_per_pass"].get<double>());
    EXPECT_GT(neighbors["candidates_per_neighbor"].get<double>(), 2.0);
    EXPECT_EQ(neighbors["passes_per_step"], 2.0) << "summation density: density and forces";
    const double seconds = 5 * run["ms_per_step"].get<double>() * 1e-3;
    EXPECT_NEAR(neighbors["pairs_per_s"].get<double>(),
                2.0 * neighbors["pairs_per_pass"].get<double>() * 5 / seconds,
                1e-6 * neighbors["pairs_per_s"].get<double>());
    // The memory floor: bandwidth measured, WCSPH's four modelled stages with bytes and a fraction.
    EXPECT_GT(run["memory_bandwidth_gb_per_s"].get<double>(), 0.1);
    for (const char* stage : {"index", "density", "forces", "integration"}) {
      EXPECT_GT(run["stages"][stage]["floor_bytes_per_step"].get<double>(), 8.0 * double(particles)) << stage;
      EXPECT_GT(run["stages"][stage]["fraction_of_floor"].get<double>(), 0.0) << stage;
    }
    EXPECT_FALSE(run["stages"]["other"].contains("floor_bytes_per_step"));
    EXPECT_GT(run["step_fraction_of_floor"].get<double>(), 0.0);
    // The table shows the same run.
    EXPECT_TRUE(contains(r.out, with_thousands(particles)));
  }
  EXPECT_TRUE(contains(r.out, "particle-steps/s"));
  EXPECT_TRUE(contains(r.out, "forces ms (%)"));
  EXPECT_TRUE(contains(r.out, "candidates tested per neighbor found")) << r.out;
  EXPECT_TRUE(contains(r.out, "memory floor at")) << r.out;
  EXPECT_TRUE(contains(r.out, "neighbor_pairs_per_s")) << r.out;
}

// A rerun into the directory of an earlier, longer run of the same scene: the new .pvd must not stand
// beside the old run's later frames. The first frame removes the old series (FrameExporter), nothing else.
TEST_F(Cli, ARerunReplacesTheEarlierLongerSeries) {
  write("tiny.toml", kTinyScene);
  const std::vector<std::string> run = {"run",      "tiny.toml", "--backend", "cpu", "--out",  "frames",
                                        "--export", "vtk,ply",   "--every",   "2",   "--quiet"};
  std::vector<std::string> longer = run;
  longer.insert(longer.end(), {"--steps", "40"});
  ASSERT_EQ(surge(longer).exit_code, 0);
  std::ofstream(dir_ / "frames" / "other_000000.vtp") << "another scene's frame";
  std::ofstream(dir_ / "frames" / "notes.txt") << "the user's";

  std::vector<std::string> shorter = run;
  shorter.insert(shorter.end(), {"--steps", "10"});
  const Result r = surge(shorter);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 21 frames as .vtp and .ply and the .pvd went; 6 frames came.
  EXPECT_TRUE(contains(r.out,
                       "frames written    6: frames/tiny.pvd (VTK series), frames/tiny_*.ply (PLY) "
                       "(replacing 43 files an earlier run"));
  std::vector<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(dir_ / "frames"))
    on_disk.push_back(entry.path().filename());
  std::sort(on_disk.begin(), on_disk.end());
  std::vector<std::string> expected = {"notes.txt", "other_000000.vtp", "tiny.pvd"};
  for (int k = 0; k < 6; ++k) {
    expected.push_back("tiny_00000" + std::to_string(k) + ".ply");
    expected.push_back("tiny_00000" + std::to_string(k) + ".vtp");
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(on_disk, expected);
}

// A full disk reports its reason. /dev/full fails every write with ENOSPC: the benchmark's JSON is written
// through a temporary file that is a link to it.
TEST_F(Cli, AFullDiskIsReportedWithItsReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  write("tiny.toml", kTinyScene);
  fs::create_symlink("/dev/full", dir_ / "bench.json.tmp");
  const Result r = surge(
      {"bench", "tiny.toml", "--backend", "cpu", "--steps", "1", "--warmup", "0", "--json", "bench.json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot write 'bench.json': No space left on device"));
  EXPECT_FALSE(fs::exists(dir_ / "bench.json"));
  EXPECT_FALSE(fs::is_symlink(dir_ / "bench.json.tmp")) << "the temporary file is removed";
}

// The same on a real file system that fills up mid-run: a small tmpfs, where the test may mount one (as
// root, with the right to mount); skipped with the reason elsewhere.
TEST_F(Cli, AFileSystemThatFillsUpStopsTheRunWithItsReason) {
  const fs::path small = dir_ / "small";
  fs::create_directories(small);
  const std::string mount = "mount -t tmpfs -o size=256k surge-test " + small.string() + " 2> /dev/null";
  if (geteuid() != 0 || std::system(mount.c_str()) != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root and the right to mount)";
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--out", "small/frames", "--export",
                          "vtk,ply", "--every", "1", "--steps", "200", "--quiet"});
  std::vector<fs::path> temporaries;
  std::vector<std::string> vtp_files;
  for (const auto& entry : fs::directory_iterator(small / "frames")) {
    if (entry.path().extension() == ".tmp") temporaries.push_back(entry.path());
    if (entry.path().extension() == ".vtp") vtp_files.push_back(entry.path().filename());
  }
  const std::string pvd = read_text_file(small / "frames" / "tiny.pvd");
  const int unmounted = std::system(("umount " + small.string()).c_str());
  EXPECT_EQ(unmounted, 0) << "umount " << small;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "No space left on device"));
  EXPECT_TRUE(temporaries.empty()) << temporaries.front();
  ASSERT_FALSE(vtp_files.empty());
  for (const std::string& file : vtp_files)
    EXPECT_TRUE(contains(pvd, file)) << "a frame the .pvd does not list";
}

// ---- Bad input: exit 2, a message naming file, line and key, nothing written

TEST_F(Cli, UnknownKeyIsRejected) {
  const std::string scene = replace_line(kTinyScene, "viscosity_alpha = 0.05", "viscosty_alpha = 0.05");
  expect_rejected(scene, line_of(scene, "viscosty_alpha"), "fluid.viscosty_alpha");
}

TEST_F(Cli, WrongTypeIsRejected) {
  const std::string scene = replace_line(kTinyScene, "spacing = 0.02", "spacing = \"fine\"");
  expect_rejected(scene, line_of(scene, "spacing ="), "resolution.spacing");
}

TEST_F(Cli, OutOfRangeValueIsRejected) {
  const std::string scene = replace_line(kTinyScene, "end = 0.002", "end = -1.0");
  expect_rejected(scene, line_of(scene, "end = -1.0"), "time.end");
}

TEST_F(Cli, BadRenderValueIsRejected) {
  const std::string scene = kTinyScene + "[render]\nstyle = \"surface\"\nabsorption = -1\n";
  expect_rejected(scene, line_of(scene, "absorption = -1"), "render.absorption");
  const std::string style = kTinyScene + "[render]\nstyle = \"glass\"\n";
  expect_rejected(style, line_of(style, "style = \"glass\""), "render.style");
}

TEST_F(Cli, FluidOutsideTheDomainIsRejected) {
  const std::string scene = replace_line(kTinyScene, "max = [0.06, 0.1, 0.1]", "max = [0.06, 0.1, 0.5]");
  expect_rejected(scene, line_of(scene, "[[fluid.block]]"), "fluid.block[0]");
}

// Rejected as a scene's text: exit 2, "FILE:LINE:COLUMN: " and what is wrong, nothing written.
void expect_text_rejected(const std::function<Result(const std::vector<std::string>&)>& surge_run,
                          const fs::path& dir, const std::string& position, const std::string& message) {
  const Result r = surge_run(
      {"run", "bad.toml", "--backend", "cpu", "--out", "frames", "--export", "vtk,ply", "--every", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "bad.toml:" + position + ": " + message));
  EXPECT_FALSE(contains(r.err, "key ''"));
  EXPECT_FALSE(fs::exists(dir / "frames")) << "a rejected scene created the output directory";
}

TEST_F(Cli, TomlSyntaxErrorGivesLineColumnAndTheParsersDescription) {
  const std::string scene = replace_line(kTinyScene, "spacing = 0.02", "spacing = 0.02 0.03");
  write("bad.toml", scene);
  const auto run = [&](const std::vector<std::string>& args) { return surge(args); };
  expect_text_rejected(run, dir_, std::to_string(line_of(scene, "spacing =")) + ":16", "Error while parsing");
  write("bad.toml", replace_line(kTinyScene, "[domain]", "[domain"));
  expect_text_rejected(run, dir_, "3:8", "Error while parsing table header");
}

// The reproducers of toml++ 3.3.0's undefined behaviour and assertion (sim/scene/scene_text.h): clean
// errors at the character, in a release build as in any other.
TEST_F(Cli, BytesTomlPlusPlusMishandlesAreCleanErrors) {
  const auto run = [&](const std::vector<std::string>& args) { return surge(args); };
  write("bad.toml", replace_line(kTinyScene, "spacing = 0.02", "spacing = 0.02 µm"));
  expect_text_rejected(run, dir_, std::to_string(line_of(kTinyScene, "spacing =")) + ":16",
                       "unexpected character 'µ' (U+00B5): outside quoted strings and comments");
  write("bad.toml", replace_line(kTinyScene, "[time]", "[time]\ntïny = 1"));
  expect_text_rejected(run, dir_, std::to_string(line_of(kTinyScene, "[time]") + 1) + ":2",
                       "unexpected character 'ï' (U+00EF)");
  write("bad.toml", std::string("[\0", 2));
  expect_text_rejected(run, dir_, "1:2", "a NUL byte");
  write("bad.toml", replace_line(kTinyScene, "name = \"tiny\"", "name = \"t\xE9st\""));  // Latin-1
  expect_text_rejected(run, dir_, "1:10", "invalid UTF-8 (byte 0xE9)");
  // What TOML allows stays allowed: non-ASCII in strings and comments.
  write("ok.toml", replace_line(kTinyScene, "spacing = 0.02", "spacing = 0.02  # 2 cm, not 20 µm"));
  EXPECT_EQ(surge({"run", "ok.toml", "--backend", "cpu", "--steps", "1", "--quiet"}).exit_code, 0);
}

TEST_F(Cli, MissingSceneFileSaysWhyItCannotBeOpened) {
  const Result r = surge({"run", "missing.toml", "--out", "frames", "--export", "vtk", "--every", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cannot open missing.toml: No such file or directory\n");
  EXPECT_FALSE(fs::exists(dir_ / "frames"));
  fs::create_directories(dir_ / "adir.toml");
  const Result d = surge({"run", "adir.toml"});
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_EQ(d.err, "cannot read adir.toml: Is a directory\n");
}

TEST_F(Cli, NameMustBeAFileName) {
  const int line = line_of(kTinyScene, "name =");
  for (const std::string name : {"..", ".", "../up", "a/b", "tab\\there", "bell\\u0007", ""}) {
    SCOPED_TRACE(name);
    expect_rejected(replace_line(kTinyScene, "name = \"tiny\"", "name = \"" + name + "\""), line, "name");
  }
}

// ---- Bounded setup: a scene or --particles that cannot fit fails at once, before anything is allocated

TEST_F(Cli, SetupThatCannotFitIsRefusedWithinASecond) {
  struct Case {
    std::string scene_text;
    std::vector<std::string> extra;
    std::string message;
  };
  const std::string tank =
      replace_line(replace_line(kTinyScene, "max = [0.2, 0.1, 0.2]", "max = [0.1, 0.1, 0.1]"),
                   "max = [0.06, 0.1, 0.1]", "max = [0.05, 0.1, 0.1]");
  const std::vector<Case> cases = {
      // The issue's cases: 5e8 particles in a 10 cm tank; a 5 cm block at 1 mm in a 100 m domain.
      {replace_line(tank, "spacing = 0.02", "spacing = 0.0001"),
       {},
       "bad.toml:8: key 'resolution.spacing': about 5e8 fluid particles need at least 81.6 GiB of host "
       "memory (the "
       "setup, with 1.2e7 wall particles and 1.3e8 grid cells, and the CPU's simulation state); the data "
       "size "
       "limit (ulimit -d) allows 4 GiB: about "},
      {replace_line(replace_line(kTinyScene, "max = [0.2, 0.1, 0.2]", "max = [100.0, 100.0, 100.0]"),
                    "spacing = 0.02", "spacing = 0.001"),
       {},
       "bad.toml:8: key 'resolution.spacing': the 100 x 100 x 100 m domain in grid cells of one kernel "
       "support"},
      {kTinyScene,
       {"--particles", "3000000000"},
       "--particles: expected a particle count from 1 to 2,000,000,000, got 3,000,000,000"},
      {kTinyScene,
       {"--particles", "1e12"},
       "--particles: expected a particle count from 1 to 2,000,000,000, got 1,000,000,000,000"},
      {kTinyScene,
       {"--particles", "2000000000"},
       "bad.toml: option '--particles': about 2e9 fluid particles"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    write("bad.toml", c.scene_text);
    std::vector<std::string> args = {"run",   "bad.toml", "--backend", "cpu",
                                     "--out", "frames",   "--every",   "1"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto start = std::chrono::steady_clock::now();
    // As on a machine with 4 GiB, whatever this one has: the refusals may not depend on it.
    const Result r = surge(args, 4L << 30);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, c.message));
    EXPECT_LT(seconds, 1.0);
    EXPECT_FALSE(fs::exists(dir_ / "frames"));
  }
}

// ---- Command-line values: finite, in range, and said in numbers a person reads

TEST_F(Cli, TimeMustBeFiniteAndPositive) {
  write("tiny.toml", kTinyScene);
  for (const std::string value : {"nan", "inf", "-1", "0", "-nan", "1e999", "soon"}) {
    const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--time", value, "--out", "frames"});
    EXPECT_EQ(r.exit_code, 2) << value;
    EXPECT_TRUE(contains(r.err, "--time: expected a finite number > 0 [s], got " + value));
    EXPECT_FALSE(fs::exists(dir_ / "frames"));
  }
}

TEST_F(Cli, RangeErrorsPrintReadableNumbers) {
  write("tiny.toml", kTinyScene);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--every", "-1"}, "--every: expected a whole number >= 0, got -1"},
      {{"--every-time", "-2"}, "--every-time: expected a finite number > 0 [s], got -2"},
      {{"--steps", "0"}, "--steps: expected a whole number >= 1, got 0"},
      {{"--skin", "5"}, "--skin: expected a number in [0.01, 2], got 5"},
      {{"--particles", "0"}, "--particles: expected a particle count from 1 to 2,000,000,000, got 0"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = {"run", "tiny.toml", "--backend", "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = surge(args);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_TRUE(contains(r.err, message));
    EXPECT_FALSE(contains(r.err, "17976931348623157")) << "DBL_MAX written out";
  }
  const Result bench = surge({"bench", "tiny.toml", "--backend", "cpu", "--warmup", "-3"});
  EXPECT_EQ(bench.exit_code, 2);
  EXPECT_TRUE(contains(bench.err, "--warmup: expected a whole number >= 0, got -3"));
}

TEST_F(Cli, ParticlesTakesScientificNotation) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--particles", "2e3", "--steps", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "particles         2,0")) << r.out;  // about 2000
}

TEST_F(Cli, BenchRejectsABadSceneToo) {
  write("bad.toml", replace_line(kTinyScene, "end = 0.002", "end = -1.0"));
  const Result r = surge({"bench", "bad.toml", "--backend", "cpu", "--json", "bench.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "key 'time.end'"));
  EXPECT_FALSE(fs::exists(dir_ / "bench.json"));
}

TEST_F(Cli, BackendGpuWithoutAGpuIsAnInputError) {
  write("tiny.toml", kTinyScene);
  const Result probe = surge({"run", "tiny.toml", "--steps", "1", "--quiet"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  if (contains(probe.out, "backend: gpu")) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_TRUE(contains(probe.out, "— no CUDA GPU: "));  // auto says why it fell back
  // ... naming what is missing (sim/core/gpu_info.h), not a CUDA error code.
  const bool named = contains(probe.out, "no NVIDIA driver is installed (libcuda.so.1 not found)") ||
                     contains(probe.out, "is older than this build's CUDA runtime") ||
                     contains(probe.out, "is installed but finds no GPU") ||
                     contains(probe.out, "this build of Surge has no CUDA backend");
  EXPECT_TRUE(named) << probe.out;
  EXPECT_FALSE(contains(probe.out, "cudaErrorInsufficientDriver")) << probe.out;

  const Result r = surge({"run", "tiny.toml", "--backend", "gpu", "--steps", "1", "--out", "frames"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "error: --backend gpu: no CUDA GPU: "));
  EXPECT_FALSE(fs::exists(dir_ / "frames"));
}

TEST_F(Cli, StepsAndTimeTogetherAreAUsageError) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--steps", "10", "--time", "0.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--steps excludes --time"));
}

TEST_F(Cli, UnknownOptionAndBadValuesAreUsageErrors) {
  write("tiny.toml", kTinyScene);
  EXPECT_EQ(surge({"run", "tiny.toml", "--frobnicate"}).exit_code, 2);
  EXPECT_EQ(surge({"run", "tiny.toml", "--backend", "tpu"}).exit_code, 2);
  EXPECT_EQ(surge({"run", "tiny.toml", "--export", "stl"}).exit_code, 2);
  EXPECT_EQ(surge({"run", "tiny.toml", "--steps", "-3"}).exit_code, 2);
  EXPECT_EQ(surge({"bench", "tiny.toml", "--particles", "100,abc"}).exit_code, 2);
  const Result bad_build = surge({"bench", "tiny.toml", "--index-build", "bucket"});
  EXPECT_EQ(bad_build.exit_code, 2);
  EXPECT_NE(bad_build.err.find("index-build"), std::string::npos) << bad_build.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// --index-build only changes how a GPU builds its index; on the CPU it is accepted and the run measured.
TEST_F(Cli, BenchAcceptsBothIndexBuilds) {
  write("tiny.toml", kTinyScene);
  for (const char* build : {"radix", "counting"}) {
    const Result r = surge(
        {"bench", "tiny.toml", "--backend", "cpu", "--index-build", build, "--steps", "2", "--warmup", "0"});
    EXPECT_EQ(r.exit_code, 0) << build << ": " << r.err;
    EXPECT_NE(r.out.find("cpu"), std::string::npos) << r.out;
  }
}

// --cells-per-support replaces the scene's: the census finds the same neighbours with half cells and reports
// fewer candidates per neighbour and the setting it ran with; a third value is a usage error.
TEST_F(Cli, BenchCellsPerSupportChangesTheCandidatesNotTheNeighbours) {
  nlohmann::json neighbors[2];
  for (int cells = 1; cells <= 2; ++cells) {
    const std::string json = "cells" + std::to_string(cells) + ".json";
    const Result r =
        surge({"bench", kDamBreak.string(), "--backend", "cpu", "--particles", "2000", "--steps", "2",
               "--warmup", "0", "--cells-per-support", std::to_string(cells), "--json", json});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "(index cells per support: " + std::to_string(cells) + ")")) << r.out;
    neighbors[cells - 1] = nlohmann::json::parse(read_text_file(dir_ / json))["runs"][0]["neighbors"];
    EXPECT_EQ(neighbors[cells - 1]["index_cells_per_support"], double(cells));
  }
  // The same neighbours up to a pair that two steps' rounding (sums in another order) moves across the
  // support.
  EXPECT_NEAR(neighbors[1]["mean"].get<double>(), neighbors[0]["mean"].get<double>(),
              1e-3 * neighbors[0]["mean"].get<double>());
  EXPECT_LT(neighbors[1]["candidates_per_neighbor"].get<double>(),
            0.6 * neighbors[0]["candidates_per_neighbor"].get<double>());
  const Result bad = surge({"bench", kDamBreak.string(), "--backend", "cpu", "--cells-per-support", "3"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(contains(bad.err, "--cells-per-support")) << bad.err;
}

// --density continuity runs a summation scene's WCSPH with the continuity equation: one neighbour pass a step
// instead of two, and the record says which density it ran with, so two benches compare at equal work. `run`
// takes the same option. A solver that computes its own density refuses it (exit 2, naming the option).
TEST_F(Cli, DensityOptionRunsWcsphWithTheContinuityEquation) {
  const char* kDensities[] = {"summation", "continuity"};
  for (int k = 0; k < 2; ++k) {
    const std::string json = std::string(kDensities[k]) + ".json";
    const Result r = surge({"bench", kDamBreak.string(), "--backend", "cpu", "--particles", "2000", "--steps",
                            "2", "--warmup", "0", "--density", kDensities[k], "--json", json});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json run = nlohmann::json::parse(read_text_file(dir_ / json))["runs"][0];
    EXPECT_EQ(run["parameters"]["continuity_density"], k == 1 ? "on" : "off") << run.dump();
    EXPECT_EQ(run["neighbors"]["passes_per_step"], k == 1 ? 1.0 : 2.0) << run.dump();
  }
  const Result run = surge({"run", kDamBreak.string(), "--backend", "cpu", "--particles", "2000", "--steps",
                            "3", "--density", "continuity", "--out", "density_run", "--every", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "neighbor_passes             1 (1)")) << run.out;
  const Result dfsph = surge({"bench", kDamBreak.string(), "--backend", "cpu", "--solver", "dfsph", "--steps",
                              "1", "--density", "continuity"});
  EXPECT_EQ(dfsph.exit_code, 2);
  EXPECT_TRUE(contains(dfsph.err, "--density continuity: applies to WCSPH")) << dfsph.err;
  const Result bad = surge({"run", kDamBreak.string(), "--density", "mass"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(contains(bad.err, "--density")) << bad.err;
}

// --solver runs the same scene with DFSPH or PBF; the run summary and the bench row report the iterations
// each step used and the density error it reached. An unknown solver is a usage error.
TEST_F(Cli, SolverOptionRunsTheIncompressibleSolvers) {
  write("tiny.toml", kTinyScene);
  for (const std::string solver : {"dfsph", "pbf"}) {
    const Result run =
        surge({"run", "tiny.toml", "--backend", "cpu", "--solver", solver, "--steps", "3", "--quiet"});
    EXPECT_EQ(run.exit_code, 0) << solver << ": " << run.err;
    EXPECT_NE(run.out.find("solver per step"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("density_error_percent"), std::string::npos) << run.out;
    const Result bench = surge(
        {"bench", "tiny.toml", "--backend", "cpu", "--solver", solver, "--steps", "2", "--warmup", "0"});
    EXPECT_EQ(bench.exit_code, 0) << solver << ": " << bench.err;
    EXPECT_NE(bench.out.find("per step:"), std::string::npos) << bench.out;
    // The iterative solvers count their neighbour passes each step (iterations vary), so pairs per second
    // follow from the census; they have no byte model, so no memory floor line.
    EXPECT_NE(bench.out.find("neighbor_passes"), std::string::npos) << bench.out;
    EXPECT_NE(bench.out.find("neighbor_pairs_per_s"), std::string::npos) << bench.out;
    EXPECT_EQ(bench.out.find("memory floor"), std::string::npos) << bench.out;
  }
  const Result bad = surge({"run", "tiny.toml", "--solver", "sph"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--solver"), std::string::npos) << bad.err;
}

// `bench --solver wcsph,dfsph` benches both solvers at each count into one record; the DFSPH run's
// "density_solve" holds its iterations a step and the time of one density iteration, over the WCSPH run's
// force pass (its forces stage) at the same count: the performance issue's ratio, read from one JSON. The run
// summary prints the time of a density iteration too.
TEST_F(Cli, BenchOfWcsphAndDfsphReportsADensityIterationAgainstTheForcePass) {
  const Result r = surge({"bench", kDamBreak.string(), "--backend", "cpu", "--solver", "wcsph,dfsph",
                          "--particles", "2000", "--steps", "3", "--warmup", "1", "--json", "bench.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "solver wcsph")) << r.out;
  EXPECT_TRUE(contains(r.out, "solver dfsph")) << r.out;
  EXPECT_TRUE(contains(r.out, "x the wcsph force pass")) << r.out;
  const nlohmann::json runs = nlohmann::json::parse(read_text_file(dir_ / "bench.json"))["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["solver"], "wcsph");
  EXPECT_EQ(runs[1]["solver"], "dfsph");
  EXPECT_TRUE(runs[0]["density_solve"].is_null());
  const nlohmann::json& solve = runs[1]["density_solve"];
  // BK17's (and the scene's) density solve runs at least two iterations a step.
  EXPECT_GE(solve["density_iterations_per_step"].get<double>(), 2.0);
  EXPECT_GE(solve["divergence_iterations_per_step"].get<double>(), 1.0);
  const double iteration_ms = solve["ms_per_density_iteration"].get<double>();
  EXPECT_GT(iteration_ms, 0.0);
  const double force_pass_ms = runs[0]["stages"]["forces"]["ms_per_step"].get<double>();
  EXPECT_DOUBLE_EQ(solve["wcsph_force_pass_ms"].get<double>(), force_pass_ms);
  EXPECT_DOUBLE_EQ(solve["density_iteration_over_force_pass"].get<double>(), iteration_ms / force_pass_ms);
  // The iterations' time is part of the forces stage, where DFSPH's solves are timed.
  EXPECT_LT(iteration_ms * solve["density_iterations_per_step"].get<double>(),
            runs[1]["stages"]["forces"]["ms_per_step"].get<double>());

  const Result run = surge({"run", kDamBreak.string(), "--backend", "cpu", "--solver", "dfsph", "--particles",
                            "2000", "--steps", "2", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "ms per density iteration")) << run.out;
}

// ---- Offscreen frames (surge run --render / --video)

// Width and height from a PNG file's IHDR chunk; {0, 0} when it is not a PNG.
std::pair<int, int> png_size(const fs::path& file) {
  const std::string bytes = read_text_file(file);
  if (bytes.size() < 24 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 ||
      bytes.compare(12, 4, "IHDR") != 0) {
    return {0, 0};
  }
  auto big_endian = [&](std::size_t at) {
    int value = 0;
    for (std::size_t k = 0; k < 4; ++k) value = (value << 8) | static_cast<unsigned char>(bytes[at + k]);
    return value;
  };
  return {big_endian(16), big_endian(20)};
}

TEST_F(Cli, RunRenderWritesNumberedPngsOfTheRequestedSize) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "10", "--every", "5", "--render",
                          "pictures", "--size", "96x64", "--color-by", "pressure", "--camera", "front"});
  if (!SURGE_TEST_RENDER) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, "without the OpenGL renderer"));
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int frame = 0; frame < 3; ++frame) {
    const fs::path png = dir_ / "pictures" / ("tiny_00000" + std::to_string(frame) + ".png");
    EXPECT_EQ(png_size(png), std::make_pair(96, 64)) << png;
  }
  EXPECT_FALSE(fs::exists(dir_ / "pictures" / "tiny_000003.png")) << "steps 0, 5 and 10 only";
  for (const auto& entry : fs::directory_iterator(dir_ / "pictures")) {
    EXPECT_EQ(entry.path().extension(), ".png") << "a temporary file was left: " << entry.path();
  }
  EXPECT_TRUE(contains(r.out, "rendered 3 frames at 96x64"));
}

// The surface style from the command line and from the scene's [render] table; refused for grains.
TEST_F(Cli, RunRenderInTheSurfaceStyle) {
  if (!SURGE_TEST_RENDER) GTEST_SKIP() << "built without the renderer";
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "2", "--every", "2", "--render",
                          "pictures", "--size", "96x64", "--style", "surface", "--absorption", "8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(png_size(dir_ / "pictures" / "tiny_000001.png"), std::make_pair(96, 64));
  write("surface.toml", kTinyScene + "[render]\nstyle = \"surface\"\n");
  const Result scene = surge({"run", "surface.toml", "--backend", "cpu", "--steps", "1", "--every", "1",
                              "--render", "scene_pictures", "--size", "64x48"});
  ASSERT_EQ(scene.exit_code, 0) << scene.err;
  EXPECT_EQ(png_size(dir_ / "scene_pictures" / "tiny_000001.png"), std::make_pair(64, 48));
  const Result narrow =
      surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "1", "--every", "1", "--render",
             "narrow_pictures", "--size", "64x48", "--style", "surface", "--filter", "narrow_range"});
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_EQ(png_size(dir_ / "narrow_pictures" / "tiny_000001.png"), std::make_pair(64, 48));
  const Result sprites =
      surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "1", "--every", "1", "--render",
             "sprite_pictures", "--size", "64x48", "--style", "surface", "--particle-passes", "sprites"});
  ASSERT_EQ(sprites.exit_code, 0) << sprites.err;
  EXPECT_EQ(png_size(dir_ / "sprite_pictures" / "tiny_000001.png"), std::make_pair(64, 48));
  const Result bad_passes = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "1", "--render",
                                   "bad_pass_pictures", "--style", "surface", "--particle-passes", "raster"});
  EXPECT_NE(bad_passes.exit_code, 0);
  EXPECT_TRUE(contains(bad_passes.err, "--particle-passes")) << bad_passes.err;
  const Result bad_filter = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "1", "--render",
                                   "bad_filter_pictures", "--style", "surface", "--filter", "gaussian"});
  EXPECT_NE(bad_filter.exit_code, 0);
  EXPECT_TRUE(contains(bad_filter.err, "--filter")) << bad_filter.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad_filter_pictures"));
  const Result grains = surge({"run", SURGE_SOURCE_DIR "/scenes/granular_column.toml", "--backend", "cpu",
                               "--steps", "1", "--render", "grain_pictures", "--style", "surface"});
  EXPECT_EQ(grains.exit_code, 2) << grains.err;
  EXPECT_TRUE(contains(grains.err, "--style surface draws a liquid")) << grains.err;
  EXPECT_FALSE(fs::exists(dir_ / "grain_pictures"));
}

TEST_F(Cli, RunRenderRejectsABadSizeBeforeWritingAnything) {
  write("tiny.toml", kTinyScene);
  const Result r =
      surge({"run", "tiny.toml", "--backend", "cpu", "--render", "pictures", "--size", "96by64"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--size '96by64'"));
  EXPECT_FALSE(fs::exists(dir_ / "pictures"));
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, VideoWithoutFfmpegSaysSoAndWritesNothing) {
  write("tiny.toml", kTinyScene);
  // A PATH with no ffmpeg on it.
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (dir_ / "empty-bin").c_str(), 1);
  const Result r =
      surge({"run", "tiny.toml", "--backend", "cpu", "--render", "pictures", "--video", "run.mp4"});
  setenv("PATH", saved_path.c_str(), 1);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "ffmpeg is not installed"));
  EXPECT_FALSE(fs::exists(dir_ / "pictures"));
  EXPECT_FALSE(fs::exists(dir_ / "run.mp4"));
}

// The binary's OpenMP threads sleep while they wait (app/cpu_threads.h): with OMP_WAIT_POLICY unset, surge
// sets it and starts itself again, and the first line says so with the thread count and where it came from.
TEST_F(Cli, CpuThreadsWaitPassivelyAndTheFirstLineSaysHowManyAndWhy) {
  const std::string saved_policy = std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "";
  const std::string saved_threads = std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "";
  unsetenv("OMP_WAIT_POLICY");
  unsetenv("OMP_NUM_THREADS");
  const Result automatic = surge({"run", kDamBreak.string(), "--backend", "cpu", "--steps", "2", "--quiet"});
  const Result given =
      surge({"run", kDamBreak.string(), "--backend", "cpu", "--steps", "2", "--quiet", "--threads", "1"});
  setenv("OMP_NUM_THREADS", "3", 1);
  setenv("OMP_WAIT_POLICY", "active", 1);
  const Result from_env = surge({"run", kDamBreak.string(), "--backend", "cpu", "--steps", "2", "--quiet"});
  const Result zero = surge({"run", kDamBreak.string(), "--threads", "0"});
  saved_policy.empty() ? unsetenv("OMP_WAIT_POLICY") : setenv("OMP_WAIT_POLICY", saved_policy.c_str(), 1);
  saved_threads.empty() ? unsetenv("OMP_NUM_THREADS") : setenv("OMP_NUM_THREADS", saved_threads.c_str(), 1);

  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  // The restart kept the arguments: two steps ran.
  EXPECT_TRUE(contains(automatic.out, "steps             2\n")) << automatic.out;
  EXPECT_TRUE(contains(automatic.out, "; passive waits)")) << automatic.out;
  EXPECT_TRUE(contains(automatic.out, " available;") || contains(automatic.out, ": cgroup quota "))
      << automatic.out;
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_TRUE(contains(given.out, "backend: cpu (1 thread: --threads; passive waits)")) << given.out;
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_TRUE(contains(from_env.out, "backend: cpu (3 threads: OMP_NUM_THREADS; active waits)"))
      << from_env.out;
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_TRUE(contains(zero.err, "--threads")) << zero.err;
}

TEST_F(Cli, ViewWithoutADisplaySuggestsOffscreenFrames) {
  const std::string saved_display = std::getenv("DISPLAY") ? std::getenv("DISPLAY") : "";
  const std::string saved_wayland = std::getenv("WAYLAND_DISPLAY") ? std::getenv("WAYLAND_DISPLAY") : "";
  unsetenv("DISPLAY");
  unsetenv("WAYLAND_DISPLAY");
  const Result r = surge({"view", kDamBreak.string()});
  if (!saved_display.empty()) setenv("DISPLAY", saved_display.c_str(), 1);
  if (!saved_wayland.empty()) setenv("WAYLAND_DISPLAY", saved_wayland.c_str(), 1);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "needs a display"));
  EXPECT_TRUE(contains(r.err, "surge run SCENE --render"));
}

TEST_F(Cli, BenchRenderTimesFramesAndRecordsThemInJson) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"bench", "tiny.toml", "--backend", "cpu", "--steps", "3", "--warmup", "1",
                          "--render", "--size", "160x90", "--json", "bench.json"});
  if (!SURGE_TEST_RENDER) {
    EXPECT_EQ(r.exit_code, 2);
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "frames at 160x90:"));
  const nlohmann::json result = nlohmann::json::parse(read_text_file(dir_ / "bench.json"));
  const nlohmann::json& run = result["runs"][0];
  const nlohmann::json& frames = run["frames"];
  EXPECT_EQ(frames["width"], 160);
  EXPECT_EQ(frames["height"], 90);
  EXPECT_EQ(frames["frames"], 3);
  EXPECT_GT(frames["ms_per_frame"].get<double>(), 0.0);
  // The CPU backend uploads positions (16 bytes) and one colour value (4 bytes) per particle per frame.
  EXPECT_DOUBLE_EQ(frames["bus_bytes_per_frame"].get<double>(), 20.0 * run["particles"].get<double>());
}

TEST_F(Cli, VideoIsEncodedByFfmpegAndRenamedWhenComplete) {
  if (!SURGE_TEST_RENDER) GTEST_SKIP() << "built without the renderer";
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0) GTEST_SKIP() << "no ffmpeg on PATH";
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--backend", "cpu", "--steps", "20", "--every", "2", "--video",
                          "run.mp4", "--size", "97x55"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "rendered 11 frames at 97x55"));
  EXPECT_FALSE(fs::exists(dir_ / "run.mp4.part"));
  // An MP4 starts with a box whose type is 'ftyp'.
  const std::string video = read_text_file(dir_ / "run.mp4");
  ASSERT_GT(video.size(), 8u);
  EXPECT_EQ(video.substr(4, 4), "ftyp");
}

// ---- Classroom: execution modes (docs/lessons/)

bool has_gpu(const std::function<Result(const std::vector<std::string>&)>& surge_run) {
  const Result probe = surge_run(
      {"bench", kDamBreak.string(), "--modes", "gpu", "--particles", "500", "--steps", "1", "--warmup", "0"});
  return probe.exit_code == 0;
}

TEST_F(Cli, BenchModesCpuPrintsBusAndSpeedupColumnsWritesJsonAndPlot) {
  const Result r = surge({"bench", kDamBreak.string(), "--modes", "cpu", "--particles", "2000,4000",
                          "--steps", "3", "--warmup", "1", "--json", "bench.json", "--plot", "bench.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "mode cpu: cpu ("));
  for (const char* column : {"bus B/step", "bus GB/s", "vs cpu", "transfer ms (%)"})
    EXPECT_TRUE(contains(r.out, column));
  EXPECT_TRUE(contains(r.out, "1.00x"));

  const nlohmann::json result = nlohmann::json::parse(read_text_file(dir_ / "bench.json"));
  ASSERT_EQ(result["runs"].size(), 2u);
  std::vector<long> particles;
  for (const nlohmann::json& run : result["runs"]) {
    EXPECT_EQ(run["backend"], "cpu");
    EXPECT_EQ(run["bus_bytes_per_step"].get<double>(), 0.0) << "the cpu mode never crosses the bus";
    EXPECT_EQ(run["speedup_over_cpu"].get<double>(), 1.0);
    EXPECT_TRUE(run["stages"].contains("transfer"));
    particles.push_back(run["particles"].get<long>());
  }

  ASSERT_TRUE(fs::exists(dir_ / "bench.svg"));
  EXPECT_FALSE(fs::exists(dir_ / "bench.svg.tmp"));
  const std::string svg = read_text_file(dir_ / "bench.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 80);
  EXPECT_TRUE(contains(svg, "</svg>"));
  // One panel per particle count, a stacked bar whose segments name mode and stage, the stage legend.
  for (long count : particles) EXPECT_TRUE(contains(svg, with_thousands(count) + " particles"));
  EXPECT_TRUE(contains(svg, "<title>cpu forces: "));
  EXPECT_TRUE(contains(svg, ">transfer</text>"));
  EXPECT_TRUE(contains(svg, "speedup over cpu"));
  EXPECT_TRUE(contains(svg, "needs the cpu mode and another mode")) << "only cpu ran: no curve to draw";
}

TEST_F(Cli, BenchModesSkipsGpuModesWithANoteWhereThereIsNoGpu) {
  if (has_gpu([&](const std::vector<std::string>& args) { return surge(args); }))
    GTEST_SKIP() << "this machine has a GPU";
  const Result r = surge({"bench", kDamBreak.string(), "--modes", "gpu,cpu,hybrid-overlap,hybrid",
                          "--particles", "1000", "--steps", "2", "--warmup", "0", "--json", "bench.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "note: skipping hybrid, hybrid-overlap, gpu (no CUDA GPU: "));
  const nlohmann::json result = nlohmann::json::parse(read_text_file(dir_ / "bench.json"));
  ASSERT_EQ(result["runs"].size(), 1u);
  EXPECT_EQ(result["runs"][0]["backend"], "cpu");

  const Result only_gpu = surge({"bench", kDamBreak.string(), "--modes", "hybrid", "--json", "x.json"});
  EXPECT_EQ(only_gpu.exit_code, 2);
  EXPECT_TRUE(contains(only_gpu.err, "error: --modes hybrid: no CUDA GPU: "));
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));

  write("tiny.toml", kTinyScene);
  const Result run = surge({"run", "tiny.toml", "--mode", "hybrid-overlap", "--steps", "1"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "error: --mode hybrid-overlap: no CUDA GPU: "));
}

// `surge modes`: the factory's table as a user reads it, one row per solver, a reason for every gap.
TEST_F(Cli, ModesPrintsTheSolverByModeMatrix) {
  const Result r = surge({"modes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_TRUE(std::regex_search(line, std::regex("^solver +cpu +hybrid +hybrid-overlap +gpu *$"))) << line;
  std::map<std::string, std::vector<std::string>> rows;
  while (std::getline(lines, line) && !line.empty() && line[0] != '(') {
    std::istringstream words(line);
    std::string solver, cell;
    words >> solver;
    std::vector<std::string> cells;
    // "yes" or "no (k)", read as one cell.
    while (words >> cell) {
      if (cell == "no") {
        std::string number;
        words >> number;
        cell += " " + number;
      }
      cells.push_back(cell);
    }
    rows[solver] = cells;
  }
  const std::vector<std::string> all = {"yes", "yes", "yes", "yes"};
  EXPECT_EQ(rows["wcsph"], all);
  EXPECT_EQ(rows["dfsph"], all);
  EXPECT_EQ(rows["pbf"], all);
  EXPECT_EQ(rows["dem"], (std::vector<std::string>{"yes", "yes", "no (1)", "yes"}));
  EXPECT_EQ(rows["nbody"], (std::vector<std::string>{"yes", "no (2)", "no (2)", "yes"}));
  EXPECT_EQ(rows.size(), 5u) << r.out;
  EXPECT_TRUE(contains(r.out, "\n(1) the dem solver's hybrid mode")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n(2) n-body gravity has no cell index")) << r.out;
  EXPECT_TRUE(contains(r.out, "hybrid, hybrid-overlap and gpu need a CUDA GPU; here: ")) << r.out;
  EXPECT_TRUE(contains(surge({"--help"}).out, "modes")) << "listed in --help";
}

// DFSPH has the hybrid modes now: on a machine without a GPU, hybrid is skipped for the GPU it needs, not
// refused for the solver, and the cpu mode runs.
TEST_F(Cli, BenchModesRunsDfsphOnTheCpuAndSaysHybridNeedsAGpu) {
  if (has_gpu([&](const std::vector<std::string>& args) { return surge(args); }))
    GTEST_SKIP() << "this machine has a GPU: tests/gpu/incompressible_modes_test.cpp runs the hybrid modes";
  std::string dfsph = kTinyScene;
  dfsph.insert(dfsph.find('\n') + 1, "solver = \"dfsph\"\n");
  // The tiny scene's artificial viscosity is WCSPH's, which a dfsph scene refuses.
  const std::string wcsph_viscosity = "viscosity_alpha = 0.05\n";
  dfsph.erase(dfsph.find(wcsph_viscosity), wcsph_viscosity.size());
  write("dfsph.toml", dfsph);
  const Result r = surge({"bench", "dfsph.toml", "--modes", "cpu,hybrid", "--steps", "2", "--warmup", "0",
                          "--json", "bench.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "note: skipping hybrid (no CUDA GPU: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "mode cpu: cpu (")) << r.out;
  const nlohmann::json result = nlohmann::json::parse(read_text_file(dir_ / "bench.json"));
  ASSERT_EQ(result["runs"].size(), 1u);
  EXPECT_EQ(result["runs"][0]["backend"], "cpu");
  EXPECT_GT(result["runs"][0]["steps"].get<double>(), 0.0) << result.dump();
}

TEST_F(Cli, RunModeCpuIsBackendCpu) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"run", "tiny.toml", "--mode", "cpu", "--steps", "3", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "backend: cpu ("));
  EXPECT_TRUE(contains(r.out, "bus traffic       0 bytes"));
}

// An emitter whose capacity fills: the run says so once, goes on, and its summary counts the particles.
TEST_F(Cli, EmitterThatFillsUpIsReportedOnce) {
  // A nozzle of one particle (radius below a spacing) 0.15 m up, a layer every 0.02 s, room for three.
  write("fountain.toml", kTinyScene + R"(
[[emitter]]
center = [0.15, 0.05, 0.15]
direction = [0, 0, -1]
radius = 0.005
speed = 1.0
max_particles = 3
)");
  const Result r = surge({"run", "fountain.toml", "--backend", "cpu", "--time", "0.07", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "emitter stopped at step "));
  EXPECT_TRUE(contains(r.out, ": 78 of 78 fluid particles")) << "75 in the block and 3 emitted";
  EXPECT_EQ(r.out.find("emitter stopped"), r.out.rfind("emitter stopped")) << "said once:\n" << r.out;
}

TEST_F(Cli, ModeOptionsRejectBadInput) {
  write("tiny.toml", kTinyScene);
  EXPECT_EQ(surge({"run", "tiny.toml", "--mode", "cpu", "--backend", "cpu"}).exit_code, 2)
      << "one or the other";
  EXPECT_EQ(surge({"run", "tiny.toml", "--mode", "tpu"}).exit_code, 2);
  EXPECT_EQ(surge({"bench", "tiny.toml", "--modes", "cpu,warp"}).exit_code, 2);
  // A mode the scene's solver does not have: refused before anything runs, with the reason.
  const Result overlap = surge({"bench", SURGE_SOURCE_DIR "/scenes/granular_column.toml", "--modes",
                                "cpu,hybrid-overlap", "--particles", "500", "--steps", "1"});
  EXPECT_EQ(overlap.exit_code, 2);
  EXPECT_TRUE(
      contains(overlap.err, "--modes hybrid-overlap: the dem solver's hybrid mode builds its CPU index"))
      << overlap.err;
  EXPECT_EQ(overlap.out.find("mode cpu"), std::string::npos) << "nothing ran:\n" << overlap.out;
  EXPECT_EQ(surge({"bench", "tiny.toml", "--force-pass", "twice"}).exit_code, 2);
  EXPECT_EQ(surge({"bench", "tiny.toml", "--cuda-graphs", "yes"}).exit_code, 2) << "on or off";
  const Result lists = surge({"bench", "tiny.toml", "--neighbor-lists", "yes"});
  EXPECT_EQ(lists.exit_code, 2) << "on or off";
  EXPECT_TRUE(contains(lists.err, "--neighbor-lists")) << lists.err;
  EXPECT_EQ(surge({"bench", "tiny.toml", "--skin", "0"}).exit_code, 2);
  const Result gif = surge({"bench", "tiny.toml", "--modes", "cpu", "--plot", "bench.gif"});
  EXPECT_EQ(gif.exit_code, 2);
  EXPECT_TRUE(contains(gif.err, "FILE.svg or FILE.png")) << gif.err;
  EXPECT_FALSE(fs::exists(dir_ / "bench.gif"));
}

// --plot FILE.png: the SVG drawn by rsvg-convert (installed by scripts/install-deps.sh), both kept.
TEST_F(Cli, BenchPlotAsPng) {
  write("tiny.toml", kTinyScene);
  const Result r = surge({"bench", "tiny.toml", "--modes", "cpu", "--particles", "300,600", "--steps", "2",
                          "--warmup", "0", "--plot", "modes.png"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string png = read_text_file(dir_ / "modes.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_TRUE(contains(read_text_file(dir_ / "modes.svg"), "<svg"));
}

TEST_F(Cli, EveryLessonSceneRuns) {
  // At a small particle count: the lesson scenes load, fill their tanks and step stably.
  int scenes = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SURGE_SOURCE_DIR) / "scenes" / "lessons")) {
    if (entry.path().extension() != ".toml") continue;
    ++scenes;
    const Result r = surge(
        {"run", entry.path().string(), "--mode", "cpu", "--particles", "2000", "--steps", "3", "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << entry.path() << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "summary: lesson")) << entry.path();
  }
  EXPECT_EQ(scenes, 6) << "one scene per lesson";
}

TEST_F(Cli, BenchHelpListsTheLessonSwitches) {
  const Result r = surge({"bench", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--modes", "--no-reorder", "--force-pass", "--index-build", "--skin", "--plot",
                             "--cuda-graphs", "--neighbor-lists"}) {
    EXPECT_TRUE(contains(r.out, option)) << option;
  }
}

// ---- granular scenes (solver = "dem") through the same commands

const std::string kTinyGranular = R"(name = "grains"
solver = "dem"

[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.1]

[dem]
stiffness = 1000.0
restitution = 0.5
friction = 0.5

[[dem.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.05]
grain_radius = 0.005
density = 2500.0
jitter = 0.1

[time]
end = 0.01
)";

TEST_F(Cli, GranularSceneRunsExportsAndBenches) {
  write("grains.toml", kTinyGranular);
  const Result run = surge({"run", "grains.toml", "--backend", "cpu", "--steps", "20", "--export", "vtk",
                            "--every", "10", "--out", "frames"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "steps             20"));
  EXPECT_TRUE(contains(run.out, " grains\n")) << "grains are not fluid: " << run.out;
  EXPECT_TRUE(contains(run.out, "particle-steps/s (grains)")) << run.out;
  EXPECT_FALSE(contains(run.out, "boundary")) << run.out;
  EXPECT_TRUE(fs::exists(dir_ / "frames" / "grains_000002.vtp"));
  const Result bench = surge({"bench", "grains.toml", "--backend", "cpu", "--particles", "500,1000",
                              "--steps", "3", "--warmup", "1", "--json", "b.json"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  const std::string json = read_text_file(dir_ / "b.json");
  EXPECT_TRUE(contains(json, "\"normal_model\"")) << "the DEM parameters are recorded";
  EXPECT_TRUE(contains(json, "\"time_step_s\""));
}

TEST_F(Cli, GranularSceneErrorsAndInstabilityAreReported) {
  write("bad.toml", replace_line(kTinyGranular, "stiffness = 1000.0", "stiffness = -5"));
  const Result bad = surge({"run", "bad.toml", "--backend", "cpu"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "bad.toml:9: key 'dem.stiffness': expected a number > 0 [N/m], got -5"))
      << bad.err;
  // An open bottom and grains thrown down: they leave the domain.
  std::string falling =
      replace_line(kTinyGranular, "max = [0.1, 0.1, 0.1]", "max = [0.1, 0.1, 0.1]\nwalls = []");
  falling = replace_line(falling, "jitter = 0.1", "jitter = 0.1\nvelocity = [0.0, 0.0, -5.0]");
  write("falling.toml", falling);
  const Result unstable = surge({"run", "falling.toml", "--backend", "cpu", "--steps", "2000"});
  EXPECT_EQ(unstable.exit_code, 3) << unstable.out << unstable.err;
  EXPECT_TRUE(contains(unstable.err, "left the domain")) << unstable.err;
  EXPECT_TRUE(contains(unstable.err, "[dem] collision_time_fraction")) << unstable.err;
  // A fluid solver has nothing to simulate in a granular scene.
  write("grains.toml", kTinyGranular);
  const Result fluid = surge({"run", "grains.toml", "--backend", "cpu", "--solver", "wcsph", "--steps", "1"});
  EXPECT_EQ(fluid.exit_code, 2);
  EXPECT_TRUE(contains(fluid.err, "is a granular scene")) << fluid.err;
}

}  // namespace

// ---- Gravity (solver = "nbody")

TEST_F(Cli, NbodyRunEndsWithEnergiesAndNoBusTraffic) {
  const fs::path kepler = fs::path(SURGE_SOURCE_DIR) / "scenes" / "kepler.toml";
  const Result r = surge({"run", kepler.string(), "--backend", "cpu", "--steps", "2000", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* figure : {"total_energy", "energy_change_relative", "virial_ratio", "linear_momentum",
                             "angular_momentum", "pair_interactions_per_step"}) {
    EXPECT_TRUE(contains(r.out, figure));
  }
  // Two bodies in G = 1 units: no fluid, no boundary, no seconds.
  EXPECT_TRUE(contains(r.out, "particles         2 bodies\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "time units (G = 1)")) << r.out;
  EXPECT_FALSE(contains(r.out, " fluid")) << r.out;
  EXPECT_TRUE(contains(r.out, "bus traffic       0 bytes"));
}

TEST_F(Cli, NbodyBenchReportsPairInteractionsPerSecond) {
  const fs::path plummer = fs::path(SURGE_SOURCE_DIR) / "scenes" / "plummer.toml";
  const Result r = surge({"bench", plummer.string(), "--backend", "cpu", "--particles", "512", "--steps", "2",
                          "--warmup", "1", "--json", "bench.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "pair_interactions_per_s"));
  EXPECT_TRUE(contains(r.out, "flops_per_s"));
  const nlohmann::json result = nlohmann::json::parse(read_text_file(dir_ / "bench.json"));
  const nlohmann::json& run = result["runs"][0];
  EXPECT_EQ(run["particles"], 512);
  EXPECT_EQ(run["figures"]["pair_interactions_per_step"].get<double>(), 512.0 * 512.0);
  EXPECT_EQ(run["figures"]["flops_per_step"].get<double>(), 20.0 * 512.0 * 512.0);
  const double seconds_per_step = run["ms_per_step"].get<double>() / 1e3;
  EXPECT_NEAR(run["rates"]["pair_interactions_per_s"].get<double>(), 512.0 * 512.0 / seconds_per_step,
              1e-6 * 512.0 * 512.0 / seconds_per_step);
  EXPECT_EQ(run["parameters"]["method"], "all_pairs");
}

TEST_F(Cli, NbodyBadStepIsRejected) {
  expect_rejected(
      "solver = \"nbody\"\n[nbody]\ndt = -1\n[[nbody.system]]\nmodel = \"plummer\"\nbodies = 10\n", 3,
      "nbody.dt");
}

TEST_F(Cli, NbodyParticlesCannotResizeATwoBodyScene) {
  const fs::path kepler = fs::path(SURGE_SOURCE_DIR) / "scenes" / "kepler.toml";
  const Result r = surge({"run", kepler.string(), "--backend", "cpu", "--particles", "100", "--steps", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--particles cannot apply"));
}

// ---- Gauges and frames every simulated-time interval

// kTinyScene with a pressure gauge on the floor, a level gauge and a velocity gauge, sampled every 1 ms.
const std::string kGaugeTables = R"(
[gauges]
every_time = 0.001
filter_time = 0.002

[[gauge]]
name = "floor_p"
type = "pressure"
position = [0.03, 0.05, 0.0]

[[gauge]]
name = "depth"
type = "level"
x = 0.03
y = 0.05
z0 = 0.0
z1 = 0.2

[[gauge]]
name = "u"
type = "velocity"
position = [0.03, 0.05, 0.05]
)";

std::vector<std::vector<std::string>> read_csv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(read_text_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST_F(Cli, RunWithGaugesWritesTheirCsv) {
  write("gauged.toml", kTinyScene + kGaugeTables);
  const Result r = surge({"run", "gauged.toml", "--backend", "cpu", "--time", "0.01", "--out", "run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "gauges: 10 samples of 3 gauges every 0.001 s: run/gauges.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "run" / "gauges.csv.tmp"));
  const auto rows = read_csv(dir_ / "run" / "gauges.csv");
  ASSERT_EQ(rows.size(), 11u);  // the header and a sample at each of 1, 2, ..., 10 ms
  const std::vector<std::string> header = {"time_s",         "floor_p", "floor_p_filtered", "depth",
                                           "depth_filtered", "u_x",     "u_x_filtered",     "u_y",
                                           "u_y_filtered",   "u_z",     "u_z_filtered"};
  EXPECT_EQ(rows[0], header);
  for (std::size_t k = 1; k < rows.size(); ++k) {
    ASSERT_EQ(rows[k].size(), header.size()) << "row " << k;
    const double t = std::stod(rows[k][0]);
    EXPECT_GE(t, 0.001 * double(k) - 1e-12) << "row " << k;
    EXPECT_LT(t, 0.001 * double(k) + 1e-3) << "row " << k;  // within one step (dt <= dt_max = 1 ms)
  }
}

TEST_F(Cli, BadGaugeIsRejectedBeforeAnythingIsWritten) {
  const std::string scene = replace_line(kTinyScene + kGaugeTables, "type = \"level\"", "type = \"levle\"");
  expect_rejected(scene, line_of(scene, "levle"), "gauge[1].type");
}

TEST_F(Cli, PressureGaugeUnderPbfIsRejected) {
  write("bad.toml", kTinyScene + kGaugeTables);
  const Result r = surge({"run", "bad.toml", "--backend", "cpu", "--solver", "pbf", "--out", "run"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(
      r.err, "bad.toml:" + std::to_string(line_of(kTinyScene + kGaugeTables, "type = \"pressure\"")) +
                 ": key 'gauge[0].type'"));
  EXPECT_FALSE(fs::exists(dir_ / "run"));
}

TEST_F(Cli, EveryTimeFramesLandAtTheirTimes) {
  write("tiny.toml", kTinyScene);
  const Result ok = surge({"run", "tiny.toml", "--backend", "cpu", "--time", "0.01", "--every-time", "0.0025",
                           "--out", "frames"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  // The .pvd lists each frame with its time: t = 0 and the first step at or after 2.5, 5, 7.5, 10 ms.
  const std::string series = read_text_file(dir_ / "frames" / "tiny.pvd");
  std::vector<double> times;
  for (std::size_t at = series.find("timestep=\""); at != std::string::npos;
       at = series.find("timestep=\"", at + 1))
    times.push_back(std::stod(series.substr(at + 10)));
  ASSERT_EQ(times.size(), 5u) << series;
  EXPECT_EQ(times[0], 0.0);
  for (std::size_t k = 1; k < times.size(); ++k) {
    EXPECT_GE(times[k], 0.0025 * double(k) - 1e-12) << k;
    EXPECT_LT(times[k], 0.0025 * double(k) + 1e-3) << k;
  }
  EXPECT_NE(surge({"run", "tiny.toml", "--every", "2", "--every-time", "0.1"}).exit_code, 0);
}

// A [[solid]] in the tiny tank: `surge run` places it (its boundary particles join the walls'), and each bad
// solid is refused before anything is written, naming its line and key.
const std::string kSolid = R"(
[[solid]]
shape = "box"
min = [0.1, 0.0, 0.0]
max = [0.14, 0.1, 0.04]
)";

TEST_F(Cli, RunPlacesASolidAndRefusesBadOnes) {
  write("plain.toml", kTinyScene);
  write("solid.toml", kTinyScene + kSolid);
  const Result plain = surge({"run", "plain.toml", "--backend", "cpu", "--steps", "2", "--every", "0"});
  const Result solid = surge({"run", "solid.toml", "--backend", "cpu", "--steps", "2", "--every", "0"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(solid.exit_code, 0) << solid.err;
  const auto boundary_count = [](const std::string& out) {
    std::smatch match;
    EXPECT_TRUE(std::regex_search(out, match, std::regex(" fluid \\+ ([0-9,]+) boundary"))) << out;
    return std::stol(std::regex_replace(match.size() > 1 ? match[1].str() : "0", std::regex(","), ""));
  };
  EXPECT_GT(boundary_count(solid.out), boundary_count(plain.out)) << solid.out;

  const std::string text = kTinyScene + kSolid;
  expect_rejected(replace_line(text, "max = [0.14, 0.1, 0.04]", "max = [0.24, 0.1, 0.04]"),
                  line_of(text, "[[solid]]"), "solid[0]");
  expect_rejected(replace_line(text, "shape = \"box\"\nmin = [0.1", "shape = \"cone\"\nmin = [0.1"),
                  line_of(text, "[[solid]]") + 1, "solid[0].shape");
  const std::string mesh = kTinyScene + "\n[[solid]]\nshape = \"mesh\"\nfile = \"missing.obj\"\n";
  expect_rejected(mesh, line_of(mesh, "missing.obj"), "solid[0].file");
}
