// The particle arrays every SPH solver template keeps (in cell order), on whichever executor runs it, and
// the chores they share: sorting by cell, the end-of-step check, status and download.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/particle_frame.h"
#include "sim/core/step_status.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/solid_bodies.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {

template <typename Exec>
struct FluidState {
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  // Every per-particle buffer holds `capacity` entries (the initial particles and the emitter's); the first
  // `n` are the active ones, and every pass runs over those only.
  FluidState(Exec& executor, const SphSetup& setup)
      : exec(executor),
        params(setup.params),
        grid(setup.grid),
        n(std::uint32_t(setup.fluid.size())),
        capacity(std::uint32_t(setup.capacity())),
        emitter(setup.emitter),
        solids(executor, setup) {
    exec.upload(position, setup.fluid.position, capacity, "initial fluid particles");
    exec.upload(velocity, setup.fluid.velocity, capacity, "initial fluid particles");
    exec.upload(id, setup.fluid.id, capacity, "initial fluid particles");
    exec.upload(boundary, setup.boundary, "boundary particles");
    exec.upload(boundary_cell_start, setup.boundary_cell_start, "boundary particles");
    // Moving solids index their walls from the start: a solver may read the walls before its first sort
    // (PBF predicts positions first).
    solids.place(grid, boundary);
    if (emitter.present) exec.upload(emitter_layer, emitter.layer, "emitter nozzle layer");
    exec.allocate(density, capacity);
    exec.allocate(pressure, capacity);
    status.dt_s = params.dt_max;
    // A run continued from a frame (a live mode switch) goes on at the frame's time and step.
    status.time_s = setup.fluid.time_s;
    status.step = setup.fluid.step;
    schedule.next_id = n;
    if (emitter.present) schedule.next_layer = first_layer_from(emitter.nozzle, status.time_s);
  }

  // At the start of a step: a layer from the nozzle when one is due (sim/sph/emitter.h), written after the
  // active particles by the executor (on the GPU by a kernel; the host only decides). `zeroed` are the
  // solver's per-particle arrays carried from step to step, which a new particle starts at zero. The
  // slot check is a reduction: on the GPU its 4-byte result is read back, like the solvers' own.
  template <typename... Zeroed>
  void emit(Buffer<Zeroed>&... zeroed) {
    const long long layer = layer_to_emit(emitter, schedule, status.time_s, n, capacity);
    status.emitter_full = schedule.full;
    if (layer < 0) return;
    schedule.next_layer = layer + 1;
    const EmitterNozzle nozzle = emitter.nozzle;
    const float advance = layer_advance(nozzle, layer, status.time_s);
    const Vec4f* x = position.data();
    const float occupied = exec.max(n, [=] SURGE_LAMBDA(std::uint32_t i) {
      return in_layer_slot(nozzle, xyz(x[i]), advance) ? 1.0f : 0.0f;
    });
    if (occupied > 0.0f) return;  // fluid still in the slot: skip this layer

    const std::uint32_t first = n, first_id = schedule.next_id;
    const float rest_density = params.rest_density;
    const Vec4f* offsets = emitter_layer.data();
    Vec4f* positions = position.data();
    Vec4f* velocities = velocity.data();
    std::uint32_t* ids = id.data();
    float* densities = density.data();
    float* pressures = pressure.data();
    exec.for_each(nozzle.layer_size, [=] SURGE_LAMBDA(std::uint32_t k) {
      place_emitted_particle(nozzle, offsets[k], advance, positions[first + k], velocities[first + k]);
      ids[first + k] = first_id + k;
      densities[first + k] = rest_density;
      pressures[first + k] = 0.0f;
    });
    (zero_new(zeroed, first, nozzle.layer_size), ...);
    n += nozzle.layer_size;
    schedule.next_id += nozzle.layer_size;
    // The next time step must see the jet's speed, which the last step's maximum does not include.
    if (status.max_speed < nozzle.speed) status.max_speed = nozzle.speed;
  }

