// Cells of half a support ([resolution] cells_per_support = 2, GridGeometry::cells_per_support) find exactly
// the neighbours that cells of one support find, through every path the solvers take (the cell loop, its
// indirect twin, the CPU's neighbour lists, the census), test fewer candidates to find them, and step the
// solvers to the same results up to the rounding of sums taken in another order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/simulation_factory.h"
#include "sim/backend/skin_schedule.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/index/neighbor_loop.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/neighbor_census.h"
#include "tests/gpu/particle_comparison.h"
#include "tests/sim/half_cell_cases.h"

namespace surge {
namespace {

using NeighbourSets = std::vector<std::vector<std::uint32_t>>;

// A tank whose sides are no whole number of cells of any support tried (0.131 x 0.097 m, fluid 0.113 m deep
// at spacing 0.01 m), walls four layers deep on five sides, so queries near walls, in corners and at the
// open top all occur.
std::string tank_text(float support_ratio, int cells_per_support) {
  return R"([domain]
min = [0, 0, 0]
max = [0.131, 0.097, 0.173]
walls = ["x-", "x+", "y-", "y+", "z-"]
wall_layers = 4
[resolution]
spacing = 0.01
support_ratio = )" +
         std::to_string(support_ratio) + "\ncells_per_support = " + std::to_string(cells_per_support) + R"(
[[fluid.block]]
shape = "box"
min = [0, 0, 0]
max = [0.131, 0.097, 0.113]
)";
}

// The setup's fluid lattice, each particle jittered by up to 0.45 spacings per axis, plus particles beyond
// the grid on every side (the index files them in its border cells, which then reach to infinity).
std::vector<Vec4f> jittered_fluid(const SphSetup& setup, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const float spacing = setup.params.spacing;
  std::uniform_real_distribution<float> jitter(-0.45f * spacing, 0.45f * spacing);
  std::vector<Vec4f> points = setup.fluid.position;
  for (Vec4f& p : points) p = {p.x + jitter(rng), p.y + jitter(rng), p.z + jitter(rng), 0.0f};
  const GridGeometry& grid = setup.grid;
  const Vec3f lo = grid.origin;
  const Vec3f hi = lo + grid.cell_size * Vec3f{float(grid.nx), float(grid.ny), float(grid.nz)};
  const float out = 0.3f * setup.params.support;
  std::uniform_real_distribution<float> ux(lo.x, hi.x), uy(lo.y, hi.y), uz(lo.z, hi.z);
  for (int k = 0; k < 8; ++k) {
    points.push_back({lo.x - out, uy(rng), uz(rng), 0.0f});
    points.push_back({hi.x + out, uy(rng), uz(rng), 0.0f});
    points.push_back({ux(rng), lo.y - out, uz(rng), 0.0f});
    points.push_back({ux(rng), hi.y + out, uz(rng), 0.0f});
    points.push_back({ux(rng), uy(rng), lo.z - out, 0.0f});
    points.push_back({ux(rng), uy(rng), hi.z + out, 0.0f});
  }
  return points;
}

// One point set filed in one grid, with its particles gathered into cell order as the solvers keep them.
struct Filed {
  Filed(const GridGeometry& grid, const std::vector<Vec4f>& created) : points(created) {
    index.build(grid, created);
    for (std::uint32_t k : index.sorted_order()) sorted.push_back(created[k]);
  }
  CellIndexView view() const { return {sorted.data(), index.cell_start().data()}; }
  // The creation-order twin (the memory-order lesson): neighbours through sorted_order.
  CellIndexView indirect_view() const {
    CellIndexView v{points.data(), index.cell_start().data()};
    v.sorted_order = index.sorted_order().data();
    return v;
  }
  const std::vector<Vec4f>& points;
  CpuCellIndex index;
  std::vector<Vec4f> sorted;
};

// For each query, its neighbours in `filed` by creation index, sorted.
NeighbourSets cell_sets(const GridGeometry& grid, const Filed& filed, const std::vector<Vec4f>& queries,
                        float support, bool indirect) {
  NeighbourSets sets(queries.size());
  const CellIndexView view = indirect ? filed.indirect_view() : filed.view();
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for_each_neighbor(grid, view, xyz(queries[q]), support * support, [&](std::uint32_t j, Vec3f, float) {
      sets[q].push_back(indirect ? j : filed.index.sorted_order()[j]);
    });
    std::sort(sets[q].begin(), sets[q].end());
  }
  return sets;
}

