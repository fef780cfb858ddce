// [[solid]] blocks of the SPH solvers (docs/scenes.md, "Solids"): fixed obstacles, from an analytic shape or
// a closed triangle mesh (OBJ, STL), scaled, rotated and placed. The geometry is sim/geometry's; this file
// turns a table into a placed Solid, and a GeometryError into a SceneError at the key that caused it.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "sim/geometry/geometry_error.h"
#include "sim/geometry/mesh_import.h"
#include "sim/geometry/place_solid.h"
#include "sim/scene/family_readers.h"

namespace surge {

namespace {

constexpr std::array<std::string_view, 4> kSolidShapes = {"box", "sphere", "cylinder", "mesh"};
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

void check_inside_domain(const TableReader& table, const Solid& solid, const Scene& scene) {
  const Aabb bounds = solid.bounds();
  for (int axis = 0; axis < 3; ++axis)
    check_extent_in_domain(table, scene, axis, axis_of(bounds.min, axis), axis_of(bounds.max, axis),
                           "the solid", "");
}

SolidSettings read_solid(const TableReader& table, Scene& scene) {
  static constexpr std::array<std::string_view, 11> kKeys = {
      "shape", "min", "max", "center", "size", "radius", "height", "file", "scale", "rotation", "layers"};
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
  return solid;
}

}  // namespace

void read_solids(const TableReader& top, Scene& scene) {
  if (!top.has("solid")) return;
  if (!is_fluid_solver(scene.solver))
    top.fail("solid", "applies to the SPH solvers (wcsph, dfsph, pbf); this scene's solver is \"" +
                          std::string(solver_name(scene.solver)) + "\"");
  top.for_each_table("solid", "an obstacle",
                     [&](const TableReader& table) { scene.solids.push_back(read_solid(table, scene)); });
}

}  // namespace surge
