// The gauges' CSV: a header `time_s,<column>,...`, then one row per sample (time_schedule.h: the first step
// at or after each multiple of every_time, stamped with that step's time). Rows go to "<path>.tmp", flushed
// each, so a crash loses at most the row being written; finish() renames the file into place, as the
// exporters do (sim/io/exporters.h). Columns: a pressure gauge's name [Pa], a level gauge's [m], a velocity
// gauge's NAME_x, NAME_y, NAME_z [m/s]; with a filter time each column has a `_filtered` twin after it.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/step_status.h"
#include "sim/io/file_output_buffer.h"
#include "sim/io/temporary_files.h"
#include "sim/io/time_schedule.h"
#include "sim/sph/gauge.h"

namespace surge {

// y += (1 - exp(-dt / tau)) (x - y), starting at the first sample: a first-order low-pass with time
// constant tau over samples dt apart (dt may vary).
struct FilterState {
  double y = 0, last_time_s = 0;
  bool started = false;
};

class FirstOrderFilter {
 public:
  explicit FirstOrderFilter(double tau_s) : tau_s_(tau_s) {}
  FilterState state() const { return {y_, last_time_s_, started_}; }
  void restore(const FilterState& state) {
    y_ = state.y;
    last_time_s_ = state.last_time_s;
    started_ = state.started;
  }
  double update(double x, double time_s) {
    if (!started_) {
      y_ = x;
      started_ = true;
    } else {
      y_ += (1.0 - std::exp(-(time_s - last_time_s_) / tau_s_)) * (x - y_);
    }
    last_time_s_ = time_s;
    return y_;
  }

 private:
  double tau_s_;
  double y_ = 0, last_time_s_ = 0;
  bool started_ = false;
};

// Where a gauge CSV stands, for checkpoints (sim/io/checkpoint.h): rows and bytes written, the schedule's
// next event and each low-pass filter's state.
struct GaugeRecorderState {
  int rows = 0;
  std::uint64_t bytes = 0;
  long next_event = 0;
  std::vector<FilterState> filters;
};

class GaugeRecorder {
 public:
  // Hands the probes to `source` (which must take them: an SPH solver) and opens the CSV. Samples start
  // at the first multiple of every_time after `start_time_s` (a run's first step builds what they read).
  // With `resume` (a checkpoint's), the CSV goes on from it: its first resume->bytes bytes are taken from the
  // file the interrupted run left (the renamed CSV, or the .tmp a crash left), the rows it wrote after the
  // checkpoint are dropped, and the schedule and filters continue. std::runtime_error when neither file
  // holds those bytes. With an empty `path` nothing is written: on ranks every rank samples on the same
  // schedule (a sample is a collective) and rank 0 alone writes the CSV.
  GaugeRecorder(GaugeSource& source, const std::vector<GaugeDefinition>& gauges, const GaugeOutput& output,
                std::filesystem::path path, double start_time_s = 0.0,
                const GaugeRecorderState* resume = nullptr);
  ~GaugeRecorder();
  GaugeRecorder(const GaugeRecorder&) = delete;
  GaugeRecorder& operator=(const GaugeRecorder&) = delete;

  // After a step: a row when a sample is due.
  void sample_if_due(const StepStatus& status);
  // Closes the CSV and renames it into place; rethrows a write error.
  void finish();

  int rows_written() const { return rows_; }
  GaugeRecorderState state() const;
  const std::filesystem::path& path() const { return path_; }
  static std::vector<std::string> columns(const std::vector<GaugeDefinition>& gauges, bool filtered);

 private:
  GaugeSource& source_;
  std::filesystem::path path_, temporary_;
  std::unique_ptr<TemporaryFileInFlight> in_flight_;  // the .tmp until finish() renames it
  std::unique_ptr<FileOutputBuffer> file_;
  std::ostream out_{nullptr};
  TimeSchedule schedule_;
  std::vector<FirstOrderFilter> filters_;  // one per value; empty without a filter time
  std::vector<float> values_;
  int rows_ = 0;
  std::uint64_t bytes_ = 0;  // written to the CSV so far, header included
  bool finished_ = false;
};

}  // namespace surge
