// Scene files (format: docs/scenes.md) read with toml++. Every value is type- and range-checked when the file
// loads, so the engine never sees a bad parameter and the user sees the file, line and key of each mistake.
//
// This file reads the top level and the tables every solver shares ([domain], [time], [output]) and hands
// each family's tables to its reader (family_readers.h); toml_reader.h does the reading itself.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "sim/io/surface_vdb.h"
#include "sim/scene/family_readers.h"
#include "sim/scene/scene_text.h"
#include "sim/sph/fluid_parameter_specs.h"

namespace surge {

namespace {

std::string scene_error_text(const std::filesystem::path& file, int line, const std::string& key,
                             const std::string& problem) {
  if (line == 0 && key.starts_with("--")) return file.string() + ": option '" + key + "': " + problem;
  return file.string() + ":" + std::to_string(line) + ": key '" + key + "': " + problem;
}

}  // namespace

SceneError::SceneError(std::filesystem::path file, int line, std::string key, const std::string& problem)
    : std::runtime_error(scene_error_text(file, line, key, problem)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

SceneError::SceneError(std::filesystem::path file, int line, int column, std::string key,
                       const std::string& what)
    : std::runtime_error(what), file_(std::move(file)), line_(line), column_(column), key_(std::move(key)) {}

SceneError SceneError::at_position(std::filesystem::path file, int line, int column,
                                   const std::string& problem) {
  const std::string what =
      file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + problem;
  return SceneError(std::move(file), line, column, "", what);
}

SceneError SceneError::about_file(std::filesystem::path file, const std::string& message) {
  return SceneError(std::move(file), 0, 0, "", message);
}

namespace {

constexpr std::array<std::string_view, 5> kSolvers = {
    solver_name(kSolverKinds[0]), solver_name(kSolverKinds[1]), solver_name(kSolverKinds[2]),
    solver_name(kSolverKinds[3]), solver_name(kSolverKinds[4])};
constexpr std::array<std::string_view, 5> kFormats = {"vtk", "ply", "surface", "obj", "vdb"};
constexpr std::array<std::string_view, 6> kFaces = {kFaceNames[0], kFaceNames[1], kFaceNames[2],
                                                    kFaceNames[3], kFaceNames[4], kFaceNames[5]};
// A wall layer must be at least one particle thick; beyond 4 the extra layers sit outside any kernel support.
constexpr IntegerRange kWallLayers{1, 4};
constexpr IntegerRange kEvery{0, std::numeric_limits<int>::max()};

// What makes `name` unusable as the stem of output file names, quoted for a message; "" when it is fine.
// "." and ".." name directories (NAME.pvd would land beside the output directory, not in it), a separator
// would write elsewhere, and control characters end up in the .pvd's XML, which may not hold them.
std::string file_name_problem(const std::string& name) {
  constexpr std::size_t kMaxBytes = 200;  // NAME_000000.vtp.tmp within the usual 255-byte file name limit
  if (name.empty()) return "\"\" (an empty name)";
  if (name == "." || name == "..") return "\"" + name + "\" (a directory, not a file name)";
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", byte);
      return "a control character (" + std::string(code) + ")";
    }
  }
  if (name.find_first_of("/\\") != std::string::npos)
    return "\"" + name + "\" (with a path separator; output.dir sets the directory)";
  if (name.size() > kMaxBytes)
    return "a name of " + std::to_string(name.size()) + " bytes (at most " + std::to_string(kMaxBytes) + ")";
  return "";
}

void read_identity(const TableReader& root, Scene& scene) {
  if (auto name = root.string("name")) {
    if (const std::string problem = file_name_problem(*name); !problem.empty())
      root.fail("name", "expected a file name (it names the output files, NAME_000000.vtp), got " + problem);
    scene.name = *name;
  } else {
    scene.name = scene.path.stem().string();
    if (scene.name.empty()) scene.name = "scene";
  }
  if (auto solver = root.choice("solver", kSolvers)) scene.solver = *parse_solver_kind(*solver);
}

// slip_walls: faces among `walls` whose particles take no viscous term. Only WCSPH's walls have one (its
// artificial viscosity against the wall particles); DFSPH's and PBF's viscosity sums fluid neighbours only,
// so their walls are free-slip already, and the key changes nothing there.
void read_slip_walls(const TableReader& domain, Scene& scene) {
  const auto slip = domain.distinct_names("slip_walls", kFaces);
  if (!slip) return;
  if (scene.solver == SolverKind::dem) {
    domain.fail("slip_walls",
                "does not apply to solver \"dem\" (its walls' friction is the contact law's, [dem] "
                "wall_model)");
  }
  for (const std::string& face : *slip) {
    const auto f = static_cast<std::size_t>(std::find(kFaces.begin(), kFaces.end(), face) - kFaces.begin());
    if (!scene.walls[f]) {
      domain.fail("slip_walls", "expected faces among `walls`, got \"" + face +
                                    "\", which has no wall (add it to `walls`)");
    }
    scene.slip_walls[f] = true;
  }
}

void read_domain(const TableReader& domain, Scene& scene) {
  static constexpr std::array<std::string_view, 5> kKeys = {"min", "max", "walls", "wall_layers",
                                                            "slip_walls"};
  domain.reject_unknown_keys(kKeys);
  scene.domain_min = domain.required(domain.vec3("min", "m"), "min", "an array of 3 numbers [m]");
  scene.domain_max = domain.required(domain.vec3("max", "m"), "max", "an array of 3 numbers [m]");
  for (int axis = 0; axis < 3; ++axis) {
    if (!(component(scene.domain_max, axis) > component(scene.domain_min, axis))) {
      domain.fail("max", std::string("expected each component greater than min's, got ") + kAxisNames[axis] +
                             ": max " + format_number(component(scene.domain_max, axis)) + " <= min " +
                             format_number(component(scene.domain_min, axis)));
    }
  }

  // An open top is the usual tank: a lid would only matter for splashes that reach it.
  scene.walls = {true, true, true, true, true, false};
  if (auto walls = domain.distinct_names("walls", kFaces)) {
    scene.walls.fill(false);
    for (const std::string& wall : *walls) {
      scene.walls[static_cast<std::size_t>(std::find(kFaces.begin(), kFaces.end(), wall) - kFaces.begin())] =
          true;
    }
  }
  if (scene.solver == SolverKind::dem && domain.has("wall_layers")) {
    domain.fail("wall_layers",
                "does not apply to solver \"dem\" (its walls are the planes of the domain "
                "faces; build thicker walls from fixed grains, [[dem.block]] fixed = true)");
  }
  if (auto layers = domain.integer("wall_layers", kWallLayers)) scene.wall_layers = static_cast<int>(*layers);
  read_slip_walls(domain, scene);
}

void read_time(const TableReader& time, Scene& scene) {
  time.reject_unknown_keys(keys_of(time_parameter_specs(), {}));
  if (scene.solver == SolverKind::nbody) {
    for (std::string_view key : {"cfl", "dt_max", "dt_min"})
      if (time.has(key)) time.fail(key, "does not apply to solver \"nbody\" (its fixed step is nbody.dt)");
  }
  if (scene.solver == SolverKind::dem) {
    for (std::string_view key : {"cfl", "dt_max", "dt_min"}) {
      if (time.has(key)) {
        time.fail(key,
                  "does not apply to solver \"dem\" (its time step is fixed: [dem] time_step, or "
                  "collision_time_fraction x the contact's collision time)");
      }
    }
  }
  read_parameters(time, time_parameter_specs(), scene);
  if (!(scene.dt_min < scene.dt_max)) {
    // Blame the key the user wrote; if both are written, dt_min (the one a typo most often breaks).
    const std::string_view key = time.has("dt_min") || !time.has("dt_max") ? "dt_min" : "dt_max";
    time.fail(key, "expected dt_min < dt_max, got dt_min " + format_number(scene.dt_min) + " [s] >= dt_max " +
                       format_number(scene.dt_max) + " [s]");
  }
}

void read_output(const TableReader& output, Scene& scene) {
  static constexpr std::array<std::string_view, 4> kKeys = {"dir", "formats", "every", "every_time"};
  output.reject_unknown_keys(kKeys);
  scene.output_dir = "out/" + scene.name;
  if (auto dir = output.string("dir")) {
    if (dir->empty()) output.fail("dir", "expected a non-empty directory path, got \"\"");
    scene.output_dir = *dir;
  }
  if (auto formats = output.distinct_names("formats", kFormats)) {
    if (std::find(formats->begin(), formats->end(), "vdb") != formats->end() && !vdb_export_available())
      output.fail("formats", std::string("\"vdb\": ") + kNoOpenVdb);
    scene.formats = *formats;
  }
  if (output.has("every") && output.has("every_time")) {
    const bool time_later = output.line_of("every_time") > output.line_of("every");
    output.fail(time_later ? "every_time" : "every",
                "give exactly one of 'every' (steps between frames) and 'every_time' (simulated seconds "
                "between frames), not both");
  }
  if (auto every = output.integer("every", kEvery)) scene.every = static_cast<int>(*every);
  if (auto every_time = output.number("every_time", "s", ValueRange::above(0)))
    scene.every_time = *every_time;
}

// [dfsph] and [pbf] may stand in any SPH scene: they apply when that solver runs, from the scene or from
// --solver. Bodies have no use for them.
void reject_sph_tables_in_nbody_scene(const TableReader& top, const Scene& scene) {
  if (scene.solver != SolverKind::nbody) return;
  for (std::string_view table : {"dfsph", "pbf"}) {
    if (top.has(table)) {
      top.fail(table,
               "table [" + std::string(table) + "] applies to SPH scenes; this scene's solver is \"nbody\"");
    }
  }
}

}  // namespace

