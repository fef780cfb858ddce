#include "sim/dem/dem_parameter_specs.h"

#include <array>
#include <cmath>
#include <string>

#include "sim/core/parameter_table.h"

namespace surge {

namespace {

constexpr SolverSet kDem = {SolverKind::dem};

float live_number(const ParameterValue& value) {
  return float(std::get<double>(value));
}

// DEM steps with a fixed dt derived from the collision time pi sqrt(m*/k) (dem_setup.cpp), so the stiffness,
// the Young's modulus and the grain sizes apply on restart. Restitution (the damping ratio derived from it),
// friction, cohesion and the wall restitution do not enter that derivation. Gravity does for the Hertz law,
// whose collision time was taken at the speed of a fall through the domain: there a stronger gravity than
// the time step assumed applies on restart.
constexpr std::array kDemParameters = {
    DemParameterSpec{.key = "stiffness",
                     .member = &DemScene::stiffness,
                     .unit = "N/m",
                     .range = ValueRange::above(0),
                     .description = "k_n",
                     .reported_name = "stiffness_n_per_m",
                     .default_note = "**required** for `linear`",
                     .allowed_note = "; an error with `hertz`",
                     .runtime_member = &DemParameters::stiffness},
    DemParameterSpec{.key = "youngs_modulus",
                     .member = &DemScene::youngs_modulus,
                     .unit = "Pa",
                     .range = ValueRange::above(0),
                     .description = "E; E* = E / (2(1 − ν²))",
                     .default_note = "**required** for `hertz`",
                     .allowed_note = "; an error with `linear`"},
    DemParameterSpec{.key = "poisson_ratio",
                     .member = &DemScene::poisson_ratio,
                     .range = ValueRange::right_open(0, 0.5),
                     .description = "ν",
                     .allowed_note = "; an error with `linear`"},
    DemParameterSpec{
        .key = "restitution",
        .member = &DemScene::restitution,
        .range = ValueRange::left_open(0, 1),
        .description = "coefficient of restitution e; sets γ_n = 2ζ√(k_n m*) with ζ = −ln e / √(π² + ln² e) "
                       "(linear; exact for a head-on pair), or Tsuji's γ_n = 2√(5/6) ζ √(S_n m*) (Hertz)",
        .live_for = kDem,
        .runtime_member = &DemParameters::restitution,
        .apply =
            [](DemParameters& p, const ParameterValue& v) {
              // zeta = -ln e / sqrt(pi^2 + ln^2 e), as build_dem_setup derives it.
              const double log_e = std::log(std::get<double>(v));
              p.restitution = live_number(v);
              p.damping_ratio =
                  float(-log_e / std::sqrt(3.14159265358979 * 3.14159265358979 + log_e * log_e));
            },
        .available = [](const DemParameters& p) { return p.damping_from_restitution; }},
    DemParameterSpec{.key = "normal_damping",
                     .member = &DemScene::normal_damping,
                     .unit = "N s/m",
                     .range = ValueRange::at_least(0),
                     .description = "a fixed dashpot γ_n instead of one from e",
                     .reported_name = "normal_damping_n_s_per_m",
                     .default_note = "—",
                     .allowed_note = "; not with `restitution`",
                     .runtime_member = &DemParameters::normal_damping,
                     .available = [](const DemParameters& p) { return !p.damping_from_restitution; }},
    DemParameterSpec{.key = "friction",
                     .member = &DemScene::friction,
                     .range = ValueRange::closed(0, 10),
                     .description = "Coulomb coefficient μ",
                     .allowed_note = "; an error with `viscous`",
                     .live_for = kDem,
                     .runtime_member = &DemParameters::friction},
    DemParameterSpec{.key = "tangential_damping",
                     .member = &DemScene::tangential_damping,
                     .unit = "N s/m",
                     .range = ValueRange::at_least(0),
                     .description =
                         "γ_t; 0 means √(k_eff m*) per contact, k_eff = dF_n/dδ (`coulomb`), or Tsuji's "
                         "form with the normal law's damping ratio (`mindlin`: 2ζ√(k_t m*) linear, "
                         "2√(5/6) ζ √(k_t m*) Hertz)",
                     .reported_name = "tangential_damping_n_s_per_m",
                     .default_note = "0 = automatic",
                     .allowed_note = "; **required** (> 0) with `viscous`",
                     .runtime_member = &DemParameters::tangential_damping},
    DemParameterSpec{.key = "cohesion",
                     .member = &DemScene::cohesion,
                     .unit = "N/m",
                     .range = ValueRange::at_least(0),
                     .description = "attraction between touching grains, −cohesion × (x_i − x_j)",
                     .reported_name = "cohesion_n_per_m",
                     .live_for = kDem,
                     .runtime_member = &DemParameters::cohesion},
    DemParameterSpec{
        .key = "tangential_stiffness_ratio",
        .member = &DemScene::tangential_stiffness_ratio,
        .range = ValueRange::left_open(0, 10),
        .description =
            "k_t / k_n of the linear law. 2/7 gives a sphere's tangential oscillation at a contact (with "
            "rotation, effective mass 2/7 m) the normal one's period. With `hertz`, k_t = 8 G* √(R* δ), "
            "G* = G / (2(2 − ν)), G = E / (2(1 + ν)), from `youngs_modulus` and `poisson_ratio`",
        .default_note = "2/7",
        .allowed_note = "; `mindlin` with `linear` only",
        .runtime_member = &DemParameters::tangential_stiffness_ratio},
    DemParameterSpec{
        .key = "rotation",
        .member = &DemScene::rotation,
        .description =
            "grains spin: angular velocity per grain, torque −r_i n × F_t from each contact (n from the "
            "partner to the grain), moment of inertia 2/5 m r²",
        .default_note = "`true` with `mindlin`, else `false`",
        .runtime_member = &DemParameters::rotation},
    DemParameterSpec{.key = "rolling_friction",
                     .member = &DemScene::rolling_friction,
                     .range = ValueRange::closed(0, 1),
                     .description =
                         "μ_r of the constant directional rolling torque τ_r = −μ_r R* F_n "
                         "ω_rel/\\|ω_rel\\| (Ai et al. 2011, model A), capped at the torque that stops "
                         "the relative spin in one step",
                     .allowed_note = "; > 0 needs `rotation`",
                     .runtime_member = &DemParameters::rolling_friction},
    DemParameterSpec{.key = "contact_slots",
                     .member = &DemScene::contact_slots,
                     .range = ValueRange::closed(1, 64),
                     .description =
                         "contact history slots per grain (16 bytes each, two buffers): see below; 1 is "
                         "enough for a grain on a floor, 64 covers a grain 3x larger than its neighbours",
                     .allowed_note = "; `mindlin` only"},
    DemParameterSpec{
        .key = "gravity",
        .member = &DemScene::gravity,
        .unit = "m/s^2",
        .range = ValueRange::closed(-1000, 1000),
        .description = "body acceleration",
        .reported_name = "gravity_m_per_s2",
        .live_for = kDem,
        .runtime_member = &DemParameters::gravity,
        .apply =
            [](DemParameters& p, const ParameterValue& v) {
              const Vec3f g = std::get<Vec3f>(v);
              const float magnitude = std::sqrt(length_squared(g));
              if (p.normal_model == NormalModel::hertz && magnitude > p.time_step_gravity * (1.0f + 1e-6f))
                throw ParameterError(
                    "parameter 'gravity_m_per_s2': the Hertz time step was chosen for |g| <= " +
                    format_parameter_number(p.time_step_gravity) + " m/s^2; a stronger gravity (" +
                    format_parameter_number(magnitude) + ") applies on restart");
              p.gravity = g;
            }},
    DemParameterSpec{.key = "wall_restitution",
                     .member = &DemScene::wall_restitution,
                     .range = ValueRange::closed(0, 1),
                     .description =
                         "outward speed kept after a `reflect` bounce (the sample's boundary damping −0.5 "
                         "is 0.5)",
                     .allowed_note = "; an error with `contact`",
                     .live_for = kDem,
                     .runtime_member = &DemParameters::wall_restitution},
    DemParameterSpec{.key = "time_step",
                     .member = &DemScene::time_step,
                     .unit = "s",
                     .range = ValueRange::above(0),
                     .description =
                         "a fixed time step; (2/π) t_c is where symplectic Euler goes unstable on one "
                         "contact",
                     .default_note = "—",
                     .allowed_note = " and < (2/π) t_c; not with `collision_time_fraction`"},
    DemParameterSpec{.key = "collision_time_fraction",
                     .member = &DemScene::collision_time_fraction,
                     .range = ValueRange::left_open(0, 0.5),
                     .description = "dt = fraction × t_c"},
};

}  // namespace

std::span<const DemParameterSpec> dem_parameter_specs() {
  return kDemParameters;
}

std::vector<LiveParameter> live_parameters(const DemParameters& dem) {
  std::vector<LiveParameter> out;
  append_live_parameters(dem_parameter_specs(), SolverKind::dem, dem, out);
  return out;
}
bool set_live_parameter(DemParameters& dem, std::string_view name, const ParameterValue& value) {
  return apply_live_parameter(dem_parameter_specs(), SolverKind::dem, dem, name, value);
}

std::vector<NamedValue> describe_parameters(const DemParameters& p) {
  const char* normal = p.normal_model == NormalModel::hertz ? "hertz" : "linear";
  const char* friction = p.friction_model == FrictionModel::viscous   ? "viscous"
                         : p.friction_model == FrictionModel::mindlin ? "mindlin"
                                                                      : "coulomb";
  const char* walls = p.wall_model == WallModel::reflect ? "reflect" : "contact";
  // The choices, and what setup derived: the effective moduli, the damping ratio, the fixed time step and
  // the collision time it came from, the history slots, the grid's largest radius and the domain.
  std::vector<NamedValue> values = {
      {"normal_model", std::string(normal)},
      {"friction_model", std::string(friction)},
      {"wall_model", std::string(walls)},
      {"effective_modulus_pa", double(p.effective_modulus)},
      {"damping_ratio", p.damping_from_restitution ? double(p.damping_ratio) : -1.0},
      {"effective_shear_modulus_pa", double(p.effective_shear_modulus)},
      {"contact_slots", double(p.contact_slots)},
      {"time_step_s", double(p.dt)},
      {"collision_time_s", double(p.collision_time)},
      {"max_grain_radius_m", double(p.max_radius)},
      {"domain_min_m", p.domain_min},
      {"domain_max_m", p.domain_max},
  };
  append_reported_parameters(dem_parameter_specs(), SolverKind::dem, p, values);
  return values;
}

}  // namespace surge
