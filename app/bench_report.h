// Benchmark results: the table on stdout and the JSON record (machine, GPU, version, parameters, runs).
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"

namespace surge::app {

struct BenchRun {
  std::size_t fluid_particles = 0;
  std::size_t boundary_particles = 0;
  std::string backend;   // "cpu" or "gpu"
  long steps = 0;        // timed steps, after the warm-up
  double seconds = 0.0;  // wall time of the timed steps, up to the device being idle
  StageTimes stages;
  std::vector<NamedValue> parameters;  // Simulation::parameters(): some depend on the particle count
  std::vector<NamedValue> figures;     // Simulation::step_figures() after the timed steps; often empty

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
};

nlohmann::ordered_json bench_json(const BenchRecord& record);

}  // namespace surge::app
