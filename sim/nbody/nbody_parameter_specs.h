// The parameter table of [nbody] (sim/core/parameter_spec.h), in the scene's units.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
#include "sim/core/parameter_spec.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

// Why the other n-body parameters apply on restart (docs/scenes.md, "Live parameters").
inline constexpr std::string_view kNbodyRestartReason =
    "the method and G. The first half-kick after an edit uses the accelerations of the step before; energy "
    "figures keep the start as their reference.";

std::span<const ParameterSpec<NbodyParameters>> nbody_parameter_specs();

// The n-body live parameters, and set_live_parameter(params, name, value): applies one and returns true,
// returns false when `name` is not one of them, throws ParameterError for a value it refuses.
std::vector<LiveParameter> live_parameters(const NbodyParameters& nbody);
bool set_live_parameter(NbodyParameters& nbody, std::string_view name, const ParameterValue& value);

// The parameters as a benchmark records them: the method and the table's entries (theta with Barnes–Hut).
std::vector<NamedValue> describe_parameters(const NbodyParameters& parameters);

}  // namespace surge
