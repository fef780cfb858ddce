// The overlapped export (sim/io/overlapped_exporter.h) against the serial path on the CPU backend: the same
// bytes on disk, the .pvd in time order, the queue bound held against a slow writer, and a write error
// that stops the export cleanly. tests/gpu/gpu_export_test.cpp does the GPU's snapshot.
#include "sim/io/overlapped_exporter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/io/exporters.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

namespace fs = std::filesystem;

class OverlappedExport : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "surge-overlap-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
    setup_ = build_setup(scene, 1000);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ignored);
    for (const auto& entry : fs::recursive_directory_iterator(dir_, ignored)) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
    fs::remove_all(dir_);
  }
  std::unique_ptr<Simulation> cpu_simulation() const {
    return make_wcsph_simulation(setup_, ExecutionMode::cpu);
  }

  fs::path dir_;
  SphSetup setup_;
};

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<std::string> names_in(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool any_temporary_file(const fs::path& directory) {
  for (const auto& entry : fs::recursive_directory_iterator(directory)) {
    if (entry.path().extension() == ".tmp") return true;
  }
  return false;
}

TEST_F(OverlappedExport, WritesTheSameBytesAsTheSerialPath) {
  // One run, two exporters at the same steps: the serial one downloads and writes on this thread, the
  // overlapped one snapshots and a writer thread writes. Every file must be byte-identical.
  auto simulation = cpu_simulation();
  const std::vector<ExportFormat> formats = {ExportFormat::vtk, ExportFormat::ply};
  FrameExporter serial(dir_ / "serial", "run", formats);
  OverlappedExporter overlapped(*simulation, FrameExporter(dir_ / "overlapped", "run", formats), 2);
  ParticleFrame frame;
  constexpr int kSteps = 30, kEvery = 5;
  for (int s = 0; s <= kSteps; ++s) {
    if (s > 0) simulation->step();
    const StepStatus status = simulation->status();
    if (status.step % kEvery != 0) continue;
    simulation->download(frame);
    serial.write(frame);
    overlapped.submit(status);
  }
  overlapped.finish();

  EXPECT_EQ(overlapped.times().frames_written, kSteps / kEvery + 1);
  const std::vector<std::string> names = names_in(dir_ / "serial");
  ASSERT_EQ(names.size(), std::size_t(2 * (kSteps / kEvery + 1) + 1));  // .vtp and .ply per frame, one .pvd
  EXPECT_EQ(names_in(dir_ / "overlapped"), names);
  for (const std::string& name : names) {
    const std::string expected = file_bytes(dir_ / "serial" / name);
    EXPECT_FALSE(expected.empty()) << name;
    EXPECT_TRUE(file_bytes(dir_ / "overlapped" / name) == expected) << name << " differs";
  }
}

TEST_F(OverlappedExport, SeriesListsEveryFrameInTimeOrder) {
  auto simulation = cpu_simulation();
  OverlappedExporter overlapped(*simulation, FrameExporter(dir_, "run", {ExportFormat::vtk}), 3);
  std::vector<double> submitted_times;
  for (int s = 0; s <= 24; ++s) {
    if (s > 0) simulation->step();
    const StepStatus status = simulation->status();
    if (status.step % 3 != 0) continue;
    overlapped.submit(status);
    submitted_times.push_back(status.time_s);
  }
  overlapped.finish();

  const std::string series = file_bytes(dir_ / "run.pvd");
  const std::regex data_set(R"rx(<DataSet timestep="([^"]+)" group="" part="0" file="([^"]+)"/>)rx");
  std::vector<double> times;
  std::vector<std::string> files;
  for (auto it = std::sregex_iterator(series.begin(), series.end(), data_set); it != std::sregex_iterator();
       ++it) {
    times.push_back(std::stod((*it)[1]));
    files.push_back((*it)[2]);
  }
  ASSERT_EQ(times.size(), submitted_times.size()) << series;
  for (std::size_t k = 0; k < times.size(); ++k) {
    char expected[32];
    std::snprintf(expected, sizeof expected, "run_%06zu.vtp", k);
    EXPECT_EQ(files[k], expected);
    EXPECT_DOUBLE_EQ(times[k], submitted_times[k]) << "frame " << k;
    if (k > 0) {
      EXPECT_GT(times[k], times[k - 1]) << "frame " << k;
    }
    EXPECT_TRUE(fs::exists(dir_ / files[k])) << files[k];
  }
}

TEST_F(OverlappedExport, AFullQueueMakesTheSteppingThreadWait) {
  // A writer that takes 100 ms a frame against a stepper that submits at once: with a queue of 1, each
  // submit after the first waits for the previous frame to be written (about 3 x 100 ms in all), and never
  // is more than one frame snapshotted but unwritten. The time bound allows for the stepper itself being
  // descheduled on a busy machine, which shortens its waits.
  constexpr auto kWriteDelay = std::chrono::milliseconds(100);
  constexpr int kFrames = 4;
  auto simulation = cpu_simulation();
  std::atomic<int> submitted{0}, written{0}, hook_calls{0}, most_in_flight{0};
  OverlappedExporter overlapped(*simulation, FrameExporter(dir_, "run", {ExportFormat::vtk}), 1, [&] {
    hook_calls += 1;
    most_in_flight = std::max(most_in_flight.load(), submitted.load() - written.load());
    std::this_thread::sleep_for(kWriteDelay);
    written += 1;  // counted just before the write: the next submit may only begin after it
  });
  StepStatus status = simulation->status();
  for (int k = 0; k < kFrames; ++k) {
    status.step = k;  // a fresh stamp per frame; stepping is not what this test measures
    status.time_s = 0.001 * k;
    overlapped.submit(status);
    submitted += 1;
  }
  overlapped.finish();

  EXPECT_EQ(hook_calls.load(), kFrames);
  EXPECT_LE(most_in_flight.load(), 1) << "more frames in flight than the queue holds";
  const ExportTimes times = overlapped.times();
  EXPECT_EQ(times.frames_written, kFrames);
  const double delay_s = std::chrono::duration<double>(kWriteDelay).count();
  EXPECT_GT(times.blocked_s, 0.0);
  EXPECT_GE(times.blocked_s, 0.5 * (kFrames - 1) * delay_s);
  EXPECT_GE(times.writer_s_per_frame(), delay_s);
}

TEST_F(OverlappedExport, AWriteErrorStopsTheExportWithNoTemporaryFileLeft) {
  // A directory where frame 2's file should go: the rename fails whatever the user's rights (CI is root).
  fs::create_directories(dir_ / "run_000002.vtp");
  auto simulation = cpu_simulation();
  OverlappedExporter overlapped(*simulation, FrameExporter(dir_, "run", {ExportFormat::vtk}), 2);
  std::string message;
  try {
    for (int k = 0; k < 10; ++k) {
      StepStatus status = simulation->status();
      status.step = k;
      status.time_s = 0.001 * k;
      overlapped.submit(status);
    }
    overlapped.finish();
  } catch (const std::runtime_error& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("export stopped at frame 2"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot write '" + (dir_ / "run_000002.vtp").string() + "'"), std::string::npos)
      << message;
  EXPECT_FALSE(any_temporary_file(dir_));
  EXPECT_FALSE(fs::exists(dir_ / "run_000003.vtp")) << "a frame after the failed one was written";
  const std::string series = file_bytes(dir_ / "run.pvd");
  EXPECT_NE(series.find("run_000001.vtp"), std::string::npos) << series;
  EXPECT_EQ(series.find("run_000002.vtp"), std::string::npos) << series;
}

TEST_F(OverlappedExport, AnUnwritableDirectoryIsReported) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root, which may write into a read-only directory";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  auto simulation = cpu_simulation();
  OverlappedExporter overlapped(*simulation, FrameExporter(dir_, "run", {ExportFormat::vtk}), 2);
  overlapped.submit(simulation->status());
  try {
    overlapped.finish();
    ADD_FAILURE() << "writing into a read-only directory succeeded";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("Permission denied"), std::string::npos) << error.what();
  }
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(OverlappedExport, QueueDepthIsChecked) {
  auto simulation = cpu_simulation();
  EXPECT_THROW(OverlappedExporter(*simulation, FrameExporter(dir_, "run", {ExportFormat::vtk}), 0),
               std::invalid_argument);
  EXPECT_THROW(OverlappedExporter(*simulation, FrameExporter(dir_, "run", {ExportFormat::vtk}),
                                  OverlappedExporter::kMaxQueueDepth + 1),
               std::invalid_argument);
}

// A CPU simulation that meshes "where its particles live", as the GPU backends do (Simulation::
// mesh_fluid_surface), with a mesh of its own (one triangle) so that the files show whose mesh they hold,
// and that counts the downloads.
class MeshingSimulation : public Simulation {
 public:
  explicit MeshingSimulation(std::unique_ptr<Simulation> inner) : inner_(std::move(inner)) {}
  std::string backend_name() const override { return inner_->backend_name(); }
  std::size_t fluid_count() const override { return inner_->fluid_count(); }
  std::size_t boundary_count() const override { return inner_->boundary_count(); }
  void step() override { inner_->step(); }
  StepStatus status() override { return inner_->status(); }
  void download(ParticleFrame& frame) override {
    ++downloads;
    inner_->download(frame);
  }
  StageTimes stage_times() override { return inner_->stage_times(); }
  void reset_timers() override { inner_->reset_timers(); }
  std::vector<NamedValue> parameters() const override { return inner_->parameters(); }
  bool mesh_fluid_surface(const FluidSurfaceSettings&, FluidSurface& surface) override {
    ++meshes;
    surface = {};
    surface.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    surface.mesh.triangles = {{0, 1, 2}};
    surface.normals.assign(3, {0, 0, 1});
    return true;
  }
  int downloads = 0, meshes = 0;

 private:
  std::unique_ptr<Simulation> inner_;
};

TEST_F(OverlappedExport, ASimulationThatMeshesWhereItsParticlesLiveIsNotDownloadedForSurfaces) {
  MeshingSimulation simulation(cpu_simulation());
  const FluidSurfaceSettings settings{.spacing = setup_.params.spacing};
  {
    OverlappedExporter surfaces(simulation,
                                FrameExporter(dir_ / "surface", "run", {ExportFormat::surface}, settings), 2);
    surfaces.submit(simulation.status());
    surfaces.finish();
  }
  EXPECT_EQ(simulation.meshes, 1);
  EXPECT_EQ(simulation.downloads, 0) << "the particles were downloaded for a surface-only export";
  const std::string ply = file_bytes(dir_ / "surface" / "run_surface_000000.ply");
  EXPECT_NE(ply.find("element vertex 3\n"), std::string::npos) << "not the simulation's mesh";
  EXPECT_NE(ply.find("element face 1\n"), std::string::npos);

  // With a particle format beside it, the particles are downloaded once and the surface is still its.
  {
    OverlappedExporter both(
        simulation, FrameExporter(dir_ / "both", "run", {ExportFormat::ply, ExportFormat::surface}, settings),
        2);
    both.submit(simulation.status());
    both.finish();
  }
  EXPECT_EQ(simulation.meshes, 2);
  EXPECT_EQ(simulation.downloads, 1);
  EXPECT_NE(file_bytes(dir_ / "both" / "run_surface_000000.ply").find("element vertex 3\n"),
            std::string::npos);
  EXPECT_NE(file_bytes(dir_ / "both" / "run_000000.ply")
                .find("element vertex " + std::to_string(setup_.fluid.size())),
            std::string::npos);
}

}  // namespace
}  // namespace surge