NeighbourSets brute_force_sets(const std::vector<Vec4f>& points, const std::vector<Vec4f>& queries,
                               float support) {
  NeighbourSets sets(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::uint32_t j = 0; j < points.size(); ++j) {
      const Vec4f p = points[j];
      const Vec3f r{queries[q].x - p.x, queries[q].y - p.y, queries[q].z - p.z};
      if (length_squared(r) < support * support) sets[q].push_back(j);
    }
  return sets;
}

// The CPU executor's neighbour lists (the iterative solvers' path), as sets by creation index, in the order
// of `fluid` as created.
std::pair<NeighbourSets, NeighbourSets> list_sets(const GridGeometry& grid, const Filed& fluid,
                                                  const Filed& walls, float support) {
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  const auto n = std::uint32_t(fluid.sorted.size());
  exec.build_neighbor_lists(grid, fluid.view(), walls.view(), n, support);
  NeighbourSets fluid_sets(n), wall_sets(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t created = fluid.index.sorted_order()[i];
    for (std::uint32_t k = exec.fluid_list_start()[i]; k < exec.fluid_list_start()[i + 1]; ++k)
      fluid_sets[created].push_back(fluid.index.sorted_order()[exec.fluid_list()[k]]);
    for (std::uint32_t k = exec.boundary_list_start()[i]; k < exec.boundary_list_start()[i + 1]; ++k)
      wall_sets[created].push_back(walls.index.sorted_order()[exec.boundary_list()[k]]);
    std::sort(fluid_sets[created].begin(), fluid_sets[created].end());
    std::sort(wall_sets[created].begin(), wall_sets[created].end());
  }
  return {fluid_sets, wall_sets};
}

// Distance from x to the box of the cell that holds p (a border cell reaching to infinity outward).
float distance_to_cell_of(const GridGeometry& grid, Vec3f x, Vec3f p) {
  const float c[3] = {float(grid.cell_x(p.x)), float(grid.cell_y(p.y)), float(grid.cell_z(p.z))};
  const int n[3] = {grid.nx, grid.ny, grid.nz};
  const float o[3] = {grid.origin.x, grid.origin.y, grid.origin.z};
  const float u[3] = {x.x, x.y, x.z};
  float d2 = 0;
  for (int a = 0; a < 3; ++a) {
    const float low = o[a] + c[a] * grid.cell_size, high = low + grid.cell_size;
    float d = 0;
    if (c[a] > 0 && u[a] < low) d = low - u[a];
    if (c[a] < float(n[a] - 1) && u[a] > high) d = u[a] - high;
    d2 += d * d;
  }
  return std::sqrt(d2);
}

std::size_t pairs(const NeighbourSets& sets) {
  std::size_t total = 0;
  for (const auto& s : sets) total += s.size();
  return total;
}

class HalfCellSearch : public ::testing::TestWithParam<float> {};

