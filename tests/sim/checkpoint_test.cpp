// Checkpoints on the CPU: every shipped scene under its solver (and the fluid scenes under DFSPH and PBF as
// well, as the regression record runs them) continues bit for bit from a checkpoint file; the file refuses
// damage, another format version and another simulation's state, each with a message that says so.
#include "sim/io/checkpoint.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "tests/sim/resume_check.h"

namespace surge {
namespace {

std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "surge_checkpoint_test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::unique_ptr<Simulation> make_small(const Scene& scene, ExecutionMode mode, long particles) {
  try {
    return make_simulation(scene, mode, SimulationOptions{.particles_override = particles});
  } catch (const SceneError&) {
    return make_simulation(scene, mode);  // a scene whose size is not a particle count (an orbit)
  }
}

TEST(Checkpoint, EveryScenesCpuRunResumesBitForBit) {
  EXPECT_GT(expect_every_scene_resumes_bit_exact(ExecutionMode::cpu, 1500, 15, 15, scratch("cpu.checkpoint")),
            20);
}

// A checkpoint of one simulation does not load into another: the first section that differs is named.
TEST(Checkpoint, AnotherSimulationsStateIsRefusedByName) {
  const Scene dam = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  const Scene grains = load_scene(SURGE_SOURCE_DIR "/scenes/granular_column.toml");
  auto fluid = make_small(dam, ExecutionMode::cpu, 1500);
  auto dem = make_small(grains, ExecutionMode::cpu, 1500);
  SolverState state;
  ASSERT_TRUE(dem->save_state(state));
  try {
    fluid->load_state(state);
    FAIL() << "a DEM state loaded into a WCSPH simulation";
  } catch (const StateMismatch& error) {
    EXPECT_NE(std::string(error.what()).find("'dem.grains' where this simulation expects 'fluid.capacity'"),
              std::string::npos)
        << error.what();
  }
  // The same scene at another resolution: the counts differ.
  auto finer = make_small(dam, ExecutionMode::cpu, 3000);
  ASSERT_TRUE(fluid->save_state(state));
  try {
    finer->load_state(state);
    FAIL() << "a 1500-particle state loaded into a 3000-particle simulation";
  } catch (const StateMismatch& error) {
    EXPECT_NE(std::string(error.what()).find("'fluid.capacity' differs"), std::string::npos) << error.what();
  }
}

Checkpoint small_checkpoint() {
  Checkpoint c;
  c.setup_hash = setup_hash("[fluid]\n", "solver=wcsph");
  c.scene_name = "dam_break";
  c.solver = "wcsph";
  c.backend = "cpu";
  c.step = 42;
  c.time_s = 0.125;
  c.frames.frames_written = 2;
  c.frames.series = {{0.0, "dam_break_000000.vtp"}, {0.1, "dam_break_000001.vtp"}};
  c.has_gauges = true;
  c.gauges = {3, 120, 7, {{1.5, 0.1, true}}};
  c.next_checkpoint_event = 5;
  c.state.sections.push_back({"fluid.active", 4, 1, std::vector<std::byte>(4, std::byte{7})});
  return c;
}

TEST(Checkpoint, FileRoundTripsEveryField) {
  const Checkpoint c = small_checkpoint();
  write_checkpoint(scratch("round.checkpoint"), c);
  const Checkpoint r = read_checkpoint(scratch("round.checkpoint"));
  EXPECT_EQ(r.setup_hash, c.setup_hash);
  EXPECT_EQ(r.scene_name, c.scene_name);
  EXPECT_EQ(r.solver, c.solver);
  EXPECT_EQ(r.backend, c.backend);
  EXPECT_EQ(r.step, c.step);
  EXPECT_EQ(r.time_s, c.time_s);
  EXPECT_EQ(r.frames.frames_written, 2);
  EXPECT_EQ(r.frames.series, c.frames.series);
  EXPECT_TRUE(r.has_gauges);
  EXPECT_EQ(r.gauges.rows, 3);
  EXPECT_EQ(r.gauges.bytes, 120u);
  EXPECT_EQ(r.gauges.next_event, 7);
  ASSERT_EQ(r.gauges.filters.size(), 1u);
  EXPECT_EQ(r.gauges.filters[0].y, 1.5);
  EXPECT_EQ(r.next_checkpoint_event, 5);
  ASSERT_EQ(r.state.sections.size(), 1u);
  EXPECT_EQ(r.state.sections[0].name, "fluid.active");
  EXPECT_EQ(r.state.sections[0].bytes, c.state.sections[0].bytes);
  EXPECT_FALSE(std::filesystem::exists(scratch("round.checkpoint.tmp")));
  EXPECT_NE(setup_hash("[fluid]\n", "solver=wcsph"), setup_hash("[fluid]\n", "solver=dfsph"));
}

std::string read_error(const std::filesystem::path& file) {
  try {
    read_checkpoint(file);
  } catch (const CheckpointError& error) {
    return error.what();
  }
  return "(read without an error)";
}

TEST(Checkpoint, DamagedTruncatedForeignAndNewerFilesAreRefused) {
  const std::filesystem::path good = scratch("good.checkpoint");
  write_checkpoint(good, small_checkpoint());
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto write = [](const std::filesystem::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
    return file;
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  EXPECT_NE(read_error(write(scratch("flipped.checkpoint"), flipped)).find("checksum does not match"),
            std::string::npos);
  EXPECT_NE(read_error(write(scratch("short.checkpoint"), bytes.substr(0, bytes.size() - 9))).find("damaged"),
            std::string::npos);
  EXPECT_NE(read_error(write(scratch("scene.checkpoint"), "[fluid]\nspacing = 0.01\n"))
                .find("not a Surge checkpoint"),
            std::string::npos);
  std::string newer = bytes;
  newer[8] = char(Checkpoint::kFormatVersion + 1);
  EXPECT_NE(read_error(write(scratch("newer.checkpoint"), newer)).find("has format version 2"),
            std::string::npos);
  EXPECT_NE(read_error(scratch("absent.checkpoint")).find("No such file or directory"), std::string::npos);
}

}  // namespace
}  // namespace surge
