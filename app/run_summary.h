// The report printed on stdout when a run ends.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/io/overlapped_exporter.h"

namespace surge::app {

struct RunSummary {
  std::string scene_name;
  std::string interrupted_by;  // "SIGINT", "SIGTERM": the run stopped early at `steps`, `simulated_s`
  std::string backend;
  // What the particles are: "fluid" (with boundary particles), "grains" (DEM) or "bodies" (n-body).
  std::string particle_kind = "fluid";
  std::size_t fluid_particles = 0;  // the moving particles: fluid, grains or bodies
  std::size_t boundary_particles = 0;
  long steps = 0;       // the step reached
  long first_step = 0;  // where this run started: a resumed run's checkpoint step, else 0
  double simulated_s = 0.0;
  // Seconds, or the dimensionless time of an n-body system (G = 1 units).
  std::string time_unit = "s";
  double setup_s = 0.0;   // before stepping: scene, particles, walls (CPU) and the first upload
  double upload_s = 0.0;  // of which copying to the GPU
  double wall_s = 0.0;    // the whole stepping loop, exports included
  double export_s = 0.0;  // of which the stepping thread spent on exports
  StageTimes stages;
  int frames_written = 0;
  std::string frames_location;          // FrameWriter::location(): every format's files
  std::size_t stale_files_removed = 0;  // an earlier run's files of the same series, replaced
  bool export_overlapped = false;       // a writer thread wrote the frames
  std::size_t export_queue_depth = 0;
  ExportTimes export_times;
  std::size_t export_bus_bytes = 0;  // device-to-host bytes of the exported frames
  std::size_t bus_bytes = 0;
  std::vector<NamedValue> figures;  // Simulation::step_figures() at the end: the solver's per-step figures
  // The checkpoint written last (empty: none), and the step it holds.
  std::string checkpoint_path;
  long checkpoint_step = 0;
  int checkpoints_written = 0;
};

void print_run_summary(std::ostream& out, const RunSummary& summary);

}  // namespace surge::app
