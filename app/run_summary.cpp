#include "app/run_summary.h"

#include <iomanip>
#include <optional>

#include "app/figure_report.h"
#include "app/number_format.h"
#include "app/stage_report.h"

namespace surge::app {
namespace {

constexpr int kLabelWidth = 18;

std::ostream& row(std::ostream& out, const char* label) {
  return out << "  " << std::left << std::setw(kLabelWidth) << label << std::right;
}

// How exporting shared the run with stepping (docs/lessons/6-trajectories.md).
void print_export_figures(std::ostream& out, const RunSummary& s) {
  const ExportTimes& t = s.export_times;
  const double frames = double(s.frames_written);
  if (s.export_overlapped) {
    row(out, "export") << "overlapped: a writer thread, queue of " << s.export_queue_depth << " frames\n";
    out << "    " << std::left << std::setw(kLabelWidth) << "stepping thread" << std::right << "snapshot "
        << fixed(t.snapshot_s, 3) << " s, blocked on a full queue " << fixed(t.blocked_s, 3)
        << " s, waiting at the end " << fixed(t.drain_s, 3) << " s\n";
    out << "    " << std::left << std::setw(kLabelWidth) << "writer thread" << std::right
        << fixed(1e3 * t.writer_s_per_frame(), 3)
        << " ms/frame (waiting for the copy, formatting, writing)\n";
  } else {
    row(out, "export") << "serial (--export-sync): the stepping thread downloads and writes\n";
    out << "    " << std::left << std::setw(kLabelWidth) << "stepping thread" << std::right << "download "
        << fixed(1e3 * t.snapshot_s / frames, 3) << " ms/frame, formatting and writing "
        << fixed(1e3 * t.writer_s_per_frame(), 3) << " ms/frame\n";
  }
  const auto per_frame = std::size_t(double(s.export_bus_bytes) / frames + 0.5);
  out << "    " << std::left << std::setw(kLabelWidth) << "bus per frame" << std::right
      << with_thousands(std::int64_t(per_frame)) << " bytes (" << binary_bytes(per_frame) << ")\n";
}

}  // namespace

void print_run_summary(std::ostream& out, const RunSummary& s) {
  // Rates over the steps this run took (a resumed run took those after its checkpoint).
  const long steps_run = s.steps - s.first_step;
  const double ms_per_step = steps_run > 0 ? 1e3 * s.wall_s / double(steps_run) : 0.0;
  const double particle_steps_per_s =
      s.wall_s > 0 ? double(s.fluid_particles) * double(steps_run) / s.wall_s : 0.0;

  out << "summary: " << s.scene_name << " on " << s.backend;
  if (!s.interrupted_by.empty()) {
    out << ", interrupted at step " << with_thousands(s.steps) << ", t = " << significant(s.simulated_s, 6)
        << " " << s.time_unit << " (" << s.interrupted_by << ")";
  }
  out << '\n';
  row(out, "particles") << with_thousands(std::int64_t(s.fluid_particles)) << " " << s.particle_kind;
  if (s.particle_kind == "fluid")
    out << " + " << with_thousands(std::int64_t(s.boundary_particles)) << " boundary";
  out << '\n';
  row(out, "steps") << with_thousands(s.steps);
  if (s.first_step > 0) out << " (resumed at step " << with_thousands(s.first_step) << ")";
  out << '\n';
  row(out, "simulated time") << significant(s.simulated_s, 6) << " " << s.time_unit << '\n';
  row(out, "setup") << fixed(s.setup_s, 3) << " s (scene and particles, on the CPU";
  if (s.upload_s > 0) out << "; of which copying to the GPU " << fixed(s.upload_s, 3) << " s";
  out << ")\n";
  row(out, "wall time") << fixed(s.wall_s, 3) << " s (of which exports held the stepping thread "
                        << fixed(s.export_s, 3) << " s)\n";
  row(out, "mean step") << fixed(ms_per_step, 3) << " ms\n";
  row(out, "throughput") << engineering(particle_steps_per_s) << " particle-steps/s (" << s.particle_kind
                         << ")\n";
  row(out, "stages") << "ms/step    share\n";
  for (const StageShare& stage : stage_shares(s.stages)) {
    out << "    " << std::left << std::setw(kLabelWidth - 2) << stage.name << std::right << std::setw(7)
        << fixed(stage.ms_per_step, 3) << "  " << std::setw(5) << fixed(100.0 * stage.share, 1) << " %\n";
  }
  row(out, "frames written") << s.frames_written;
  if (s.frames_written > 0) out << ": " << s.frames_location;
  if (s.stale_files_removed > 0)
    out << " (replacing " << s.stale_files_removed << " files an earlier run of this series left there)";
  out << '\n';
  if (s.frames_written > 0) print_export_figures(out, s);
  if (!s.checkpoint_path.empty()) {
    row(out, "checkpoint") << s.checkpoint_path << " (step " << with_thousands(s.checkpoint_step) << "; "
                           << s.checkpoints_written << " written)\n";
  }
  // Per-step solver figures, as "name  mean (max)" for the tallied ones (iterations, density error).
  bool header = false;
  for (const NamedValue& mean : s.figures) {
    const std::string& name = mean.name;
    if (name.size() < 5 || name.compare(name.size() - 5, 5, "_mean") != 0) continue;
    const std::string base = name.substr(0, name.size() - 5);
    double largest = 0;
    for (const NamedValue& f : s.figures)
      if (f.name == base + "_max") largest = std::get<double>(f.value);
    if (!header) row(out, "solver per step") << "mean (max)\n";
    header = true;
    out << "    " << std::left << std::setw(kLabelWidth + 10) << base << std::right
        << significant(std::get<double>(mean.value), 4) << " (" << significant(largest, 4) << ")\n";
  }
  // DFSPH: the iterations' time over their number, the cost of one density iteration.
  const std::optional<double> iterations = figure_value(s.figures, "density_iterations_mean");
  const std::optional<double> iterations_ms = figure_value(s.figures, "density_iterations_ms_mean");
  if (iterations && iterations_ms && *iterations > 0)
    out << "    " << std::left << std::setw(kLabelWidth + 10) << "ms per density iteration" << std::right
        << significant(*iterations_ms / *iterations, 4) << '\n';
  row(out, "bus traffic") << with_thousands(std::int64_t(s.bus_bytes)) << " bytes ("
                          << binary_bytes(s.bus_bytes) << ")\n";
  // The last step's figures; the tallied means and maxima are printed above.
  std::vector<NamedValue> last;
  for (const NamedValue& f : s.figures) {
    const auto ends_with = [&](const char* suffix) {
      const std::string tail(suffix);
      return f.name.size() > tail.size() &&
             f.name.compare(f.name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (!ends_with("_mean") && !ends_with("_max")) last.push_back(f);
  }
  if (!last.empty()) {
    out << "  at the end\n";
    print_figures(out, last, kLabelWidth + 8);
  }
}

}  // namespace surge::app
