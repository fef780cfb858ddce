// The parameter table of [dem] (sim/core/parameter_spec.h): kept in DemScene, run as DemParameters, which
// build_dem_setup() derives (damping ratio, effective moduli, the fixed time step).
#pragma once

#include <span>
#include <string_view>

#include "sim/core/parameter_spec.h"
#include "sim/dem/dem_parameters.h"
#include "sim/scene/dem_scene.h"

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

}  // namespace surge
