// The one class that puts a solver behind surge::Simulation: SolverSimulation<Exec, Solver> owns the
// executor (the backend: CPU, GPU, or the classroom's hybrid) and a solver of the StepSolver shape
// (sim/core/solver.h) that runs on it. Status, downloads, the overlapped export, stage timers, parameters,
// figures and the renderer's feed are written here once, for every solver on every backend.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/core/solver.h"

namespace surge {

template <typename Exec, StepSolver Solver, typename Interface = Simulation>
class SolverSimulation : public Interface {
 public:
  // The executor is made from `executor_arguments` (and the ledger), the solver from the executor and
  // `solver_arguments` (its setup and settings).
  template <typename... SolverArguments, typename... ExecutorArguments>
  SolverSimulation(std::tuple<SolverArguments...> solver_arguments,
                   std::tuple<ExecutorArguments...> executor_arguments)
      : exec_(std::make_from_tuple<Exec>(
            std::tuple_cat(std::forward_as_tuple(this->ledger_), std::move(executor_arguments)))),
        solver_(std::make_from_tuple<Solver>(
            std::tuple_cat(std::forward_as_tuple(exec_), std::move(solver_arguments)))) {}

  // The executor's name; a solver with a variant (`variant_name()`, empty for the default) adds it inside
  // the name's parentheses: "gpu (NVIDIA H200, CC 9.0, split force pass)".
  std::string backend_name() const override {
    std::string name = exec_.name();
    if constexpr (requires { solver_.variant_name(); }) {
      const std::string variant = solver_.variant_name();
      if (!variant.empty() && !name.empty() && name.back() == ')')
        name.insert(name.size() - 1, ", " + variant);
    }
    return name;
  }
  std::size_t fluid_count() const override { return solver_.particle_count(); }
  std::size_t capacity() const override { return solver_.capacity(); }
  std::size_t boundary_count() const override { return solver_.static_particle_count(); }
  std::string position_w_name() const override {
    if constexpr (requires { Solver::kPositionW; }) {
      return Solver::kPositionW;
    } else {
      return "";
    }
  }

