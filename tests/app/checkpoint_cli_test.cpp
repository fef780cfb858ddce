// Checkpoints and --resume on the real binary (app/run_checkpoints.h): a run checkpointed, stopped and
// resumed writes the same files, byte for byte, as the run that was never stopped (every frame, the .pvd,
// the gauges' CSV); a Ctrl-C leaves a checkpoint the run continues from; a checkpoint of another setup,
// solver or a damaged one is refused with exit 2 and a message naming the problem, and nothing is written.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/app/surge_process.h"

namespace {

namespace fs = std::filesystem;
using surge::testing_support::collect_surge;
using surge::testing_support::read_text_file;
using surge::testing_support::start_surge;
using surge::testing_support::SurgeChild;
using surge::testing_support::SurgeResult;
using surge::testing_support::wait_surge;

// The CLI tests' tiny tank with a pressure gauge (filtered, so the filters' state is carried too), frames
// every 10 steps in both formats.
const char* const kScene = R"(name = "tank"

[domain]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.1, 0.2]
walls = ["x-", "x+", "y-", "y+", "z-", "z+"]

[resolution]
spacing = 0.01

[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.08, 0.1, 0.12]

[time]
end = 1000.0

[output]
dir = "out"
formats = ["vtk", "ply"]
every = 10

[gauges]
every_time = 0.002
filter_time = 0.01

[[gauge]]
name = "floor"
type = "pressure"
position = [0.03, 0.05, 0.012]
)";

testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << part << "' not in:\n" << text;
}

class CheckpointCli : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "surge-checkpoint-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "tank.toml") << kScene;
  }
  void TearDown() override { fs::remove_all(dir_); }

  SurgeResult run(std::vector<std::string> args) const {
    std::vector<std::string> all = {"run", "tank.toml", "--backend", "cpu", "--threads", "2", "--quiet"};
    all.insert(all.end(), args.begin(), args.end());
    const SurgeChild child = start_surge(dir_, all);
    return collect_surge(child, wait_surge(child, 120));
  }

  // Every file of `a` has a twin of the same bytes in `b`, and `b` has no other (checkpoints aside).
  void expect_same_files(const fs::path& a, const fs::path& b) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_ / a)) names.push_back(entry.path().filename());
    for (const auto& entry : fs::directory_iterator(dir_ / b)) {
      const std::string name = entry.path().filename();
      if (entry.path().extension() == ".checkpoint") continue;
      EXPECT_TRUE(fs::exists(dir_ / a / name)) << b / name << " has no twin in " << a;
    }
    ASSERT_GT(names.size(), 10u);
    for (const std::string& name : names) {
      ASSERT_TRUE(fs::exists(dir_ / b / name)) << name << " missing from " << b;
      EXPECT_TRUE(read_text_file(dir_ / a / name) == read_text_file(dir_ / b / name))
          << name << " differs between " << a << " and " << b;
    }
  }

  fs::path dir_;
};

