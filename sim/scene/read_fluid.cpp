// The SPH fluids' tables: [resolution], [fluid] with its [[fluid.block]]s, [[emitter]], [dfsph] and [pbf].
#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "sim/scene/family_readers.h"
#include "sim/sph/fluid_parameter_specs.h"
#include "sim/sph/solver_parameter_specs.h"

namespace surge {

void check_extent_in_domain(const TableReader& table, const Scene& scene, int axis, double low, double high,
                            std::string_view what, std::string_view detail) {
  const Vec3f extent = scene.domain_max - scene.domain_min;
  // A sphere written to touch a wall (centre 0.99, radius 0.01, wall 1) overshoots it by a rounding error;
  // a micron per metre of tank forgives that and nothing a user could mean.
  const double tolerance = 1e-6 * std::max({extent.x, extent.y, extent.z});
  const float domain_low = component(scene.domain_min, axis);
  const float domain_high = component(scene.domain_max, axis);
  if (low < domain_low - tolerance || high > domain_high + tolerance) {
    table.fail_table(std::string(what) + " is not inside the domain: its " + kAxisNames[axis] + " extent " +
                     std::string(detail) + "[" + format_derived(low) + ", " + format_derived(high) +
                     "] m leaves the domain's [" + format_number(domain_low) + ", " +
                     format_number(domain_high) + "] m");
  }
}

namespace {

constexpr std::array<std::string_view, 2> kKernels = {"cubic_spline", "wendland_c2"};
constexpr std::array<std::string_view, 2> kShapes = {"box", "sphere"};

void check_inside_domain(const TableReader& block_table, const FluidBlock& block, const Scene& scene) {
  const bool sphere = block.shape == FluidBlock::Shape::sphere;
  for (int axis = 0; axis < 3; ++axis) {
    const double low =
        sphere ? double(component(block.center, axis)) - block.radius : component(block.min, axis);
    const double high =
        sphere ? double(component(block.center, axis)) + block.radius : component(block.max, axis);
    check_extent_in_domain(block_table, scene, axis, low, high, "block", sphere ? "(centre +- radius) " : "");
  }
}

FluidBlock read_block(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 6> kKeys = {"shape",  "min",    "max",
                                                            "center", "radius", "velocity"};
  table.reject_unknown_keys(kKeys);
  FluidBlock block;
  block.line = table.table_line();
  const std::string shape = table.required(table.choice("shape", kShapes), "shape", "\"box\" or \"sphere\"");
  block.shape = shape == "sphere" ? FluidBlock::Shape::sphere : FluidBlock::Shape::box;

  // A key of the other shape is a mistake the user should hear about, not a value silently ignored.
  const std::array<std::string_view, 2> foreign = block.shape == FluidBlock::Shape::box
                                                      ? std::array<std::string_view, 2>{"center", "radius"}
                                                      : std::array<std::string_view, 2>{"min", "max"};
  for (std::string_view key : foreign) {
    if (table.has(key)) {
      table.fail(key, "does not apply to a \"" + shape + "\" block (it takes " +
                          (block.shape == FluidBlock::Shape::box ? "min, max" : "center, radius") +
                          ", velocity)");
    }
  }

  if (block.shape == FluidBlock::Shape::box) {
    block.min = table.required(table.vec3("min", "m"), "min", "an array of 3 numbers [m]");
    block.max = table.required(table.vec3("max", "m"), "max", "an array of 3 numbers [m]");
    for (int axis = 0; axis < 3; ++axis) {
      if (!(component(block.max, axis) > component(block.min, axis))) {
        table.fail("max", std::string("expected each component greater than min's, got ") + kAxisNames[axis] +
                              ": max " + format_number(component(block.max, axis)) + " <= min " +
                              format_number(component(block.min, axis)));
      }
    }
  } else {
    block.center = table.required(table.vec3("center", "m"), "center", "an array of 3 numbers [m]");
    block.radius =
        table.required(table.number("radius", "m", ValueRange::above(0)), "radius", "a number > 0 [m]");
  }
  if (auto velocity = table.vec3("velocity", "m/s")) block.velocity = *velocity;
  check_inside_domain(table, block, scene);
  return block;
}

constexpr std::array<std::string_view, 2> kNozzleShapes = {"circle", "square"};
// The emitter's capacity joins the initial particles under the 32-bit creation ids.
constexpr IntegerRange kEmitterParticles{1, 1'000'000'000};

EmitterSettings read_emitter(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 8> kKeys = {"shape", "center", "direction", "radius",
                                                            "speed", "start",  "end",       "max_particles"};
  table.reject_unknown_keys(kKeys);
  EmitterSettings emitter;
  emitter.line = table.table_line();
  if (auto shape = table.choice("shape", kNozzleShapes))
    emitter.shape = *shape == "square" ? EmitterSettings::Shape::square : EmitterSettings::Shape::circle;
  emitter.center = table.required(table.vec3("center", "m"), "center", "an array of 3 numbers [m]");
  const Vec3f direction =
      table.required(table.vec3("direction", ""), "direction", "an array of 3 numbers, not all zero");
  const float length = std::sqrt(length_squared(direction));
  if (!(length > 1e-6f))
    table.fail("direction", "expected a non-zero vector (the jet's direction), got (0, 0, 0)");
  emitter.direction = (1.0f / length) * direction;
  emitter.radius =
      table.required(table.number("radius", "m", ValueRange::above(0)), "radius", "a number > 0 [m]");
  emitter.speed =
      table.required(table.number("speed", "m/s", ValueRange::above(0)), "speed", "a number > 0 [m/s]");
  if (auto start = table.number("start", "s", ValueRange::at_least(0))) emitter.start = *start;
  if (auto end = table.number("end", "s", ValueRange::above(0))) {
    if (*end <= emitter.start)
      table.fail("end", "expected a time after start = " + format_number(emitter.start) + " [s], got " +
                            format_number(*end));
    emitter.end = *end;
  }
  emitter.max_particles = table.required(table.integer("max_particles", kEmitterParticles), "max_particles",
                                         "an integer >= 1 (particles allocated for the emitter)");

  // The outlet, rim included, must lie inside the domain: particles born outside would end the run at once.
  // The rim's extent along each axis is radius * |a x d| for the axis a (a circle), and the square's corners
  // reach no further than radius * (|u_a| + |v_a|), bounded here by radius * sqrt(2) for both.
  const float rim =
      emitter.shape == EmitterSettings::Shape::square ? emitter.radius * std::sqrt(2.0f) : emitter.radius;
  for (int axis = 0; axis < 3; ++axis) {
    const float d = component(emitter.direction, axis);
    const float reach = rim * std::sqrt(std::max(0.0f, 1.0f - d * d));
    const float c = component(emitter.center, axis);
    const float low = component(scene.domain_min, axis), high = component(scene.domain_max, axis);
    if (c - reach < low || c + reach > high) {
      table.fail("center", std::string("the nozzle is not inside the domain: its ") + kAxisNames[axis] +
                               " extent [" + format_derived(c - reach) + ", " + format_derived(c + reach) +
                               "] m leaves the domain's [" + format_number(low) + ", " + format_number(high) +
                               "] m");
    }
  }
  return emitter;
}

}  // namespace

void read_resolution(const TableReader& resolution, Scene& scene) {
  const std::span<const FluidParameterSpec> specs = resolution_parameter_specs();
  resolution.reject_unknown_keys(keys_of(specs, {"kernel"}));
  const bool has_spacing = resolution.has("spacing");
  const bool has_particles = resolution.has("particles");
  if (has_spacing && has_particles) {
    const bool particles_later = resolution.line_of("particles") > resolution.line_of("spacing");
    resolution.fail(particles_later ? "particles" : "spacing",
                    "give exactly one of 'spacing' [m] and 'particles', not both");
  }
  if (!has_spacing && !has_particles) {
    resolution.fail_table(
        "needs exactly one of 'spacing' [m] and 'particles' (target fluid particle count), found neither");
  }

  read_parameters(resolution, specs, scene);
  const Vec3f extent = scene.domain_max - scene.domain_min;
  const float smallest = std::min({extent.x, extent.y, extent.z});
  if (has_spacing && !(scene.spacing < smallest)) {
    resolution.fail("spacing", "expected a spacing below the smallest domain extent " +
                                   format_number(smallest) + " [m], got " + format_number(scene.spacing));
  }
  if (auto kernel = resolution.choice("kernel", kKernels)) {
    scene.kernel = *kernel == "wendland_c2" ? KernelType::wendland_c2 : KernelType::cubic_spline;
  }
}

void read_fluid(const TableReader& fluid, Scene& scene) {
  fluid.reject_unknown_keys(keys_of(fluid_parameter_specs(), {"block"}));
  read_parameters(fluid, fluid_parameter_specs(), scene);
  // Summation density has no diffusion term: a delta there would be silently ignored.
  if (fluid.has("density_diffusion") && !scene.continuity_density)
    fluid.fail("density_diffusion",
               "applies with continuity_density = true only (summation density has no diffusion term)");

  fluid.for_each_table("block", "the fluid to simulate",
                       [&](const TableReader& block) { scene.blocks.push_back(read_block(block, scene)); });
}

// [[emitter]]: a nozzle adding fluid while the simulation runs (sim/sph/emitter.h).
void read_emitters(const TableReader& top, Scene& scene) {
  if (!top.has("emitter")) return;
  if (!is_fluid_solver(scene.solver))
    top.fail("emitter", "applies to the SPH solvers (wcsph, dfsph, pbf); this scene's solver is \"" +
                            std::string(solver_name(scene.solver)) + "\"");
  top.for_each_table("emitter", "a nozzle", [&](const TableReader& table) {
    if (!scene.emitters.empty())
      table.fail_table("one [[emitter]] per scene is supported; this is the second (the first is at line " +
                       std::to_string(scene.emitters.front().line) + ")");
    scene.emitters.push_back(read_emitter(table, scene));
  });
}

// [dfsph]: Bender & Koschier 2017. Targets are written in percent, as the paper and SPlisHSPlasH give them.
void read_dfsph(const TableReader& table, Scene& scene) {
  table.reject_unknown_keys(keys_of(dfsph_parameter_specs(), {}));
  DfsphParameters& d = scene.dfsph;
  read_parameters(table, dfsph_parameter_specs(), d);
  if (d.min_iterations > d.max_iterations) {
    table.fail(table.has("min_iterations") ? "min_iterations" : "max_iterations",
               "expected min_iterations <= max_iterations, got " + std::to_string(d.min_iterations) + " > " +
                   std::to_string(d.max_iterations));
  }
}

// [pbf]: Macklin & Mueller 2013.
void read_pbf(const TableReader& table, Scene& scene) {
  table.reject_unknown_keys(keys_of(pbf_parameter_specs(), {}));
  read_parameters(table, pbf_parameter_specs(), scene.pbf);
}

// A WCSPH-only key in a scene of another solver would be silently ignored: say so instead. ([dfsph] and [pbf]
// may stand in any SPH scene: they apply when that solver runs, from the scene or from --solver.)
void reject_wcsph_keys_of_other_solvers(const Scene& scene) {
  for (const FluidParameterSpec& spec : fluid_parameter_specs()) {
    if (spec.only_for.empty() || spec.only_for.contains(scene.solver)) continue;
    const std::string full = "fluid." + std::string(spec.key);
    if (scene.key_lines.count(full)) {
      throw SceneError(
          scene.path, scene.line_of(full), full,
          "applies to solver = \"wcsph\" only; this scene's solver is \"" +
              std::string(solver_name(scene.solver)) + "\"" +
              (scene.solver == SolverKind::dfsph ? " (its viscosity is dfsph.viscosity)" : " (see [pbf])"));
    }
  }
}

}  // namespace surge
