// Exported frames of a run: the initial frame and every K-th step, or (every_time_s > 0) the first step at or
// after each multiple of every_time_s simulated seconds (sim/io/time_schedule.h), written through
// FrameExporter; each file carries its step's time. Without formats, or with neither K nor a time, it writes
// nothing and creates no directory.
// Two ways (docs/lessons/6-trajectories.md): serial, where the stepping thread downloads the particles and
// formats and writes the files itself while the simulation waits; or overlapped (the default), where it
// only snapshots them and a writer thread writes (sim/io/overlapped_exporter.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/io/exporters.h"
#include "sim/io/overlapped_exporter.h"
#include "sim/io/time_schedule.h"

namespace surge::app {

struct ExportPipeline {
  bool overlapped = true;       // false: --export-sync, the serial path
  std::size_t queue_depth = 2;  // overlapped: frames snapshotted but not yet written
};

class FrameWriter {
 public:
  // With `resume` (a checkpoint's), the series and the time schedule go on from it (FrameExporter::resume).
  FrameWriter(Simulation& simulation, std::filesystem::path directory, std::string name,
              std::vector<ExportFormat> formats, int every, ExportPipeline pipeline, double every_time_s = 0,
              const FrameSeriesState* resume = nullptr);
  bool enabled() const { return serial_.has_value() || overlapped_ != nullptr; }
  const ExportPipeline& pipeline() const { return pipeline_; }
  void write_if_due(const StepStatus& status);
  // Waits until every frame is on disk; rethrows a write error. Call before reading the figures.
  void finish();
  int frames_written() const;  // by this run
  // Where the series stands, for a checkpoint: waits for the frames queued so far to be written.
  FrameSeriesState state();
  // Files of an earlier run's series that the first frame replaced (FrameExporter); read after finish().
  std::size_t stale_files_removed() const;
  // Serial: snapshot_s is the download (and a GPU backend's surface mesh), writer_s the formatting and
  // writing, both on the stepping thread.
  ExportTimes times() const;
  // Seconds the stepping thread spent on exports: what the run lost to them.
  double seconds_spent() const { return times().stepping_thread_s() + (serial_ ? times().writer_s : 0.0); }
  // Where a user finds the frames, every format named: "out/d/d.pvd (VTK series), out/d/d_*.ply (PLY)".
  std::string location() const;
  // The same with the schedule, for the run's first lines: "... every 0.05 s of simulated time"; says so
  // when nothing will be written.
  std::string plan() const;

 private:
  Simulation& simulation_;
  std::filesystem::path directory_;
  std::string name_;
  std::vector<ExportFormat> formats_;
  int every_ = 0;
  // Frames every_time_s simulated seconds apart instead (sim/io/time_schedule.h), from the run's first frame.
  TimeSchedule every_time_;
  ExportPipeline pipeline_;
  std::optional<FrameExporter> serial_;
  std::unique_ptr<OverlappedExporter> overlapped_;
  ParticleFrame frame_;
  ExportTimes serial_times_;
  int frames_before_ = 0;  // in the series before this run (a resumed one)
};

}  // namespace surge::app
