// The scene's solids as bodies in an SPH run, written once for every executor and every SPH solver: each
// [[solid]] is a body (body_motion.h) whose boundary particles sit among the walls' (SphSetup::boundary). A
// fixed solid's particles never move; a moving or floating one's are placed at their body's pose every step,
// and then the wall particles are indexed again, so every solver's wall loops see them where they are, with
// their velocities.
//
//   place            at the start of a step: x_k = c + R(q) r_k, v_k = v + omega x (x_k - c), then the wall
//                    particles sorted by cell into the solver's boundary arrays. The walls and fixed solids
//                    (most of the wall particles) are sorted once, at the first place; a step sorts only the
//                    moving bodies' particles (the executor's boundary index) and merges the two sorted
//                    runs by cell. Within a cell both keep the setup's order, so the merged arrays are those
//                    a stable sort of all wall particles gives, and a step costs a pass over the walls
//                    instead of a sort of them (docs/perf/2026-12-03-solids-cost.md).
//   sum_forces       the fluid's force and torque on each floating body and each body a force gauge
//                    reads, and the floating ones' contacts with other solids and the walls; reduced per body
//                    where the particles live. The fluid's force on a body particle is the reaction to the
//                    wall terms the solver's own passes gave the fluid: a callable the solver hands in,
//                    (x_b, v_b, V_b) -> F_b (WCSPH's force pass: WcsphWallReaction; DFSPH's solves:
//                    DfsphWallReaction; PBF's position corrections, summed over its iterations through
//                    add_fluid_forces: pbf_physics.h). A force gauge reads the fluid's part of the last
//                    step's sums: the force that moves a floating body, under every solver.
//   advance          at the end of a step, one thread: prescribed poses at the new time, floating bodies by
//                    integrate_floating
//
// The body states stay where the particles are: on the GPU nothing crosses the bus but gauge values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/hd.h"
#include "sim/core/vec.h"
#include "sim/index/neighbor_loop.h"
#include "sim/sph/body_motion.h"
#include "sim/sph/solid_surface.h"
#include "sim/sph/sph_setup.h"

namespace surge {

// Values of a body gauge per sample (gauge.h): position, orientation, velocity, angular velocity, and the
// force and torque of the body's last step.
inline constexpr std::uint32_t kBodyGaugeValues = 19;
// Values of a force gauge: force and moment about the body's reference point.
inline constexpr std::uint32_t kForceGaugeValues = 6;

// The fluid force of a pass that only adds the contacts to what the fluid's passes summed.
struct NoFluidForce {
  SURGE_HD Vec3f operator()(Vec3f, Vec3f, float) const { return {}; }
};

template <typename Exec>
class SolidBodies {
 public:
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  SolidBodies(Exec& exec, const SphSetup& setup)
      : exec_(exec),
        bodies_(setup.solids.bodies),
        moving_(setup.solids.any_moving()),
        floating_(setup.solids.any(MotionKind::floating)),
        spacing_(setup.params.spacing),
        particle_count_(std::uint32_t(setup.solids.offset.size())),
        boundary_count_(std::uint32_t(setup.boundary.size())) {
    if (bodies_.empty()) return;
    std::vector<BodyMotion> motions;
    std::vector<BodyState> states;
    for (const SolidBodySetup& body : bodies_) {
      motions.push_back(body.motion);
      states.push_back(body.initial);
    }
    exec.upload(motion_, motions, "solid bodies");
    exec.upload(state_, states, "solid bodies");
    exec.upload(placed_state_, states, "solid bodies");
    exec.upload(offset_, setup.solids.offset, "solid bodies");
    exec.upload(member_, setup.solids.boundary_index, "solid bodies");
    exec.upload(body_of_, setup.solids.body, "solid bodies");
    std::vector<MotionTableRow> table = setup.solids.table;
    if (table.empty()) table.resize(1);  // a buffer to point at
    exec.upload(table_, table, "solid motion tables");
    exec.upload(reference_, setup.boundary, "solid bodies");
    exec.allocate(particle_force_, particle_count_);
    exec.allocate(fluid_sums_, kForceGaugeValues * bodies_.size());
    summed_.resize(bodies_.size());
    set_force_gauges({});
    if (moving_) {
      exec.allocate(reference_velocity_, boundary_count_);
      exec.allocate(sorted_velocity_, boundary_count_);
      std::vector<std::uint32_t> body_at(boundary_count_, kNoBody);
      for (std::size_t j = 0; j < setup.solids.body.size(); ++j)
        body_at[setup.solids.boundary_index[j]] = setup.solids.body[j];
      exec.upload(reference_body_, body_at, "solid bodies");
      exec.allocate(sorted_body_, boundary_count_);
      exec.allocate(pose_, bodies_.size());
      split_static_and_moving(setup, body_at);
    }
  }

