// The live parameters of each family, served from its parameter table (sim/core/parameter_spec.h): which
// parameters a solver takes while running, their ranges, and how a value is applied.
#include "sim/scene/live_parameters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>

#include "sim/dem/dem_parameter_specs.h"
#include "sim/nbody/nbody_parameter_specs.h"
#include "sim/scene/scene_parameters.h"
#include "sim/sph/solver_parameter_specs.h"

namespace surge {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string describe_range(const LiveParameter& p) {
  std::string text = std::string(p.min_open ? "(" : "[") + format_parameter_number(p.min) + ", ";
  return text + (p.max == kInfinity ? std::string("inf)") : format_parameter_number(p.max) + "]");
}

void check_value(const LiveParameter& p, const ParameterValue& value) {
  const std::string name(p.name);
  if (p.vector) {
    const Vec3f* v = std::get_if<Vec3f>(&value);
    if (!v) throw ParameterError("parameter '" + name + "': expected a vector (x, y, z), got a number");
    for (float c : {v->x, v->y, v->z})
      if (!p.contains(c))
        throw ParameterError("parameter '" + name + "': expected each component in " + describe_range(p) +
                             ", got " + format_parameter_number(c));
    return;
  }
  const double* x = std::get_if<double>(&value);
  if (!x) throw ParameterError("parameter '" + name + "': expected a number, got a vector");
  if (p.integer && *x != std::floor(*x))
    throw ParameterError("parameter '" + name + "': expected a whole number, got " +
                         format_parameter_number(*x));
  if (!p.contains(float(*x)))
    throw ParameterError("parameter '" + name + "': expected a value in " + describe_range(p) + ", got " +
                         format_parameter_number(*x));
}

template <typename Owner, typename Runtime>
LiveParameter live_parameter(const ParameterSpec<Owner, Runtime>& spec) {
  const ValueRange range = spec.live_range.value_or(spec.range);
  const bool integer = std::visit(
      [](auto member) { return std::is_integral_v<std::remove_reference_t<decltype(Owner{}.*member)>>; },
      spec.member);
  const bool vector = std::holds_alternative<Vec3f Owner::*>(spec.member);
  return {spec.name(), range.min, range.max, range.min_open, integer && !vector, vector, spec.unit};
}

template <typename Owner, typename Runtime>
bool takes(const ParameterSpec<Owner, Runtime>& spec, SolverKind solver, const Runtime& runtime) {
  return spec.live_for.contains(solver) && (!spec.available || spec.available(runtime));
}

// Appends the parameters of `specs` that `solver` takes live in the state `runtime` is in.
template <typename Owner, typename Runtime>
void list(std::span<const ParameterSpec<Owner, Runtime>> specs, SolverKind solver, const Runtime& runtime,
          std::vector<LiveParameter>& out) {
  for (const auto& spec : specs)
    if (takes(spec, solver, runtime)) out.push_back(live_parameter(spec));
}

template <typename Owner, typename Runtime>
bool apply(std::span<const ParameterSpec<Owner, Runtime>> specs, SolverKind solver, Runtime& runtime,
           std::string_view name, const ParameterValue& value) {
  for (const auto& spec : specs) {
    if (spec.name() != name || !takes(spec, solver, runtime)) continue;
    check_value(live_parameter(spec), value);
    if (spec.apply) {
      spec.apply(runtime, value);
      return true;
    }
    std::visit(
        [&](auto member) {
          using Value = std::remove_reference_t<decltype(runtime.*member)>;
          if constexpr (std::is_same_v<Value, Vec3f>) {
            runtime.*member = std::get<Vec3f>(value);
          } else if constexpr (std::is_integral_v<Value>) {
            runtime.*member = Value(std::get<double>(value));
          } else if constexpr (std::is_same_v<Value, float>) {
            runtime.*member = float(std::get<double>(value)) / spec.file_scale;
          } else {
            runtime.*member = Value(std::get<double>(value) / double(spec.file_scale));
          }
        },
        spec.runtime_member);
    return true;
  }
  return false;
}

// The SPH fluid parameters a solver reads from SphParameters: [fluid] and [time].
std::vector<LiveParameter> sph_parameters(SolverKind solver, const SphParameters& fluid) {
  std::vector<LiveParameter> out;
  list(fluid_parameter_specs(), solver, fluid, out);
  list(time_parameter_specs(), solver, fluid, out);
  return out;
}
bool set_sph_parameter(SolverKind solver, SphParameters& fluid, std::string_view name,
                       const ParameterValue& value) {
  return apply(fluid_parameter_specs(), solver, fluid, name, value) ||
         apply(time_parameter_specs(), solver, fluid, name, value);
}

template <typename Params>
std::vector<LiveParameter> own_parameters(std::span<const ParameterSpec<Params>> specs, SolverKind solver,
                                          const Params& params) {
  std::vector<LiveParameter> out;
  list(specs, solver, params, out);
  return out;
}

// A report of a struct the scene and the solver share: every parameter of its table, in the file's units.
template <typename Params>
std::vector<NamedValue> describe(std::span<const ParameterSpec<Params>> specs, const Params& params) {
  std::vector<NamedValue> values;
  for (const auto& spec : specs) {
    std::visit(
        [&](auto member) {
          const auto& value = params.*member;
          using Value = std::remove_cvref_t<decltype(value)>;
          if constexpr (std::is_same_v<Value, bool>) {
            values.push_back({std::string(spec.name()), std::string(value ? "on" : "off")});
          } else if constexpr (std::is_same_v<Value, Vec3f>) {
            values.push_back({std::string(spec.name()), value});
          } else {
            values.push_back({std::string(spec.name()), double(value) * double(spec.file_scale)});
          }
        },
        spec.member);
  }
  return values;
}

}  // namespace