TEST_P(HalfCellSearch, FindsTheNeighbourSetsOfWholeCellsAndTestsFewerCandidates) {
  const float support_ratio = GetParam();
  const SphSetup whole = build_setup(parse_scene(tank_text(support_ratio, 1), "t.toml"));
  const SphSetup half = build_setup(parse_scene(tank_text(support_ratio, 2), "t.toml"));
  const float support = whole.params.support;
  ASSERT_EQ(half.params.support, support);
  ASSERT_EQ(half.grid.cells_per_support, 2);
  // One cell size drives the keys and the search: half the support, covering the same box.
  EXPECT_EQ(half.grid.cell_size, support / 2);
  EXPECT_EQ(whole.grid.cell_size, support);
  EXPECT_GE(float(half.grid.nx) * half.grid.cell_size, float(whole.grid.nx - 1) * whole.grid.cell_size);
  // The box the grid covers (domain plus margins) is no whole number of half cells: the last cell sticks out.
  const float span_x = whole.params.domain_max.x + whole.params.domain_min.x - 2 * half.grid.origin.x;
  const float span_in_cells = span_x / half.grid.cell_size;
  EXPECT_GT(std::abs(span_in_cells - std::round(span_in_cells)), 0.05f) << span_in_cells;
  // The walls as setup placed them (the same for both settings: only their order differs).
  ASSERT_EQ(half.boundary.size(), whole.boundary.size());
  const std::vector<Vec4f>& walls = whole.boundary;
  const std::vector<Vec4f> fluid = jittered_fluid(whole, 7u + std::uint32_t(support_ratio));

  const NeighbourSets brute_fluid = brute_force_sets(fluid, fluid, support);
  const NeighbourSets brute_walls = brute_force_sets(walls, fluid, support);
  double candidates[2] = {0, 0};
  for (const SphSetup* setup : {&whole, &half}) {
    const GridGeometry& grid = setup->grid;
    const Filed filed_fluid(grid, fluid), filed_walls(grid, walls);
    const char* name = grid.cells_per_support == 1 ? "whole cells" : "half cells";
    EXPECT_EQ(cell_sets(grid, filed_fluid, fluid, support, false), brute_fluid) << name;
    EXPECT_EQ(cell_sets(grid, filed_walls, fluid, support, false), brute_walls) << name;
    EXPECT_EQ(cell_sets(grid, filed_fluid, fluid, support, true), brute_fluid) << name << ", indirect";
    EXPECT_EQ(cell_sets(grid, filed_walls, fluid, support, true), brute_walls) << name << ", indirect";
    const auto [list_fluid, list_walls] = list_sets(grid, filed_fluid, filed_walls, support);
    EXPECT_EQ(list_fluid, brute_fluid) << name << ", neighbour lists";
    EXPECT_EQ(list_walls, brute_walls) << name << ", neighbour lists";

    TransferLedger ledger;
    CpuExecutor exec(ledger);
    const NeighborCensus census = count_neighbors(exec, std::uint32_t(fluid.size()), grid, filed_fluid.view(),
                                                  filed_walls.view(), support);
    EXPECT_EQ(census.fluid_neighbors, double(pairs(brute_fluid))) << name;
    EXPECT_EQ(census.wall_neighbors, double(pairs(brute_walls))) << name;
    EXPECT_EQ(census.cells_per_support, grid.cells_per_support);
    candidates[grid.cells_per_support - 1] = census.candidates;
    std::printf(
        "support %.0f spacings, %s (%d x %d x %d): %.1f neighbours a particle, %.2f candidates a "
        "neighbour\n",
        double(support_ratio), name, grid.nx, grid.ny, grid.nz,
        (census.fluid_neighbors + census.wall_neighbors) / double(fluid.size()),
        census.candidates / (census.fluid_neighbors + census.wall_neighbors));

    // The census counts what the search tests: with half cells, no candidate's cell lies wholly beyond the
    // support of the query (plus the search's rounding slack).
    if (grid.cells_per_support == 2) {
      float farthest = 0;
      for (const Vec4f& q : fluid)
        for_each_cell_range(grid, filed_fluid.view(), xyz(q), [&](std::uint32_t begin, std::uint32_t end) {
          for (std::uint32_t k = begin; k < end; ++k)
            farthest = std::max(farthest, distance_to_cell_of(grid, xyz(q), xyz(filed_fluid.sorted[k])));
        });
      EXPECT_LE(farthest, support + grid.cell_size * kPrunedSearchSlackCells * 1.01f);
    }
  }
  // Cells of one support test 27 / (4/3 pi) = 6.4 times the sphere's volume; trimmed half cells about 3.
  const double ratio = candidates[1] / candidates[0];
  std::printf("support %.0f spacings: half cells test %.3f of the candidates whole cells test\n",
              double(support_ratio), ratio);
  EXPECT_LT(ratio, 0.6);
}

INSTANTIATE_TEST_SUITE_P(Supports, HalfCellSearch, ::testing::Values(2.0f, 3.0f, 4.0f),
                         [](const auto& info) { return std::to_string(int(info.param)) + "_spacings"; });

// The skin index's grid (hybrid-overlap) keeps the cells per support: half cells of support + skin, whose
// search reaches support + skin.
TEST(HalfCellSearch, SkinGridKeepsHalfCellsAndFindsEveryPairWithinSupportPlusSkin) {
  const SphSetup half = build_setup(parse_scene(tank_text(2.0f, 2), "t.toml"));
  const float support = half.params.support, skin = 0.25f * support;
  const GridGeometry coarse = grid_with_skin(half.grid, support, skin);
  EXPECT_EQ(coarse.cells_per_support, 2);
  EXPECT_FLOAT_EQ(coarse.cell_size, (support + skin) / 2);
  const std::vector<Vec4f> fluid = jittered_fluid(half, 3u);
  const Filed filed(coarse, fluid);
  const NeighbourSets brute = brute_force_sets(fluid, fluid, support + skin);
  EXPECT_EQ(cell_sets(coarse, filed, fluid, support + skin, false), brute);
  EXPECT_GT(pairs(brute), 20 * fluid.size());
}