  // Which wall particles a step moves (body_at: each wall particle's body, or kNoBody): the moving bodies'
  // particles, listed in setup order, and the rest, whose setup indices sort_static() sorts by cell.
  void split_static_and_moving(const SphSetup& setup, const std::vector<std::uint32_t>& body_at) {
    const auto moves = [&](std::uint32_t body) {
      return body != kNoBody && bodies_[body].motion.kind != MotionKind::fixed;
    };
    std::vector<std::uint32_t> static_index, moving_particle(particle_count_);
    for (std::uint32_t r = 0; r < boundary_count_; ++r)
      if (!moves(body_at[r])) static_index.push_back(r);
    for (std::uint32_t j = 0; j < particle_count_; ++j) moving_particle[j] = j;
    std::erase_if(moving_particle, [&](std::uint32_t j) { return !moves(setup.solids.body[j]); });
    std::sort(moving_particle.begin(), moving_particle.end(), [&](std::uint32_t a, std::uint32_t b) {
      return setup.solids.boundary_index[a] < setup.solids.boundary_index[b];
    });
    static_count_ = std::uint32_t(static_index.size());
    moving_count_ = std::uint32_t(moving_particle.size());
    exec_.upload(static_setup_index_, static_index, "solid bodies");
    exec_.upload(moving_particle_, moving_particle, "solid bodies");
    exec_.allocate(static_position_, static_count_);
    exec_.allocate(static_body_, static_count_);
    exec_.allocate(static_key_, static_count_);
    exec_.allocate(moving_position_, moving_count_);
  }
  static bool same_grid(const GridGeometry& a, const GridGeometry& b) {
    return a.origin.x == b.origin.x && a.origin.y == b.origin.y && a.origin.z == b.origin.z &&
           a.cell_size == b.cell_size && a.nx == b.nx && a.ny == b.ny && a.nz == b.nz;
  }

  std::size_t count() const { return bodies_.size(); }
  std::uint32_t boundary_count() const { return boundary_count_; }
  bool moving() const { return moving_; }
  bool floating() const { return floating_; }
  const std::vector<SolidBodySetup>& bodies() const { return bodies_; }

  // The wall particles' cell starts and velocities once place() has run; null while no solid moves (then
  // the setup's sorted walls and their index stand).
  const std::uint32_t* cell_start() const { return moving_ ? merged_start_.data() : nullptr; }
  const Vec4f* velocities() const { return moving_ ? sorted_velocity_.data() : nullptr; }

  // Moves the solids' particles to their bodies' poses and sorts all wall particles by cell into `boundary`
  // (positions, w = volume); velocities() and cell_start() follow.
  void place(const GridGeometry& grid, Buffer<Vec4f>& boundary) {
    if (!moving_) return;
    const BodyState* now = state_.data();
    BodyState* placed = placed_state_.data();
    exec_.for_each(std::uint32_t(bodies_.size()), [=] SURGE_LAMBDA(std::uint32_t b) { placed[b] = now[b]; });
    place_walls(grid, boundary);
  }
  // place() at the poses of placed_state_.
  void place_walls(const GridGeometry& grid, Buffer<Vec4f>& boundary) {
    if (!static_sorted_ || !same_grid(grid, static_grid_)) {
      place_bodies(particle_count_, nullptr);  // fixed solids too, once
      sort_static(grid);
    }
    place_bodies(moving_count_, moving_particle_.data());
    exec_.build_boundary_index(grid, moving_position_, moving_count_);
    merge_static_and_moving(grid, boundary);
  }

