// Gravitating bodies (solver = "nbody"): [nbody] and its [[nbody.system]]s.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "sim/nbody/nbody_parameter_specs.h"
#include "sim/scene/family_readers.h"

namespace surge {

namespace {

constexpr std::array<std::string_view, 3> kNbodyMethods = {"all_pairs", "all_pairs_naive", "barnes_hut"};
constexpr std::array<std::string_view, 3> kBodyModels = {"plummer", "disc_galaxy", "two_body"};
// Body counts a generator accepts; the whole scene is limited by what the device holds.
constexpr IntegerRange kSystemBodies{1, 1'000'000'000};
constexpr IntegerRange kSeed{0, std::numeric_limits<int64_t>::max()};

Vec3d to_double(Vec3f v) {
  return {double(v.x), double(v.y), double(v.z)};
}

// The keys each model takes besides model, center and velocity; any other model's key is an error.
std::vector<std::string_view> model_keys(BodySystem::Model model) {
  switch (model) {
    case BodySystem::Model::plummer:
      return {"bodies", "mass", "scale_radius", "truncation"};
    case BodySystem::Model::disc_galaxy:
      return {"bodies", "mass", "central_mass", "scale_radius", "scale_height", "truncation", "normal"};
    case BodySystem::Model::two_body:
      return {"masses", "semi_major_axis", "eccentricity"};
  }
  return {};
}

BodySystem read_system(const TableReader& table) {
  static constexpr std::array<std::string_view, 13> kKeys = {
      "model",  "bodies", "mass",   "central_mass", "scale_radius",    "scale_height", "truncation",
      "normal", "masses", "center", "velocity",     "semi_major_axis", "eccentricity"};
  table.reject_unknown_keys(kKeys);
  BodySystem system;
  system.line = table.table_line();
  const std::string model = table.required(table.choice("model", kBodyModels), "model",
                                           "\"plummer\", \"disc_galaxy\" or \"two_body\"");
  system.model = model == "plummer"       ? BodySystem::Model::plummer
                 : model == "disc_galaxy" ? BodySystem::Model::disc_galaxy
                                          : BodySystem::Model::two_body;
  const std::vector<std::string_view> own = model_keys(system.model);
  for (std::string_view key : kKeys) {
    const bool general = key == "model" || key == "center" || key == "velocity";
    if (!general && table.has(key) && std::find(own.begin(), own.end(), key) == own.end()) {
      std::string takes;
      for (std::string_view k : own) takes += std::string(takes.empty() ? "" : ", ") + std::string(k);
      table.fail(key,
                 "does not apply to a \"" + model + "\" system (it takes " + takes + ", center, velocity)");
    }
  }
  if (auto center = table.vec3("center", "length")) system.center = to_double(*center);
  if (auto velocity = table.vec3("velocity", "length/time")) system.velocity = to_double(*velocity);

  if (system.model == BodySystem::Model::two_body) {
    if (const toml::node* node = table.get("masses")) {
      const toml::array* array = node->as_array();
      const std::string expected = "expected an array of 2 numbers > 0 [mass]";
      if (!array || array->size() != 2) table.fail("masses", expected + ", got " + describe_type(*node));
      for (std::size_t k = 0; k < 2; ++k) {
        const toml::node& element = *array->get(k);
        const std::optional<double> value =
            element.is_integer() ? std::optional<double>(double(*element.value_exact<int64_t>()))
                                 : element.value_exact<double>();
        if (!value) table.fail_at(element, "masses", expected + ", got " + describe_type(element));
        if (!ValueRange::above(0).contains(float(*value))) {
          table.fail_at(element, "masses",
                        expected + ", got " + format_number(*value) + precision_note(*value));
        }
        system.masses[k] = double(float(*value));
      }
    }
    if (auto a = table.number("semi_major_axis", "length", ValueRange::above(0))) system.semi_major_axis = *a;
    // e = 1 is a parabola: no orbit, no period to measure against.
    if (auto e = table.number("eccentricity", "", ValueRange::right_open(0, 1))) system.eccentricity = *e;
    return system;
  }

  system.bodies = table.required(table.integer("bodies", kSystemBodies), "bodies", "an integer >= 1");
  const bool plummer = system.model == BodySystem::Model::plummer;
  if (auto mass = table.number("mass", "mass", ValueRange::above(0))) system.mass = *mass;
  // Plummer: 3 pi / 16 puts the virial radius at 1 for G = M = 1 (Henon units). Disc: R_d = 1.
  system.scale_radius = plummer ? 3.0 * 3.141592653589793 / 16.0 : 1.0;
  if (auto radius = table.number("scale_radius", "length", ValueRange::above(0)))
    system.scale_radius = *radius;
  // Plummer beyond 10 a holds under 0.15 % of the mass (M(<r) = r^3 / (r^2 + a^2)^(3/2)).
  system.truncation = plummer ? 10.0 : 5.0;
  if (auto truncation = table.number("truncation", "scale radii", ValueRange::closed(0.5, 1000)))
    system.truncation = *truncation;
  if (system.model == BodySystem::Model::disc_galaxy) {
    if (auto central = table.number("central_mass", "mass", ValueRange::at_least(0)))
      system.central_mass = *central;
    system.scale_height = 0.1 * system.scale_radius;
    if (auto height = table.number("scale_height", "length", ValueRange::at_least(0)))
      system.scale_height = *height;
    if (auto normal = table.vec3("normal", "")) {
      const Vec3d n = to_double(*normal);
      const double length = std::sqrt(dot(n, n));
      if (!(length > 0)) table.fail("normal", "expected a non-zero direction, got [0, 0, 0]");
      system.normal = n * (1.0 / length);
    }
    if (system.central_mass > 0 && system.bodies < 2) {
      table.fail("bodies", "expected at least 2 (the central mass and one disc body), got 1");
    }
  }
  return system;
}

}  // namespace

void read_nbody(const TableReader& nbody, Scene& scene) {
  nbody.reject_unknown_keys(keys_of(nbody_parameter_specs(), {"method", "seed", "system"}));
  NbodySceneSettings& settings = scene.nbody;
  NbodyParameters& p = settings.parameters;
  if (auto method = nbody.choice("method", kNbodyMethods)) {
    p.method = *method == "barnes_hut"        ? NbodyMethod::barnes_hut
               : *method == "all_pairs_naive" ? NbodyMethod::all_pairs_naive
                                              : NbodyMethod::all_pairs;
  }
  read_parameters(nbody, nbody_parameter_specs(), p);
  if (!nbody.has("dt")) nbody.fail("dt", "required key is missing (expected a number > 0 [time])");
  if (auto seed = nbody.integer("seed", kSeed)) settings.seed = std::uint64_t(*seed);

  nbody.for_each_table("system", "the bodies to simulate",
                       [&](const TableReader& system) { settings.systems.push_back(read_system(system)); });
}

}  // namespace surge
