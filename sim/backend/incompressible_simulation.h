// DFSPH and PBF behind the Simulation interface: one template over the executor (CPU or CUDA) and the solver,
// so both solvers on both backends share one wrapper. make_*_simulation are the entry points.
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/backend/render_attributes.h"
#include "sim/backend/simulation.h"
#include "sim/index/index_build.h"
#include "sim/sph/solver_parameters.h"
#include "sim/sph/sph_setup.h"

namespace surge {

std::unique_ptr<Simulation> make_cpu_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph);
std::unique_ptr<Simulation> make_cpu_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf);
// Throw std::runtime_error without CUDA or a GPU, CapacityError when the particles do not fit.
std::unique_ptr<Simulation> make_cuda_dfsph_simulation(const SphSetup& setup, const DfsphParameters& dfsph,
                                                       IndexBuild index_build = IndexBuild::radix_sort);
std::unique_ptr<Simulation> make_cuda_pbf_simulation(const SphSetup& setup, const PbfParameters& pbf,
                                                     IndexBuild index_build = IndexBuild::radix_sort);

// The settings as a benchmark records them.
std::vector<NamedValue> describe_parameters(const DfsphParameters& dfsph);
std::vector<NamedValue> describe_parameters(const PbfParameters& pbf);

// The wrapper the make_* functions instantiate (in incompressible_cpu.cpp and incompressible_cuda.cu).
template <typename Exec, template <typename> class Solver>
class IncompressibleSimulation final : public Simulation {
 public:
  template <typename Settings, typename... ExecutorArguments>
  IncompressibleSimulation(const SphSetup& setup, const Settings& settings, ExecutorArguments&&... arguments)
      : exec_(ledger_, arguments...),
        solver_(exec_, setup, settings),
        boundary_count_(setup.boundary.size()) {}

  std::string backend_name() const override { return exec_.name(); }
  std::size_t fluid_count() const override { return solver_.fluid().n; }
  std::size_t capacity() const override { return solver_.fluid().capacity; }
  bool has_emitter() const override { return solver_.fluid().emitter.present; }
  bool set_emitter_enabled(bool enabled) override {
    solver_.fluid().schedule.enabled = enabled;
    return has_emitter();
  }
  bool emitter_enabled() const override { return has_emitter() && solver_.fluid().schedule.enabled; }
  std::size_t boundary_count() const override { return boundary_count_; }