  // Several ranks (rank_hooks.h): the sum over the ranks that a floating body's fluid force takes.
  void set_rank_sum(std::function<void(double* values, std::size_t count)> sum_in_rank_order) {
    static_assert(!Exec::kOnDevice, "the ranks sum on the host");
    sum_in_rank_order_ = std::move(sum_in_rank_order);
  }

  // Which bodies a force gauge reads (besides the floating ones, always summed): their fluid force is then
  // summed every step, as a floating body's.
  void set_force_gauges(const std::vector<std::uint32_t>& gauged) {
    for (std::size_t b = 0; b < bodies_.size(); ++b)
      summed_[b] = bodies_[b].motion.kind == MotionKind::floating;
    for (std::uint32_t b : gauged) summed_[b] = true;
  }
  // Whether body b's fluid force is summed each step (a floating or gauged body).
  bool summed(std::uint32_t b) const { return summed_[b]; }
  bool any_summed() const {
    for (bool summed : summed_)
      if (summed) return true;
    return false;
  }

  // This step's fluid force and moment on every summed body, fluid_force(x_b, v_b, V_b) for each of their
  // particles; a floating body's state takes them plus the contacts with the wall particles of `boundary`
  // that are not its own.
  template <typename FluidForce>
  void sum_forces(const FluidForce& fluid_force, const GridGeometry& grid, const CellIndexView& boundary) {
    for (std::uint32_t b = 0; b < bodies_.size(); ++b) {
      if (!summed_[b]) continue;
      particle_forces(fluid_force, false, GridGeometry{}, nullptr, b);
      finish_sums(b, grid, boundary);
    }
  }

  // The same in parts, for a solver whose fluid pushes on the bodies in several passes a step (PBF's
  // iterations): clear_fluid_forces() at the start, add_fluid_forces() after each pass, and
  // sum_added_forces() once the step's passes are done.
  void clear_fluid_forces() {
    if (!any_summed()) return;
    Vec4f* force = particle_force_.data();
    exec_.for_each(particle_count_, [=] SURGE_LAMBDA(std::uint32_t j) { force[j] = Vec4f{}; });
  }
  template <typename FluidForce>
  void add_fluid_forces(const FluidForce& fluid_force) {
    for (std::uint32_t b = 0; b < bodies_.size(); ++b)
      if (summed_[b]) particle_forces(fluid_force, true, GridGeometry{}, nullptr, b);
  }
  void sum_added_forces(const GridGeometry& grid, const CellIndexView& boundary) {
    for (std::uint32_t b = 0; b < bodies_.size(); ++b)
      if (summed_[b]) finish_sums(b, grid, boundary);
  }

  // At the end of a step of length dt that reached `time`: prescribed poses at the new time, floating
  // bodies advanced. The clock is either the host's (time, dt) or, where a solver keeps it on the device
  // (WCSPH), read there through device_time and device_dt.
  void advance(double time, float dt, Vec3f gravity, const double* device_time = nullptr,
               const float* device_dt = nullptr) {
    if (!moving_) return;
    const BodyMotion* motion = motion_.data();
    const MotionTableRow* table = table_.data();
    BodyState* state = state_.data();
    const std::uint32_t count = std::uint32_t(bodies_.size());
    exec_.single([=] SURGE_LAMBDA() {
      const double t = device_time != nullptr ? *device_time : time;
      const float h = device_dt != nullptr ? *device_dt : dt;
      for (std::uint32_t b = 0; b < count; ++b) {
        const BodyMotion& m = motion[b];
        if (m.kind == MotionKind::floating) {
          integrate_floating(m, gravity, h, state[b]);
        } else if (m.kind != MotionKind::fixed) {
          BodyState s = prescribed_state(m, table, t);
          for (int k = 0; k < 3; ++k) {
            s.force[k] = state[b].force[k];
            s.torque[k] = state[b].torque[k];
          }
          state[b] = s;
        }
      }
    });
  }

