// The report printed on stdout when a run ends.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "sim/backend/simulation.h"

namespace surge::app {

struct RunSummary {
  std::string scene_name;
  std::string backend;
  std::size_t fluid_particles = 0;
  std::size_t boundary_particles = 0;
  long steps = 0;
  double simulated_s = 0.0;
  double wall_s = 0.0;    // the whole stepping loop, exports included
  double export_s = 0.0;  // of which writing frames
  StageTimes stages;
  int frames_written = 0;
  std::filesystem::path frames_location;
  std::size_t bus_bytes = 0;
  std::vector<NamedValue> figures;  // Simulation::step_figures() at the end: the solver's per-step figures
};

void print_run_summary(std::ostream& out, const RunSummary& summary);

}  // namespace surge::app