bool LiveParameter::contains(float value) const {
  if (!std::isfinite(value)) return false;
  return (min_open ? value > min : value >= min) && value <= max;
}

std::vector<LiveParameter> live_parameters(const SphParameters& wcsph) {
  return sph_parameters(SolverKind::wcsph, wcsph);
}
bool set_live_parameter(SphParameters& wcsph, std::string_view name, const ParameterValue& value) {
  return set_sph_parameter(SolverKind::wcsph, wcsph, name, value);
}
// DFSPH and PBF take the same ones (live_for names both in every entry).
std::vector<LiveParameter> live_incompressible_parameters() {
  return sph_parameters(SolverKind::dfsph, SphParameters{});
}
bool set_live_incompressible_parameter(SphParameters& fluid, std::string_view name,
                                       const ParameterValue& value) {
  return set_sph_parameter(SolverKind::dfsph, fluid, name, value);
}
std::vector<LiveParameter> live_parameters(const DfsphParameters& dfsph) {
  return own_parameters(dfsph_parameter_specs(), SolverKind::dfsph, dfsph);
}
bool set_live_parameter(DfsphParameters& dfsph, std::string_view name, const ParameterValue& value) {
  return apply(dfsph_parameter_specs(), SolverKind::dfsph, dfsph, name, value);
}
std::vector<LiveParameter> live_parameters(const PbfParameters& pbf) {
  return own_parameters(pbf_parameter_specs(), SolverKind::pbf, pbf);
}
bool set_live_parameter(PbfParameters& pbf, std::string_view name, const ParameterValue& value) {
  return apply(pbf_parameter_specs(), SolverKind::pbf, pbf, name, value);
}
std::vector<LiveParameter> live_parameters(const DemParameters& dem) {
  std::vector<LiveParameter> out;
  list(dem_parameter_specs(), SolverKind::dem, dem, out);
  return out;
}
bool set_live_parameter(DemParameters& dem, std::string_view name, const ParameterValue& value) {
  return apply(dem_parameter_specs(), SolverKind::dem, dem, name, value);
}
std::vector<LiveParameter> live_parameters(const NbodyParameters& nbody) {
  return own_parameters(nbody_parameter_specs(), SolverKind::nbody, nbody);
}
bool set_live_parameter(NbodyParameters& nbody, std::string_view name, const ParameterValue& value) {
  return apply(nbody_parameter_specs(), SolverKind::nbody, nbody, name, value);
}

std::vector<NamedValue> describe_parameters(const DfsphParameters& dfsph) {
  std::vector<NamedValue> values = {{"solver", std::string("dfsph")}};
  for (NamedValue& value : describe(dfsph_parameter_specs(), dfsph)) values.push_back(std::move(value));
  return values;
}
std::vector<NamedValue> describe_parameters(const PbfParameters& pbf) {
  std::vector<NamedValue> values = {{"solver", std::string("pbf")}};
  for (NamedValue& value : describe(pbf_parameter_specs(), pbf)) values.push_back(std::move(value));
  return values;
}

}  // namespace surge