  // A force gauge on body b: the fluid's force and moment about the body's reference point over the last
  // step, into values[0..6) (the executor's side). Contacts are not the fluid's and are left out.
  void sample_force(std::uint32_t b, float* values) {
    const double* sums = fluid_sums_.data() + kForceGaugeValues * b;
    exec_.single([=] SURGE_LAMBDA() {
      for (std::uint32_t k = 0; k < kForceGaugeValues; ++k) values[k] = float(sums[k]);
    });
  }
  // Body b's force gauge sums of the last step, where a host executor holds them: on ranks each rank's part,
  // summed over the fluid its solver counts (FluidSolver::counted_fluid).
  const double* fluid_force_sums(std::uint32_t b) const {
    static_assert(!Exec::kOnDevice, "on the host");
    return fluid_sums_.data() + kForceGaugeValues * b;
  }
  // A body gauge on body b: pose, velocities, and the last step's force and torque, into values[0..19).
  void sample_body(std::uint32_t b, float* values) {
    const BodyState* state = state_.data() + b;
    exec_.single([=] SURGE_LAMBDA() {
      const BodyState& s = *state;
      const float out[kBodyGaugeValues] = {
          s.center.x,           s.center.y,         s.center.z,           s.orientation.w,
          s.orientation.x,      s.orientation.y,    s.orientation.z,      s.velocity.x,
          s.velocity.y,         s.velocity.z,       s.angular_velocity.x, s.angular_velocity.y,
          s.angular_velocity.z, float(s.force[0]),  float(s.force[1]),    float(s.force[2]),
          float(s.torque[0]),   float(s.torque[1]), float(s.torque[2])};
      for (std::uint32_t k = 0; k < kBodyGaugeValues; ++k) values[k] = out[k];
    });
  }

  // Checkpoints (sim/core/solver_state.h): the bodies' states, and those the last place() put the walls
  // at, from which a load places them again: a solver may read the walls before its step's place() (PBF
  // predicts first), and then reads them where the last step left them.
  template <typename Archive>
  void archive_state(Archive& a, const GridGeometry& grid, Buffer<Vec4f>& boundary) {
    if (bodies_.empty()) return;
    a.buffer("solids.state", state_, bodies_.size());
    if (!moving_) return;
    a.buffer("solids.placed_state", placed_state_, bodies_.size());
    if constexpr (Archive::kLoading) place_walls(grid, boundary);
  }

  // Every body's pose now, for drawing (Simulation::download_solid_poses): only the poses cross the bus,
  // sizeof(BodyPose) bytes a body, recorded as `reason`.
  void download_poses(std::vector<BodyPose>& poses, const char* reason) {
    const BodyState* state = state_.data();
    BodyPose* pose = pose_.data();
    exec_.for_each(std::uint32_t(bodies_.size()), [=] SURGE_LAMBDA(std::uint32_t b) {
      pose[b] = {state[b].center, state[b].orientation};
    });
    exec_.download(poses, pose_, bodies_.size(), reason);
  }

  // The host's copy of the body states (tests).
  std::vector<BodyState> download_states() {
    std::vector<BodyState> states;
    if (!bodies_.empty()) exec_.download(states, state_, bodies_.size(), "solid body states");
    return states;
  }

  // The passes below are public only because they hold device lambdas (nvcc's rule); they are the class's
  // own steps.
  //
  // The address of body b's force sums in the states, where reduce() writes them.
  double* body_sums(std::uint32_t b) {
    return reinterpret_cast<double*>(reinterpret_cast<char*>(state_.data() + b) + offsetof(BodyState, force));
  }

  // Body b's fluid force, as particle_force_ holds it, into fluid_sums_; a floating body's state takes it
  // plus the contacts. On ranks fluid_sums_ stays this rank's part (a force gauge's ranks add it), and a
  // floating body's particle forces are first summed over the ranks (add_fluid_forces_over_ranks).
  void finish_sums(std::uint32_t b, const GridGeometry& grid, const CellIndexView& boundary) {
    reduce(b, fluid_sums_.data() + kForceGaugeValues * b);
    if (bodies_[b].motion.kind != MotionKind::floating) return;
    add_fluid_forces_over_ranks(b);
    particle_forces(NoFluidForce{}, true, grid, &boundary, b);
    reduce(b, body_sums(b));
  }