TEST(HalfCellSearch, SceneKeyIsOneOrTwo) {
  EXPECT_EQ(parse_scene(tank_text(2.0f, 2), "t.toml").cells_per_support, 2);
  EXPECT_EQ(build_setup(parse_scene(tank_text(2.0f, 1), "t.toml")).grid.cells_per_support, 1);
  try {
    parse_scene(tank_text(2.0f, 3), "t.toml");
    FAIL() << "cells_per_support = 3 was accepted";
  } catch (const SceneError& error) {
    EXPECT_EQ(error.key(), "resolution.cells_per_support") << error.what();
  }
}

// ---- The solvers step to the same results with either setting.

// The tolerances of the CPU/GPU equivalence (tests/gpu/solver_equivalence_test.cpp, whose per-solver tests
// derive them): there the difference is rounding (FMA contraction, sqrtf, sums in another order), here sums
// in another order alone (half cells order the particles, and so every neighbour sum, differently). One
// missing or doubled neighbour moves a particle by more.
class HalfCellSolvers : public ::testing::TestWithParam<HalfCellSolverCase> {};

TEST_P(HalfCellSolvers, StepLikeWholeCellsUpToSummationOrder) {
  const HalfCellSolverCase c = GetParam();
  const Scene scene = half_cell_case_scene(c);
  const SimulationOptions options{.particles_override = 4000};
  Scene half_scene = scene;
  half_scene.cells_per_support = 2;
  auto whole = make_simulation(scene, ExecutionMode::cpu, options);
  auto half = make_simulation(half_scene, ExecutionMode::cpu, options);
  const std::vector<Vec4f> start = positions_by_id(*whole);
  for (int s = 0; s < c.steps; ++s) {
    whole->step();
    half->step();
  }
  const StepStatus a_status = whole->status(), b_status = half->status();
  ASSERT_EQ(a_status.instability, Instability::none) << a_status.diagnosis();
  ASSERT_EQ(b_status.instability, Instability::none) << b_status.diagnosis();
  EXPECT_EQ(b_status.step, a_status.step);
  EXPECT_NEAR(b_status.time_s, a_status.time_s, 1e-6 * a_status.time_s);
  const std::vector<Vec4f> a = positions_by_id(*whole), b = positions_by_id(*half);
  ASSERT_EQ(a.size(), b.size());
  const double spacing = build_setup(scene, options.particles_override).params.spacing;
  const double largest = largest_difference(a, b), travelled = largest_difference(a, start);
  std::printf(
      "%s, %zu particles, %d steps: largest difference half - whole cells %.3e = %.3e spacings "
      "(allowed %.0e); largest travel %.3e\n",
      c.name, a.size(), c.steps, largest, largest / spacing, c.tolerance, travelled);
  EXPECT_LT(largest, c.tolerance * spacing);
  EXPECT_GT(travelled, 10 * largest) << "the particles moved, so the comparison means something";

  // The census: the same neighbours (up to pairs at the support's edge that rounding moves across it),
  // about half the candidates.
  const std::vector<NamedValue> census_whole = whole->neighbor_census(),
                                census_half = half->neighbor_census();
  const double n_whole = census_figure(census_whole, "neighbors_per_particle");
  const double n_half = census_figure(census_half, "neighbors_per_particle");
  const double c_whole = census_figure(census_whole, "candidates_per_neighbor");
  const double c_half = census_figure(census_half, "candidates_per_neighbor");
  std::printf(
      "%s: %.3f / %.3f neighbours a particle, %.2f / %.2f candidates a neighbour (whole / half cells)\n",
      c.name, n_whole, n_half, c_whole, c_half);
  EXPECT_NEAR(n_half, n_whole, 1e-3 * n_whole);
  EXPECT_LT(c_half, 0.6 * c_whole);
  EXPECT_EQ(census_figure(census_whole, "index_cells_per_support"), 1.0);
  EXPECT_EQ(census_figure(census_half, "index_cells_per_support"), 2.0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, HalfCellSolvers, ::testing::ValuesIn(kHalfCellSolverCases),
                         half_cell_case_name);

}  // namespace
}  // namespace surge
