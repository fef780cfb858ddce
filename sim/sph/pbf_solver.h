// One Position Based Fluids step (Macklin & Mueller 2013, Algorithm 1), written once for any executor.
// The per-particle equations are in pbf_physics.h.
//
//   predict                v += dt (g + the stirring hand + the walls' hydrostatic pressure);  x* = x + dt v
//   sort by cell           neighbours of the predicted positions, kept through the iterations (MM13)
//   iterate                lambda_i;  x* += dx_i  (Jacobi: every particle reads the others' previous x*);
//                          each iteration's push on the floating bodies' particles added up (pbf_physics.h)
//   final density          the density error the iterations reached, and the density a frame exports
//   velocity               v = (x* - x) / dt, then XSPH viscosity and vorticity confinement
//   floating bodies        advanced by integrate_floating with the step's force (solid_bodies.h)
//
// On several ranks (rank_hooks.h, docs/multi-rank.md) the halo copies take their owners' lambda before each
// correction, their owners' x* after it and their owners' vorticity before the confinement pass, and the
// density error is an average over every rank's owned particles.
#pragma once

#include <cstdint>

#include "sim/sph/dfsph_physics.h"
#include "sim/sph/fluid_solver.h"
#include "sim/sph/jacobi_weight.h"
#include "sim/sph/pbf_physics.h"

namespace surge {

template <typename Exec>
class PbfSolver : public FluidSolver<Exec> {
 public:
  using FluidSolver<Exec>::fluid_;
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  // Its pressure is the position corrections read as an impulse, for colouring: no pressure gauges.
  static constexpr bool kPressureGauges = false;

  PbfSolver(Exec& exec, const SphSetup& setup, const PbfParameters& pbf)
      : FluidSolver<Exec>(exec, setup), pbf_(pbf) {
    const std::uint32_t n = fluid_.capacity;
    exec.allocate(previous_position_, n);
    exec.allocate(next_position_, n);
    exec.allocate(next_velocity_, n);
    exec.allocate(lambda_, n);
    exec.allocate(lambda_sum_, n);
    exec.allocate(constraint_, n);
    exec.allocate(vorticity_, n);
    const float bulk = with_kernel(setup.params.kernel, setup.params.support,
                                   [&](auto kernel) { return pbf_bulk_gradient_sum(kernel, setup.params); });
    pbf_.relaxation_absolute = pbf_.relaxation * bulk;
    pbf_.lambda_scale = 1.0f / bulk;
    pbf_.jacobi_weight = jacobi_weight(setup.params);
  }

  const PbfParameters& settings() const { return pbf_; }
  // Between steps: every pass copies pbf_ when it launches. The setup's bulk gradient sum (lambda_scale,
  // relaxation_absolute) and Jacobi weight stay as the caller keeps them (live_parameters.cpp).
  void set_settings(const PbfParameters& pbf) { pbf_ = pbf; }

  // The StepSolver shape (sim/core/solver.h).
  void step() {
    this->with_scene_kernel([&](const auto& kernel) { step(kernel); });
  }
  std::vector<NamedValue> parameters() const {
    return incompressible_parameters(SolverKind::pbf, fluid_.params, pbf_);
  }
  std::vector<LiveParameter> live_parameters() const { return incompressible_live_parameters(pbf_); }
  bool set_parameter(std::string_view name, const ParameterValue& value) {
    return set_incompressible_parameter(fluid_.params, pbf_, name, value);
  }

  struct Figures {
    int iterations = 0;
    double density_error = 0;  // average max(rho/rho0 - 1, 0) after the iterations
    // Passes over the fluid that visit every particle's fluid and wall neighbours (lambda, position
    // correction, the velocity filters): the work a step did, at the census' pairs per pass.
    int neighbor_passes = 0;
  };
  const Figures& figures() const { return figures_; }
  std::vector<NamedValue> named_figures() const {
    return {{"iterations", double(figures_.iterations)},
            {"density_error_percent", 100.0 * figures_.density_error},
            {"neighbor_passes", double(figures_.neighbor_passes)}};
  }

