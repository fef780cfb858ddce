// The n-body CPU backend: leapfrog over OpenMP loops in double. It is the reference the GPU backend is
// tested against and the one the conservation tests run.
#include <omp.h>

#include <cmath>
#include <string>

#include "sim/core/stage_times.h"
#include "sim/nbody/barnes_hut_cpu.h"
#include "sim/nbody/nbody_diagnostics.h"
#include "sim/nbody/nbody_simulation.h"

namespace surge {

namespace {

class CpuNbodySimulation final : public Simulation {
 public:
  explicit CpuNbodySimulation(const NbodySetup& setup)
      : params_(setup.params), bodies_(setup.bodies), velocities_(setup.velocities) {
    status_.time_s = setup.time_s;
    status_.step = setup.step;
    compute_gravity(true);
    initial_energy_ = measure_energy(bodies_, velocities_, field_.potential);
  }

  std::string backend_name() const override {
    return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads, double)";
  }
  std::size_t fluid_count() const override { return bodies_.size(); }
  std::size_t boundary_count() const override { return 0; }

  // Kick-drift-kick (gravity_physics.h); the accelerations of the step's end are those the next step's
  // first kick uses.
  void step() override {
    if (status_.instability != Instability::none) return;
    const double dt = params_.dt, half_dt = 0.5 * params_.dt;
    run_timed(times_, Stage::integration, [&] {
#pragma omp parallel for schedule(static) if (bodies_.size() > 4096)
      for (std::int64_t i = 0; i < std::int64_t(bodies_.size()); ++i) {
        kick(velocities_[i], field_.acceleration[i], half_dt);
        drift(bodies_[i].x, velocities_[i], dt);
      }
    });
    run_timed(times_, Stage::forces, [&] { compute_gravity(false); });
    run_timed(times_, Stage::integration, [&] {
#pragma omp parallel for schedule(static) if (bodies_.size() > 4096)
      for (std::int64_t i = 0; i < std::int64_t(bodies_.size()); ++i)
        kick(velocities_[i], field_.acceleration[i], half_dt);
    });
    status_.step += 1;
    status_.time_s += dt;
    status_.dt_s = float(dt);
    check_finite();
    times_.steps += 1;
  }

  StepStatus status() override {
    return status_;
  }

  void download(ParticleFrame& frame) override {
    const std::size_t n = bodies_.size();
    frame.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Body<double>& b = bodies_[i];
      frame.position[i] = {float(b.x.x), float(b.x.y), float(b.x.z), float(b.m)};
      frame.velocity[i] = {float(velocities_[i].x), float(velocities_[i].y), float(velocities_[i].z), 0.0f};
      frame.density[i] = 0.0f;
      frame.pressure[i] = 0.0f;
      frame.id[i] = std::uint32_t(i);
    }
    frame.time_s = status_.time_s;
    frame.step = status_.step;
  }

  StageTimes stage_times() override {
    return times_;
  }
  void reset_timers() override {
    times_ = StageTimes{};
  }
  std::vector<NamedValue> parameters() const override {
    return describe_parameters(params_);
  }
  // The accelerations the next step's first kick uses were computed with the old values; its force pass
  // and every later one use the new ones. The energy figures keep the start's energy as their reference.
  std::vector<LiveParameter> live_parameters() const override {
    return surge::live_parameters(params_);
  }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!set_live_parameter(params_, name, value)) refuse_parameter(*this, name);
  }

  // Energies need the potential, which stepping does not compute: one more gravity pass here.
  std::vector<NamedValue> step_figures() override {
    const std::uint64_t interactions = field_.interactions;
    GravityField<double> with_potential;
    gravity(with_potential, true);
    std::vector<NamedValue> figures =
        energy_figures(measure_energy(bodies_, velocities_, with_potential.potential), initial_energy_);
    figures.push_back({"pair_interactions_per_step", double(interactions)});
    if (params_.method != NbodyMethod::barnes_hut)
      figures.push_back({"flops_per_step", 20.0 * double(interactions)});
    return figures;
  }

 private:
  void gravity(GravityField<double>& out, bool with_potential) {
    if (params_.method == NbodyMethod::barnes_hut) {
      tree_.compute(bodies_, params_.gravitational_constant, params_.softening, params_.theta, with_potential,
                    out);
    } else {
      all_pairs_gravity(bodies_, params_.gravitational_constant, params_.softening, with_potential, out);
    }
  }
  void compute_gravity(bool with_potential) {
    gravity(field_, with_potential);
  }

  // A non-finite position or velocity ends the run with the first such body named.
  void check_finite() {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      const Vec3d x = bodies_[i].x, v = velocities_[i];
      if (std::isfinite(x.x + x.y + x.z + v.x + v.y + v.z)) continue;
      status_.instability = Instability::nan_value;
      status_.bad_step = status_.step;
      status_.bad_particle = std::uint32_t(i);
      status_.bad_position = {float(x.x), float(x.y), float(x.z)};
      status_.bad_velocity = {float(v.x), float(v.y), float(v.z)};
      const Vec3d a = field_.acceleration[i];
      status_.bad_acceleration = {float(a.x), float(a.y), float(a.z)};
      return;
    }
  }

  NbodyParameters params_;
  std::vector<Body<double>> bodies_;
  std::vector<Vec3d> velocities_;
  GravityField<double> field_;
  CpuBarnesHut<double> tree_;
  NbodyEnergy initial_energy_;
  StepStatus status_;
  StageTimes times_;
};

}  // namespace

std::unique_ptr<Simulation> make_cpu_nbody_simulation(const NbodySetup& setup) {
  return std::make_unique<CpuNbodySimulation>(setup);
}

}  // namespace surge
