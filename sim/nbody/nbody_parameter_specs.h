// The parameter table of [nbody] (sim/core/parameter_spec.h), in the scene's units.
#pragma once

#include <span>
#include <string_view>

#include "sim/core/parameter_spec.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

// Why the other n-body parameters apply on restart (docs/scenes.md, "Live parameters").
inline constexpr std::string_view kNbodyRestartReason =
    "the method and G. The first half-kick after an edit uses the accelerations of the step before; energy "
    "figures keep the start as their reference.";

std::span<const ParameterSpec<NbodyParameters>> nbody_parameter_specs();

}  // namespace surge
