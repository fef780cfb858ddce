// The parameter tables of [dfsph] and [pbf] (sim/core/parameter_spec.h): the scene and the running solver
// keep the same structs (solver_parameters.h).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
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

// Each solver's own live parameters, and set_live_parameter(settings, name, value): applies one and returns
// true, returns false when `name` is not one of them, throws ParameterError for a value it refuses.
std::vector<LiveParameter> live_parameters(const DfsphParameters& dfsph);
bool set_live_parameter(DfsphParameters& dfsph, std::string_view name, const ParameterValue& value);
std::vector<LiveParameter> live_parameters(const PbfParameters& pbf);
bool set_live_parameter(PbfParameters& pbf, std::string_view name, const ParameterValue& value);

// The solver's own settings as a benchmark records them (every entry of its table).
std::vector<NamedValue> describe_parameters(const DfsphParameters& dfsph);
std::vector<NamedValue> describe_parameters(const PbfParameters& pbf);

}  // namespace surge