Scene parse_scene(const std::string& text, const std::filesystem::path& file) {
  // toml++ 3.3.0 (Debian's) has undefined behaviour on some inputs it should simply reject (scene_text.h);
  // the text is checked for those first.
  check_scene_text(text, file);
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(file.string()));
  } catch (const toml::parse_error& error) {
    const toml::source_position at = error.source().begin;
    throw SceneError::at_position(file, int(at.line), int(at.column), std::string(error.description()));
  }

  Scene scene;
  scene.path = file;
  const TableReader top(root, "", 0, file, scene);
  static constexpr std::array<std::string_view, 16> kTopKeys = {
      "name",  "solver", "domain", "resolution", "fluid", "nbody",  "time",  "output",
      "dfsph", "pbf",    "dem",    "emitter",    "gauge", "gauges", "solid", "render"};
  top.reject_unknown_keys(kTopKeys);
  read_identity(top, scene);
  // Each solver has its own tables; one of another solver's is a mistake, not something to ignore.
  if (top.has("dem") && scene.solver != SolverKind::dem)
    top.fail("dem", "applies to solver = \"dem\" only (this scene's solver is \"" +
                        std::string(solver_name(scene.solver)) + "\")");
  if (scene.solver == SolverKind::nbody) {
    // Bodies fly free: no tank, no lattice, no fluid.
    for (std::string_view key : {"domain", "resolution", "fluid"})
      if (top.has(key))
        top.fail(key, "does not apply to solver \"nbody\" (bodies are placed by [[nbody.system]])");
    read_nbody(top.table("nbody", true), scene);
  } else if (scene.solver == SolverKind::dem) {
    // Grains fill [[dem.block]] tables, sized by their grain_radius: no lattice spacing, no fluid.
    for (std::string_view key : {"nbody", "resolution", "fluid"})
      if (top.has(key))
        top.fail(key,
                 "does not apply to solver \"dem\" (grains are [[dem.block]] tables; their size is "
                 "grain_radius)");
    read_domain(top.table("domain", true), scene);
    read_dem(top.table("dem", true), scene);
  } else {
    if (top.has("nbody"))
      top.fail("nbody", "applies to solver = \"nbody\" only (this scene's solver is \"" +
                            std::string(solver_name(scene.solver)) + "\")");
    read_domain(top.table("domain", true), scene);
    read_resolution(top.table("resolution", true), scene);
    read_fluid(top.table("fluid", false), scene);
  }
  read_emitters(top, scene);
  read_solids(top, scene);
  read_time(top.table("time", false), scene);
  read_output(top.table("output", false), scene);
  read_render(top.table("render", false), scene);
  read_dfsph(top.table("dfsph", false), scene);
  read_pbf(top.table("pbf", false), scene);
  reject_sph_tables_in_nbody_scene(top, scene);
  reject_wcsph_keys_of_other_solvers(scene);
  read_gauges(top, scene);
  return scene;
}

Scene load_scene(const std::filesystem::path& file) {
  std::ifstream in;
  errno = 0;
  in.open(file, std::ios::binary);
  // errno is the reason the open failed; a directory opens as a stream and fails only at reading.
  const int open_error = errno;
  if (!in) {
    throw SceneError::about_file(
        file, "cannot open " + file.string() + ": " + std::strerror(open_error != 0 ? open_error : ENOENT));
  }
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(file, ignored)) {
    throw SceneError::about_file(
        file, "cannot read " + file.string() + ": " +
                  (std::filesystem::is_directory(file, ignored) ? std::string(std::strerror(EISDIR))
                                                                : std::string("not a regular file")));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scene(text.str(), file);
}

}  // namespace surge
