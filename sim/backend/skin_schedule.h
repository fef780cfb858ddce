// How long a cell index built with a skin stays valid: the schedule of the hybrid-overlap mode.
//
// Verlet's idea applied to cells: file the particles in cells of edge support + skin. As long as no
// particle has moved more than skin / 2 since the positions the index was built from, every pair closer
// than the support still lies in neighbouring cells, so the index can be reused while the CPU builds the
// next one. (A cell lookup at the current position needs only "moved less than skin"; skin / 2 is the
// classic Verlet-list margin and leaves a factor two in hand.)
//
// The pipeline (sim/backend/hybrid_executor.cuh): positions are copied down
// right after an index is adopted; the CPU builds the next index from them while the GPU steps; it is adopted
// k steps later and then used for k more steps. An index therefore serves until 2k steps after its positions
// were taken, and k is the largest count for which particles at the present speed and acceleration move at
// most skin / 2 in 2k steps. The device measures the real displacement every step, and a larger one forces an
// immediate rebuild, so a sudden acceleration cannot make the schedule miss a neighbour.
#pragma once

#include <algorithm>
#include <cmath>

#include "sim/index/cell_index_cpu.h"
#include "sim/index/grid_geometry.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// An upper bound on every time step the adaptive rule (adaptive_time_step in wcsph_physics.h) can
// choose: its Courant condition cfl h / (c0 + v) never exceeds cfl h / c0, and dt_max caps it.
inline float time_step_bound(const SphParameters& params) {
  const float h = 0.5f * params.support;
  return std::min(params.dt_max, params.cfl * h / params.speed_of_sound);
}

// An upper bound on the speed a particle moves at: its velocity plus the XSPH correction, which averages
// velocity differences of at most 2 v_max with weights summing to about one (the 1.5 covers compression).
inline float displacement_speed_bound(const SphParameters& params, float max_speed) {
  return max_speed * (1.0f + 1.5f * 2.0f * params.xsph_epsilon);
}

// The largest m <= max_steps with  m dt v + (m dt)^2 a / 2 <= distance  (at least 0): how many steps of at
// most dt a particle starting at speed v with acceleration at most a stays within `distance`.
inline long steps_within(float distance, float speed, float acceleration, float dt, long max_steps) {
  if (distance <= 0.0f || dt <= 0.0f) return 0;
  // Solve a/2 t^2 + v t - d = 0 for the time t, stably for a -> 0.
  const double v = speed, a = acceleration, d = distance;
  const double t = a > 0.0 ? 2.0 * d / (v + std::sqrt(v * v + 2.0 * a * d)) : (v > 0.0 ? d / v : 1e30);
  const double steps = std::floor(t / double(dt));
  return long(std::clamp(steps, 0.0, double(max_steps)));
}

// Steps an index is used for before the next one is adopted (k above), at least 1.
inline long index_reuse_steps(const SphParameters& params, float skin, float max_speed,
                              float max_acceleration, long max_reuse_steps) {
  const long steps_in_skin = steps_within(0.5f * skin, displacement_speed_bound(params, max_speed),
                                          max_acceleration, time_step_bound(params), 2 * max_reuse_steps);
  return std::max(1L, steps_in_skin / 2);
}

// k from a displacement measured on the device, for any solver (the executors of hybrid_executor.cuh): the
// particles were at most `moved` from the positions of an index `moved_age` (> 0) steps old. A displacement
// growing at most quadratically through that measurement (constant acceleration from any speed:
// d(t) <= d(m) (t/m)^2 for t >= m) reaches skin / 2 after T = m sqrt(skin / 2 / moved) steps; the new index,
// already `index_age` steps old when adopted, serves the rest, at least 1 and at most max_reuse_steps. An
// underestimate costs an early rebuild, never a missed neighbour: the measurement is checked every step.
inline long reuse_steps_from_displacement(float skin, float moved, long moved_age, long index_age,
                                          long max_reuse_steps) {
  const double cap = double(2 * max_reuse_steps);
  const double lifetime =
      moved > 0.0f ? std::min(cap, double(moved_age) * std::sqrt(0.5 * double(skin) / double(moved))) : cap;
  return std::clamp(long(std::floor(lifetime)) - index_age, 1L, max_reuse_steps);
}

// The grid of the skin index: same origin, cells of edge (support + skin) / cells_per_support, so that its
// search reaches support + skin, covering at least the same box.
inline GridGeometry grid_with_skin(const GridGeometry& grid, float support, float skin) {
  GridGeometry coarse = grid;
  coarse.cell_size = (support + skin) / float(grid.cells_per_support);
  coarse.inv_cell_size = 1.0f / coarse.cell_size;
  const auto cells_covering = [&](int n) {
    return std::max(1, int(std::ceil(double(n) * double(grid.cell_size) / double(coarse.cell_size))));
  };
  coarse.nx = cells_covering(grid.nx);
  coarse.ny = cells_covering(grid.ny);
  coarse.nz = cells_covering(grid.nz);
  return coarse;
}

// `setup` on the grid of the skin index: the solver's neighbour loops then walk the coarser cells, and the
// walls (which do not move) are sorted once into them.
inline SphSetup with_skin_grid(const SphSetup& setup, float skin) {
  SphSetup coarse = setup;
  coarse.grid = grid_with_skin(setup.grid, setup.params.support, skin);
  CpuCellIndex index;
  index.build(coarse.grid, setup.boundary);
  for (std::size_t k = 0; k < setup.boundary.size(); ++k)
    coarse.boundary[k] = setup.boundary[index.sorted_order()[k]];
  coarse.boundary_cell_start = index.cell_start();
  // The solids name their particles by place in `boundary`: follow them to their new places.
  std::vector<std::uint32_t> place_of(setup.boundary.size());
  for (std::size_t k = 0; k < place_of.size(); ++k) place_of[index.sorted_order()[k]] = std::uint32_t(k);
  for (std::uint32_t& member : coarse.solids.boundary_index) member = place_of[member];
  return coarse;
}

}  // namespace surge
