// One DFSPH time step (Bender & Koschier 2017, Algorithm 1), written once for any executor: CpuExecutor runs
// it in OpenMP loops, CudaExecutor in CUDA kernels. The per-particle equations are in dfsph_physics.h.
//
//   sort by cell           neighbours of the current positions
//   density, alpha_i       summation density and the DFSPH factor (eq. 11), and the walls' terms of both
//                          solves, constant through them (DfsphWallTerms)
//   divergence solve       make D rho/Dt vanish for the current velocities (Algorithm 2)
//   non-pressure forces    gravity, the stirring hand, viscosity, the walls' hydrostatic pressure; the time
//   step
//                          (CFL condition)
//   density solve          predict v*, remove the predicted density excess (Algorithm 3)
//   solid bodies           the reaction to the walls' terms of both solves and the non-pressure forces, per
//                          body (solid_bodies.h, dfsph_fluid_force_on_wall_particle)
//   integrate              x += dt v*, then the bodies by the same symplectic Euler (integrate_floating)
//
// BK17 runs the divergence solve at the end of a step, after the new neighbourhoods and densities; running it
// at the start of the next step, right after they are computed, is the same sequence of operations.
// Both solves are warm-started with half the pressure values of the previous step, as SPlisHSPlasH does; the
// first step's density solve starts from the water's hydrostatic pressure (SphSetup::hydrostatic_pressure).
//
// On several ranks (rank_hooks.h, docs/multi-rank.md) the halo copies take their owners' pressure values q
// before every pressure pass of an iteration and their owners' velocities after the non-pressure forces,
// and the solves' errors are averages over every rank's owned particles.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/sph/dfsph_physics.h"
#include "sim/sph/fluid_solver.h"
#include "sim/sph/jacobi_weight.h"

namespace surge {

template <typename Exec>
class DfsphSolver : public FluidSolver<Exec> {
 public:
  using FluidSolver<Exec>::fluid_;
  template <typename T>
  using Buffer = typename Exec::template Buffer<T>;

  DfsphSolver(Exec& exec, const SphSetup& setup, const DfsphParameters& dfsph)
      : FluidSolver<Exec>(exec, setup), dfsph_(dfsph) {
    const std::uint32_t n = fluid_.capacity;
    exec.allocate(factor_, n);
    exec.allocate(wall_terms_, n);
    exec.allocate(excess_, n);
    exec.allocate(q_, n);
    exec.allocate(q_density_sum_, n);
    exec.allocate(q_divergence_sum_, n);
    exec.allocate(acceleration_, n);
    dfsph_.jacobi_weight = jacobi_weight(setup.params);
    // The first step's density solve starts from the water's hydrostatic pressure (SphSetup): Jacobi-like,
    // from zero it spreads a column's pressure about one particle per iteration, so a tank at rest needs
    // about as many iterations as it is particles deep on its first steps. The warm start applies half of
    // the previous step's sum, so the sum starts at twice p / rho0^2.
    if (dfsph_.hydrostatic_start && !setup.hydrostatic_pressure.empty()) {
      std::vector<float> start = setup.hydrostatic_pressure;
      const float scale = 2.0f / (setup.params.rest_density * setup.params.rest_density);
      for (float& q : start) q *= scale;
      exec.upload(q_density_sum_, start, n, "setup");
    }
  }

  const DfsphParameters& settings() const { return dfsph_; }
  // The pressure sums both solves warm-start from, carried between steps in the particles' slot order: a
  // driver of several ranks moves them with their particles.
  Buffer<float>& density_pressure_sum() { return q_density_sum_; }
  Buffer<float>& divergence_pressure_sum() { return q_divergence_sum_; }
  // Between steps: every pass copies dfsph_ (or the numbers it needs) when it launches. The setup's Jacobi
  // weight stays as the caller keeps it.
  void set_settings(const DfsphParameters& dfsph) { dfsph_ = dfsph; }

  // The StepSolver shape (sim/core/solver.h).
  void step() {
    this->with_scene_kernel([&](const auto& kernel) { step(kernel); });
  }
  std::vector<NamedValue> parameters() const {
    return incompressible_parameters(SolverKind::dfsph, fluid_.params, dfsph_);
  }
  std::vector<LiveParameter> live_parameters() const { return incompressible_live_parameters(dfsph_); }
  bool set_parameter(std::string_view name, const ParameterValue& value) {
    return set_incompressible_parameter(fluid_.params, dfsph_, name, value);
  }

