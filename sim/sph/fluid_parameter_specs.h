// The parameter tables of the SPH family's scene-wide keys ([resolution], [fluid], [time]; sim/core/
// parameter_spec.h): kept in FluidSceneKeys, run as SphParameters, which build_setup() derives from them.
// The live parameters and the reports of the three SPH solvers' fluid settings are served from here.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
#include "sim/core/parameter_spec.h"
#include "sim/sph/fluid_scene_keys.h"
#include "sim/sph/sph_setup.h"

namespace surge {

using FluidParameterSpec = ParameterSpec<FluidSceneKeys, SphParameters>;

// Why WCSPH's other parameters apply on restart (docs/scenes.md, "Live parameters").
inline constexpr std::string_view kWcsphRestartReason =
    "the time step is chosen anew every step from c0, α, the largest acceleration and `cfl`, so all of these "
    "may "
    "change; a new c0 re-derives the Tait stiffness B = ρ0 c0² / γ, and δ weighs a term of the continuity "
    "density's rate. Spacing, kernel, support, rest density, "
    "mass "
    "and γ define the particles or the equation of state they were placed for; the density mode decides "
    "whether they carry a density.";

std::span<const FluidParameterSpec> resolution_parameter_specs();
std::span<const FluidParameterSpec> fluid_parameter_specs();
std::span<const FluidParameterSpec> time_parameter_specs();

// WCSPH's live parameters, and set_live_parameter(params, name, value): applies one and returns true,
// returns false when `name` is not one of them, throws ParameterError for a value it refuses.
std::vector<LiveParameter> live_parameters(const SphParameters& wcsph);
bool set_live_parameter(SphParameters& wcsph, std::string_view name, const ParameterValue& value);
// The part of SphParameters the incompressible solvers (DFSPH, PBF) take live: gravity, cfl, dt_max.
std::vector<LiveParameter> live_incompressible_parameters();
bool set_live_incompressible_parameter(SphParameters& fluid, std::string_view name,
                                       const ParameterValue& value);

// The fluid parameters `solver` runs with, as a benchmark records them, units in the names: the table's
// keys that solver uses, and what setup derived from them.
std::vector<NamedValue> describe_parameters(const SphParameters& parameters, SolverKind solver);

}  // namespace surge
