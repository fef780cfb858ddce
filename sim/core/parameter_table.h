// Serving a family's parameter table (parameter_spec.h) to a running simulation: the parameters a solver
// takes live, one of them applied after its range is checked, and the report of what a run keeps. Each
// family calls these from its own *_parameter_specs.cpp, next to its table; nothing here knows a family.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "sim/core/live_parameter.h"
#include "sim/core/named_value.h"
#include "sim/core/parameter_spec.h"
#include "sim/core/solver_kind.h"

namespace surge {

// Throws ParameterError naming the parameter when `value` is of the wrong kind or outside its range.
void check_live_value(const LiveParameter& parameter, const ParameterValue& value);

template <typename Owner, typename Runtime>
LiveParameter live_parameter(const ParameterSpec<Owner, Runtime>& spec) {
  const ValueRange range = spec.live_range.value_or(spec.range);
  const bool integer = std::visit(
      [](auto member) { return std::is_integral_v<std::remove_reference_t<decltype(Owner{}.*member)>>; },
      spec.member);
  const bool vector = std::holds_alternative<Vec3f Owner::*>(spec.member);
  return {spec.name(), range.min, range.max, range.min_open, integer && !vector, vector, spec.unit};
}

// The solver takes the parameter live in the state `runtime` is in.
template <typename Owner, typename Runtime>
bool takes_live(const ParameterSpec<Owner, Runtime>& spec, SolverKind solver, const Runtime& runtime) {
  return spec.live_for.contains(solver) && (!spec.available || spec.available(runtime));
}

// Appends the parameters of `specs` that `solver` takes live.
template <typename Owner, typename Runtime>
void append_live_parameters(std::span<const ParameterSpec<Owner, Runtime>> specs, SolverKind solver,
                            const Runtime& runtime, std::vector<LiveParameter>& out) {
  for (const auto& spec : specs)
    if (takes_live(spec, solver, runtime)) out.push_back(live_parameter(spec));
}

// Applies the live parameter called `name`: true when `specs` has it, false when it has not; throws
// ParameterError for a value it refuses.
template <typename Owner, typename Runtime>
bool apply_live_parameter(std::span<const ParameterSpec<Owner, Runtime>> specs, SolverKind solver,
                          Runtime& runtime, std::string_view name, const ParameterValue& value) {
  for (const auto& spec : specs) {
    if (spec.name() != name || !takes_live(spec, solver, runtime)) continue;
    check_live_value(live_parameter(spec), value);
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

// Where a running simulation keeps the parameter: the runtime member, or the scene's own member where
// scene and run share one struct. Calls visit(member) when there is one.
template <typename Owner, typename Runtime, typename Visit>
void visit_runtime_member(const ParameterSpec<Owner, Runtime>& spec, Visit&& visit) {
  const bool has_runtime = std::visit([](auto member) { return member != nullptr; }, spec.runtime_member);
  if (has_runtime) {
    std::visit(visit, spec.runtime_member);
  } else if constexpr (std::is_same_v<Owner, Runtime>) {
    std::visit(visit, spec.member);
  }
}

// Appends the report of every parameter of `specs` that `solver` uses and that the run keeps, under the
// name set_parameter() takes, in the file's units (a percentage as a percentage), skipping those whose
// `available` says the run's state has no use for them.
template <typename Owner, typename Runtime>
void append_reported_parameters(std::span<const ParameterSpec<Owner, Runtime>> specs, SolverKind solver,
                                const Runtime& runtime, std::vector<NamedValue>& out) {
  for (const auto& spec : specs) {
    if (!spec.only_for.empty() && !spec.only_for.contains(solver)) continue;
    if (spec.available && !spec.available(runtime)) continue;
    visit_runtime_member(spec, [&](auto member) {
      const auto& value = runtime.*member;
      using Value = std::remove_cvref_t<decltype(value)>;
      if constexpr (std::is_same_v<Value, bool>) {
        out.push_back({std::string(spec.name()), std::string(value ? "on" : "off")});
      } else if constexpr (std::is_same_v<Value, Vec3f>) {
        out.push_back({std::string(spec.name()), value});
      } else {
        out.push_back({std::string(spec.name()), double(value) * double(spec.file_scale)});
      }
    });
  }
}

}  // namespace surge