  template <typename Kernel>
  void step(const Kernel& kernel) {
    FluidState<Exec>& s = fluid_;
    Exec& exec = s.exec;
    if (s.status.instability != Instability::none) return;
    exec.begin(Stage::other);
    s.emit();
    exec.end();
    // On ranks a rank with no particles still takes part in every exchange of the step.
    if (s.n == 0 && !this->on_ranks()) return;
    figures_.neighbor_passes = 0;

    exec.begin(Stage::other);
    const float dt = incompressible_time_step(s.params, s.status.max_speed);
    exec.end();

    exec.begin(Stage::integration);
    // A floating body takes the reaction to the prediction's wall term, which must see its walls where they
    // are now. Prescribed solids read them where the last step's sort put them (a step late, and no
    // reaction to balance), as they always have.
    if (s.solids.floating()) s.solids.place(s.grid, s.boundary);
    predict(kernel, dt);
    exec.end();

    exec.begin(Stage::index);
    s.sort_by_cell(previous_position_);
    exec.end();

    exec.begin(Stage::forces);
    figures_.iterations = 0;
    clear(lambda_sum_);
    add_prediction_forces(kernel);
    for (int k = 0; k < pbf_.iterations; ++k) {
      compute_lambda(kernel);
      if (pbf_.density_error > 0.0f && average_constraint() <= double(pbf_.density_error)) break;
      // A halo copy's lambda and its correction read neighbours at the predicted positions, some of which
      // lie beyond the halo: both come from their owners.
      this->template refresh_halo<float>(lambda_);
      correct_positions(kernel, dt);
      this->template refresh_halo<Vec4f>(s.position);
      ++figures_.iterations;
    }
    s.solids.sum_added_forces(s.grid, s.boundary_view());
    exec.end();

    exec.begin(Stage::density);
    compute_lambda(kernel);
    figures_.density_error = average_constraint();
    store_density_and_pressure(dt);
    exec.end();

    exec.begin(Stage::integration);
    update_velocities(kernel, dt);
    s.guide_through_nozzle(dt, previous_position_.data());
    s.finish_step(dt);
    s.solids.advance(s.status.time_s, dt, s.params.gravity);
    exec.end();
    exec.count_step();
  }

