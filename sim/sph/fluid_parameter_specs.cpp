#include "sim/sph/fluid_parameter_specs.h"

#include <array>
#include <string>

#include "sim/core/parameter_table.h"
#include "sim/core/particle_limits.h"

namespace surge {

namespace {

constexpr SolverSet kWcsph = {SolverKind::wcsph};

float live_number(const ParameterValue& value) {
  return float(std::get<double>(value));
}

constexpr std::array kResolution = {
    FluidParameterSpec{.key = "spacing",
                       .member = &FluidSceneKeys::spacing,
                       .unit = "m",
                       .range = ValueRange::above(0),
                       .description = "distance between neighbouring particles",
                       .reported_name = "spacing_m",
                       .default_note = "—",
                       .allowed_note = " and < the smallest domain extent",
                       .runtime_member = &SphParameters::spacing},
    FluidParameterSpec{
        .key = "particles",
        .member = &FluidSceneKeys::target_particles,
        .range = ValueRange::closed(1, double(kMaxParticles)),
        .description = "target fluid particle count; the spacing is derived from the fluid volume",
        .default_note = "—"},
    FluidParameterSpec{.key = "support_ratio",
                       .member = &FluidSceneKeys::support_ratio,
                       .range = ValueRange::closed(1.5, 4.0),
                       .description = "kernel support radius / spacing; 4 with `wendland_c2` is the "
                                      "engineering standard (h = 2 spacings, DualSPHysics)"},
    FluidParameterSpec{
        .key = "cells_per_support",
        .member = &FluidSceneKeys::cells_per_support,
        .range = ValueRange::closed(1, 2),
        .description =
            "cells of the neighbour search's index across one support: 1 searches the 3×3×3 cells "
            "around a particle; 2 (cells of half a support) the rows of the 5×5×5 block that reach "
            "within the support, trimmed to it, testing about 40 % as many candidates per neighbour "
            "for a cell table 8× larger. Same neighbours, sums in another order"},
};

// WCSPH's adaptive time step (wcsph_physics.h, adaptive_time_step) reads c0, alpha, cfl and dt_max at every
// step, and gravity enters through the force condition, so these are live; rest density and gamma define the
// equation of state the particles were placed for.
constexpr std::array kFluid = {
    FluidParameterSpec{.key = "rest_density",
                       .member = &FluidSceneKeys::rest_density,
                       .unit = "kg/m^3",
                       .range = ValueRange::left_open(0, 1e5),
                       .description = "ρ₀",
                       .reported_name = "rest_density_kg_per_m3",
                       .runtime_member = &SphParameters::rest_density},
    FluidParameterSpec{
        .key = "speed_of_sound",
        .member = &FluidSceneKeys::speed_of_sound,
        .unit = "m/s",
        .range = ValueRange::at_least(0),
        .description = "wcsph only: c₀ of the Tait equation; 0 = automatic, 10 × the largest expected speed "
                       "(density error about 1 %)",
        .reported_name = "speed_of_sound_m_per_s",
        .only_for = kWcsph,
        .live_for = kWcsph,
        .runtime_member = &SphParameters::speed_of_sound,
        // The Tait stiffness B = rho0 c0^2 / gamma re-derived as build_setup does; the same step's time
        // step already uses the new c0.
        .apply =
            [](SphParameters& p, const ParameterValue& v) {
              p.speed_of_sound = live_number(v);
              p.tait_stiffness = p.rest_density * p.speed_of_sound * p.speed_of_sound / p.tait_exponent;
            },
        // A running fluid has a speed of sound; 0 (automatic) only means something before setup.
        .live_range = ValueRange::left_open(0, 1e5)},
    FluidParameterSpec{.key = "tait_exponent",
                       .member = &FluidSceneKeys::tait_exponent,
                       .range = ValueRange::closed(1, 10),
                       .description = "wcsph only: γ in p = B((ρ/ρ₀)^γ − 1)",
                       .only_for = kWcsph,
                       .runtime_member = &SphParameters::tait_exponent},
    FluidParameterSpec{.key = "viscosity_alpha",
                       .member = &FluidSceneKeys::viscosity_alpha,
                       .range = ValueRange::closed(0, 1),
                       .description = "wcsph only: α of Monaghan's artificial viscosity",
                       .only_for = kWcsph,
                       .live_for = kWcsph,
                       .runtime_member = &SphParameters::viscosity_alpha},
    FluidParameterSpec{.key = "xsph_epsilon",
                       .member = &FluidSceneKeys::xsph_epsilon,
                       .range = ValueRange::closed(0, 1),
                       .description = "wcsph only: ε of XSPH velocity smoothing; 0 = off",
                       .only_for = kWcsph,
                       .live_for = kWcsph,
                       .runtime_member = &SphParameters::xsph_epsilon},
    // The density mode decides what the particles carry from step to step (a density of their own or none),
    // so it applies on restart; delta only weighs a term of the density rate and is live.
    FluidParameterSpec{
        .key = "continuity_density",
        .member = &FluidSceneKeys::continuity_density,
        .description =
            "wcsph only: true integrates the density from the continuity equation with δ-SPH "
            "diffusion (`density_diffusion`), starting hydrostatic and keeping the fluid's tension "
            "(negative pressure); false sums it from the neighbours, the pressure clamped at zero. "
            "Continuity gives a usable wall pressure and one neighbour pass a step",
        .only_for = kWcsph,
        .runtime_member = &SphParameters::continuity_density},
    FluidParameterSpec{
        .key = "density_diffusion",
        .member = &FluidSceneKeys::density_diffusion,
        // Above 0.2 the diffusion term feeds the Verlet scheme's computational mode faster than its Euler
        // steps hold it back (wcsph_physics.h, kVerletEulerInterval): 0.3 blew up in 192 steps.
        .range = ValueRange::closed(0, 0.2),
        .description = "wcsph with `continuity_density` only: δ of the δ-SPH term δ h c₀ Σ ψ·∇W V "
                       "(Molteni & Colagrossi 2009, hydrostatic correction of Fourtakas et al. 2019); 0 = "
                       "off. 0.1 as DualSPHysics: a wall gauge's noise falls 17-115× against summation "
                       "density or δ = 0",
        .allowed_note = "; `continuity_density` only",
        .only_for = kWcsph,
        .live_for = kWcsph,
        .runtime_member = &SphParameters::density_diffusion,
        .available = [](const SphParameters& p) { return p.continuity_density; }},
    FluidParameterSpec{.key = "gravity",
                       .member = &FluidSceneKeys::gravity,
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
    FluidParameterSpec{.key = "end",
                       .member = &FluidSceneKeys::end_time,
                       .unit = "s",
                       .range = ValueRange::above(0),
                       .description = "simulated time of a run"},
    FluidParameterSpec{
        .key = "cfl",
        .member = &FluidSceneKeys::cfl,
        .range = ValueRange::left_open(0, 1),
        .description =
            "Courant number. wcsph: dt = cfl · h / (c₀ + v_max), also limited by forces and viscosity. "
            "dfsph, pbf: dt = cfl · spacing / v_max (a particle moves at most `cfl` spacings per "
            "step; Bender & Koschier use 0.4)",
        .live_for = kFluidSolvers,
        .runtime_member = &SphParameters::cfl},
    FluidParameterSpec{.key = "dt_max",
                       .member = &FluidSceneKeys::dt_max,
                       .unit = "s",
                       .range = ValueRange::above(0),
                       .description = "largest time step",
                       .reported_name = "dt_max_s",
                       .live_for = kFluidSolvers,
                       .runtime_member = &SphParameters::dt_max,
                       .apply =
                           [](SphParameters& p, const ParameterValue& v) {
                             if (!(live_number(v) > p.dt_min))
                               throw ParameterError(
                                   "parameter 'dt_max_s': expected a value above dt_min_s = " +
                                   format_parameter_number(p.dt_min) + ", got " +
                                   format_parameter_number(live_number(v)));
                             p.dt_max = live_number(v);
                           }},
    FluidParameterSpec{.key = "dt_min",
                       .member = &FluidSceneKeys::dt_min,
                       .unit = "s",
                       .range = ValueRange::above(0),
                       .description = "an adaptive step below this is a collapse and ends the run",
                       .reported_name = "dt_min_s",
                       .allowed_note = " and < `dt_max`",
                       .live_for = kWcsph,
                       .runtime_member = &SphParameters::dt_min,
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

std::span<const FluidParameterSpec> resolution_parameter_specs() {
  return kResolution;
}
std::span<const FluidParameterSpec> fluid_parameter_specs() {
  return kFluid;
}
std::span<const FluidParameterSpec> time_parameter_specs() {
  return kTime;
}

namespace {

// The SPH fluid parameters a solver reads from SphParameters: [fluid] and [time].
std::vector<LiveParameter> fluid_live_parameters(SolverKind solver, const SphParameters& fluid) {
  std::vector<LiveParameter> out;
  append_live_parameters(fluid_parameter_specs(), solver, fluid, out);
  append_live_parameters(time_parameter_specs(), solver, fluid, out);
  return out;
}
bool set_fluid_live_parameter(SolverKind solver, SphParameters& fluid, std::string_view name,
                              const ParameterValue& value) {
  return apply_live_parameter(fluid_parameter_specs(), solver, fluid, name, value) ||
         apply_live_parameter(time_parameter_specs(), solver, fluid, name, value);
}

}  // namespace

std::vector<LiveParameter> live_parameters(const SphParameters& wcsph) {
  return fluid_live_parameters(SolverKind::wcsph, wcsph);
}
bool set_live_parameter(SphParameters& wcsph, std::string_view name, const ParameterValue& value) {
  return set_fluid_live_parameter(SolverKind::wcsph, wcsph, name, value);
}
// DFSPH and PBF take the same ones (live_for names both in every entry).
std::vector<LiveParameter> live_incompressible_parameters() {
  return fluid_live_parameters(SolverKind::dfsph, SphParameters{});
}
bool set_live_incompressible_parameter(SphParameters& fluid, std::string_view name,
                                       const ParameterValue& value) {
  return set_fluid_live_parameter(SolverKind::dfsph, fluid, name, value);
}

std::vector<NamedValue> describe_parameters(const SphParameters& p, SolverKind solver) {
  // What setup derived from the keys: the kernel and its support, the particle mass, the Tait stiffness
  // and the domain.
  std::vector<NamedValue> values = {
      {"kernel", std::string(p.kernel == KernelType::wendland_c2 ? "wendland_c2" : "cubic_spline")},
      {"support_m", double(p.support)},
      {"particle_mass_kg", double(p.particle_mass)}};
  if (solver == SolverKind::wcsph) values.push_back({"tait_stiffness_pa", double(p.tait_stiffness)});
  values.push_back({"domain_min_m", p.domain_min});
  values.push_back({"domain_max_m", p.domain_max});
  for (auto specs : {resolution_parameter_specs(), fluid_parameter_specs(), time_parameter_specs()})
    append_reported_parameters(specs, solver, p, values);
  return values;
}

}  // namespace surge
