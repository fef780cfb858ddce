// WCSPH steps as CUDA graphs (sim/backend/cuda_step_graphs.h): a graph replays the kernels the step
// launches, in the same order with the same arguments, so a run with graphs is the run without them bit
// for bit; a live edit is a new key, so a new capture, and the run goes on as the ungraphed one with the
// same edit; and the steps cross the bus no more than without graphs: not at all, status() once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/sph/wcsph_solver.h"
#include "tests/gpu/particle_comparison.h"

namespace surge {
namespace {

constexpr long kParticles = 20000;

Scene dam_break() {
  return load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
}

std::unique_ptr<Simulation> make_gpu(const Scene& scene, bool graphs,
                                     ForcePass force_pass = ForcePass::single) {
  return make_simulation(
      scene, ExecutionMode::gpu,
      SimulationOptions{.particles_override = kParticles, .force_pass = force_pass, .cuda_graphs = graphs});
}

double figure(Simulation& simulation, const std::string& name) {
  for (const NamedValue& value : simulation.step_figures())
    if (value.name == name) return std::get<double>(value.value);
  ADD_FAILURE() << "no figure " << name;
  return -1;
}

struct GraphCounts {
  double captures, replays, without;
};
GraphCounts graph_counts(Simulation& simulation) {
  return {figure(simulation, "cuda_graph_captures"), figure(simulation, "cuda_graph_replays"),
          figure(simulation, "steps_without_graph")};
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Every particle's every field, in slot order (both runs sort the same way), and the clock: bit for bit.
void expect_identical(Simulation& graphed, Simulation& plain) {
  const StepStatus a = graphed.status(), b = plain.status();
  ASSERT_EQ(a.instability, Instability::none) << a.diagnosis();
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.dt_s, b.dt_s);
  ParticleFrame x, y;
  graphed.download(x);
  plain.download(y);
  EXPECT_TRUE(same_bytes(x.id, y.id));
  EXPECT_TRUE(same_bytes(x.position, y.position));
  EXPECT_TRUE(same_bytes(x.velocity, y.velocity));
  EXPECT_TRUE(same_bytes(x.density, y.density));
  EXPECT_TRUE(same_bytes(x.pressure, y.pressure));
}

void run(Simulation& simulation, int steps) {
  for (int s = 0; s < steps; ++s) simulation.step();
}

// Runs `scene` with and without graphs and compares; the graphs must have served most steps.
void compare_with_and_without_graphs(const Scene& scene, ForcePass force_pass, int steps) {
  auto graphed = make_gpu(scene, true, force_pass);
  auto plain = make_gpu(scene, false, force_pass);
  EXPECT_NE(graphed->backend_name().find("CUDA graphs"), std::string::npos) << graphed->backend_name();
  run(*graphed, steps);
  run(*plain, steps);
  expect_identical(*graphed, *plain);
  const GraphCounts counts = graph_counts(*graphed);
  std::printf("%s, %zu particles, %d steps: %.0f captured, %.0f replayed, %.0f without a graph\n",
              graphed->backend_name().c_str(), graphed->fluid_count(), steps, counts.captures, counts.replays,
              counts.without);
  EXPECT_EQ(counts.captures + counts.replays + counts.without, double(steps));
  EXPECT_GE(counts.captures, 1.0);
  EXPECT_GT(counts.replays, steps / 2.0) << "the graphs must serve most steps, or nothing was tested";
}

// Summation density: the reorder's swaps cycle the buffers through 6 phases (positions and velocities share
// a scratch, ids have their own), so about 6 captures (after one uncaptured step) and replays after them.
TEST(CudaGraphs, DamBreakIsBitIdenticalWithAndWithoutGraphs) {
  compare_with_and_without_graphs(dam_break(), ForcePass::single, 60);
}

// Continuity density carries two more arrays through the sort (4 phases); the split force pass adds a CUB
// stream compaction to the captured step.
TEST(CudaGraphs, ContinuityDensityAndSplitForcePassAreBitIdenticalWithAndWithoutGraphs) {
  Scene scene = dam_break();
  scene.continuity_density = true;
  scene.density_diffusion = 0.1f;
  compare_with_and_without_graphs(scene, ForcePass::split, 60);
}

// A live edit changes the parameters the kernels take by value: the graphs captured before must not be
// replayed. The same edits on an ungraphed run give the same particles bit for bit, and a graphed run
// without them differs (so the edits mattered).
TEST(CudaGraphs, LiveEditRecapturesAndMatchesTheUngraphedRun) {
  const Scene scene = dam_break();
  auto graphed = make_gpu(scene, true);
  auto plain = make_gpu(scene, false);
  auto unedited = make_gpu(scene, true);
  for (Simulation* simulation : {graphed.get(), plain.get(), unedited.get()}) run(*simulation, 20);
  const GraphCounts before = graph_counts(*graphed);
  Stirring hand;
  hand.center = 0.5f * (scene.blocks[0].min + scene.blocks[0].max);
  hand.radius = 0.25f * std::sqrt(length_squared(scene.blocks[0].max - scene.blocks[0].min));
  hand.velocity = {1.0f, 0.0f, 0.0f};
  for (Simulation* simulation : {graphed.get(), plain.get()}) {
    simulation->set_parameter("gravity_m_per_s2", Vec3f{30.0f, 0.0f, -9.81f});
    simulation->set_parameter("viscosity_alpha", 0.2);
    ASSERT_TRUE(simulation->set_stirring(hand));
  }
  for (Simulation* simulation : {graphed.get(), plain.get(), unedited.get()}) run(*simulation, 20);
  const GraphCounts after = graph_counts(*graphed);
  std::printf("before the edits: %.0f captured, %.0f replayed; after: %.0f captured, %.0f replayed\n",
              before.captures, before.replays, after.captures, after.replays);
  EXPECT_GT(after.captures, before.captures) << "an edit must make new graphs";
  EXPECT_GT(after.replays, before.replays);
  expect_identical(*graphed, *plain);
  const double effect = largest_difference(positions_by_id(*graphed), positions_by_id(*unedited));
  std::printf("the edits moved particles by up to %.3e m\n", effect);
  EXPECT_GT(effect, 0.0) << "the edits changed the run, so the comparison means something";
}

// The bus: graphed steps copy nothing; status() copies the step state once ("step status", the
// WcsphStepState struct), as it does without graphs.
TEST(CudaGraphs, GraphedStepsCrossTheBusOnlyForStatus) {
  auto graphed = make_gpu(dam_break(), true);
  run(*graphed, 10);
  graphed->status();
  graphed->ledger().clear();
  run(*graphed, 50);
  graphed->stage_times();  // waits for the last step's timing event: no copy
  EXPECT_EQ(graphed->ledger().total_bytes(), 0u) << "a graphed step must not cross the bus";
  const StepStatus status = graphed->status();
  ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
  const auto entries = graphed->ledger().entries();
  ASSERT_EQ(entries.size(), 1u);
  const auto& [key, entry] = *entries.begin();
  EXPECT_EQ(key.first, CopyDirection::device_to_host);
  EXPECT_EQ(key.second, "step status");
  EXPECT_EQ(entry.copies, 1u);
  EXPECT_EQ(entry.bytes, sizeof(WcsphStepState));
  std::printf("50 graphed steps: 0 bytes over the bus; status(): %zu bytes\n", entry.bytes);
}

// A running emitter grows the slots the passes cover each step: its steps run without a graph, unchanged.
TEST(CudaGraphs, EmitterStepsRunWithoutGraphsAndMatch) {
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/fountain.toml");
  const SimulationOptions graphed_options{.cuda_graphs = true};
  auto graphed = make_simulation(scene, ExecutionMode::gpu, graphed_options);
  auto plain = make_simulation(scene, ExecutionMode::gpu);
  ASSERT_TRUE(graphed->has_emitter());
  run(*graphed, 40);
  run(*plain, 40);
  expect_identical(*graphed, *plain);
  const GraphCounts counts = graph_counts(*graphed);
  EXPECT_EQ(counts.captures, 0.0);
  EXPECT_EQ(counts.without, 40.0);
}

}  // namespace
}  // namespace surge
