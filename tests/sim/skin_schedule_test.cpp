// The hybrid-overlap schedule: an index built on cells of support + skin finds every neighbour while no
// particle has moved more than skin / 2, and the reuse count k keeps motion within that bound.
#include "sim/backend/skin_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/index/neighbor_loop.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {
namespace {

SphParameters dam_break_like_parameters() {
  SphParameters p;
  p.spacing = 0.006f;
  p.support = 0.012f;
  p.speed_of_sound = 24.0f;
  p.cfl = 0.25f;
  p.dt_max = 1e-3f;
  p.viscosity_alpha = 0.02f;
  p.xsph_epsilon = 0.0f;
  return p;
}

TEST(SkinSchedule, StepsWithinSolvesTheMotionBound) {
  // Values exact in binary, so floor() sees whole numbers. v = 1 m/s, no acceleration: 1 m takes 1 s.
  EXPECT_EQ(steps_within(1.0f, 1.0f, 0.0f, 0.125f, 1000), 8);
  // From rest at 2 m/s^2: 1 m takes 1 s, 1024 steps of 1/1024 s (or the cap).
  EXPECT_EQ(steps_within(1.0f, 0.0f, 2.0f, 1.0f / 1024, 5000), 1024);
  EXPECT_EQ(steps_within(1.0f, 0.0f, 2.0f, 1.0f / 1024, 500), 500);
  // v = 1, a = 2, d = 2: t^2 + t - 2 = 0, so t = 1 s.
  EXPECT_EQ(steps_within(2.0f, 1.0f, 2.0f, 0.125f, 1000), 8);
  EXPECT_EQ(steps_within(0.0f, 1.0f, 0.0f, 1e-4f, 1000), 0);
}

TEST(SkinSchedule, TimeStepBoundHoldsForEveryState) {
  const SphParameters p = dam_break_like_parameters();
  const float bound = time_step_bound(p);
  for (float v : {0.0f, 0.5f, 3.0f, 30.0f}) {
    for (float a : {0.0f, 9.81f, 1e3f, 1e6f}) {
      EXPECT_LE(adaptive_time_step(p, v, a), bound) << v << " " << a;
    }
  }
  // It is attained at rest with no force: the Courant limit of the sound speed.
  EXPECT_FLOAT_EQ(adaptive_time_step(p, 0.0f, 0.0f), bound);
}

TEST(SkinSchedule, ReuseKeepsTwoCyclesOfMotionInsideHalfTheSkin) {
  const SphParameters p = dam_break_like_parameters();
  const float skin = 0.25f * p.support, dt = time_step_bound(p);
  for (float v : {0.1f, 1.0f, 2.4f, 6.0f}) {
    for (float a : {9.81f, 100.0f, 2000.0f}) {
      const long k = index_reuse_steps(p, skin, v, a, 1000);
      ASSERT_GE(k, 1);
      const auto moved = [&](long steps) {
        const double t = double(steps) * dt;
        return double(displacement_speed_bound(p, v)) * t + 0.5 * a * t * t;
      };
      if (k > 1) {
        EXPECT_LE(moved(2 * k), 0.5 * skin * (1 + 1e-6)) << v << " " << a;
      }
      // ... and is the largest such k: two more steps would overrun.
      EXPECT_GT(moved(2 * k + 2), 0.5 * skin) << v << " " << a;
    }
  }
  // Dam break at full surge speed (2.4 m/s): a handful of steps, as docs/lessons/1-the-bus.md says.
  const long k = index_reuse_steps(p, skin, 2.4f, 9.81f, 50);
  EXPECT_GE(k, 2);
  EXPECT_LE(k, 12);
}

TEST(SkinSchedule, SkinGridCoversTheSameBox) {
  GridGeometry grid;
  grid.origin = {-0.1f, 0.0f, 0.2f};
  grid.cell_size = 0.012f;
  grid.inv_cell_size = 1.0f / grid.cell_size;
  grid.nx = 50;
  grid.ny = 13;
  grid.nz = 51;
  const GridGeometry coarse = grid_with_skin(grid, 0.012f, 0.003f);
  EXPECT_FLOAT_EQ(coarse.cell_size, 0.015f);
  EXPECT_EQ(coarse.origin.x, grid.origin.x);
  EXPECT_GE(coarse.nx * coarse.cell_size, grid.nx * grid.cell_size);
  EXPECT_GE(coarse.ny * coarse.cell_size, grid.ny * grid.cell_size);
  EXPECT_GE(coarse.nz * coarse.cell_size, grid.nz * grid.cell_size);
  EXPECT_LT((coarse.nx - 1) * coarse.cell_size, grid.nx * grid.cell_size);
}

// Neighbours (within `support`) of a sample of particles at positions `now`, searched through an index
// built from `then` on `grid`, compared with brute force over `now`. Returns the number missed; extra
// ones cannot occur, since the distance test uses the present positions.
long missed_neighbours(const GridGeometry& grid, const std::vector<Vec4f>& then,
                       const std::vector<Vec4f>& now, float support, long* found_total) {
  CpuCellIndex index;
  index.build(grid, then);
  const auto& order = index.sorted_order();
  // The arrays in the index's order, holding the present positions (what the GPU has between rebuilds).
  std::vector<Vec4f> present(now.size());
  for (std::size_t k = 0; k < now.size(); ++k) present[k] = now[order[k]];
  const CellIndexView view{present.data(), index.cell_start().data()};
  long missed = 0;
  *found_total = 0;
  for (std::size_t k = 0; k < present.size(); k += 10) {
    std::vector<std::uint32_t> from_index, brute;
    for_each_neighbor(grid, view, xyz(present[k]), support * support,
                      [&](std::uint32_t j, Vec3f, float) { from_index.push_back(order[j]); });
    for (std::uint32_t j = 0; j < now.size(); ++j)
      if (length_squared(xyz(present[k]) - xyz(now[j])) < support * support) brute.push_back(j);
    std::sort(from_index.begin(), from_index.end());
    EXPECT_TRUE(std::includes(brute.begin(), brute.end(), from_index.begin(), from_index.end()));
    missed += long(brute.size() - from_index.size());
    *found_total += long(from_index.size());
  }
  return missed;
}

TEST(SkinSchedule, StaleIndexFindsEveryNeighbourWithinHalfTheSkinAndMissesSomeBeyond) {
  const float support = 0.05f, skin = 0.0125f;
  GridGeometry fine;
  fine.cell_size = support;
  fine.inv_cell_size = 1.0f / support;
  fine.nx = 20;
  fine.ny = 12;
  fine.nz = 16;
  const GridGeometry coarse = grid_with_skin(fine, support, skin);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> ux(0.0f, 1.0f), uy(0.0f, 0.6f), uz(0.0f, 0.8f), unit(-1.0f, 1.0f);
  std::vector<Vec4f> then(20000);
  for (auto& p : then) p = {ux(rng), uy(rng), uz(rng), 0};
  // Every particle moves by exactly `distance` in a random direction.
  const auto moved_by = [&](float distance) {
    std::vector<Vec4f> now(then.size());
    for (std::size_t i = 0; i < then.size(); ++i) {
      Vec3f d{unit(rng), unit(rng), unit(rng)};
      d = (distance / std::sqrt(length_squared(d))) * d;
      now[i] = make_vec4(xyz(then[i]) + d, 0.0f);
    }
    return now;
  };
  long found = 0;
  EXPECT_EQ(missed_neighbours(coarse, then, moved_by(0.5f * skin), support, &found), 0);
  EXPECT_GT(found, 20000) << "the sample has neighbours to find";
  // Moved by three skins the stale index misses pairs: the displacement check is what prevents this.
  EXPECT_GT(missed_neighbours(coarse, then, moved_by(3.0f * skin), support, &found), 0);
  // And the fine grid (no skin) misses pairs even at half a skin: the skin is what makes reuse safe.
  EXPECT_GT(missed_neighbours(fine, then, moved_by(0.5f * skin), support, &found), 0);
}

// The memory-order lesson's indirection: arrays left in creation order, neighbours read through the
// sorted order, give exactly the neighbour sets of the reordered arrays.
TEST(NeighbourLoop, SortedOrderIndirectionMatchesReorderedArrays) {
  const float support = 0.1f;
  GridGeometry grid;
  grid.cell_size = support;
  grid.inv_cell_size = 1.0f / support;
  grid.nx = grid.ny = grid.nz = 8;
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(0.0f, 0.8f);
  std::vector<Vec4f> points(3000);
  for (auto& p : points) p = {u(rng), u(rng), u(rng), 0};
  CpuCellIndex index;
  index.build(grid, points);
  const auto& order = index.sorted_order();
  std::vector<Vec4f> sorted(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) sorted[k] = points[order[k]];
  const CellIndexView reordered{sorted.data(), index.cell_start().data()};
  const CellIndexView in_creation_order{points.data(), index.cell_start().data(), order.data()};
  long total = 0;
  for (std::size_t i = 0; i < points.size(); i += 3) {
    std::vector<std::uint32_t> a, b;  // creation indices of the neighbours
    for_each_neighbor(grid, reordered, xyz(points[i]), support * support,
                      [&](std::uint32_t j, Vec3f, float) { a.push_back(order[j]); });
    for_each_neighbor(grid, in_creation_order, xyz(points[i]), support * support,
                      [&](std::uint32_t j, Vec3f, float) { b.push_back(j); });
    EXPECT_EQ(a, b) << "same neighbours, visited in the same order";
    total += long(a.size());
  }
  EXPECT_GT(total, 5000);
}

}  // namespace
}  // namespace surge

