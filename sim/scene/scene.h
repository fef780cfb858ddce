// The scene model: what a scene file (scenes/*.toml, documented in docs/scenes.md) says, in SI units,
// already range-checked. load_scene() fills it; build_setup() turns it into particles.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/solver_kind.h"
#include "sim/core/vec.h"
#include "sim/dem/dem_scene.h"
#include "sim/geometry/solid.h"
#include "sim/nbody/nbody_scene.h"
#include "sim/scene/render_look.h"
#include "sim/sph/body_motion.h"
#include "sim/sph/fluid_scene_keys.h"
#include "sim/sph/gauge.h"
#include "sim/sph/kernels.h"
#include "sim/sph/solver_parameters.h"

namespace surge {

// A scene that cannot be used. what() reads "FILE:LINE: key 'KEY': PROBLEM" so a user can go straight to it;
// a problem in the text itself (a syntax error, a byte TOML does not allow) reads "FILE:LINE:COLUMN:
// PROBLEM"; one with a command-line option that replaces a scene key (--particles) reads "FILE: option
// '--particles': PROBLEM"; one with the file as a whole (it cannot be opened) is the message alone.
class SceneError : public std::runtime_error {
 public:
  SceneError(std::filesystem::path file, int line, std::string key, const std::string& problem);
  static SceneError at_position(std::filesystem::path file, int line, int column, const std::string& problem);
  static SceneError about_file(std::filesystem::path file, const std::string& message);
  const std::filesystem::path& file() const { return file_; }
  int line() const { return line_; }      // 0 when the problem has no line (missing file, an option)
  int column() const { return column_; }  // 0 unless the problem is at a position in the text
  const std::string& key() const { return key_; }

 private:
  SceneError(std::filesystem::path file, int line, int column, std::string key, const std::string& what);
  std::filesystem::path file_;
  int line_;
  int column_ = 0;
  std::string key_;
};

struct FluidBlock {
  enum class Shape { box, sphere };
  Shape shape = Shape::box;
  Vec3f min{}, max{};   // box corners [m]
  Vec3f center{};       // sphere centre [m]
  float radius = 0.0f;  // sphere radius [m]
  Vec3f velocity{};     // initial velocity [m/s]
  int line = 0;         // line of the block's table in the scene file
};

// [[emitter]]: a nozzle that adds fluid while the simulation runs (sim/sph/emitter.h).
struct EmitterSettings {
  enum class Shape { circle, square };
  Shape shape = Shape::circle;
  Vec3f center{};          // centre of the outlet [m]
  Vec3f direction{};       // unit vector along the jet (normalised by the loader)
  float radius = 0.0f;     // disc radius, or half the side of a square [m]
  float speed = 0.0f;      // [m/s]
  float start = 0.0f;      // first layer [s]
  float end = 0.0f;        // last layer [s]; 0 = until the run ends
  long max_particles = 0;  // particles allocated for the emitter beyond the initial fluid
  int line = 0;            // line of the table in the scene file
};

// [[solid]]: an obstacle in the fluid (sim/geometry), placed in the world; fixed, moving by a prescribed
// motion, or floating (sim/sph/body_motion.h). Setup leaves the fluid out of its volume and samples its
// surface into boundary particles, on the fluid's lattice, like the walls.
struct SolidSettings {
  std::string name;                    // unique; names its gauges' columns ("solid0", ... unless given)
  std::string shape;                   // "box", "sphere", "cylinder" or "mesh", as the file names it
  std::filesystem::path mesh_file;     // a mesh's file, resolved against the scene file's folder
  std::shared_ptr<const Solid> solid;  // shared: a Scene is copied (the viewer restarts from it)
  int layers = 0;                      // boundary particle layers behind its surface
  Vec3d center{};                      // where the scene placed it: the reference point of its motion [m]
  BodyMotion motion;                   // kind and prescribed constants, SI units and radians
  std::vector<MotionTableRow> table;   // motion = "table": the CSV's rows
  double density = 0;                  // motion = "floating" [kg/m^3]
  int line = 0;                        // line of the table in the scene file
};

// Faces of the domain box, in the order of Scene::walls.
enum class Face { x_min, x_max, y_min, y_max, z_min, z_max };
inline constexpr std::array<const char*, 6> kFaceNames = {"x-", "x+", "y-", "y+", "z-", "z+"};

// A scene file: the SPH family's [resolution], [fluid] and [time] keys (FluidSceneKeys), and the rest.
struct Scene : FluidSceneKeys {
  std::filesystem::path path;
  std::string name;
  SolverKind solver = SolverKind::wcsph;

  // [domain]: the tank interior. Particles leaving it end the run with a diagnosis.
  Vec3f domain_min{}, domain_max{};  // [m]
  std::array<bool, 6> walls{};       // faces lined with boundary particles, indexed by Face
  int wall_layers = 2;               // boundary particle layers per wall
  std::array<bool, 6> slip_walls{};  // walls among `walls` without a viscous term (free-slip), by Face

  // [[fluid.block]], [[emitter]] and [[solid]]
  std::vector<FluidBlock> blocks;
  std::vector<EmitterSettings> emitters;  // [[emitter]]: none or one
  std::vector<SolidSettings> solids;

  // [dfsph], [pbf]: settings of the incompressible solvers; a table for another solver than the scene's is an
  // error.
  DfsphParameters dfsph;
  PbfParameters pbf;

  // [dem] and [[dem.block]]: the granular solver's contact law, gravity and grains (solver = "dem").
  DemScene dem;

  // [nbody]: only for solver = "nbody", which reads no [domain], [resolution] or [fluid]
  NbodySceneSettings nbody;

  // [output]
  std::string output_dir;            // relative to the working directory
  std::vector<std::string> formats;  // "vtk", "ply", "surface", "obj"
  int every = 0;                     // steps between exported frames; 0 = no export
  float every_time = 0;              // simulated seconds between exported frames [s]; 0 = by `every`

  // [render] (read_render.cpp): how the renderer draws it.
  RenderLook render;

  // [[gauge]] and [gauges] (read_gauges.cpp): probes of the SPH solvers, sampled into a CSV.
  std::vector<GaugeDefinition> gauges;
  GaugeOutput gauge_output;

  // Line of each key as "table.key" (e.g. "resolution.particles"), for errors found after loading.
  std::map<std::string, int> key_lines;
  int line_of(const std::string& key) const {
    auto it = key_lines.find(key);
    return it == key_lines.end() ? 0 : it->second;
  }
};

// A pressure gauge in a scene whose solver (perhaps set by --solver after loading) has no physical pressure
// (PBF): throws SceneError at the gauge's line.
void check_gauges_for_solver(const Scene& scene);

// Reads, checks and returns a scene. Throws SceneError naming file, line, key and what was expected.
Scene load_scene(const std::filesystem::path& file);
// The same from text already in memory; `file` is used in messages only.
Scene parse_scene(const std::string& text, const std::filesystem::path& file);

}  // namespace surge