  template <typename Kernel>
  void predict(const Kernel& kernel, float dt) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const GridGeometry grid = s.grid;
    const CellIndexView boundary = s.boundary_view();
    Vec4f* position = s.position.data();
    Vec4f* velocity = s.velocity.data();
    Vec4f* previous = previous_position_.data();
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      previous[i] = position[i];
      Vec4f v = velocity[i];
      const Vec3f a = p.gravity + stirring_acceleration(p.stirring, xyz(position[i]), xyz(v)) +
                      wall_pressure_acceleration(kernel, p, grid, boundary, xyz(position[i]), p.rest_density);
      v.x += dt * a.x;
      v.y += dt * a.y;
      v.z += dt * a.z;
      velocity[i] = v;
      position[i].x += dt * v.x;
      position[i].y += dt * v.y;
      position[i].z += dt * v.z;
    });
  }

  template <typename Kernel>
  void compute_lambda(const Kernel& kernel) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const PbfParameters pbf = pbf_;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view(), boundary = s.boundary_view();
    float* lambda = lambda_.data();
    float* constraint = constraint_.data();
    float* density = s.density.data();
    ++figures_.neighbor_passes;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const PbfLambda l = pbf_lambda(kernel, p, pbf, grid, fluid, boundary, i);
      lambda[i] = l.lambda;
      constraint[i] = l.constraint;
      density[i] = l.density_ratio * p.rest_density;
    });
  }

  double average_constraint() { return this->average(constraint_); }

  // The floating bodies' force starts a step as the reaction to the prediction's wall term, at the
  // positions the prediction started from (carried through the sort beside x*). This and the iterations'
  // reactions are gathered from each body particle through the fluid's cells, which the sort built for x*:
  // a fluid particle that has moved since out of the 27 cells around a body particle it is within the
  // support of is missed (the fluid's own pass finds it), a pair at the support's edge, where the kernel's
  // gradient vanishes.
  template <typename Kernel>
  void add_prediction_forces(const Kernel& kernel) {
    FluidState<Exec>& s = fluid_;
    CellIndexView start = this->counted_fluid(s.fluid_view());
    start.positions = previous_position_.data();
    s.solids.clear_fluid_forces();
    s.solids.add_fluid_forces(PbfPredictionReaction<Kernel>{kernel, s.params, s.grid, start});
  }

  // x*_i + dx_i into a second buffer, then swapped in: the cell index stays valid, since it refers to slots.
  // The floating bodies take the reaction to the walls' share of dx_i at the same x* and lambda.
  template <typename Kernel>
  void correct_positions(const Kernel& kernel, float dt) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const PbfParameters pbf = pbf_;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view(), boundary = s.boundary_view();
    const float* lambda = lambda_.data();
    float* lambda_sum = lambda_sum_.data();
    Vec4f* next = next_position_.data();
    ++figures_.neighbor_passes;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const Vec3f dx = pbf_position_correction(kernel, p, pbf, grid, fluid, lambda, boundary, i);
      const Vec4f x = fluid.positions[i];
      next[i] = {x.x + dx.x, x.y + dx.y, x.z + dx.z, x.w};
      lambda_sum[i] += lambda[i];
    });
    s.solids.add_fluid_forces(
        PbfCorrectionReaction<Kernel>{kernel, p, grid, this->counted_fluid(fluid), lambda, dt});
    s.position.swap(next_position_);
  }

  // A pressure for export and colouring: the position corrections of a step, sum_k lambda_i dx, act like the
  // impulse of p_i = -rho0 sum_k lambda_i / dt^2 (compare dx = -dt^2 grad p / rho with eq. 12).
  void store_density_and_pressure(float dt) {
    FluidState<Exec>& s = fluid_;
    const float scale = -s.params.rest_density / (dt * dt);
    const float* lambda_sum = lambda_sum_.data();
    float* pressure = s.pressure.data();
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) { pressure[i] = scale * lambda_sum[i]; });
  }

  // v = (x* - x) / dt, then XSPH and vorticity confinement, each reading the neighbours' velocities
  // before any change (written to a second buffer).
  template <typename Kernel>
  void update_velocities(const Kernel& kernel, float dt) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const PbfParameters pbf = pbf_;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view();
    const Vec4f* position = s.position.data();
    const Vec4f* previous = previous_position_.data();
    Vec4f* velocity = s.velocity.data();
    Vec4f* next = next_velocity_.data();
    Vec3f* vorticity = vorticity_.data();
    const float inverse_dt = 1.0f / dt;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      velocity[i] = {(position[i].x - previous[i].x) * inverse_dt,
                     (position[i].y - previous[i].y) * inverse_dt,
                     (position[i].z - previous[i].z) * inverse_dt, 0.0f};
    });
    // The velocity filters visit fluid neighbours only (no walls): each counts as a pass all the same.
    ++figures_.neighbor_passes;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const PbfVelocityFilter filter = pbf_velocity_filter(kernel, p, pbf, grid, fluid, velocity, i);
      const Vec4f v = velocity[i];
      next[i] = {v.x + filter.xsph.x, v.y + filter.xsph.y, v.z + filter.xsph.z, 0.0f};
      vorticity[i] = filter.vorticity;
    });
    if (pbf.vorticity > 0.0f) {
      this->template refresh_halo<Vec3f>(vorticity_);
      ++figures_.neighbor_passes;
      s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
        const Vec3f a = pbf_vorticity_acceleration(kernel, p, pbf, grid, fluid, vorticity, i);
        next[i].x += dt * a.x;
        next[i].y += dt * a.y;
        next[i].z += dt * a.z;
      });
    }
    s.velocity.swap(next_velocity_);
  }

  void clear(Buffer<float>& values) {
    float* v = values.data();
    fluid_.exec.for_each(fluid_.n, [=] SURGE_LAMBDA(std::uint32_t i) { v[i] = 0.0f; });
  }

  // Checkpoints (sim/core/solver_state.h): the fluid's state is all of it; every other array is written by
  // the step before it is read.
  template <typename Archive>
  void archive_state(Archive& a) {
    fluid_.archive_state(a);
  }

 private:
  PbfParameters pbf_;
  Buffer<Vec4f> previous_position_, next_position_, next_velocity_;
  Buffer<float> lambda_, lambda_sum_, constraint_;
  Buffer<Vec3f> vorticity_;
  Figures figures_;
};

}  // namespace surge
