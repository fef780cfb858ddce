#include "sim/scene/scene_parameters.h"

#include <array>

namespace surge {

namespace {

constexpr SolverSet kWcsph = {SolverKind::wcsph};

float live_number(const ParameterValue& value) {
  return float(std::get<double>(value));
}

constexpr std::array kResolution = {
    SceneParameterSpec{.key = "spacing",
                       .member = &Scene::spacing,
                       .unit = "m",
                       .range = ValueRange::above(0),
                       .description = "distance between neighbouring particles",
                       .reported_name = "spacing_m",
                       .default_note = "—",
                       .allowed_note = " and < the smallest domain extent"},
    SceneParameterSpec{
        .key = "particles",
        .member = &Scene::target_particles,
        .range = ValueRange::closed(1, 2'000'000'000),
        .description = "target fluid particle count; the spacing is derived from the fluid volume",
        .default_note = "—"},
    SceneParameterSpec{.key = "support_ratio",
                       .member = &Scene::support_ratio,
                       .range = ValueRange::closed(1.5, 3.0),
                       .description = "kernel support radius / spacing"},
};

// WCSPH's adaptive time step (wcsph_physics.h, adaptive_time_step) reads c0, alpha, cfl and dt_max at every
// step, and gravity enters through the force condition, so these are live; rest density and gamma define the
// equation of state the particles were placed for.
constexpr std::array kFluid = {
    SceneParameterSpec{.key = "rest_density",
                       .member = &Scene::rest_density,
                       .unit = "kg/m^3",
                       .range = ValueRange::left_open(0, 1e5),
                       .description = "ρ₀",
                       .reported_name = "rest_density_kg_per_m3"},
    SceneParameterSpec{
        .key = "speed_of_sound",
        .member = &Scene::speed_of_sound,
        .unit = "m/s",
        .range = ValueRange::at_least(0),
        .description = "wcsph only: c₀ of the Tait equation; 0 = automatic, 10 × the largest expected speed "
                       "(density error about 1 %)",
        .reported_name = "speed_of_sound_m_per_s",
        .only_for = kWcsph,
        .live_for = kWcsph,
        // The Tait stiffness B = rho0 c0^2 / gamma re-derived as build_setup does; the same step's time
        // step already uses the new c0.
        .apply =
            [](SphParameters& p, const ParameterValue& v) {
              p.speed_of_sound = live_number(v);
              p.tait_stiffness = p.rest_density * p.speed_of_sound * p.speed_of_sound / p.tait_exponent;
            },
        // A running fluid has a speed of sound; 0 (automatic) only means something before setup.
        .live_range = ValueRange::left_open(0, 1e5)},
    SceneParameterSpec{.key = "tait_exponent",
                       .member = &Scene::tait_exponent,
                       .range = ValueRange::closed(1, 10),
                       .description = "wcsph only: γ in p = B((ρ/ρ₀)^γ − 1)",
                       .only_for = kWcsph},
    SceneParameterSpec{.key = "viscosity_alpha",
                       .member = &Scene::viscosity_alpha,
                       .range = ValueRange::closed(0, 1),
                       .description = "wcsph only: α of Monaghan's artificial viscosity",
                       .only_for = kWcsph,
                       .live_for = kWcsph,
                       .runtime_member = &SphParameters::viscosity_alpha},
    SceneParameterSpec{.key = "xsph_epsilon",
                       .member = &Scene::xsph_epsilon,
                       .range = ValueRange::closed(0, 1),
                       .description = "wcsph only: ε of XSPH velocity smoothing; 0 = off",
                       .only_for = kWcsph,
                       .live_for = kWcsph,
                       .runtime_member = &SphParameters::xsph_epsilon},
    SceneParameterSpec{.key = "gravity",
                       .member = &Scene::gravity,
                       .unit = "m/s^2",
                       .range = ValueRange::closed(-1000, 1000),
                       .description = "body acceleration",
                       .reported_name = "gravity_m_per_s2",
                       .live_for = kFluidSolvers,
                       .runtime_member = &SphParameters::gravity},
};

// DFSPH and PBF step with dt = cfl spacing / max speed, capped by dt_max (dfsph_physics.h,
// incompressible_time_step), chosen anew every step; WCSPH's step reads cfl, dt_max and dt_min every step.
constexpr std::array kTime = {
    SceneParameterSpec{.key = "end",
                       .member = &Scene::end_time,
                       .unit = "s",
                       .range = ValueRange::above(0),
                       .description = "simulated time of a run"},
    SceneParameterSpec{
        .key = "cfl",
        .member = &Scene::cfl,
        .range = ValueRange::left_open(0, 1),
        .description =
            "Courant number. wcsph: dt = cfl · h / (c₀ + v_max), also limited by forces and viscosity. "
            "dfsph, pbf: dt = cfl · spacing / v_max (a particle moves at most `cfl` spacings per "
            "step; Bender & Koschier use 0.4)",
        .live_for = kFluidSolvers,
        .runtime_member = &SphParameters::cfl},
    SceneParameterSpec{.key = "dt_max",
                       .member = &Scene::dt_max,
                       .unit = "s",
                       .range = ValueRange::above(0),
                       .description = "largest time step",
                       .reported_name = "dt_max_s",
                       .live_for = kFluidSolvers,
                       .apply =
                           [](SphParameters& p, const ParameterValue& v) {
                             if (!(live_number(v) > p.dt_min))
                               throw ParameterError(
                                   "parameter 'dt_max_s': expected a value above dt_min_s = " +
                                   format_parameter_number(p.dt_min) + ", got " +
                                   format_parameter_number(live_number(v)));
                             p.dt_max = live_number(v);
                           }},
    SceneParameterSpec{.key = "dt_min",
                       .member = &Scene::dt_min,
                       .unit = "s",
                       .range = ValueRange::above(0),
                       .description = "an adaptive step below this is a collapse and ends the run",
                       .reported_name = "dt_min_s",
                       .allowed_note = " and < `dt_max`",
                       .live_for = kWcsph,
                       .apply =
                           [](SphParameters& p, const ParameterValue& v) {
                             if (!(live_number(v) < p.dt_max))
                               throw ParameterError(
                                   "parameter 'dt_min_s': expected a value below dt_max_s = " +
                                   format_parameter_number(p.dt_max) + ", got " +
                                   format_parameter_number(live_number(v)));
                             p.dt_min = live_number(v);
                           }},
};

}  // namespace

std::span<const SceneParameterSpec> resolution_parameter_specs() {
  return kResolution;
}
std::span<const SceneParameterSpec> fluid_parameter_specs() {
  return kFluid;
}
std::span<const SceneParameterSpec> time_parameter_specs() {
  return kTime;
}

}  // namespace surge
