// The granular solver's tables (solver = "dem"): [dem], its contact law, and the [[dem.block]]s of grains.
#include <algorithm>
#include <array>
#include <string_view>

#include "sim/core/particle_limits.h"
#include "sim/dem/dem_parameter_specs.h"
#include "sim/scene/family_readers.h"

namespace surge {

namespace {

constexpr std::array<std::string_view, 2> kNormalModels = {"linear", "hertz"};
constexpr std::array<std::string_view, 3> kFrictionModels = {"coulomb", "viscous", "mindlin"};
constexpr std::array<std::string_view, 2> kWallModels = {"contact", "reflect"};
constexpr std::array<std::string_view, 3> kGrainShapes = {"box", "sphere", "lattice"};
constexpr std::array<std::string_view, 2> kOverflows = {"shrink", "clamp"};
constexpr IntegerRange kGrainCount{1, kMaxParticles};

// A key that only one choice of a model takes, given with another: an error, not a value ignored.
void reject_for(const TableReader& table, std::string_view key, const std::string& why) {
  if (table.has(key)) table.fail(key, "does not apply " + why);
}

void check_grains_inside_domain(const TableReader& table, const GrainBlock& block, const Scene& scene) {
  for (int axis = 0; axis < 3; ++axis) {
    double low = component(block.min, axis), high = component(block.max, axis);
    if (block.shape == GrainBlock::Shape::sphere) {
      low = double(component(block.center, axis)) - block.radius;
      high = double(component(block.center, axis)) + block.radius;
    } else if (block.shape == GrainBlock::Shape::lattice) {
      high = low;  // the lattice's far side depends on the grain count; build_dem_setup checks it
    }
    check_extent_in_domain(table, scene, axis, low, high, "block", "");
  }
}

GrainBlock read_grain_block(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 14> kKeys = {
      "shape",   "min",  "max",    "center",   "radius", "count",   "grain_radius", "grain_radius_max",
      "density", "mass", "jitter", "velocity", "fixed",  "overflow"};
  table.reject_unknown_keys(kKeys);
  GrainBlock block;
  block.line = table.table_line();
  const std::string shape =
      table.required(table.choice("shape", kGrainShapes), "shape", "\"box\", \"sphere\" or \"lattice\"");
  block.shape = shape == "sphere"    ? GrainBlock::Shape::sphere
                : shape == "lattice" ? GrainBlock::Shape::lattice
                                     : GrainBlock::Shape::box;
  const std::string takes = block.shape == GrainBlock::Shape::box      ? "min, max"
                            : block.shape == GrainBlock::Shape::sphere ? "center, radius"
                                                                       : "min, count, overflow";
  for (std::string_view key : {"min", "max", "center", "radius", "count", "overflow"}) {
    if (takes.find(key) == std::string::npos)
      reject_for(table, key, "to a \"" + shape + "\" block (it takes " + takes + ")");
  }
  if (block.shape != GrainBlock::Shape::sphere) {
    block.min = table.required(table.vec3("min", "m"), "min", "an array of 3 numbers [m]");
  }
  if (block.shape == GrainBlock::Shape::box) {
    block.max = table.required(table.vec3("max", "m"), "max", "an array of 3 numbers [m]");
    for (int axis = 0; axis < 3; ++axis) {
      if (!(component(block.max, axis) > component(block.min, axis))) {
        table.fail("max", std::string("expected each component greater than min's, got ") + kAxisNames[axis] +
                              ": max " + format_number(component(block.max, axis)) + " <= min " +
                              format_number(component(block.min, axis)));
      }
    }
  } else if (block.shape == GrainBlock::Shape::sphere) {
    block.center = table.required(table.vec3("center", "m"), "center", "an array of 3 numbers [m]");
    block.radius =
        table.required(table.number("radius", "m", ValueRange::above(0)), "radius", "a number > 0 [m]");
  } else {
    block.count = table.required(table.integer("count", kGrainCount), "count", "an integer >= 1");
  }

  block.grain_radius = table.required(table.number("grain_radius", "m", ValueRange::above(0)), "grain_radius",
                                      "a number > 0 [m]");
  block.grain_radius_max = block.grain_radius;
  if (auto largest = table.number("grain_radius_max", "m", ValueRange::above(0))) {
    if (*largest < block.grain_radius) {
      table.fail("grain_radius_max", "expected a radius >= grain_radius " +
                                         format_number(block.grain_radius) + " [m], got " +
                                         format_number(*largest));
    }
    block.grain_radius_max = *largest;
  }
  if (auto fixed = table.boolean("fixed")) block.fixed = *fixed;
  if (block.fixed) {
    for (std::string_view key : {"density", "mass", "velocity"})
      reject_for(table, key, "to fixed grains (they do not move: infinite mass, zero velocity)");
  } else {
    if (table.has("density") && table.has("mass")) {
      const bool mass_later = table.line_of("mass") > table.line_of("density");
      table.fail(mass_later ? "mass" : "density", "give exactly one of 'density' [kg/m^3] and 'mass' [kg]");
    }
    if (auto density = table.number("density", "kg/m^3", ValueRange::above(0))) block.density = *density;
    if (auto mass = table.number("mass", "kg", ValueRange::above(0))) block.mass = *mass;
    if (block.density == 0.0f && block.mass == 0.0f) {
      table.fail_table("needs one of 'density' [kg/m^3] and 'mass' [kg] (per grain), found neither");
    }
    if (auto velocity = table.vec3("velocity", "m/s")) block.velocity = *velocity;
  }
  if (auto jitter = table.number("jitter", "", ValueRange::closed(0, 0.5))) block.jitter = *jitter;
  if (auto overflow = table.choice("overflow", kOverflows)) {
    block.clamp_overflow = *overflow == "clamp";
    if (block.clamp_overflow && scene.dem.wall_model != WallModel::reflect) {
      table.fail("overflow",
                 "\"clamp\" needs [dem] wall_model = \"reflect\" (the walls clamp the grains that "
                 "start outside the domain into it)");
    }
  }
  if (block.shape == GrainBlock::Shape::lattice) {
    for (int axis = 0; axis < 3; ++axis) {
      if (component(block.min, axis) + block.grain_radius_max > component(scene.domain_max, axis)) {
        table.fail("min",
                   std::string("a lattice starting here does not fit one grain inside the domain along ") +
                       kAxisNames[axis]);
      }
    }
  }
  check_grains_inside_domain(table, block, scene);
  return block;
}

// A key the chosen model cannot do without; its value was read and checked with the others.
void require(const TableReader& dem, std::string_view key, std::string_view what) {
  const std::span<const DemParameterSpec> specs = dem_parameter_specs();
  const auto spec = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.key == key; });
  if (!dem.has(key)) {
    dem.fail(key, "required key is missing (expected a number" + describe_range(spec->range) +
                      unit_suffix(spec->unit) + ", " + std::string(what) + ")");
  }
}

}  // namespace