namespace surge {
namespace {

// hybrid-overlap's physics on the CPU: densities and accelerations computed through a stale index on the
// skin grid (built from positions several steps old, the arrays in that index's order) equal those of a
// fresh index on the fine grid, particle by particle, as long as nothing moved more than skin / 2.
TEST(SkinSchedule, StaleSkinIndexGivesTheFreshIndexPhysics) {
  const Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  const SphSetup setup = build_setup(scene, 2000);
  const SphParameters& params = setup.params;
  auto simulation = make_cpu_simulation(setup);
  // Late enough that the column is collapsing and particles have left their initial lattice.
  for (int s = 0; s < 400; ++s) simulation->step();
  ParticleFrame then;
  simulation->download(then);
  // Both frames by creation id.
  const auto by_id = [](const ParticleFrame& frame, const std::vector<Vec4f>& values) {
    std::vector<Vec4f> out(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) out[frame.id[k]] = values[k];
    return out;
  };
  const std::vector<Vec4f> x_then = by_id(then, then.position);
  const float skin = 0.25f * params.support;
  // Step until the fastest particle has used most of its half skin.
  ParticleFrame now;
  std::vector<Vec4f> x_now, v_now;
  float moved = 0.0f;
  for (int s = 0; s < 200 && moved < 0.35f * skin; ++s) {
    simulation->step();
    simulation->download(now);
    x_now = by_id(now, now.position);
    v_now = by_id(now, now.velocity);
    moved = 0.0f;
    for (std::size_t i = 0; i < x_now.size(); ++i)
      moved = std::max(moved, std::sqrt(length_squared(xyz(x_now[i]) - xyz(x_then[i]))));
  }
  ASSERT_GT(moved, 0.0f);
  ASSERT_LE(moved, 0.5f * skin) << "the premise: within half the skin";
  long changed = 0;
  for (std::size_t i = 0; i < x_now.size(); ++i)
    changed += setup.grid.key_of(xyz(x_now[i])) != setup.grid.key_of(xyz(x_then[i]));
  ASSERT_GT(changed, 0) << "some particles changed cell, so a stale index differs from a fresh one";

  // Physics through one index: arrays in the index's order, positions and velocities of `now`.
  struct Result {
    std::vector<float> density;
    std::vector<ParticleAcceleration> acceleration;
  };
  const auto physics = [&](const GridGeometry& grid, const std::vector<Vec4f>& index_positions) {
    CpuCellIndex index, walls;
    index.build(grid, index_positions);
    walls.build(grid, setup.boundary);
    const std::size_t n = x_now.size();
    std::vector<Vec4f> x(n), v(n), boundary(setup.boundary.size());
    for (std::size_t k = 0; k < n; ++k) {
      x[k] = x_now[index.sorted_order()[k]];
      v[k] = v_now[index.sorted_order()[k]];
    }
    for (std::size_t k = 0; k < boundary.size(); ++k) boundary[k] = setup.boundary[walls.sorted_order()[k]];
    const CellIndexView fluid{x.data(), index.cell_start().data()};
    const CellIndexView wall{boundary.data(), walls.cell_start().data()};
    std::vector<float> density(n), pressure(n);
    std::vector<ParticleAcceleration> acceleration(n);
    with_kernel(params.kernel, params.support, [&](auto kernel) {
      for (std::size_t k = 0; k < n; ++k) {
        density[k] = compute_density(kernel, params, grid, fluid, wall, xyz(x[k]));
        set_equation_of_state(params, density[k], pressure[k], v[k]);
      }
      const FluidFields fields{fluid, v.data(), density.data(), pressure.data()};
      for (std::size_t k = 0; k < n; ++k)
        acceleration[k] = compute_acceleration(kernel, params, grid, fields, wall, std::uint32_t(k));
      return 0;
    });
    Result by_creation{std::vector<float>(n), std::vector<ParticleAcceleration>(n)};
    for (std::size_t k = 0; k < n; ++k) {
      by_creation.density[index.sorted_order()[k]] = density[k];
      by_creation.acceleration[index.sorted_order()[k]] = acceleration[k];
    }
    return by_creation;
  };
  const Result fresh = physics(setup.grid, x_now);
  const auto largest_differences = [&](const Result& other) {
    double density = 0, acceleration = 0;
    for (std::size_t i = 0; i < x_now.size(); ++i) {
      density = std::max(density, double(std::abs(fresh.density[i] - other.density[i])));
      const Vec3f da = fresh.acceleration[i].acceleration - other.acceleration[i].acceleration;
      acceleration = std::max(acceleration, double(std::sqrt(length_squared(da))));
    }
    return std::pair{density, acceleration};
  };
  const auto [skin_density, skin_acceleration] =
      largest_differences(physics(grid_with_skin(setup.grid, params.support, skin), x_then));
  double typical_acceleration = 0;
  for (const ParticleAcceleration& a : fresh.acceleration)
    typical_acceleration = std::max(typical_acceleration, double(std::sqrt(length_squared(a.acceleration))));
  std::printf(
      "index %ld steps stale (%ld particles changed cell, fastest moved %.2f skin): largest "
      "differences %.3g kg/m^3, %.3g m/s^2 (largest acceleration %.3g m/s^2)\n",
      now.step - then.step, changed, moved / skin, skin_density, skin_acceleration, typical_acceleration);
  // The same neighbours summed in another order (the skin grid's cells are larger): float rounding of pair
  // terms of hundreds of m/s^2 that cancel to about g. A lost neighbour changes a density by up to
  // ~1e-2 rho0 and an acceleration by m/s^2 (tests above show the misses a stale index without skin makes).
  EXPECT_LT(skin_density, 1e-2);
  EXPECT_LT(skin_acceleration, 0.1);
  EXPECT_GT(typical_acceleration, 1.0) << "gravity at least";
}

// k from a measured displacement (the hybrid executors, any solver): quadratic growth through the
// measurement, the index's age at adoption subtracted, clamped to [1, max].
TEST(SkinSchedule, ReuseStepsFromAMeasuredDisplacement) {
  // Moved skin/8 in 4 steps: quadratic growth reaches skin/2 at 4 sqrt(4) = 8 steps; 3 of them are gone.
  EXPECT_EQ(reuse_steps_from_displacement(1.0f, 0.125f, 4, 3, 50), 5);
  EXPECT_EQ(reuse_steps_from_displacement(1.0f, 0.125f, 4, 0, 50), 8);
  EXPECT_EQ(reuse_steps_from_displacement(1.0f, 0.125f, 4, 0, 6), 6) << "the cap";
  EXPECT_EQ(reuse_steps_from_displacement(1.0f, 0.6f, 1, 0, 50), 1) << "at least one step";
  EXPECT_EQ(reuse_steps_from_displacement(1.0f, 0.0f, 3, 2, 50), 50) << "nothing moved: the cap";
  // Constant acceleration from rest, d(t) = t^2 / 2: measured at t = 2 (d = 2), the bound holds exactly at
  // the lifetime it gives, and over-predicts nothing: d(T) <= skin / 2.
  const float skin = 200.0f;
  const long lifetime = reuse_steps_from_displacement(skin, 2.0f, 2, 0, 1000);
  EXPECT_LE(0.5 * double(lifetime) * double(lifetime), 0.5 * double(skin));
  EXPECT_GT(0.5 * double(lifetime + 1) * double(lifetime + 1), 0.5 * double(skin)) << "and no shorter";
}

// The walls of a skin index: the same particles, sorted into the coarser cells, each inside its cell's range.
TEST(SkinSchedule, WithSkinGridSortsTheWallsIntoTheCoarseCells) {
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"), 3000);
  const float skin = 0.25f * setup.params.support;
  const SphSetup coarse = with_skin_grid(setup, skin);
  EXPECT_FLOAT_EQ(coarse.grid.cell_size, setup.params.support + skin);
  ASSERT_EQ(coarse.boundary.size(), setup.boundary.size());
  ASSERT_EQ(coarse.boundary_cell_start.size(), std::size_t(coarse.grid.cell_count()) + 1);
  EXPECT_EQ(coarse.boundary_cell_start.back(), coarse.boundary.size());
  for (std::uint32_t c = 0; c < coarse.grid.cell_count(); ++c)
    for (std::uint32_t k = coarse.boundary_cell_start[c]; k < coarse.boundary_cell_start[c + 1]; ++k)
      ASSERT_EQ(coarse.grid.key_of(xyz(coarse.boundary[k])), c) << "wall particle " << k;
  auto volume_sum = [](const std::vector<Vec4f>& walls) {
    double sum = 0;
    for (const Vec4f& w : walls) sum += double(w.w);
    return sum;
  };
  EXPECT_NEAR(volume_sum(coarse.boundary), volume_sum(setup.boundary), 1e-12 * volume_sum(setup.boundary))
      << "the same particles";
}

}  // namespace
}  // namespace surge