  struct Figures {
    int density_iterations = 0;
    int divergence_iterations = 0;
    // Passes over the fluid that visit every particle's neighbours (density and factor, the non-pressure
    // forces, each solve's pressure and error passes): the work a step did, at the census' pairs per pass.
    int neighbor_passes = 0;
    double density_error = 0;     // average density excess reached, fraction of rho0
    double divergence_error = 0;  // average D rho/Dt * dt reached, fraction of rho0
    // Wall time of the density solve's iterations (after its first error is known) [ms]. Each iteration ends
    // by reading its average error back to the host, so the host clock spans exactly them on every
    // executor, the GPU's included; over density_iterations it is the cost of one iteration: two neighbour
    // passes, the reduction and its readback.
    double density_iterations_ms = 0;
    std::vector<double>
        density_error_history;  // the density solve's error before each iteration and at the end
  };
  const Figures& figures() const { return figures_; }
  std::vector<NamedValue> named_figures() const {
    return {{"density_iterations", double(figures_.density_iterations)},
            {"density_error_percent", 100.0 * figures_.density_error},
            {"divergence_iterations", double(figures_.divergence_iterations)},
            {"divergence_error_percent", 100.0 * figures_.divergence_error},
            {"density_iterations_ms", figures_.density_iterations_ms},
            {"neighbor_passes", double(figures_.neighbor_passes)}};
  }

  template <typename Kernel>
  void step(const Kernel& kernel) {
    FluidState<Exec>& s = fluid_;
    Exec& exec = s.exec;
    if (s.status.instability != Instability::none) return;
    exec.begin(Stage::other);
    s.emit(q_density_sum_, q_divergence_sum_);  // a new particle has no pressure to warm-start from
    exec.end();
    // On ranks a rank with no particles still takes part in every exchange of the step.
    if (s.n == 0 && !this->on_ranks()) return;
    figures_.neighbor_passes = 0;

    exec.begin(Stage::index);
    s.sort_by_cell(q_density_sum_, q_divergence_sum_);
    // Positions stand still until integrate(): where the executor keeps neighbour lists, the fluid pair
    // gradients the solves read again and again are computed once here (their wall pairs are summed once, in
    // the factor pass).
    exec.cache_pair_gradients(kernel, s.position.data(), s.n);
    exec.end();

    exec.begin(Stage::density);
    compute_density_and_factor(kernel);
    exec.end();

    exec.begin(Stage::forces);
    if (dfsph_.divergence_solve) solve_divergence(kernel);
    exec.end();

    exec.begin(Stage::other);
    const float dt = incompressible_time_step(s.params, s.status.max_speed);
    exec.end();

    exec.begin(Stage::forces);
    predict_velocities(kernel, dt);
    solve_density(kernel, dt);
    sum_body_forces(kernel, dt);
    exec.end();

    exec.begin(Stage::integration);
    s.guide_through_nozzle(dt);
    integrate(dt);
    s.finish_step(dt);
    s.solids.advance(s.status.time_s, dt, s.params.gravity);
    exec.end();
    exec.count_step();
  }

