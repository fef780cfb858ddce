// Exported frames of a run: the initial frame and every K-th step, written through FrameExporter.
// Without formats or with K = 0 it writes nothing and creates no directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/backend/simulation.h"
#include "sim/io/exporters.h"

namespace surge::app {

class FrameWriter {
 public:
  FrameWriter(std::filesystem::path directory, std::string name, std::vector<ExportFormat> formats,
              int every);
  bool enabled() const { return exporter_.has_value(); }
  void write_if_due(Simulation& simulation, const StepStatus& status);
  int frames_written() const { return exporter_ ? exporter_->frames_written() : 0; }
  double seconds_spent() const { return seconds_spent_; }
  // Where a user finds the frames: the .pvd series when there is one, else the directory.
  std::filesystem::path location() const;

 private:
  std::filesystem::path directory_;
  std::string name_;
  bool has_series_ = false;
  int every_ = 0;
  std::optional<FrameExporter> exporter_;
  ParticleFrame frame_;
  double seconds_spent_ = 0.0;
};

}  // namespace surge::app
