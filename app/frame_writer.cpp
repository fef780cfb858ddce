#include "app/frame_writer.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <utility>
#include <variant>

#include "app/exit_codes.h"

namespace surge::app {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

FrameWriter::FrameWriter(Simulation& simulation, std::filesystem::path directory, std::string name,
                         std::vector<ExportFormat> formats, int every, ExportPipeline pipeline,
                         double every_time_s, const FrameSeriesState* resume)
    : simulation_(simulation),
      directory_(std::move(directory)),
      name_(std::move(name)),
      formats_(formats),
      every_(every),
      every_time_(every_time_s, resume != nullptr ? resume->next_time_event : 0),
      pipeline_(pipeline) {
  if ((every_ <= 0 && !every_time_.enabled()) || formats.empty()) return;
  // The surface formats mesh the fluid at its particle spacing (sim/geometry/fluid_surface.h).
  FluidSurfaceSettings surface;
  for (const NamedValue& value : simulation_.parameters())
    if (value.name == "spacing_m") surface.spacing = float(std::get<double>(value.value));
  const bool meshes = std::find_if(formats.begin(), formats.end(), meshes_surface) != formats.end();
  if (meshes && !(surface.spacing > 0))
    throw InputError(
        "export formats surface, obj and vdb mesh a fluid's surface; this scene's particles are not a fluid");
  FrameExporter exporter(directory_, name_, std::move(formats), surface, simulation_.position_w_name());
  if (resume != nullptr) {
    exporter.resume(*resume);
    frames_before_ = resume->frames_written;
  }
  if (pipeline_.overlapped) {
    overlapped_ =
        std::make_unique<OverlappedExporter>(simulation_, std::move(exporter), pipeline_.queue_depth);
  } else {
    serial_.emplace(std::move(exporter));
  }
}

void FrameWriter::write_if_due(const StepStatus& status) {
  if (!enabled()) return;
  if (every_time_.enabled() ? !every_time_.take(status.time_s) : status.step % every_ != 0) return;
  if (overlapped_) {
    overlapped_->submit(status);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  // A GPU backend meshes the surface where the particles are; they are downloaded only for particle formats.
  FluidSurface surface;
  const bool meshed =
      serial_->writes_surface() && simulation_.mesh_fluid_surface(serial_->surface_settings(), surface);
  if (serial_->writes_particles() || !meshed)
    simulation_.download(frame_);
  else
    frame_.resize(0);
  serial_times_.snapshot_s += seconds_since(start);
  // The frame is stamped from the status the caller already holds, so file times match the progress shown.
  frame_.step = status.step;
  frame_.time_s = status.time_s;
  const auto write_start = std::chrono::steady_clock::now();
  serial_->write(frame_, meshed ? &surface : nullptr);
  serial_times_.writer_s += seconds_since(write_start);
  serial_times_.frames_written = serial_->frames_written() - frames_before_;
}

void FrameWriter::finish() {
  if (overlapped_) overlapped_->finish();
}

FrameSeriesState FrameWriter::state() {
  FrameSeriesState state;
  if (overlapped_) {
    overlapped_->finish();
    state = overlapped_->exporter().state();
  } else if (serial_) {
    state = serial_->state();
  }
  state.next_time_event = every_time_.next_event();
  return state;
}

int FrameWriter::frames_written() const {
  return times().frames_written;
}

std::size_t FrameWriter::stale_files_removed() const {
  if (overlapped_) return overlapped_->exporter().stale_files_removed();
  return serial_ ? serial_->stale_files_removed() : 0;
}

ExportTimes FrameWriter::times() const {
  return overlapped_ ? overlapped_->times() : serial_times_;
}

std::string FrameWriter::location() const {
  std::string text;
  for (ExportFormat format : formats_) {
    if (!text.empty()) text += ", ";
    switch (format) {
      case ExportFormat::vtk:
        text += (directory_ / (name_ + ".pvd")).string() + " (VTK series)";
        break;
      case ExportFormat::ply:
        text += (directory_ / (name_ + "_*.ply")).string() + " (PLY)";
        break;
      case ExportFormat::surface:
        text += (directory_ / (name_ + "_surface_*.ply")).string() + " (surface mesh, PLY)";
        break;
      case ExportFormat::obj:
        text += (directory_ / (name_ + "_surface_*.obj")).string() + " (surface mesh, OBJ)";
        break;
      case ExportFormat::vdb:
        text += (directory_ / (name_ + "_surface_*.vdb")).string() + " (surface level set, OpenVDB)";
        break;
    }
  }
  return text.empty() ? directory_.string() : text;
}

std::string FrameWriter::plan() const {
  if (!enabled()) return "no frames are written (no export formats or no schedule)";
  std::ostringstream when;
  if (every_time_.enabled())
    when << "every " << every_time_.every_s() << " s of simulated time";
  else
    when << "every " << every_ << (every_ == 1 ? " step" : " steps");
  return location() + ", " + when.str();
}

}  // namespace surge::app