  void step() override {
    const SphParameters& p = solver_.fluid().params;
    const long before = solver_.fluid().status.step;
    with_kernel(p.kernel, p.support, [&](const auto& kernel) {
      solver_.step(kernel);
      return 0;
    });
    if (solver_.fluid().status.step > before) tally_.add(describe_figures(solver_.figures()));
  }
  StepStatus status() override { return solver_.fluid().status; }
  void download(ParticleFrame& frame) override { solver_.fluid().download(frame); }
  // On the GPU, the overlapped export's snapshot stays off the stepping thread's path
  // (sim/backend/frame_snapshots.cuh); on the CPU, Simulation's synchronous default.
  void begin_download(std::size_t slot) override {
    if constexpr (Exec::kSnapshotsOnDevice) {
      solver_.fluid().begin_snapshot(slot);
    } else {
      Simulation::begin_download(slot);
    }
  }
  void finish_download(std::size_t slot, ParticleFrame& frame) override {
    if constexpr (Exec::kSnapshotsOnDevice) {
      exec_.finish_snapshot(slot, frame);
    } else {
      Simulation::finish_download(slot, frame);
    }
  }
  // On the GPU the renderer's buffers are written on the device (the viewer's interop path).
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) override {
    if constexpr (Exec::kSnapshotsOnDevice) {
      const auto& fluid = solver_.fluid();
      const Vec4f* position = fluid.position.data();
      const Vec4f* velocity = fluid.velocity.data();
      const float* density = fluid.density.data();
      const float* pressure = fluid.pressure.data();
      Vec4f* out_position = targets.d_position;
      float* out_scalar = targets.d_scalar;
      const ParticleScalar scalar = targets.scalar;
      exec_.for_each(fluid.n, [=] SURGE_LAMBDA(std::uint32_t i) {
        out_position[i] = position[i];
        if (out_scalar) out_scalar[i] = render_scalar(scalar, velocity[i], density[i], pressure[i]);
      });
      // The caller unmaps the GL buffers next, on another stream: the writes must be done by then.
      exec_.synchronize();
      return true;
    } else {
      (void)targets;
      return false;  // the CPU's particles are on the host: the caller downloads them
    }
  }
  StageTimes stage_times() override { return exec_.stage_times(); }
  void reset_timers() override {
    exec_.reset_timers();
    tally_ = {};
  }
  std::vector<NamedValue> parameters() const override {
    std::vector<NamedValue> all;
    for (NamedValue& value : describe_parameters(solver_.fluid().params)) {
      // The weakly compressible settings (equation of state, artificial viscosity) play no part here.
      static constexpr std::array<std::string_view, 5> kWcsphOnly = {
          "speed_of_sound_m_per_s", "tait_exponent", "tait_stiffness_pa", "viscosity_alpha", "xsph_epsilon"};
      if (std::find(kWcsphOnly.begin(), kWcsphOnly.end(), value.name) == kWcsphOnly.end())
        all.push_back(std::move(value));
    }
    for (NamedValue& value : describe_parameters(solver_.settings())) all.push_back(std::move(value));
    return all;
  }
  std::vector<LiveParameter> live_parameters() const override {
    std::vector<LiveParameter> all = live_incompressible_parameters();
    for (const LiveParameter& p : surge::live_parameters(solver_.settings())) all.push_back(p);
    return all;
  }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (set_live_incompressible_parameter(solver_.fluid().params, name, value)) return;
    auto settings = solver_.settings();
    if (!set_live_parameter(settings, name, value)) refuse_parameter(*this, name);
    solver_.set_settings(settings);
  }
  // The hand joins the non-pressure forces of the next step (DFSPH: predict_velocities, PBF: predict).
  bool set_stirring(const Stirring& stirring) override {
    solver_.fluid().params.stirring = stirring;
    return true;
  }
  // The last step's figures, then their mean and largest value over the steps since reset_timers().
  std::vector<NamedValue> step_figures() override {
    std::vector<NamedValue> all = describe_figures(solver_.figures());
    for (std::size_t k = 0; k < tally_.names.size(); ++k) {
      all.push_back({tally_.names[k] + "_mean", tally_.sums[k] / double(tally_.steps)});
      all.push_back({tally_.names[k] + "_max", tally_.maxima[k]});
    }
    return all;
  }

 private:
  template <typename Figures>
  static std::vector<NamedValue> describe_figures(const Figures& f) {
    if constexpr (requires { f.divergence_iterations; }) {
      return {{"density_iterations", double(f.density_iterations)},
              {"density_error_percent", 100.0 * f.density_error},
              {"divergence_iterations", double(f.divergence_iterations)},
              {"divergence_error_percent", 100.0 * f.divergence_error}};
    } else {
      return {{"iterations", double(f.iterations)}, {"density_error_percent", 100.0 * f.density_error}};
    }
  }

  struct Tally {
    std::vector<std::string> names;
    std::vector<double> sums, maxima;
    long steps = 0;
    void add(const std::vector<NamedValue>& figures) {
      if (names.empty()) {
        for (const NamedValue& f : figures) names.push_back(f.name);
        sums.assign(names.size(), 0.0);
        maxima.assign(names.size(), 0.0);
      }
      for (std::size_t k = 0; k < names.size(); ++k) {
        const double value = std::get<double>(figures[k].value);
        sums[k] += value;
        maxima[k] = std::max(maxima[k], value);
      }
      ++steps;
    }
  };

  Exec exec_;
  Solver<Exec> solver_;
  Tally tally_;
  std::size_t boundary_count_;
};

}  // namespace surge
