// The parameter table of [dem] (sim/core/parameter_spec.h): kept in DemScene, run as DemParameters, which
// build_dem_setup() derives (damping ratio, effective moduli, the fixed time step).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
#include "sim/core/parameter_spec.h"
#include "sim/dem/dem_parameters.h"
#include "sim/dem/dem_scene.h"

namespace surge {

using DemParameterSpec = ParameterSpec<DemScene, DemParameters>;

// Why DEM's other parameters apply on restart (docs/scenes.md, "Live parameters").
inline constexpr std::string_view kDemRestartReason =
    "the fixed time step is a fraction of the collision time π√(m*/k) (or the Hertz one): stiffness, Young's "
    "modulus, grain sizes and masses set it. The Hertz collision time was taken at the speed of a fall "
    "through the "
    "domain, so there a gravity stronger than the scene's applies on restart. `restitution` is live when the "
    "damping "
    "comes from it (no `normal_damping`).";

std::span<const DemParameterSpec> dem_parameter_specs();

// DEM's live parameters, and set_live_parameter(params, name, value): applies one and returns true, returns
// false when `name` is not one of them, throws ParameterError for a value it refuses.
std::vector<LiveParameter> live_parameters(const DemParameters& dem);
bool set_live_parameter(DemParameters& dem, std::string_view name, const ParameterValue& value);

// The parameters as a benchmark records them, units in the names: the table's entries the run keeps, the
// choices, and what setup derived.
std::vector<NamedValue> describe_parameters(const DemParameters& parameters);

}  // namespace surge
