// The parameter tables of [dfsph] and [pbf] (sim/core/parameter_spec.h): the scene and the running solver
// keep the same structs (solver_parameters.h).
#pragma once

#include <span>
#include <string_view>

#include "sim/core/parameter_spec.h"
#include "sim/sph/solver_parameters.h"

namespace surge {

// Why the incompressible solvers' other parameters apply on restart (docs/scenes.md, "Live parameters").
inline constexpr std::string_view kDfsphRestartReason =
    "dt = `cfl` spacing / largest speed, capped by `dt_max`, every step. (`dt_min` plays no part in DFSPH "
    "and PBF.) "
    "The free-surface threshold and the divergence solve's switch choose how particles are treated at setup.";
inline constexpr std::string_view kPbfRestartReason =
    "as DFSPH; the relaxation scales the bulk gradient sum measured at setup.";

std::span<const ParameterSpec<DfsphParameters>> dfsph_parameter_specs();
std::span<const ParameterSpec<PbfParameters>> pbf_parameter_specs();

}  // namespace surge
