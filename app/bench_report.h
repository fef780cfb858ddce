// Benchmark results: the table on stdout and the JSON record (machine, GPU, version, parameters, runs).
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"

namespace surge::app {

// `surge bench --render`: frames timed after the steps (one step + feeding + drawing each).
struct BenchFrames {
  int width = 0, height = 0;
  long frames = 0;
  double ms_per_frame = 0.0;
  double draw_ms_per_frame = 0.0;  // of which feeding the particles to GL and drawing
  double bus_bytes_per_frame = 0.0;
  std::string renderer;  // GL context and how particles reached it
};

struct BenchRun {
  std::size_t fluid_particles = 0;
  std::size_t boundary_particles = 0;
  std::string backend;   // "cpu" or "gpu", or the execution mode's name when modes are compared
  std::string solver;    // wcsph, dfsph, pbf, ...
  long steps = 0;        // timed steps, after the warm-up
  double seconds = 0.0;  // wall time of the timed steps, up to the device being idle
  StageTimes stages;
  std::vector<NamedValue> parameters;  // Simulation::parameters(): some depend on the particle count
  std::optional<BenchFrames> frames;   // with --render
  std::size_t bus_bytes = 0;           // host<->device bytes during the timed steps (the ledger)
  double bus_ms = 0.0;                 // time those copies took
  double speedup_over_cpu = 0.0;       // the cpu mode's ms/step at this size over this one's; 0: no cpu run
  std::vector<NamedValue> figures;     // Simulation::step_figures() after the timed steps
  StageBytes floor_bytes{};            // Simulation::stage_floor_bytes(): per step, 0 where not modelled
  double memory_bandwidth = 0.0;       // [bytes/s] measured where the run's arrays live; 0: not measured

  // A stage's floor (its bytes at the measured bandwidth) over its measured time, 0..1; 0 when either is
  // unknown.
  double floor_fraction(int stage) const {
    const double ms = steps > 0 ? stages.ms[stage] / double(steps) : 0.0;
    if (floor_bytes[stage] <= 0 || memory_bandwidth <= 0 || ms <= 0) return 0.0;
    return 1e3 * floor_bytes[stage] / memory_bandwidth / ms;
  }
  double step_floor_fraction() const;

  double bus_bytes_per_step() const { return steps > 0 ? double(bus_bytes) / double(steps) : 0.0; }
  double bus_gb_per_s() const { return bus_ms > 0 ? double(bus_bytes) / (bus_ms * 1e6) : 0.0; }

  double ms_per_step() const { return steps > 0 ? 1e3 * seconds / double(steps) : 0.0; }
  double particle_steps_per_s() const {
    return seconds > 0 ? double(fluid_particles) * double(steps) / seconds : 0.0;
  }
};

void print_bench_header(std::ostream& out);
// The row, then one line of rates for solvers that report work per step (figure_report.h).
void print_bench_row(std::ostream& out, const BenchRun& run);

struct BenchRecord {
  std::filesystem::path scene_path;
  std::string scene_name;
  std::string command_line;
  long warmup_steps = 0;
  std::vector<BenchRun> runs;
  // Modes asked for but not run, and why: "hybrid, gpu (no CUDA GPU: ...)"; empty when every mode ran.
  std::string modes_skipped;
};

nlohmann::ordered_json bench_json(const BenchRecord& record);

// A DFSPH run's density solve per step and per iteration, beside the WCSPH force pass of the same record at
// the same particle count and backend (`surge bench --solver wcsph,dfsph`): the performance issue's target of
// one iteration for at most 1.5 force passes.
struct DensityIterationCost {
  double density_iterations_per_step = 0.0;     // mean over the timed steps
  double divergence_iterations_per_step = 0.0;  // mean over the timed steps
  double ms_per_density_iteration = 0.0;        // two neighbour passes, the reduction and its readback
  std::optional<double> wcsph_force_pass_ms;    // the WCSPH run's forces stage per step; none without one
  std::optional<double> iteration_over_force_pass() const {
    if (!wcsph_force_pass_ms || *wcsph_force_pass_ms <= 0) return std::nullopt;
    return ms_per_density_iteration / *wcsph_force_pass_ms;
  }
};
// None for a run that is not DFSPH's or that timed no density iteration.
std::optional<DensityIterationCost> density_iteration_cost(const BenchRun& run, const BenchRecord& record);
// One line per DFSPH run of the record: iterations, ms per iteration and the ratio to the force pass.
void print_density_iteration_costs(std::ostream& out, const BenchRecord& record);

}  // namespace surge::app
