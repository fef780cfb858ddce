// [[solid]] blocks of the SPH solvers (docs/scenes.md, "Solids"): fixed obstacles, from an analytic shape or
// a closed triangle mesh (OBJ, STL), scaled, rotated and placed. The geometry is sim/geometry's; this file
// turns a table into a placed Solid, and a GeometryError into a SceneError at the key that caused it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/geometry/geometry_error.h"
#include "sim/geometry/mesh_import.h"
#include "sim/geometry/place_solid.h"
#include "sim/geometry/solid_overlap.h"
#include "sim/scene/family_readers.h"

namespace surge {

namespace {

constexpr std::array<std::string_view, 4> kSolidShapes = {"box", "sphere", "cylinder", "mesh"};
constexpr std::array<std::string_view, 7> kMotions = {"fixed",  "linear", "oscillate", "hinge",
                                                      "rotate", "table",  "floating"};
constexpr double kDegree = 3.14159265358979323846 / 180.0;
constexpr IntegerRange kLayers{1, 8};

Vec3d to_double(Vec3f v) {
  return {double(v.x), double(v.y), double(v.z)};
}

double axis_of(Vec3d v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

// The keys each shape takes besides `shape`, `rotation` and `layers`.
std::string_view shape_keys(std::string_view shape) {
  if (shape == "box") return "min and max, or center and size";
  if (shape == "sphere") return "center, radius";
  if (shape == "cylinder") return "center, radius, height (its axis is z before the rotation)";
  return "file, scale, center";
}

void reject_foreign_keys(const TableReader& table, std::string_view shape) {
  struct Owned {
    std::string_view key;
    std::array<std::string_view, 2> shapes;
  };
  static constexpr std::array<Owned, 7> kOwned = {{{"min", {"box", ""}},
                                                   {"max", {"box", ""}},
                                                   {"size", {"box", ""}},
                                                   {"radius", {"sphere", "cylinder"}},
                                                   {"height", {"cylinder", ""}},
                                                   {"file", {"mesh", ""}},
                                                   {"scale", {"mesh", ""}}}};
  for (const Owned& owned : kOwned) {
    if (!table.has(owned.key)) continue;
    if (std::find(owned.shapes.begin(), owned.shapes.end(), shape) != owned.shapes.end()) continue;
    table.fail(owned.key, "does not apply to a \"" + std::string(shape) + "\" solid (it takes " +
                              std::string(shape_keys(shape)) + ", rotation, layers)");
  }
}

Vec3d required_vec3(const TableReader& table, std::string_view key) {
  return to_double(table.required(table.vec3(key, "m"), key, "an array of 3 numbers [m]"));
}

double required_length(const TableReader& table, std::string_view key) {
  return table.required(table.number(key, "m", ValueRange::above(0)), key, "a number > 0 [m]");
}

// A mesh's scale: one number for all axes, or one per axis.
Vec3d read_scale(const TableReader& table) {
  const toml::node* node = table.get("scale");
  if (!node) return {1.0, 1.0, 1.0};
  if (node->is_array()) {
    const Vec3f scale = *table.vec3("scale", "", ValueRange::above(0));
    return to_double(scale);
  }
  const double scale = *table.number("scale", "", ValueRange::above(0));
  return {scale, scale, scale};
}

struct ReadShape {
  Shape shape;
  Vec3d center{};
  Vec3d scale{1.0, 1.0, 1.0};
};

ReadShape read_shape(const TableReader& table, const std::string& shape, Scene& scene, SolidSettings& solid) {
  ReadShape read;
  if (shape == "box") {
    const bool corners = table.has("min") || table.has("max");
    if (corners && (table.has("size") || table.has("center")))
      table.fail(table.has("size") ? "size" : "center",
                 "a box is given by min and max, or by center and size, not both");
    if (corners) {
      const Vec3d min = required_vec3(table, "min"), max = required_vec3(table, "max");
      for (int axis = 0; axis < 3; ++axis)
        if (!(axis_of(max, axis) > axis_of(min, axis)))
          table.fail("max", std::string("expected each component greater than min's, got ") +
                                kAxisNames[axis] + ": max " + format_derived(axis_of(max, axis)) +
                                " <= min " + format_derived(axis_of(min, axis)));
      read.center = 0.5 * (min + max);
      read.shape = BoxShape::from_size(max - min);
    } else {
      read.center = required_vec3(table, "center");
      const Vec3f size = table.required(table.vec3("size", "m", ValueRange::above(0)), "size",
                                        "an array of 3 numbers > 0 [m]");
      read.shape = BoxShape::from_size(to_double(size));
    }
  } else if (shape == "sphere") {
    read.center = required_vec3(table, "center");
    read.shape = SphereShape{required_length(table, "radius")};
  } else if (shape == "cylinder") {
    read.center = required_vec3(table, "center");
    read.shape = CylinderShape{required_length(table, "radius"), required_length(table, "height")};
  } else {
    const std::string file = table.required(table.string("file"), "file", "the path of an OBJ or STL file");
    if (file.empty()) table.fail("file", "expected the path of an OBJ or STL file, got \"\"");
    solid.mesh_file = scene.path.parent_path() / file;
    try {
      read.shape = load_mesh(solid.mesh_file).mesh;
    } catch (const GeometryError& error) {
      table.fail("file", error.what());
    }
    if (auto center = table.vec3("center", "m")) read.center = to_double(*center);
    read.scale = read_scale(table);
  }
  return read;
}

// The keys each motion takes (besides `motion`), for the error that names a foreign one.
struct MotionKeys {
  std::string_view motion;
  std::array<std::string_view, 6> keys;
};
constexpr std::array<MotionKeys, 7> kMotionKeys = {{
    {"fixed", {}},
    {"linear", {"velocity", "ramp"}},
    {"oscillate", {"amplitude", "frequency", "phase", "ramp"}},
    {"hinge", {"pivot", "axis", "angle", "frequency", "phase", "ramp"}},
    {"rotate", {"pivot", "axis", "angular_speed", "ramp"}},
    {"table", {"table", "pivot", "axis"}},
    {"floating", {"density"}},
}};
constexpr std::array<std::string_view, 11> kMotionOnlyKeys = {
    "velocity", "ramp",  "amplitude",     "frequency", "phase",  "pivot",
    "axis",     "angle", "angular_speed", "table",     "density"};

void reject_foreign_motion_keys(const TableReader& table, std::string_view motion) {
  const MotionKeys* own = nullptr;
  for (const MotionKeys& m : kMotionKeys)
    if (m.motion == motion) own = &m;
  for (std::string_view key : kMotionOnlyKeys) {
    if (!table.has(key)) continue;
    if (std::find(own->keys.begin(), own->keys.end(), key) != own->keys.end()) continue;
    std::string takes;
    for (std::string_view k : own->keys)
      if (!k.empty()) takes += (takes.empty() ? "" : ", ") + std::string(k);
    table.fail(key, "does not apply to motion = \"" + std::string(motion) + "\" (it takes " +
                        (takes.empty() ? std::string("no motion keys") : takes) + ")");
  }
}

Vec3f unit_axis(const TableReader& table) {
  const Vec3f axis = table.vec3("axis", "").value_or(Vec3f{0, 0, 1});
  const float length = std::sqrt(length_squared(axis));
  if (!(length > 0.0f) || !std::isfinite(length))
    table.fail("axis", "expected a non-zero direction, got [" + format_number(axis.x) + ", " +
                           format_number(axis.y) + ", " + format_number(axis.z) + "]");
  return (1.0f / length) * axis;
}

// A motion time table: CSV rows "time, dx, dy, dz" or "time, dx, dy, dz, angle" (seconds, metres, degrees
// about the motion's axis through its pivot), a header line allowed, '#' comments and blank lines skipped;
// times strictly increasing, at least two rows. Errors name the CSV's file and line.
std::vector<MotionTableRow> read_motion_table(const TableReader& table, const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) table.fail("table", "cannot open the motion table " + file.string());
  std::vector<MotionTableRow> rows;
  std::string line;
  int line_number = 0;
  std::size_t columns = 0;
  bool header_seen = false;
  const auto fail_line = [&](const std::string& problem) {
    table.fail("table", file.string() + ":" + std::to_string(line_number) + ": " + problem);
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#')
      continue;
    std::vector<double> values;
    std::stringstream cells(line);
    std::string cell;
    bool numeric = true;
    while (std::getline(cells, cell, ',')) {
      std::size_t used = 0;
      double value = 0;
      try {
        value = std::stod(cell, &used);
      } catch (const std::exception&) {
        numeric = false;
        break;
      }
      if (cell.find_first_not_of(" \t", used) != std::string::npos) {
        numeric = false;
        break;
      }
      if (!std::isfinite(value)) fail_line("expected finite numbers, got \"" + cell + "\"");
      values.push_back(value);
    }
    if (!numeric) {
      if (rows.empty() && !header_seen) {
        header_seen = true;  // one header line is allowed, before the first row
        continue;
      }
      fail_line("expected numbers \"time, dx, dy, dz[, angle]\", got \"" + line + "\"");
    }
    if (values.size() != 4 && values.size() != 5)
      fail_line("expected 4 columns (time [s], dx, dy, dz [m]) or 5 (and angle [degrees]), got " +
                std::to_string(values.size()));
    if (!rows.empty() && values.size() != columns)
      fail_line("expected " + std::to_string(columns) + " columns as the rows before, got " +
                std::to_string(values.size()));
    columns = values.size();
    MotionTableRow row;
    row.time = float(values[0]);
    row.displacement = {float(values[1]), float(values[2]), float(values[3])};
    row.angle = values.size() == 5 ? float(values[4] * kDegree) : 0.0f;
    if (!rows.empty() && !(row.time > rows.back().time))
      fail_line("expected times increasing, got " + format_number(values[0]) + " s after " +
                format_number(double(rows.back().time)) + " s");
    rows.push_back(row);
  }
  if (rows.size() < 2)
    table.fail("table", file.string() +
                            ": expected at least two rows of \"time, dx, dy, dz[, angle]\", got " +
                            std::to_string(rows.size()));
  return rows;
}

// `motion` and its keys into solid.motion, solid.table and solid.density.
void read_motion(const TableReader& table, Scene& scene, SolidSettings& solid) {
  const std::string motion = table.choice("motion", kMotions).value_or("fixed");
  reject_foreign_motion_keys(table, motion);
  BodyMotion& m = solid.motion;
  m.kind = MotionKind(std::find(kMotions.begin(), kMotions.end(), motion) - kMotions.begin());
  const Vec3f center{float(solid.center.x), float(solid.center.y), float(solid.center.z)};
  m.pivot = table.vec3("pivot", "m").value_or(center);
  m.ramp = table.number("ramp", "s", ValueRange::at_least(0)).value_or(0.0f);
  const auto phase = [&] {
    return float(table.number("phase", "degrees", ValueRange::any()).value_or(0.0f) * kDegree);
  };
  const auto frequency = [&] {
    return table.required(table.number("frequency", "Hz", ValueRange::above(0)), "frequency",
                          "a number > 0 [Hz]");
  };
  switch (m.kind) {
    case MotionKind::linear:
      m.velocity = table.required(table.vec3("velocity", "m/s"), "velocity", "an array of 3 numbers [m/s]");
      break;
    case MotionKind::oscillate:
      m.amplitude = table.required(table.vec3("amplitude", "m"), "amplitude", "an array of 3 numbers [m]");
      m.frequency = frequency();
      m.phase = phase();
      break;
    case MotionKind::hinge:
      m.axis = unit_axis(table);
      m.angle = float(table.required(table.number("angle", "degrees", ValueRange::above(0)), "angle",
                                     "the amplitude, a number > 0 [degrees]") *
                      kDegree);
      m.frequency = frequency();
      m.phase = phase();
      break;
    case MotionKind::rotate:
      m.axis = unit_axis(table);
      m.angular_speed = float(table.required(table.number("angular_speed", "degrees/s", ValueRange::any()),
                                             "angular_speed", "a number [degrees/s]") *
                              kDegree);
      break;
    case MotionKind::table: {
      m.axis = unit_axis(table);
      const std::string file = table.required(table.string("table"), "table", "the path of a CSV file");
      solid.table = read_motion_table(table, scene.path.parent_path() / file);
      break;
    }
    case MotionKind::floating:
      solid.density = table.required(table.number("density", "kg/m^3", ValueRange::above(0)), "density",
                                     "a number > 0 [kg/m^3], the body's mean density");
      break;
    case MotionKind::fixed:
      break;
  }
}

void check_inside_domain(const TableReader& table, const Solid& solid, const Scene& scene) {
  const Aabb bounds = solid.bounds();
  for (int axis = 0; axis < 3; ++axis)
    check_extent_in_domain(table, scene, axis, axis_of(bounds.min, axis), axis_of(bounds.max, axis),
                           "the solid", "");
}

SolidSettings read_solid(const TableReader& table, Scene& scene) {
  static constexpr std::array<std::string_view, 24> kKeys = {
      "name",      "shape", "min",      "max",    "center", "size",          "radius", "height",
      "file",      "scale", "rotation", "layers", "motion", "velocity",      "ramp",   "amplitude",
      "frequency", "phase", "pivot",    "axis",   "angle",  "angular_speed", "table",  "density"};
  table.reject_unknown_keys(kKeys);
  SolidSettings solid;
  solid.line = table.table_line();
  solid.shape = table.required(table.choice("shape", kSolidShapes), "shape",
                               "\"box\", \"sphere\", \"cylinder\" or \"mesh\"");
  reject_foreign_keys(table, solid.shape);
  solid.layers = scene.wall_layers;
  if (auto layers = table.integer("layers", kLayers)) solid.layers = int(*layers);

  const ReadShape read = read_shape(table, solid.shape, scene, solid);
  Transform transform;
  transform.scale = read.scale;
  transform.translation = read.center;
  if (auto rotation = table.vec3("rotation", "degrees"))
    transform.rotation = rotation_from_euler_degrees(to_double(*rotation));
  try {
    solid.solid = place_solid(read.shape, transform, solid.mesh_file.string());
  } catch (const GeometryError& error) {
    table.fail(table.has("scale") ? "scale" : "shape", error.what());
  }
  check_inside_domain(table, *solid.solid, scene);
  solid.center = read.center;
  read_motion(table, scene, solid);
  return solid;
}

// Fixed solids may overlap (their shells sum to one boundary); a moving or floating one may not start inside
// another solid: rigid bodies do not interpenetrate, and the contact springs would throw them apart.
void reject_moving_overlap(const TableReader& table, const SolidSettings& solid, const Scene& scene) {
  for (const SolidSettings& earlier : scene.solids) {
    if (solid.motion.kind == MotionKind::fixed && earlier.motion.kind == MotionKind::fixed) continue;
    const auto point = shared_volume_point(*solid.solid, *earlier.solid, 0.5 * double(scene.spacing));
    if (!point) continue;
    const SolidSettings& mover = solid.motion.kind != MotionKind::fixed ? solid : earlier;
    char where[96];
    std::snprintf(where, sizeof where, "(%.4g, %.4g, %.4g) m", point->x, point->y, point->z);
    table.fail("shape", "solid \"" + solid.name + "\" overlaps solid \"" + earlier.name + "\" (line " +
                            std::to_string(earlier.line) + ") at " + where + ", and \"" + mover.name +
                            "\" is " + kMotionNames[int(mover.motion.kind)] +
                            ": a moving or floating solid must start clear of the other solids");
  }
}

}  // namespace

void read_solids(const TableReader& top, Scene& scene) {
  if (!top.has("solid")) return;
  if (!is_fluid_solver(scene.solver))
    top.fail("solid", "applies to the SPH solvers (wcsph, dfsph, pbf); this scene's solver is \"" +
                          std::string(solver_name(scene.solver)) + "\"");
  top.for_each_table("solid", "an obstacle", [&](const TableReader& table) {
    SolidSettings solid = read_solid(table, scene);
    solid.name = table.string("name").value_or("solid" + std::to_string(scene.solids.size()));
    for (const SolidSettings& earlier : scene.solids)
      if (earlier.name == solid.name)
        table.fail("name", "duplicate solid name \"" + solid.name + "\" (the first is at line " +
                               std::to_string(earlier.line) + ")");
    reject_moving_overlap(table, solid, scene);
    scene.solids.push_back(std::move(solid));
  });
}

}  // namespace surge
