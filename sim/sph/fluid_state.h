// The particle arrays every SPH solver template keeps (in cell order), on whichever executor runs it, and
// the chores they share: sorting by cell, the end-of-step check, status and download.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/core/particle_frame.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {

template <typename Exec>
struct FluidState {
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  FluidState(Exec& executor, const SphSetup& setup)
      : exec(executor), params(setup.params), grid(setup.grid), n(std::uint32_t(setup.fluid.size())) {
    exec.upload(position, setup.fluid.position, "initial fluid particles");
    exec.upload(velocity, setup.fluid.velocity, "initial fluid particles");
    exec.upload(id, setup.fluid.id, "initial fluid particles");
    exec.upload(boundary, setup.boundary, "boundary particles");
    exec.upload(boundary_cell_start, setup.boundary_cell_start, "boundary particles");
    exec.allocate(density, n);
    exec.allocate(pressure, n);
    status.dt_s = params.dt_max;
    // A run continued from a frame (a live mode switch) goes on at the frame's time and step.
    status.time_s = setup.fluid.time_s;
    status.step = setup.fluid.step;
  }

  // Sorts the particles by cell; `carried` are the solver's own per-particle arrays that move with them.
  template <typename... Carried>
  void sort_by_cell(Buffer<Carried>&... carried) {
    exec.build_index(grid, position);
    exec.reorder(position, vec4_scratch);
    exec.reorder(velocity, vec4_scratch);
    exec.reorder(id, id_scratch);
    (reorder_carried(carried), ...);
    exec.build_neighbor_lists(grid, cell_view(position.data(), exec.cell_start()),
                              cell_view(boundary.data(), boundary_cell_start.data()), n, params.support);
  }

  // Views for the physics: through the executor's neighbour lists where it keeps them (the CPU), else cells.
  CellIndexView fluid_view() const {
    CellIndexView view = cell_view(position.data(), exec.cell_start());
    view.list_start = exec.fluid_list_start();
    view.list = exec.fluid_list();
    view.list_gradient = exec.fluid_list_gradient();
    return view;
  }
  CellIndexView boundary_view() const {
    CellIndexView view = cell_view(boundary.data(), boundary_cell_start.data());
    view.list_start = exec.boundary_list_start();
    view.list = exec.boundary_list();
    view.list_gradient = exec.boundary_list_gradient();
    return view;
  }

  // The largest speed after a step, +inf when a particle is not finite or has left the domain; then
  // find_instability() names the first such particle.
  float max_speed_or_infinity() {
    const Vec4f* x = position.data();
    const Vec4f* v = velocity.data();
    const SphParameters p = params;
    return exec.max(n, [=] SURGE_LAMBDA(std::uint32_t i) {
      if (check_particle(p, x[i], v[i]) != 0) return std::numeric_limits<float>::infinity();
      return sqrtf(length_squared(xyz(v[i])));
    });
  }

  // Rare path, after max_speed_or_infinity() saw a bad particle: copies the particles to the host and
  // reports the one with the smallest creation id.
  void find_instability() {
    std::vector<Vec4f> x, v;
    std::vector<std::uint32_t> ids;
    exec.download(x, position, "instability diagnosis");
    exec.download(v, velocity, "instability diagnosis");
    exec.download(ids, id, "instability diagnosis");
    std::size_t worst = x.size();
    int code = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const int c = check_particle(params, x[i], v[i]);
      if (c != 0 && (worst == x.size() || ids[i] < ids[worst])) {
        worst = i;
        code = c;
      }
    }
    if (worst == x.size()) return;
    status.instability = Instability(code);
    status.bad_step = status.step;
    status.bad_particle = ids[worst];
    status.bad_position = xyz(x[worst]);
    status.bad_velocity = xyz(v[worst]);
  }

  // Ends a step of length dt: clock, the next step's speed, instability.
  void finish_step(float dt) {
    status.step += 1;
    status.time_s += dt;
    status.dt_s = dt;
    const float speed = max_speed_or_infinity();
    if (std::isfinite(speed)) {
      status.max_speed = speed;
    } else {
      find_instability();
    }
  }

  void download(ParticleFrame& frame) {
    exec.download(frame.position, position, "export frame");
    exec.download(frame.velocity, velocity, "export frame");
    exec.download(frame.density, density, "export frame");
    exec.download(frame.pressure, pressure, "export frame");
    exec.download(frame.id, id, "export frame");
    frame.time_s = status.time_s;
    frame.step = status.step;
  }

  // The overlapped export's snapshot (Simulation::begin_download), on executors that take it on the device.
  void begin_snapshot(std::size_t slot) {
    exec.begin_snapshot(slot,
                        {position.data(), velocity.data(), density.data(), pressure.data(), id.data(), n});
  }

  Exec& exec;
  SphParameters params;
  GridGeometry grid;
  std::uint32_t n;
  Buffer<Vec4f> position, velocity, vec4_scratch;
  Buffer<std::uint32_t> id, id_scratch;
  Buffer<float> density, pressure, float_scratch;
  Buffer<Vec4f> boundary;
  Buffer<std::uint32_t> boundary_cell_start;
  StepStatus status;

 private:
  static CellIndexView cell_view(const Vec4f* positions, const std::uint32_t* cell_start) {
    CellIndexView view;
    view.positions = positions;
    view.cell_start = cell_start;
    return view;
  }
  void reorder_carried(Buffer<float>& values) { exec.reorder(values, float_scratch); }
  void reorder_carried(Buffer<Vec4f>& values) { exec.reorder(values, vec4_scratch); }
};

}  // namespace surge
