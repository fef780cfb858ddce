#include "app/frame_writer.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace surge::app {

FrameWriter::FrameWriter(std::filesystem::path directory, std::string name, std::vector<ExportFormat> formats,
                         int every)
    : directory_(std::move(directory)),
      name_(std::move(name)),
      has_series_(std::find(formats.begin(), formats.end(), ExportFormat::vtk) != formats.end()),
      every_(every) {
  if (every_ > 0 && !formats.empty()) exporter_.emplace(directory_, name_, std::move(formats));
}

void FrameWriter::write_if_due(Simulation& simulation, const StepStatus& status) {
  if (!exporter_ || status.step % every_ != 0) return;
  const auto start = std::chrono::steady_clock::now();
  simulation.download(frame_);
  // The frame is stamped from the status the caller already holds, so file times match the progress shown.
  frame_.step = status.step;
  frame_.time_s = status.time_s;
  exporter_->write(frame_);
  seconds_spent_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::filesystem::path FrameWriter::location() const {
  return has_series_ ? directory_ / (name_ + ".pvd") : directory_;
}

}  // namespace surge::app