  // The nozzle's guide (sim/sph/emitter.h): the newest layer keeps the nozzle velocity. With `previous`
  // (PBF, whose positions move before its velocities are known), the guided particle's position is also
  // set to where the nozzle velocity takes it from `previous` over dt.
  void guide_through_nozzle(float dt, const Vec4f* previous = nullptr) {
    if (!nozzle_guides(emitter, schedule, status.time_s)) return;
    const EmitterNozzle nozzle = emitter.nozzle;
    Vec4f* x = position.data();
    Vec4f* v = velocity.data();
    const std::uint32_t* ids = id.data();
    exec.for_each(n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const Vec3f from = previous != nullptr ? xyz(previous[i]) : xyz(x[i]);
      if (!in_nozzle_guide(nozzle, from, ids[i])) return;
      v[i] = nozzle_velocity(nozzle);
      if (previous != nullptr) x[i] = make_vec4(from + dt * xyz(v[i]), 0.0f);
    });
  }

  // Entries [first, first + count) of `values` set to zero (public: it holds a device lambda).
  template <typename T>
  void zero_new(Buffer<T>& values, std::uint32_t first, std::uint32_t count) {
    T* data = values.data();
    exec.for_each(count, [=] SURGE_LAMBDA(std::uint32_t k) { data[first + k] = T{}; });
  }

  // Sorts the particles by cell; `carried` are the solver's own per-particle arrays that move with them.
  // An executor that keeps particles in creation order (the memory-order lesson) leaves them in place and
  // the views read neighbours through the sorted order.
  // Moving solids are placed first (sim/sph/solid_bodies.h): the walls' index and the lists see them where
  // this step has them.
  template <typename... Carried>
  void sort_by_cell(Buffer<Carried>&... carried) {
    solids.place(grid, boundary);
    exec.build_index(grid, position, n + pending, device_count);
    exec.reorder(position, vec4_scratch);
    exec.reorder(velocity, vec4_scratch);
    exec.reorder(id, id_scratch);
    (reorder_carried(carried), ...);
    if (neighbor_lists)
      exec.build_neighbor_lists(grid, cell_view(position.data(), exec.cell_start(), exec.neighbor_order()),
                                wall_cells(), n, params.support);
  }

  // Views for the physics: through the executor's neighbour lists where it keeps them (the CPU; the GPU for
  // DFSPH and PBF unless made without them), else cells (through the executor's neighbour order where it
  // leaves the particles out of cell order).
  CellIndexView fluid_view() const {
    CellIndexView view = cell_view(position.data(), exec.cell_start(), exec.neighbor_order());
    if (!neighbor_lists) return view;
    view.list_start = exec.fluid_list_start();
    view.list = exec.fluid_list();
    view.list_gradient = exec.fluid_list_gradient();
    return view;
  }
  CellIndexView boundary_view() const {
    CellIndexView view = wall_cells();
    if (!neighbor_lists) return view;
    view.list_start = exec.boundary_list_start();
    view.list = exec.boundary_list();
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
    std::vector<float> rho;
    exec.download(x, position, n, "instability diagnosis");
    exec.download(v, velocity, n, "instability diagnosis");
    exec.download(ids, id, n, "instability diagnosis");
    exec.download(rho, density, n, "instability diagnosis");
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
    status.bad_density = rho[worst];
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
    exec.download(frame.position, position, n, "export frame");
    exec.download(frame.velocity, velocity, n, "export frame");
    exec.download(frame.density, density, n, "export frame");
    exec.download(frame.pressure, pressure, n, "export frame");
    exec.download(frame.id, id, n, "export frame");
    frame.time_s = status.time_s;
    frame.step = status.step;
  }

  // Checkpoints (sim/core/solver_state.h): the active particles with everything carried between steps, the
  // host's clock and the emitter's schedule, and the solids' bodies. The index, the walls' sorted copy and
  // the scratch arrays are rebuilt by every step from these. A solver adds its own carried arrays after it.
  template <typename Archive>
  void archive_state(Archive& a) {
    a.constant("fluid.capacity", capacity);
    a.constant("fluid.spacing", params.spacing);
    a.constant("fluid.wall_particles", std::uint64_t(solids.boundary_count()));
    a.value("fluid.active", n);
    a.value("fluid.step", status.step);
    a.value("fluid.time", status.time_s);
    a.value("fluid.dt", status.dt_s);
    a.value("fluid.max_speed", status.max_speed);
    a.value("fluid.emitter_full", status.emitter_full);
    a.value("fluid.emitter_schedule", schedule);
    a.buffer("fluid.position", position, n);
    a.buffer("fluid.velocity", velocity, n);
    a.buffer("fluid.id", id, n);
    a.buffer("fluid.density", density, n);
    a.buffer("fluid.pressure", pressure, n);
    solids.archive_state(a, grid, boundary);
    if constexpr (Archive::kLoading) pending = 0;
  }

  // The overlapped export's snapshot (Simulation::begin_download), on executors that take it on the device.
  void begin_snapshot(std::size_t slot) {
    exec.begin_snapshot(
        slot, {position.data(), velocity.data(), density.data(), pressure.data(), id.data(), n + pending});
  }

  Exec& exec;
  SphParameters params;
  GridGeometry grid;
  std::uint32_t n;         // active particles
  std::uint32_t capacity;  // allocated particles
  // A solver whose emitter runs on the device (GPU WCSPH) knows n only from its last status readback: up to
  // `pending` more slots may have filled since, the device counts them at `device_count`, and the index and
  // the solver's passes cover n + pending slots, each checking the device's count.
  std::uint32_t pending = 0;
  const std::uint32_t* device_count = nullptr;
  // The executor's per-step neighbour lists (CPU and GPU), for solvers that visit each neighbourhood many
  // times a step; a solver that visits it twice (WCSPH) reads the cells and turns them off.
  bool neighbor_lists = true;
  EmitterSetup emitter;
  EmitterSchedule schedule;
  Buffer<Vec4f> emitter_layer;  // the nozzle's layer offsets, on the executor's side
  Buffer<Vec4f> position, velocity, vec4_scratch;
  Buffer<std::uint32_t> id, id_scratch;
  Buffer<float> density, pressure, float_scratch;
  Buffer<Vec4f> boundary;
  Buffer<std::uint32_t> boundary_cell_start;
  SolidBodies<Exec> solids;  // the [[solid]]s as bodies; declared after `boundary`, which place() rewrites
  StepStatus status;

 private:
  static CellIndexView cell_view(const Vec4f* positions, const std::uint32_t* cell_start,
                                 const std::uint32_t* sorted_order = nullptr) {
    CellIndexView view;
    view.positions = positions;
    view.cell_start = cell_start;
    view.sorted_order = sorted_order;
    return view;
  }
  // The wall particles through their cells: the setup's, or where the moving solids were placed this step.
  CellIndexView wall_cells() const {
    if (!solids.moving()) return cell_view(boundary.data(), boundary_cell_start.data());
    CellIndexView view = cell_view(boundary.data(), solids.cell_start());
    view.velocities = solids.velocities();
    return view;
  }
  void reorder_carried(Buffer<float>& values) { exec.reorder(values, float_scratch); }
  void reorder_carried(Buffer<Vec4f>& values) { exec.reorder(values, vec4_scratch); }
};

}  // namespace surge