  void step() override {
    if constexpr (kTallyEachStep) {
      // Figures are tallied per completed step; a solver that stopped (unstable) completes none.
      const long before = solver_.status().step;
      solver_.step();
      if (solver_.status().step > before) tally_.add(solver_.named_figures());
    } else if constexpr (kStepGraphs) {
      if (exec_.step_graphs()) {
        exec_.graphed_step(solver_.step_graph_key(), [&] { solver_.step(); });
      } else {
        solver_.step();
      }
    } else {
      solver_.step();
    }
  }
  StepStatus status() override { return solver_.status(); }
  void download(ParticleFrame& frame) override { solver_.download(frame); }
  std::optional<ParticleArrays> particle_arrays() override {
    if constexpr (requires { solver_.particle_arrays(); }) {
      return solver_.particle_arrays();
    } else {
      return std::nullopt;
    }
  }
  // On a device executor the overlapped export's snapshot stays off the stepping thread's path
  // (sim/backend/frame_snapshots.cuh); on the CPU, Simulation's synchronous default.
  void begin_download(std::size_t slot) override {
    if constexpr (Exec::kSnapshotsOnDevice) {
      solver_.begin_snapshot(slot);
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
  bool copy_to_device_buffers(const DeviceParticleTargets& targets) override {
    return solver_.copy_to_device_buffers(targets);
  }
  // On a device executor the mesher runs on the executor's stream, behind the steps.
  bool mesh_fluid_surface(const FluidSurfaceSettings& settings, FluidSurface& surface) override {
    if constexpr (requires(const Vec4f* positions) {
                    exec_.mesh_fluid_surface(positions, 0u, settings);
                    solver_.particle_arrays();
                  }) {
      solver_.status();  // waits; a GPU solver with an emitter learns its active count from it
      const ParticleArrays particles = solver_.particle_arrays();
      surface = exec_.mesh_fluid_surface(particles.position, std::uint32_t(particles.count), settings);
      return true;
    } else {
      return Interface::mesh_fluid_surface(settings, surface);
    }
  }
  StageTimes stage_times() override { return exec_.stage_times(); }
  std::vector<NamedValue> neighbor_census() override {
    if constexpr (requires { solver_.neighbor_census(); }) {
      return solver_.neighbor_census();
    } else {
      return {};
    }
  }
  StageBytes stage_floor_bytes() override {
    if constexpr (requires { solver_.stage_floor_bytes(); }) {
      return solver_.stage_floor_bytes();
    } else {
      return {};
    }
  }
  void reset_timers() override {
    exec_.reset_timers();
    tally_ = {};
  }
  std::vector<NamedValue> parameters() const override { return solver_.parameters(); }
  std::vector<LiveParameter> live_parameters() const override { return solver_.live_parameters(); }
  void set_parameter(std::string_view name, const ParameterValue& value) override {
    if (!solver_.set_parameter(name, value)) refuse_parameter(*this, name);
  }
  bool set_stirring(const Stirring& stirring) override {
    if constexpr (requires { solver_.set_stirring(stirring); }) {
      solver_.set_stirring(stirring);
      return true;
    } else {
      return false;
    }
  }
  bool has_emitter() const override {
    if constexpr (requires { solver_.has_emitter(); }) return solver_.has_emitter();
    return false;
  }
  bool set_emitter_enabled(bool enabled) override {
    if constexpr (requires { solver_.set_emitter_enabled(enabled); }) {
      solver_.set_emitter_enabled(enabled);
      return has_emitter();
    }
    return false;
  }
  bool emitter_enabled() const override {
    if constexpr (requires { solver_.emitter_enabled(); }) return solver_.emitter_enabled();
    return false;
  }
  bool set_gauges(const std::vector<GaugeProbe>& probes) override {
    if constexpr (requires { solver_.set_gauges(probes); }) {
      refuse_unmeasurable_gauges<Solver>(probes);
      solver_.set_gauges(probes);
      return true;
    } else {
      return false;
    }
  }
  void sample_gauges(std::vector<float>& values) override {
    if constexpr (requires { solver_.sample_gauges(values); }) {
      solver_.sample_gauges(values);
    } else {
      values.clear();
    }
  }
  bool download_moving_boundary(std::vector<Vec4f>& positions) override {
    if constexpr (requires { solver_.download_moving_boundary(positions); }) {
      return solver_.download_moving_boundary(positions);
    }
    return false;
  }
  bool download_solid_poses(std::vector<BodyPose>& poses) override {
    if constexpr (requires { solver_.download_solid_poses(poses); }) {
      return solver_.download_solid_poses(poses);
    }
    return false;
  }
  // The last step's figures, their mean and largest value over the steps since reset_timers(), then the
  // figures a solver computes only when asked, then the executor's.
  std::vector<NamedValue> step_figures() override {
    std::vector<NamedValue> all = solver_.named_figures();
    for (std::size_t k = 0; k < tally_.names.size(); ++k) {
      all.push_back({tally_.names[k] + "_mean", tally_.sums[k] / double(tally_.steps)});
      all.push_back({tally_.names[k] + "_max", tally_.maxima[k]});
    }
    if constexpr (requires { solver_.diagnostics(); })
      for (NamedValue& value : solver_.diagnostics()) all.push_back(std::move(value));
    // An executor with counts of its own (the hybrid modes' copies and CPU index builds) adds them.
    if constexpr (requires { exec_.figures(); })
      for (NamedValue& value : exec_.figures()) all.push_back(std::move(value));
    return all;
  }

  bool save_state(SolverState& state) override {
    if constexpr (kCheckpoints) {
      solver_.status();  // waits; a GPU solver learns its active count from it
      state.sections.clear();
      StateSaver<Exec> saver(exec_, state);
      solver_.archive_state(saver);
      return true;
    } else {
      (void)state;
      return false;
    }
  }
  void load_state(const SolverState& state) override {
    if constexpr (kCheckpoints) {
      StateLoader<Exec> loader(exec_, state);
      solver_.archive_state(loader);
      loader.finish();
      tally_ = {};
    } else {
      Interface::load_state(state);
    }
  }

  Solver& solver() { return solver_; }
  const Solver& solver() const { return solver_; }

 protected:
  // A solver whose status lives on the device (`static constexpr bool kStatusOnDevice = true`: reading it
  // waits for the GPU and copies) is not tallied per step, which would cost a readback a step; the others
  // (the iterative SPH solvers decide their iterations on the host) are.
  static constexpr bool kTallyEachStep = [] {
    if constexpr (requires { Solver::kStatusOnDevice; }) {
      return !Solver::kStatusOnDevice;
    } else {
      return true;
    }
  }();

  // CUDA graphs of whole steps (sim/backend/cuda_step_graphs.h): an executor that makes them and a solver
  // that names what its launches depend on (step_graph_key; WCSPH's). The iterative solvers (DFSPH, PBF)
  // decide their iterations on the host from readbacks, which a graph cannot hold: they have no key.
  static constexpr bool kStepGraphs = requires(Exec & exec, Solver& solver) {
    exec.step_graphs();
    solver.step_graph_key();
  };

  static constexpr bool kCheckpoints =
      Exec::kCheckpoints && requires(Solver & solver, StateSaver<Exec>& saver) {
    solver.archive_state(saver);
  };

  Exec exec_;
  Solver solver_;

 private:
  struct FigureTally {
    std::vector<std::string> names;
    std::vector<double> sums, maxima;
    long steps = 0;
    void add(const std::vector<NamedValue>& figures) {
      if (figures.empty()) return;
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
  FigureTally tally_;
};

}  // namespace surge
