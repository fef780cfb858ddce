// The parameter tables of the scene-wide and WCSPH keys ([resolution], [fluid], [time]; sim/core/
// parameter_spec.h): kept in Scene, run as SphParameters. build_setup() copies them across.
#pragma once

#include <span>
#include <string_view>

#include "sim/core/parameter_spec.h"
#include "sim/scene/scene.h"
#include "sim/sph/sph_setup.h"

namespace surge {

using SceneParameterSpec = ParameterSpec<Scene, SphParameters>;

// Why WCSPH's other parameters apply on restart (docs/scenes.md, "Live parameters").
inline constexpr std::string_view kWcsphRestartReason =
    "the time step is chosen anew every step from c0, α, the largest acceleration and `cfl`, so all of these "
    "may "
    "change; a new c0 re-derives the Tait stiffness B = ρ0 c0² / γ. Spacing, kernel, support, rest density, "
    "mass "
    "and γ define the particles or the equation of state they were placed for.";

std::span<const SceneParameterSpec> resolution_parameter_specs();
std::span<const SceneParameterSpec> fluid_parameter_specs();
std::span<const SceneParameterSpec> time_parameter_specs();

}  // namespace surge