  // On ranks (rank_hooks.h), before a floating body's contacts and sums: each of its particles' fluid force
  // is this rank's part, from the fluid it owns; summed over the ranks in rank order, it is the same on
  // every rank, which then adds the same contacts (every rank holds all the wall particles) and integrates
  // the same motion, bit for bit. Summed per particle rather than per body: on one rank float -> double ->
  // float gives the same bits back, so the body's reduction is one process's, and so is its motion. It
  // costs 24 bytes a body particle from every rank to every rank, each step. Nothing in one process.
  void add_fluid_forces_over_ranks(std::uint32_t b) {
    if constexpr (!Exec::kOnDevice) {
      if (!sum_in_rank_order_) return;
      const std::uint32_t first = bodies_[b].first, count = bodies_[b].count;
      Vec4f* force = particle_force_.data() + first;
      std::vector<double> components(3 * std::size_t(count));
      for (std::uint32_t k = 0; k < count; ++k) {
        components[3 * k] = force[k].x;
        components[3 * k + 1] = force[k].y;
        components[3 * k + 2] = force[k].z;
      }
      sum_in_rank_order_(components.data(), components.size());
      for (std::uint32_t k = 0; k < count; ++k)
        force[k] =
            Vec4f{float(components[3 * k]), float(components[3 * k + 1]), float(components[3 * k + 2]), 0.0f};
    }
  }

  // particle_force_[j] for body b's particles: the fluid's, plus contacts when `contacts` is given; added
  // to what particle_force_[j] holds when `onto_added`.
  template <typename FluidForce>
  void particle_forces(const FluidForce& fluid_force, bool onto_added, const GridGeometry& grid,
                       const CellIndexView* contacts, std::uint32_t b) {
    const std::uint32_t first = bodies_[b].first;
    const bool with_contacts = contacts != nullptr;
    const CellIndexView walls = with_contacts ? *contacts : CellIndexView{};
    const Vec4f* reference = reference_.data();
    const Vec4f* reference_velocity = moving_ ? reference_velocity_.data() : nullptr;
    const std::uint32_t* member = member_.data();
    const std::uint32_t* sorted_body = moving_ ? sorted_body_.data() : nullptr;
    const BodyMotion* motion = motion_.data() + b;
    const float spacing = spacing_;
    Vec4f* force = particle_force_.data();
    exec_.for_each(bodies_[b].count, [=] SURGE_LAMBDA(std::uint32_t k) {
      const std::uint32_t j = first + k;
      const Vec4f x_b = reference[member[j]];
      const Vec3f v_b = reference_velocity != nullptr ? xyz(reference_velocity[member[j]]) : Vec3f{};
      Vec3f f = fluid_force(xyz(x_b), v_b, x_b.w);
      if (onto_added) f = xyz(force[j]) + f;
      if (with_contacts) {
        for_each_neighbor(grid, walls, xyz(x_b), spacing * spacing,
                          [&](std::uint32_t a, Vec3f r_ba, float r2) {
                            if (sorted_body[a] == b) return;
                            const Vec3f v_ba = v_b - boundary_velocity(walls, a);
                            f += floating_contact_force(*motion, spacing, r_ba, sqrtf(r2), v_ba);
                          });
      }
      force[j] = make_vec4(f, 0.0f);
    });
  }

  // Body particles at their bodies' placed poses, into reference_ and reference_velocity_: the first `count`
  // body particles, or those `which` lists (then also into moving_position_, in the list's order).
  void place_bodies(std::uint32_t count, const std::uint32_t* which) {
    const BodyState* state = placed_state_.data();
    const Vec4f* offset = offset_.data();
    const std::uint32_t* member = member_.data();
    const std::uint32_t* body_of = body_of_.data();
    Vec4f* reference = reference_.data();
    Vec4f* reference_velocity = reference_velocity_.data();
    Vec4f* listed_position = moving_position_.data();
    exec_.for_each(count, [=] SURGE_LAMBDA(std::uint32_t i) {
      const std::uint32_t j = which != nullptr ? which[i] : i;
      const BodyState& s = state[body_of[j]];
      const Vec3f x = body_point(s, xyz(offset[j]));
      const Vec4f placed = make_vec4(x, offset[j].w);
      reference[member[j]] = placed;
      reference_velocity[member[j]] = make_vec4(body_point_velocity(s, x), 0.0f);
      if (which != nullptr) listed_position[i] = placed;
    });
  }

