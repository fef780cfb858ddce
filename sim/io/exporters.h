// Particle exports: VTK XML PolyData (.vtp, one per frame) with a .pvd series for ParaView, and binary
// little-endian PLY for Blender. Every file is written under a temporary name and renamed when complete,
// so a reader (or a crash) never sees half a file.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/particle_frame.h"
#include "sim/geometry/fluid_surface.h"

namespace surge {

// Writes through `fill` into "<path>.tmp", flushes, then renames onto `path`.
// Throws std::runtime_error naming the path and the reason; the temporary file is removed on failure.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill);

// Attributes: position (points), velocity (3 components), density, pressure, id. Float32, little-endian.
// `position_w`, when not empty, names what the positions' w holds (Simulation::position_w_name: a grain's
// "radius", a body's "mass"), written as one more attribute of that name (in the PLY after id).
void write_vtp(const std::filesystem::path& path, const ParticleFrame& frame,
               std::string_view position_w = {});
void write_ply(const std::filesystem::path& path, const ParticleFrame& frame,
               std::string_view position_w = {});

// vtk, ply: the particles; surface, obj: the fluid's surface mesh (sim/geometry/fluid_surface.h) as binary
// PLY (NAME_surface_000000.ply) or OBJ (NAME_surface_000000.obj); vdb: the same surface as an OpenVDB
// level set (NAME_surface_000000.vdb, sim/io/surface_vdb.h).
enum class ExportFormat { vtk, ply, surface, obj, vdb };
// Parses "vtk" / "ply" / "surface" / "obj" / "vdb" (as in scene files and --export); throws
// std::invalid_argument otherwise, and for vdb in a build without OpenVDB.
ExportFormat parse_export_format(const std::string& name);
// Whether `format` is made from the fluid's surface mesh (surface, obj, vdb), which needs a fluid.
constexpr bool meshes_surface(ExportFormat format) {
  return format == ExportFormat::surface || format == ExportFormat::obj || format == ExportFormat::vdb;
}

// Whether `file_name` belongs to the frame series `series_name`: NAME.pvd, NAME_<digits>.vtp or .ply, or
// one of those with ".tmp" (a write an earlier run did not finish).
bool is_series_file(const std::string& file_name, const std::string& series_name);
// Removes the files of the series `series_name` from `directory`, none other; returns their paths.
std::vector<std::filesystem::path> remove_series_files(const std::filesystem::path& directory,
                                                       const std::string& series_name);

// Where a frame series stands, for checkpoints (sim/io/checkpoint.h): frames written and the .pvd's
// entries, (time, .vtp file name); next_time_event is the time-spaced schedule's (app/frame_writer.h).
struct FrameSeriesState {
  int frames_written = 0;
  std::vector<std::pair<double, std::string>> series;
  long next_time_event = 0;
};

// Writes numbered frames into a directory: NAME_000000.vtp / .ply, and NAME.pvd listing every .vtp
// with its simulated time (rewritten atomically after each frame, so it is valid at every moment).
// Before its first frame it removes the series files an earlier run of the same name left there (a rerun
// replaces the series; files of other names are left alone).
class FrameExporter {
 public:
  // `surface` is how the surface formats mesh the particles (its spacing, the fluid's); they need one.
  FrameExporter(std::filesystem::path directory, std::string name, std::vector<ExportFormat> formats,
                FluidSurfaceSettings surface = {}, std::string position_w = {});
  // A resumed run's exporter: the series goes on from `state` (a checkpoint's). The frames it lists stay
  // (each must still be there: std::runtime_error naming the first missing one); the series files numbered
  // after them, which the interrupted run may have written past its checkpoint, are removed; the .pvd is
  // written again with the entries of `state`.
  void resume(const FrameSeriesState& state);
  // The series' entries are read back from the .pvd (the exporter holds none: its memory does not grow
  // with the frame count).
  FrameSeriesState state() const;
  // Creates the directory on first use. The surface formats mesh frame.position on the CPU
  // (extract_fluid_surface), unless `surface` is the frame's mesh already made where the particles live
  // (Simulation::mesh_fluid_surface, on the GPU); the particle formats read the frame's particles.
  void write(const ParticleFrame& frame, const FluidSurface* surface = nullptr);
  // Whether there are particle formats (vtk, ply): without them, and with the mesh made elsewhere, write()
  // reads only the frame's time and step.
  bool writes_particles() const;
  bool writes_surface() const;  // surface formats (surface, obj, vdb)
  const FluidSurfaceSettings& surface_settings() const { return surface_; }
  int frames_written() const { return frames_written_; }
  // Files of an earlier run's series removed before the first frame.
  std::size_t stale_files_removed() const { return stale_files_removed_; }
  // Every file of the series written so far, in the order written.
  std::vector<std::filesystem::path> files() const;

 private:
  std::filesystem::path directory_;
  std::string name_;
  std::vector<ExportFormat> formats_;
  FluidSurfaceSettings surface_;
  std::string position_w_;  // write_vtp's and write_ply's
  bool writes_vtk() const;
  std::filesystem::path pvd_path() const;
  int frames_written_ = 0;
  bool resumed_ = false;  // resume() has set the series up: the first write removes nothing
  std::size_t stale_files_removed_ = 0;
};

}  // namespace surge