void read_dem(const TableReader& dem, Scene& scene) {
  dem.reject_unknown_keys(
      keys_of(dem_parameter_specs(), {"normal_model", "friction_model", "wall_model", "block"}));
  DemScene& d = scene.dem;
  read_parameters(dem, dem_parameter_specs(), d);

  if (auto model = dem.choice("normal_model", kNormalModels))
    d.normal_model = *model == "hertz" ? NormalModel::hertz : NormalModel::linear;
  if (d.normal_model == NormalModel::linear) {
    for (std::string_view key : {"youngs_modulus", "poisson_ratio"})
      reject_for(dem, key, "to normal_model \"linear\" (it takes stiffness [N/m])");
    require(dem, "stiffness", "the spring constant k_n of the linear law");
  } else {
    reject_for(dem, "stiffness", "to normal_model \"hertz\" (it takes youngs_modulus [Pa], poisson_ratio)");
    require(dem, "youngs_modulus", "the grains' Young's modulus E");
  }
  if (dem.has("restitution") && dem.has("normal_damping")) {
    const bool damping_later = dem.line_of("normal_damping") > dem.line_of("restitution");
    dem.fail(damping_later ? "normal_damping" : "restitution",
             "give at most one of 'restitution' and 'normal_damping' [N s/m]: each sets the normal damping");
  }

  if (auto model = dem.choice("friction_model", kFrictionModels))
    d.friction_model = *model == "viscous"   ? FrictionModel::viscous
                       : *model == "mindlin" ? FrictionModel::mindlin
                                             : FrictionModel::coulomb;
  if (d.friction_model == FrictionModel::viscous) {
    reject_for(dem, "friction", "to friction_model \"viscous\" (it has no Coulomb limit)");
    dem.required(dem.number("tangential_damping", "N s/m", ValueRange::above(0)), "tangential_damping",
                 "a number > 0 [N s/m]: the viscous model's shear coefficient gamma_t");
  }
  if (d.friction_model == FrictionModel::mindlin) {
    if (d.normal_model == NormalModel::hertz)
      reject_for(dem, "tangential_stiffness_ratio",
                 "to normal_model \"hertz\" (Mindlin's k_t = 8 G* sqrt(R* delta) follows from youngs_modulus "
                 "and poisson_ratio)");
    // The default with a tangential spring: a grain rolls rather than slides.
    if (!dem.has("rotation")) d.rotation = true;
  } else {
    for (std::string_view key : {"tangential_stiffness_ratio", "contact_slots"})
      reject_for(dem, key, "to this friction_model (only \"mindlin\" keeps a tangential spring per contact)");
  }
  if (!d.rotation && d.rolling_friction > 0.0f)
    dem.fail("rolling_friction", "needs rotation = true (the rolling torque acts on the grains' spin)");

  if (auto model = dem.choice("wall_model", kWallModels))
    d.wall_model = *model == "reflect" ? WallModel::reflect : WallModel::contact;
  if (d.wall_model == WallModel::contact)
    reject_for(dem, "wall_restitution", "to wall_model \"contact\" (its walls use the grains' contact law)");

  if (dem.has("time_step") && dem.has("collision_time_fraction")) {
    const bool fraction_later = dem.line_of("collision_time_fraction") > dem.line_of("time_step");
    dem.fail(fraction_later ? "collision_time_fraction" : "time_step",
             "give at most one of 'time_step' [s] and 'collision_time_fraction'");
  }

  bool any_moving = false;
  dem.for_each_table("block", "the grains to simulate", [&](const TableReader& block) {
    d.blocks.push_back(read_grain_block(block, scene));
    any_moving = any_moving || !d.blocks.back().fixed;
  });
  if (!any_moving)
    dem.fail("block", "every [[dem.block]] is fixed: expected at least one block of moving grains");
}

}  // namespace surge