  template <typename Kernel>
  void compute_density_and_factor(const Kernel& kernel) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view(), boundary = s.boundary_view();
    float* density = s.density.data();
    DfsphFactor* factor = factor_.data();
    DfsphWallTerms* wall = wall_terms_.data();
    ++figures_.neighbor_passes;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const DfsphParticleTerms terms = dfsph_factor(kernel, p, grid, fluid, boundary, i);
      factor[i] = terms.factor;
      wall[i] = terms.wall;
      density[i] = terms.factor.density;
    });
  }

  // Algorithm 2: q_i = d_i alpha_i / dt with d_i = max(D rho_i/Dt, 0) until the average d_i dt / rho0 is
  // below the target. `dt` here is the last step's, the one the divergence will act over.
  template <typename Kernel>
  void solve_divergence(const Kernel& kernel) {
    const float dt = fluid_.status.dt_s;
    figures_.divergence_iterations =
        run_solve(kernel, dt, Solve::divergence, dfsph_.divergence_error, figures_.divergence_error);
  }

  template <typename Kernel>
  void predict_velocities(const Kernel& kernel, float dt) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view(), boundary = s.boundary_view();
    const float viscosity = dfsph_.viscosity;
    const float* density = s.density.data();
    Vec4f* velocity = s.velocity.data();
    Vec4f* acceleration = acceleration_.data();
    // Two passes: the viscosity of particle i reads its neighbours' velocities before any of them change.
    ++figures_.neighbor_passes;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const Vec3f a =
          non_pressure_acceleration(kernel, p, viscosity, grid, fluid, velocity, density, i) +
          wall_pressure_acceleration(kernel, p, grid, boundary, xyz(fluid.positions[i]), density[i]);
      acceleration[i] = make_vec4(a, 0.0f);
    });
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const Vec4f a = acceleration[i];
      velocity[i].x += dt * a.x;
      velocity[i].y += dt * a.y;
      velocity[i].z += dt * a.z;
    });
    // The density solve reads the neighbours' predicted velocities; a halo copy's own viscosity term
    // would miss the neighbours beyond the halo.
    this->template refresh_halo<Vec4f>(s.velocity);
  }

  // Algorithm 3: q_i = e_i alpha_i / dt^2 with e_i = max(rho_i + dt D rho_i/Dt - rho0, 0), the density excess
  // the predicted velocities would leave, until its average is below the target. The accumulated q_i is the
  // particle's pressure over density squared (dfsph_physics.h); with the divergence solve's, p_i = q_i
  // rho_i^2.
  template <typename Kernel>
  void solve_density(const Kernel& kernel, float dt) {
    FluidState<Exec>& s = fluid_;
    figures_.density_iterations =
        run_solve(kernel, dt, Solve::density, dfsph_.density_error, figures_.density_error);

    // Both solves apply pressure impulses over a step: the pressure is their sum.
    const float* density = s.density.data();
    float* pressure = s.pressure.data();
    const float* q_density = q_density_sum_.data();
    const float* q_divergence = q_divergence_sum_.data();
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      pressure[i] = (q_density[i] + q_divergence[i]) * density[i] * density[i];
    });
  }

  // The floating and gauged bodies' force and torque for this step (solid_bodies.h), once both solves are
  // done and before the fluid moves: the solves saw the bodies' particles where the step's start placed them,
  // moving at the bodies' velocities then (their D rho/Dt terms), and the reaction is summed at those places.
  // The bodies advance after the fluid's x += dt v, by integrate_floating with this force: symplectic Euler,
  // as the fluid. The coupling is explicit, as SPlisHSPlasH's with Akinci boundaries: a body's response to
  // the fluid's push is not in the solves, which see it move at v_b^n while it ends the step at v_b^{n+1};
  // the next step's solves correct the dt^2 a_b that leaves. (A body much lighter than the water it moves
  // would need it inside: the added-mass instability of explicit coupling.)
  template <typename Kernel>
  void sum_body_forces(const Kernel& kernel, float dt) {
    FluidState<Exec>& s = fluid_;
    const float dt_divergence = dfsph_.divergence_solve ? s.status.dt_s : 0.0f;
    s.solids.sum_forces(
        DfsphWallReaction<Kernel>{kernel, s.params, s.grid, this->counted_fluid(s.fluid_view()),
                                  s.density.data(), q_divergence_sum_.data(), q_density_sum_.data(),
                                  dt_divergence, dt},
        s.grid, s.boundary_view());
  }

  void integrate(float dt) {
    FluidState<Exec>& s = fluid_;
    Vec4f* position = s.position.data();
    const Vec4f* velocity = s.velocity.data();
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      position[i].x += dt * velocity[i].x;
      position[i].y += dt * velocity[i].y;
      position[i].z += dt * velocity[i].z;
    });
  }

  enum class Solve { divergence, density };

  // Sets q_i for the solve's current velocities and returns its average error (fraction of rho0):
  //   divergence: d_i = max(D rho_i/Dt, 0) (0 at the free surface), q_i = omega d_i alpha_i / dt,
  //               error = <d_i> dt / rho0
  //   density:    e_i = max(rho_i + dt D rho_i/Dt - rho0, 0), q_i = omega e_i alpha_i / dt^2,
  //               error = <e_i> / rho0
  // with omega the Jacobi weight of the kernel's support (jacobi_weight.h; 1 up to 2 spacings).
  template <typename Kernel>
  double compute_error(const Kernel& kernel, float dt, Solve solve) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view();
    const DfsphFactor* factor = factor_.data();
    const DfsphWallTerms* wall = wall_terms_.data();
    const Vec4f* velocity = s.velocity.data();
    const float* density = s.density.data();
    float* excess = excess_.data();
    float* q = q_.data();
    const float weight = dfsph_.jacobi_weight;
    ++figures_.neighbor_passes;
    if (solve == Solve::divergence) {
      const float surface_count = dfsph_.surface_neighbor_count;
      s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
        float rate = density_rate(kernel, p, grid, fluid, velocity, wall[i], i);
        if (rate < 0.0f || factor[i].neighbors < surface_count) rate = 0.0f;
        excess[i] = rate * dt;
        q[i] = weight * rate * factor[i].alpha / dt;
      });
    } else {
      s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
        const float predicted = density[i] + dt * density_rate(kernel, p, grid, fluid, velocity, wall[i], i);
        const float e = fmaxf(predicted - p.rest_density, 0.0f);
        excess[i] = e;
        q[i] = weight * e * factor[i].alpha / (dt * dt);
      });
    }
    return this->average(excess_) / double(p.rest_density);
  }

  // The loop both solves share. Warm start: apply half of last step's accumulated q, then iterate
  //   error = compute_error() (which also sets q_i);  apply q;  q_sum += q
  // until error <= target after at least min_iterations, or max_iterations. Returns the iterations used.
  // On ranks the halo copies of q are refreshed before each pass that applies them (the warm start's q
  // needs none: the copies carry their owners' sums).
  template <typename Kernel>
  int run_solve(const Kernel& kernel, float dt, Solve solve, float target, double& error_reached) {
    FluidState<Exec>& s = fluid_;
    Buffer<float>& q_sum_buffer = solve == Solve::density ? q_density_sum_ : q_divergence_sum_;
    float* q = q_.data();
    float* q_sum = q_sum_buffer.data();
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      q[i] = 0.5f * q_sum[i];
      q_sum[i] = 0.0f;
    });
    apply_pressure(kernel, dt, q_sum_buffer);

    int iterations = 0;
    // BK17 (and SPlisHSPlasH) run at least one divergence and two density iterations.
    const int min_iterations = solve == Solve::density ? dfsph_.min_iterations : 1;
    double error = compute_error(kernel, dt, solve);
    std::vector<double>& history = figures_.density_error_history;
    if (solve == Solve::density) history.assign(1, error);
    const auto iterations_start = std::chrono::steady_clock::now();
    while ((error > double(target) || iterations < min_iterations) && iterations < dfsph_.max_iterations) {
      this->template refresh_halo<float>(q_);
      apply_pressure(kernel, dt, q_sum_buffer);
      error = compute_error(kernel, dt, solve);
      if (solve == Solve::density) history.push_back(error);
      ++iterations;
    }
    if (solve == Solve::density)
      figures_.density_iterations_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - iterations_start)
              .count();
    error_reached = error;
    return iterations;
  }

  // v_i += dv_i(q) (dfsph_physics.h) and q_sum_i += q_i. dv_i reads only q, so velocities update in place.
  template <typename Kernel>
  void apply_pressure(const Kernel& kernel, float dt, Buffer<float>& q_sum_buffer) {
    FluidState<Exec>& s = fluid_;
    const SphParameters p = s.params;
    const GridGeometry grid = s.grid;
    const CellIndexView fluid = s.fluid_view();
    const DfsphWallTerms* wall = wall_terms_.data();
    const float* q = q_.data();
    float* q_sum = q_sum_buffer.data();
    Vec4f* velocity = s.velocity.data();
    ++figures_.neighbor_passes;
    s.exec.for_each(s.n, [=] SURGE_LAMBDA(std::uint32_t i) {
      const Vec3f dv = pressure_velocity_change(kernel, p, grid, fluid, q, wall[i], i, dt);
      velocity[i].x += dv.x;
      velocity[i].y += dv.y;
      velocity[i].z += dv.z;
      q_sum[i] += q[i];
    });
  }

  // Checkpoints (sim/core/solver_state.h): the fluid, and the pressure sums both solves warm-start from.
  template <typename Archive>
  void archive_state(Archive& a) {
    fluid_.archive_state(a);
    a.buffer("dfsph.density_pressure_sum", q_density_sum_, fluid_.n);
    a.buffer("dfsph.divergence_pressure_sum", q_divergence_sum_, fluid_.n);
  }

 private:
  DfsphParameters dfsph_;
  Buffer<DfsphFactor> factor_;
  Buffer<DfsphWallTerms> wall_terms_;
  Buffer<float> excess_, q_, q_density_sum_, q_divergence_sum_;
  Buffer<Vec4f> acceleration_;
  Figures figures_;
};

}  // namespace surge
