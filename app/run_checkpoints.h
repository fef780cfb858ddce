// Checkpoints of `surge run` (docs/checkpoints.md): --checkpoint-every K steps or --checkpoint-every-time T
// simulated seconds, written atomically to one file (by default OUT/NAME.checkpoint) that each checkpoint
// replaces; also at the end of the run and when Ctrl-C or SIGTERM ends it, so an interrupted run always
// leaves one. `--resume FILE` continues from it, refusing a checkpoint of another scene, solver, particle
// count or backend kind by name.
#pragma once

#include <filesystem>
#include <string>

#include "app/frame_writer.h"
#include "sim/io/checkpoint.h"
#include "sim/io/gauge_recorder.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"

namespace surge::app {

struct CheckpointPlan {
  std::filesystem::path path;
  long every_steps = 0;
  double every_time_s = 0;
  bool enabled() const { return every_steps > 0 || every_time_s > 0; }
};

// What a checkpoint of this run is for: the setup's hash over the scene file and the options that change
// the setup, the scene's name, the solver and the backend's kind ("cpu", "gpu"). Throws InputError when
// the scene file cannot be read again.
Checkpoint checkpoint_identity(const Scene& scene, long particles_override,
                               const std::string& density_override, const std::string& backend_kind,
                               const std::string& backend_description);

// Reads `path` and checks that it is a checkpoint of the run `identity` describes: InputError naming the
// file and what differs (and CheckpointError's reasons for a damaged or foreign file, as InputError).
Checkpoint read_checkpoint_for(const std::filesystem::path& path, const Checkpoint& identity);
// InputError naming the checkpoint `path` unless it had gauges exactly when `scene` has some.
void expect_same_gauges(const std::filesystem::path& path, const Checkpoint& checkpoint, const Scene& scene);

class RunCheckpoints {
 public:
  // `resumed`: the checkpoint the run continues from (its schedule goes on), or null.
  RunCheckpoints(CheckpointPlan plan, Checkpoint identity, const Checkpoint* resumed);

  bool enabled() const { return plan_.enabled(); }
  // After a completed step: whether the schedule has a checkpoint due (the step counts, or the first step
  // at or after each multiple of every_time_s).
  bool due(const StepStatus& status);
  // Writes one: the frames queued so far are written first, so that the files it lists are on disk.
  void write(Simulation& simulation, const StepStatus& status, FrameWriter& frames,
             const GaugeRecorder* gauges);
  // The steps of write() for a run that saves its state otherwise (on ranks: gathered, written by rank 0):
  // whether the last checkpoint was of this step (the end of the run fell on a scheduled one), the header
  // of one at `status` (what it is for, the clock, the run's outputs, the schedule; the state is the
  // caller's), and the count of one written.
  bool written_at(const StepStatus& status) const { return status.step == last_step_; }
  Checkpoint header(const StepStatus& status, FrameSeriesState frames, const GaugeRecorder* gauges) const;
  void count_written(const StepStatus& status);

  int written() const { return written_; }
  long last_step() const { return last_step_; }
  const std::filesystem::path& path() const { return plan_.path; }
  // "out/dam_break/dam_break.checkpoint, every 1000 steps, at the end and on Ctrl-C", for the run's first
  // lines; without `on_interrupt` (on ranks, which write none on Ctrl-C) "at the end".
  std::string plan(bool on_interrupt = true) const;

 private:
  CheckpointPlan plan_;
  Checkpoint identity_;
  TimeSchedule every_time_;
  int written_ = 0;
  long last_step_ = -1;
};

}  // namespace surge::app
