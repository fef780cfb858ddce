// The check behind the checkpoint tests, on any backend: a run stepped `first` times, checkpointed through
// a real file (sim/io/checkpoint.h) and stepped `then` more, against a fresh simulation made the same way
// that loads the file and steps `then`. Bit for bit means every byte of every particle array, in the order
// the backend holds them, and the clock.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/geometry/mesh_import.h"
#include "sim/io/checkpoint.h"
#include "sim/scene/scene.h"

namespace surge {

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Empty when the frames are the same bytes; else what differs.
inline std::string frame_difference(const ParticleFrame& a, const ParticleFrame& b) {
  if (a.step != b.step || a.time_s != b.time_s) return "the clock differs";
  if (!same_bytes(a.id, b.id)) return "the particles' ids or order differ";
  if (!same_bytes(a.position, b.position)) return "positions differ";
  if (!same_bytes(a.velocity, b.velocity)) return "velocities differ";
  if (!same_bytes(a.density, b.density)) return "densities differ";
  if (!same_bytes(a.pressure, b.pressure)) return "pressures differ";
  return "";
}

// Returns the checkpoint's size in bytes (0 when the simulation cannot save one, which fails the test).
inline std::size_t expect_resume_bit_exact(const std::string& label,
                                           const std::function<std::unique_ptr<Simulation>()>& make,
                                           int first, int then, const std::filesystem::path& file) {
  std::unique_ptr<Simulation> uninterrupted = make();
  for (int s = 0; s < first; ++s) uninterrupted->step();
  Checkpoint checkpoint;
  if (!uninterrupted->save_state(checkpoint.state)) {
    ADD_FAILURE() << label << ": " << uninterrupted->backend_name() << " saves no state";
    return 0;
  }
  write_checkpoint(file, checkpoint);
  ParticleFrame at_checkpoint;
  uninterrupted->download(at_checkpoint);
  for (int s = 0; s < then; ++s) uninterrupted->step();
  ParticleFrame expected;
  uninterrupted->download(expected);

  std::unique_ptr<Simulation> resumed = make();
  resumed->load_state(read_checkpoint(file).state);
  ParticleFrame restored;
  resumed->download(restored);
  EXPECT_EQ(frame_difference(at_checkpoint, restored), "") << label << ": the restored state";
  for (int s = 0; s < then; ++s) resumed->step();
  ParticleFrame got;
  resumed->download(got);
  EXPECT_EQ(frame_difference(expected, got), "") << label << ": " << then << " steps after the checkpoint";
  // The run went somewhere: a check of particles that never moved would prove nothing.
  EXPECT_FALSE(same_bytes(at_checkpoint.position, expected.position)) << label << ": nothing moved";
  EXPECT_GT(expected.step, at_checkpoint.step) << label;
  return std::filesystem::file_size(file);
}

// Whether the scene file names a mesh solid (which a build without assimp cannot load).
inline bool scene_reads_a_mesh(const std::filesystem::path& path) {
  std::ifstream file(path);
  const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  return text.find("shape = \"mesh\"") != std::string::npos;
}

// The check on every scene in scenes/ under its solver, and the fluid scenes also under DFSPH and PBF, at
// `particles` in `mode`; returns how many runs were checked. Each run's checkpoint size is printed.
inline int expect_every_scene_resumes_bit_exact(ExecutionMode mode, long particles, int first, int then,
                                                const std::filesystem::path& file) {
  std::vector<std::filesystem::path> scenes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SURGE_SOURCE_DIR "/scenes"))
    if (entry.path().extension() == ".toml") scenes.push_back(entry.path());
  std::sort(scenes.begin(), scenes.end());
  int checked = 0;
  for (const auto& path : scenes) {
    if (!mesh_import_available() && scene_reads_a_mesh(path)) {
      std::printf("%-48s not checked: this build has no mesh import (assimp)\n", path.filename().c_str());
      continue;
    }
    const Scene base = load_scene(path);
    std::vector<SolverKind> solvers = {base.solver};
    if (base.solver == SolverKind::wcsph) {
      solvers.push_back(SolverKind::dfsph);
      solvers.push_back(SolverKind::pbf);
    }
    for (const SolverKind solver : solvers) {
      Scene scene = base;
      scene.solver = solver;
      const std::string label =
          path.filename().string() + " (" + std::string(solver_name(solver)) + ", " + mode_name(mode) + ")";
      const auto make = [&]() -> std::unique_ptr<Simulation> {
        try {
          return make_simulation(scene, mode, SimulationOptions{.particles_override = particles});
        } catch (const SceneError&) {
          return make_simulation(scene, mode);  // a scene whose size is not a particle count (an orbit)
        }
      };
      const std::size_t bytes = expect_resume_bit_exact(label, make, first, then, file);
      std::printf("%-48s checkpoint %9zu bytes\n", label.c_str(), bytes);
      ++checked;
    }
  }
  return checked;
}

}  // namespace surge
