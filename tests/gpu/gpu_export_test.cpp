// The overlapped export on the GPU (Simulation::begin_download / finish_download in the CUDA backend,
// sim/backend/frame_snapshots.cuh): the snapshot holds the particles of the step it was taken at even
// while the GPU steps on, the files it leads to are the files a synchronous download writes, and the ledger
// counts exactly N x 44 bytes per frame (docs/lessons/6-trajectories.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/io/exporters.h"
#include "sim/io/overlapped_exporter.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "tests/temporary_directory.h"

namespace surge {
namespace {

namespace fs = std::filesystem;

// position and velocity (float4), density, pressure, id
constexpr std::size_t kBytesPerParticle = 2 * sizeof(Vec4f) + 2 * sizeof(float) + sizeof(std::uint32_t);

SphSetup dam_break(long particles) {
  return build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"), particles);
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(GpuExport, SnapshotIsTheStepItWasTakenAtWhileTheGpuStepsOn) {
  const SphSetup setup = dam_break(50000);
  auto gpu = make_cuda_simulation(setup);
  for (int s = 0; s < 20; ++s) gpu->step();
  ParticleFrame at_step_20, snapshot, later;
  gpu->download(at_step_20);  // the synchronous reference
  gpu->begin_download(1);
  for (int s = 0; s < 10; ++s) gpu->step();  // queued behind the snapshot, not waiting for its copy
  gpu->finish_download(1, snapshot);
  gpu->download(later);
  ASSERT_EQ(gpu->status().instability, Instability::none);
  ASSERT_EQ(snapshot.size(), setup.fluid.size());
  EXPECT_TRUE(same_bytes(snapshot.position, at_step_20.position));
  EXPECT_TRUE(same_bytes(snapshot.velocity, at_step_20.velocity));
  EXPECT_TRUE(same_bytes(snapshot.density, at_step_20.density));
  EXPECT_TRUE(same_bytes(snapshot.pressure, at_step_20.pressure));
  EXPECT_TRUE(same_bytes(snapshot.id, at_step_20.id));
  EXPECT_FALSE(same_bytes(later.position, at_step_20.position)) << "the ten later steps moved nothing";
}

TEST(GpuExport, OverlappedFilesEqualSynchronousDownloadFiles) {
  // One GPU run, two exporters at the same steps: the serial one from download(), the overlapped one from
  // snapshots written by its thread while the GPU steps on. Same bytes in every file.
  TemporaryDirectory directory("surge-gpu-export");
  const SphSetup setup = dam_break(50000);
  auto gpu = make_cuda_simulation(setup);
  const std::vector<ExportFormat> formats = {ExportFormat::vtk, ExportFormat::ply};
  FrameExporter serial(directory.path() / "serial", "run", formats);
  OverlappedExporter overlapped(*gpu, FrameExporter(directory.path() / "overlapped", "run", formats), 2);
  ParticleFrame frame;
  int frames = 0;
  for (int s = 0; s <= 100; ++s) {
    if (s > 0) gpu->step();
    const StepStatus status = gpu->status();
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    if (status.step % 20 != 0) continue;
    overlapped.submit(status);
    gpu->download(frame);
    frame.step = status.step;
    frame.time_s = status.time_s;
    serial.write(frame);
    ++frames;
  }
  overlapped.finish();
  ASSERT_EQ(frames, 6);
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(directory.path() / "serial")) {
    const fs::path other = directory.path() / "overlapped" / entry.path().filename();
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_TRUE(file_bytes(entry.path()) == file_bytes(other)) << entry.path().filename() << " differs";
    ++compared;
  }
  EXPECT_EQ(compared, 2 * frames + 1);
}

TEST(GpuExport, LedgerCountsFortyFourBytesPerParticlePerFrame) {
  TemporaryDirectory directory("surge-gpu-export");
  const SphSetup setup = dam_break(30000);
  auto gpu = make_cuda_simulation(setup);
  const std::size_t n = gpu->fluid_count();
  gpu->ledger().clear();
  constexpr int kFrames = 4;
  {
    OverlappedExporter overlapped(*gpu, FrameExporter(directory.path(), "run", {ExportFormat::ply}), 2);
    for (int k = 0; k < kFrames; ++k) {
      for (int s = 0; s < 5; ++s) gpu->step();
      overlapped.submit(gpu->status());
    }
    overlapped.finish();
    EXPECT_EQ(overlapped.times().frames_written, kFrames);
  }
  std::size_t export_bytes = 0, export_copies = 0, other_bytes = 0;
  double export_ms = 0;
  for (const auto& [key, entry] : gpu->ledger().entries()) {
    if (key == std::pair{CopyDirection::device_to_host, std::string("export frame")}) {
      export_bytes += entry.bytes;
      export_copies += entry.copies;
      export_ms += entry.ms;
    } else if (key.second != "step status") {
      other_bytes += entry.bytes;
    }
  }
  std::printf("%zu particles: %zu bytes per exported frame, copy engine %.3f ms per frame\n", n,
              export_bytes / kFrames, export_ms / kFrames);
  EXPECT_EQ(export_bytes, kFrames * n * kBytesPerParticle);
  EXPECT_EQ(export_copies, std::size_t(kFrames * 5));  // five arrays per frame
  EXPECT_GT(export_ms, 0.0);
  EXPECT_EQ(other_bytes, 0u) << "only the status readback and the exports cross the bus";
}

TEST(GpuExport, IncompressibleSolversSnapshotOnTheDeviceToo) {
  // DFSPH and PBF keep their particles in the shared FluidState; its snapshot goes through the CUDA
  // executor's copy stream: the same bytes as a synchronous download, 44 bytes per particle in the ledger.
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  const SphSetup setup = build_setup(scene, 20000);
  for (const std::string solver : {"dfsph", "pbf"}) {
    SCOPED_TRACE(solver);
    auto gpu = solver == "dfsph" ? make_cuda_dfsph_simulation(setup, scene.dfsph)
                                 : make_cuda_pbf_simulation(setup, scene.pbf);
    for (int s = 0; s < 5; ++s) gpu->step();
    ParticleFrame reference, snapshot;
    gpu->download(reference);
    gpu->ledger().clear();
    gpu->begin_download(0);
    for (int s = 0; s < 3; ++s) gpu->step();
    gpu->finish_download(0, snapshot);
    ASSERT_EQ(gpu->status().instability, Instability::none);
    EXPECT_TRUE(same_bytes(snapshot.position, reference.position));
    EXPECT_TRUE(same_bytes(snapshot.velocity, reference.velocity));
    EXPECT_TRUE(same_bytes(snapshot.density, reference.density));
    EXPECT_TRUE(same_bytes(snapshot.pressure, reference.pressure));
    EXPECT_TRUE(same_bytes(snapshot.id, reference.id));
    std::size_t export_bytes = 0;
    for (const auto& [key, entry] : gpu->ledger().entries()) {
      if (key == std::pair{CopyDirection::device_to_host, std::string("export frame")})
        export_bytes += entry.bytes;
    }
    EXPECT_EQ(export_bytes, gpu->fluid_count() * kBytesPerParticle);
  }
}

}  // namespace
}  // namespace surge
