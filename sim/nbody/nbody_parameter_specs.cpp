#include "sim/nbody/nbody_parameter_specs.h"

#include <array>
#include <string>

#include "sim/core/parameter_table.h"

namespace surge {

namespace {

using NbodySpec = ParameterSpec<NbodyParameters>;
constexpr SolverSet kNbody = {SolverKind::nbody};

// A fixed leapfrog step the scene gives directly, so dt is live like the softening and the opening angle. A
// kick-drift-kick step is symmetric on its own; its stability is the same as for a scene that starts with
// that dt. G sets the scene's units, which the bodies were placed in.
constexpr std::array kNbodyParameters = {
    NbodySpec{.key = "G",
              .member = &NbodyParameters::gravitational_constant,
              .unit = "length^3/(mass time^2)",
              .range = ValueRange::above(0),
              .description = "gravitational constant"},
    NbodySpec{.key = "softening",
              .member = &NbodyParameters::softening,
              .unit = "length",
              .range = ValueRange::at_least(0),
              .description =
                  "Plummer softening length ε: the force is m r / (r² + ε²)^{3/2}; 0 = point masses (for "
                  "`two_body` orbits)",
              .live_for = kNbody,
              .runtime_member = &NbodyParameters::softening},
    // Past about 1 the centre-of-mass criterion accepts nodes that contain the body itself.
    NbodySpec{.key = "theta",
              .member = &NbodyParameters::theta,
              .range = ValueRange::left_open(0, 1),
              .description =
                  "Barnes–Hut opening angle: a node of size l whose centre of mass is offset δ from its box "
                  "centre stands in for its bodies beyond l/θ + δ",
              .allowed_note = "; `barnes_hut` only",
              .live_for = kNbody,
              .runtime_member = &NbodyParameters::theta,
              .available = [](const NbodyParameters& p) { return p.method == NbodyMethod::barnes_hut; }},
    NbodySpec{.key = "leaf_size",
              .member = &NbodyParameters::leaf_size,
              .range = ValueRange::closed(1, 1024),
              .description =
                  "Barnes–Hut: a node too near to stand in for its bodies is summed body by body, exactly, "
                  "when it holds at most this many; larger ones are opened (1: down to single bodies)",
              .allowed_note = "; `barnes_hut` only",
              .available = [](const NbodyParameters& p) { return p.method == NbodyMethod::barnes_hut; }},
    NbodySpec{.key = "dt",
              .member = &NbodyParameters::dt,
              .unit = "time",
              .range = ValueRange::above(0),
              .description = "fixed time step",
              .default_note = "**required**",
              .live_for = kNbody,
              .runtime_member = &NbodyParameters::dt},
};

}  // namespace

std::span<const ParameterSpec<NbodyParameters>> nbody_parameter_specs() {
  return kNbodyParameters;
}

std::vector<LiveParameter> live_parameters(const NbodyParameters& nbody) {
  std::vector<LiveParameter> out;
  append_live_parameters(nbody_parameter_specs(), SolverKind::nbody, nbody, out);
  return out;
}
bool set_live_parameter(NbodyParameters& nbody, std::string_view name, const ParameterValue& value) {
  return apply_live_parameter(nbody_parameter_specs(), SolverKind::nbody, nbody, name, value);
}

std::vector<NamedValue> describe_parameters(const NbodyParameters& p) {
  std::vector<NamedValue> values = {{"method", std::string(nbody_method_name(p.method))}};
  append_reported_parameters(nbody_parameter_specs(), SolverKind::nbody, p, values);
  return values;
}

}  // namespace surge