TEST_F(CheckpointCli, AResumedRunWritesTheSameBytesAsTheUninterruptedOne) {
  const SurgeResult whole = run({"--steps", "120", "--out", "whole"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;

  const SurgeResult first = run({"--steps", "70", "--out", "split", "--checkpoint-every", "30"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(contains(first.out, "checkpoints: split/tank.checkpoint, every 30 steps"));
  EXPECT_TRUE(contains(first.out, "split/tank.checkpoint (step 70; 3 written)"));
  // The run went on past the checkpoint at step 60 to 70; resuming from 60 drops what it wrote after.
  const SurgeResult resumed_60 = run({"--steps", "60", "--out", "split", "--checkpoint-every", "60"});
  ASSERT_EQ(resumed_60.exit_code, 0) << resumed_60.err;
  fs::copy_file(dir_ / "split/tank.checkpoint", dir_ / "at60.checkpoint");
  const SurgeResult longer = run({"--steps", "100", "--out", "split"});  // frames past step 60 to drop
  ASSERT_EQ(longer.exit_code, 0) << longer.err;

  const SurgeResult second = run({"--steps", "120", "--out", "split", "--resume", "at60.checkpoint"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(contains(second.out, "resumed: at60.checkpoint at step 60"));
  EXPECT_TRUE(contains(second.out, "120 (resumed at step 60)"));
  expect_same_files("whole", "split");
  EXPECT_TRUE(contains(read_text_file(dir_ / "split/gauges.csv"), "time_s,floor,floor_filtered\n"));
}

TEST_F(CheckpointCli, CtrlCLeavesACheckpointTheRunContinuesFrom) {
  // A run that only a signal ends, checkpointed at the end (--checkpoint alone).
  const SurgeChild child =
      start_surge(dir_,
                  {"run", "tank.toml", "--backend", "cpu", "--threads", "2", "--out", "cut", "--checkpoint",
                   "cut.checkpoint", "--export", "vtk", "--every", "2"},
                  true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir_ / "cut/tank_000004.vtp") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(dir_ / "cut/tank_000004.vtp")) << "no frames within a minute";
  kill(-child.pid, SIGINT);
  const SurgeResult cut = collect_surge(child, wait_surge(child, 30));
  ASSERT_EQ(cut.exit_code, 130) << cut.err;
  EXPECT_TRUE(contains(cut.out, "checkpoints: cut.checkpoint, at the end and on Ctrl-C"));
  EXPECT_TRUE(contains(cut.out, "to continue: the same command with --resume cut.checkpoint"));
  std::smatch at;
  const std::string out = cut.out;
  ASSERT_TRUE(std::regex_search(out, at, std::regex(R"(interrupted at step ([0-9,]+),)"))) << out;
  const long step = std::stol(std::regex_replace(at[1].str(), std::regex(","), ""));
  for (const auto& entry : fs::recursive_directory_iterator(dir_))
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();

  // On to 40 steps past the interruption, against a run that was never interrupted.
  const std::string end = std::to_string(step + 40);
  const SurgeResult resumed =
      run({"--steps", end, "--out", "cut", "--export", "vtk", "--every", "2", "--resume", "cut.checkpoint"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const SurgeResult whole = run({"--steps", end, "--out", "whole", "--export", "vtk", "--every", "2"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  expect_same_files("whole", "cut");
}

TEST_F(CheckpointCli, ACheckpointOfAnotherSetupSolverOrADamagedOneIsRefused) {
  const SurgeResult first = run({"--steps", "20", "--out", "a", "--checkpoint-every", "20"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto refused = [&](std::vector<std::string> args, const std::string& message) {
    fs::remove_all(dir_ / "b");
    args.insert(args.end(), {"--steps", "40", "--out", "b", "--resume", "a/tank.checkpoint"});
    const SurgeResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, message));
    EXPECT_FALSE(fs::exists(dir_ / "b")) << "a refused resume wrote output";
  };
  refused({"--particles", "500"}, "the checkpoint was made from another setup (scene 'tank')");
  refused({"--solver", "dfsph"}, "the checkpoint is of solver wcsph, this run's is dfsph");
  refused({"--density", "continuity"}, "the scene file, --particles or --density differs");
  // A changed scene file: another spacing.
  std::string text = kScene;
  text.replace(text.find("spacing = 0.01"), 14, "spacing = 0.012");
  std::ofstream(dir_ / "tank.toml") << text;
  refused({}, "another setup");
  std::ofstream(dir_ / "tank.toml") << kScene;
  // Damage: one byte changed in the middle.
  std::string bytes = read_text_file(dir_ / "a/tank.checkpoint");
  bytes[bytes.size() / 2] ^= 0x01;
  std::ofstream(dir_ / "a/tank.checkpoint", std::ios::binary) << bytes;
  refused({}, "is damaged: its checksum does not match");
}

}  // namespace