  // The wall particles that never move (walls, fixed solids) sorted by cell, stably, with their setup
  // indices, bodies and cell keys, and their cells' starts: the first run of every later merge.
  void sort_static(const GridGeometry& grid) {
    Buffer<Vec4f> unsorted;
    exec_.allocate(unsorted, static_count_);
    const Vec4f* reference = reference_.data();
    const std::uint32_t* unsorted_index = static_setup_index_.data();
    Vec4f* gathered = unsorted.data();
    exec_.for_each(static_count_,
                   [=] SURGE_LAMBDA(std::uint32_t k) { gathered[k] = reference[unsorted_index[k]]; });
    exec_.build_boundary_index(grid, unsorted, static_count_);
    const std::uint32_t* order = exec_.boundary_sorted_order();
    const std::uint32_t* reference_body = reference_body_.data();
    Buffer<std::uint32_t> sorted_index;
    exec_.allocate(sorted_index, static_count_);
    Vec4f* position = static_position_.data();
    std::uint32_t* index = sorted_index.data();
    std::uint32_t* body = static_body_.data();
    std::uint32_t* key = static_key_.data();
    const GridGeometry g = grid;
    exec_.for_each(static_count_, [=] SURGE_LAMBDA(std::uint32_t k) {
      position[k] = gathered[order[k]];
      index[k] = unsorted_index[order[k]];
      body[k] = reference_body[index[k]];
      key[k] = g.key_of(xyz(position[k]));
    });
    std::swap(static_setup_index_, sorted_index);
    exec_.allocate(static_start_, std::size_t(grid.cell_count()) + 1);
    exec_.allocate(merged_start_, std::size_t(grid.cell_count()) + 1);
    const std::uint32_t* start = exec_.boundary_cell_start();
    std::uint32_t* static_start = static_start_.data();
    exec_.for_each(grid.cell_count() + 1, [=] SURGE_LAMBDA(std::uint32_t c) { static_start[c] = start[c]; });
    static_grid_ = grid;
    static_sorted_ = true;
  }

  // The wall arrays (positions into `boundary`, velocities, bodies, cell starts) as one stable sort of all
  // wall particles by cell would leave them: the static run and this step's sorted moving particles (the
  // executor's boundary index), merged cell by cell. In a cell each run holds its particles in setup order,
  // so a particle's place is its cell's merged start, plus its place in its own run's cell, plus the other
  // run's particles of the cell with a smaller setup index (a few: a binary search or a short scan).
  void merge_static_and_moving(const GridGeometry& grid, Buffer<Vec4f>& boundary) {
    const std::uint32_t* moving_order = exec_.boundary_sorted_order();
    const std::uint32_t* moving_start = exec_.boundary_cell_start();
    const std::uint32_t* static_start = static_start_.data();
    std::uint32_t* merged_start = merged_start_.data();
    exec_.for_each(grid.cell_count() + 1, [=] SURGE_LAMBDA(std::uint32_t c) {
      merged_start[c] = static_start[c] + moving_start[c];
    });
    const std::uint32_t* moving_particle = moving_particle_.data();
    const std::uint32_t* member = member_.data();
    Vec4f* sorted = boundary.data();
    Vec4f* sorted_velocity = sorted_velocity_.data();
    std::uint32_t* sorted_body = sorted_body_.data();
    const Vec4f* static_position = static_position_.data();
    const std::uint32_t* static_index = static_setup_index_.data();
    const std::uint32_t* static_body = static_body_.data();
    const std::uint32_t* static_key = static_key_.data();
    exec_.for_each(static_count_, [=] SURGE_LAMBDA(std::uint32_t k) {
      const std::uint32_t c = static_key[k], index = static_index[k];
      std::uint32_t before = 0;  // moving particles of cell c earlier in setup order
      for (std::uint32_t m = moving_start[c]; m < moving_start[c + 1]; ++m, ++before)
        if (member[moving_particle[moving_order[m]]] > index) break;
      const std::uint32_t at = merged_start[c] + (k - static_start[c]) + before;
      sorted[at] = static_position[k];
      sorted_velocity[at] = Vec4f{};
      sorted_body[at] = static_body[k];
    });
    const Vec4f* moving_position = moving_position_.data();
    const Vec4f* reference_velocity = reference_velocity_.data();
    const std::uint32_t* body_of = body_of_.data();
    const GridGeometry g = grid;
    exec_.for_each(moving_count_, [=] SURGE_LAMBDA(std::uint32_t m) {
      const std::uint32_t i = moving_order[m], j = moving_particle[i], index = member[j];
      const std::uint32_t c = g.key_of(xyz(moving_position[i]));
      std::uint32_t low = static_start[c], high = static_start[c + 1];  // first static index > ours
      while (low < high) {
        const std::uint32_t mid = low + (high - low) / 2;
        if (static_index[mid] < index)
          low = mid + 1;
        else
          high = mid;
      }
      const std::uint32_t at = merged_start[c] + (m - moving_start[c]) + (low - static_start[c]);
      sorted[at] = moving_position[i];
      sorted_velocity[at] = reference_velocity[index];
      sorted_body[at] = body_of[j];
    });
  }

