// CPU runs stay bit for bit what they were: every scene in scenes/, at a small particle count, stepped 100
// times on the CPU, hashed over its particles (positions, velocities, densities, pressures by creation id,
// the step and the time) and compared with tests/sim/data/cpu_regression.txt. The file was written by the
// code before the solvers moved into one shape (`Solver<Exec>` behind one adapter), so a refactor that
// changes a single bit of any solver's result fails here, with the scene's name.
//
// To rewrite the file after a change that is meant to change results (say so in the commit):
//   SURGE_WRITE_CPU_REGRESSION=$PWD/tests/sim/data/cpu_regression.txt build/tests/sim_tests
//   --gtest_filter='CpuRegression.*'   (one command line)
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"

namespace surge {
namespace {

constexpr long kParticles = 1500;
constexpr int kSteps = 100;

// FNV-1a over the bytes of each value, in creation-id order.
struct Fnv1a {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  template <typename T>
  void add(const T& value) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    for (std::size_t k = 0; k < sizeof(T); ++k) {
      hash ^= bytes[k];
      hash *= 0x100000001b3ull;
    }
  }
};

std::uint64_t hash_frame(const ParticleFrame& frame) {
  std::vector<std::size_t> order(frame.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return frame.id[a] < frame.id[b]; });
  Fnv1a h;
  for (std::size_t k : order) {
    h.add(frame.id[k]);
    h.add(frame.position[k]);
    h.add(frame.velocity[k]);
    if (k < frame.density.size()) h.add(frame.density[k]);
    if (k < frame.pressure.size()) h.add(frame.pressure[k]);
  }
  h.add(frame.step);
  h.add(frame.time_s);
  return h.hash;
}

std::vector<std::filesystem::path> all_scenes() {
  std::vector<std::filesystem::path> scenes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SURGE_SOURCE_DIR "/scenes"))
    if (entry.path().extension() == ".toml") scenes.push_back(entry.path());
  std::sort(scenes.begin(), scenes.end());
  return scenes;
}

std::string scene_key(const std::filesystem::path& scene) {
  return std::filesystem::relative(scene, SURGE_SOURCE_DIR "/scenes").generic_string();
}

// scene -> hash, from the committed file.
std::map<std::string, std::string> read_expected(const std::filesystem::path& file) {
  std::map<std::string, std::string> expected;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string scene, hash;
    fields >> scene >> hash;
    expected[scene] = hash;
  }
  return expected;
}

// `solver` replaces the scene's (as --solver does), for the incompressible solvers, which no scene file
// names.
std::string run_and_hash(const std::filesystem::path& path, const char* solver = nullptr) {
  Scene scene = load_scene(path);
  if (solver != nullptr) scene.solver = *parse_solver_kind(solver);
  std::unique_ptr<Simulation> simulation;
  try {
    simulation =
        make_simulation(scene, ExecutionMode::cpu, SimulationOptions{.particles_override = kParticles});
  } catch (const SceneError&) {
    // A scene whose size is not a particle count (two bodies of an orbit) runs as it is.
    simulation = make_simulation(scene, ExecutionMode::cpu);
  }
  for (int s = 0; s < kSteps; ++s) simulation->step();
  ParticleFrame frame;
  simulation->download(frame);
  std::ostringstream text;
  text << std::hex << hash_frame(frame) << '/' << std::dec << frame.size() << '/'
       << simulation->status().step;
  return text.str();
}

TEST(CpuRegression, EveryScenesCpuRunIsBitIdenticalToTheRecordedOne) {
  // Sums over threads depend on how the particles are split: the record was made with 2 threads.
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(2);
  const std::filesystem::path record = SURGE_SOURCE_DIR "/tests/sim/data/cpu_regression.txt";
  const char* write_to = std::getenv("SURGE_WRITE_CPU_REGRESSION");
  const auto expected = read_expected(record);
  std::ostringstream written;
  written << "# scene  hash/particles/steps after " << kSteps << " CPU steps at " << kParticles
          << " particles, 2 OpenMP threads (tests/sim/cpu_regression_test.cpp)\n";
  int compared = 0;
  for (const auto& path : all_scenes()) {
    std::vector<std::pair<std::string, std::string>> runs = {{scene_key(path), run_and_hash(path)}};
    // The fluid scenes again under DFSPH and PBF.
    const Scene scene = load_scene(path);
    if (scene.solver == SolverKind::wcsph)
      for (const char* solver : {"dfsph", "pbf"})
        runs.push_back({scene_key(path) + "+" + solver, run_and_hash(path, solver)});
    for (const auto& [key, got] : runs) {
      written << key << ' ' << got << '\n';
      if (write_to != nullptr) continue;
      const auto it = expected.find(key);
      if (it == expected.end()) {
        ADD_FAILURE() << key << ": not in " << record
                      << " (a new scene: add its line, see the file's header)";
        continue;
      }
      EXPECT_EQ(got, it->second) << key << ": the CPU run's particles differ from the recorded run";
      ++compared;
    }
  }
  omp_set_num_threads(threads_before);
  if (write_to != nullptr) {
    std::ofstream(write_to) << written.str();
    GTEST_SKIP() << "wrote " << write_to;
  }
  EXPECT_GE(compared, 40) << "every scene in scenes/ is compared";
}

}  // namespace
}  // namespace surge
