// The static fields a simulation publishes (Simulation::static_fields): the factory hands out every fluid
// simulation with its setup's walls, so that a viewer draws them without rebuilding the setup; DEM and
// n-body have no wall particles and publish nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

constexpr long kParticles = 2000;

Scene scene_named(const std::string& file, const std::string& solver = "") {
  Scene scene = load_scene(std::filesystem::path(SURGE_SOURCE_DIR) / "scenes" / file);
  if (!solver.empty()) scene.solver = *parse_solver_kind(solver);
  return scene;
}

// The walls, exactly as the setup placed them: same count, order, positions and volumes.
void expect_walls_of(const Simulation& simulation, const SphSetup& setup) {
  ASSERT_EQ(simulation.static_fields().size(), 1u);
  const StaticField* walls = simulation.static_field(kBoundaryField);
  ASSERT_NE(walls, nullptr);
  EXPECT_EQ(walls->name, "boundary");
  ASSERT_FALSE(setup.boundary.empty());
  ASSERT_EQ(walls->positions.size(), setup.boundary.size());
  for (std::size_t k = 0; k < setup.boundary.size(); ++k) {
    ASSERT_EQ(walls->positions[k].x, setup.boundary[k].x) << k;
    ASSERT_EQ(walls->positions[k].y, setup.boundary[k].y) << k;
    ASSERT_EQ(walls->positions[k].z, setup.boundary[k].z) << k;
    ASSERT_EQ(walls->positions[k].w, setup.boundary[k].w) << k;
  }
  EXPECT_EQ(simulation.boundary_count(), setup.boundary.size());
}

TEST(StaticFields, DamBreakPublishesExactlyItsSetupsWalls) {
  const Scene scene = scene_named("dam_break.toml");
  const SphSetup setup = build_setup(scene, kParticles);
  expect_walls_of(*make_simulation(scene, ExecutionMode::cpu, {.particles_override = kParticles}), setup);
  expect_walls_of(*make_simulation(scene, ExecutionMode::cpu, {.particles_override = kParticles}), setup);
  expect_walls_of(*make_wcsph_simulation(setup, ExecutionMode::cpu), setup);
}

TEST(StaticFields, IncompressibleSolversPublishTheirWalls) {
  for (const std::string solver : {"dfsph", "pbf"}) {
    SCOPED_TRACE(solver);
    const Scene scene = scene_named("dam_break.toml", solver);
    expect_walls_of(*make_simulation(scene, ExecutionMode::cpu, {.particles_override = kParticles}),
                    build_setup(scene, kParticles));
  }
}

// The viewer's live switch hands over a new simulation: it has the same walls.
TEST(StaticFields, ASwitchedSimulationKeepsTheWalls) {
  for (const std::string solver : {"wcsph", "dfsph", "pbf"}) {
    SCOPED_TRACE(solver);
    const Scene scene = scene_named("dam_break.toml", solver);
    const SimulationOptions options{.particles_override = kParticles};
    auto running = make_simulation(scene, ExecutionMode::cpu, options);
    running->step();
    expect_walls_of(*switch_execution_mode(*running, scene, ExecutionMode::cpu, options),
                    build_setup(scene, kParticles));
  }
}

TEST(StaticFields, GrainsAndBodiesPublishNone) {
  // Kepler's two bodies are the scene itself; no particle count replaces them.
  for (const auto& [file, particles] :
       {std::pair{"granular_column.toml", kParticles}, std::pair{"kepler.toml", 0L}}) {
    SCOPED_TRACE(file);
    const Scene scene = scene_named(file);
    const SimulationOptions options{.particles_override = particles};
    auto simulation = make_simulation(scene, ExecutionMode::cpu, options);
    EXPECT_TRUE(simulation->static_fields().empty());
    EXPECT_EQ(simulation->static_field(kBoundaryField), nullptr);
    EXPECT_TRUE(
        switch_execution_mode(*simulation, scene, ExecutionMode::cpu, options)->static_fields().empty());
  }
}

}  // namespace
}  // namespace surge