  // Force and torque about the body's reference point, summed over body b's particles, into sums[0..6).
  void reduce(std::uint32_t b, double* sums) {
    const std::uint32_t first = bodies_[b].first, count = bodies_[b].count;
    const Vec4f* force = particle_force_.data();
    const Vec4f* reference = reference_.data();
    const std::uint32_t* member = member_.data();
    const BodyState* state = state_.data() + b;
    for (int axis = 0; axis < 3; ++axis) {
      exec_.sum_into(sums + axis, count, [=] SURGE_LAMBDA(std::uint32_t k) {
        const Vec4f f = force[first + k];
        return axis == 0 ? f.x : axis == 1 ? f.y : f.z;
      });
      exec_.sum_into(sums + 3 + axis, count, [=] SURGE_LAMBDA(std::uint32_t k) {
        const Vec3f arm = xyz(reference[member[first + k]]) - state->center;
        const Vec3f t = cross(arm, xyz(force[first + k]));
        return axis == 0 ? t.x : axis == 1 ? t.y : t.z;
      });
    }
  }

 private:
  Exec& exec_;
  std::vector<SolidBodySetup> bodies_;
  bool moving_ = false, floating_ = false;
  float spacing_ = 0;
  std::uint32_t particle_count_ = 0, boundary_count_ = 0;
  Buffer<BodyMotion> motion_;
  Buffer<BodyState> state_;
  Buffer<BodyState> placed_state_;  // the states the last place() put the walls at
  Buffer<MotionTableRow> table_;
  Buffer<Vec4f> offset_;                          // per body particle: rest offset from c0; w = volume
  Buffer<std::uint32_t> member_, body_of_;        // per body particle: its place in `reference_`, its body
  Buffer<Vec4f> reference_, reference_velocity_;  // every wall particle, in the setup's order
  Buffer<std::uint32_t> reference_body_, sorted_body_;
  Buffer<Vec4f> sorted_velocity_;
  Buffer<BodyPose> pose_;  // moving bodies only: what download_poses() copies to the host
  // The two runs of the wall index (moving bodies only; merge_static_and_moving). Static: the wall particles
  // of no moving body, sorted by cell at the first place(), with their setup indices, bodies, cell keys and
  // cells' starts. Moving: the body particles of the moving bodies in setup order and where this step put
  // them.
  std::uint32_t static_count_ = 0, moving_count_ = 0;
  bool static_sorted_ = false;
  GridGeometry static_grid_;
  Buffer<Vec4f> static_position_;
  Buffer<std::uint32_t> static_setup_index_, static_body_, static_key_, static_start_;
  Buffer<std::uint32_t> moving_particle_;  // body particle indices j
  Buffer<Vec4f> moving_position_;
  Buffer<std::uint32_t> merged_start_;
  Buffer<Vec4f> particle_force_;
  Buffer<double> fluid_sums_;  // per body: the fluid's force and moment of the last step it was summed
  std::vector<bool> summed_;   // per body: floating, or read by a force gauge
  std::function<void(double* values, std::size_t count)> sum_in_rank_order_;  // on ranks only
};

}  // namespace surge
