// Parameters a running simulation takes between steps (Simulation::set_parameter), for each solver family.
//
// A parameter is live when a scene that started with the new value would have the same particles and the
// same time-step rule: then the next step only reads a different number from the parameter struct every
// kernel is passed by value at its launch, on the CPU and on the GPU alike, and nothing crosses the bus.
// The rest (spacing, kernel, masses, walls, a DEM stiffness the fixed time step was derived from...) needs
// new particles or a new time step, so it applies on restart. Which parameters are live, their names (those
// parameters() reports, units included), ranges and setters are the families' parameter tables
// (sim/core/parameter_spec.h); this file serves them to the backends.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/parameter_spec.h"

namespace surge {

struct SphParameters;
struct DfsphParameters;
struct PbfParameters;
struct DemParameters;
struct NbodyParameters;

// Each family's live parameters, and set_live_parameter(params, name, value): applies one and returns true,
// returns false when `name` is not one of them, throws ParameterError for a value it refuses.
std::vector<LiveParameter> live_parameters(const SphParameters& wcsph);
bool set_live_parameter(SphParameters& wcsph, std::string_view name, const ParameterValue& value);
// The part of SphParameters the incompressible solvers (DFSPH, PBF) read: gravity, cfl, dt_max.
std::vector<LiveParameter> live_incompressible_parameters();
bool set_live_incompressible_parameter(SphParameters& fluid, std::string_view name,
                                       const ParameterValue& value);
std::vector<LiveParameter> live_parameters(const DfsphParameters& dfsph);
bool set_live_parameter(DfsphParameters& dfsph, std::string_view name, const ParameterValue& value);
std::vector<LiveParameter> live_parameters(const PbfParameters& pbf);
bool set_live_parameter(PbfParameters& pbf, std::string_view name, const ParameterValue& value);
std::vector<LiveParameter> live_parameters(const DemParameters& dem);
bool set_live_parameter(DemParameters& dem, std::string_view name, const ParameterValue& value);
std::vector<LiveParameter> live_parameters(const NbodyParameters& nbody);
bool set_live_parameter(NbodyParameters& nbody, std::string_view name, const ParameterValue& value);

}  // namespace surge
