// The live parameter tables: one entry per parameter, its range and how it is applied.
#include "sim/backend/live_parameters.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include "sim/backend/simulation.h"
#include "sim/dem/dem_parameters.h"
#include "sim/nbody/nbody_parameters.h"
#include "sim/sph/solver_parameters.h"
#include "sim/sph/sph_setup.h"

namespace surge {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string format_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string describe_range(const LiveParameter& p) {
  std::string text = std::string(p.min_open ? "(" : "[") + format_number(p.min) + ", ";
  return text + (p.max == kInfinity ? std::string("inf)") : format_number(p.max) + "]");
}

// One live parameter of a family: what it takes, when it applies, how it is set. `set` receives a value
// already checked against the range (number or vector as the entry says) and may refuse it for a reason
// that involves the other parameters (dt_min < dt_max).
template <typename Params>
struct LiveSetting {
  LiveParameter parameter;
  void (*set)(Params& params, const ParameterValue& value);
  bool (*available)(const Params& params) = nullptr;  // null: always
};

LiveParameter number_parameter(std::string_view name, double min, double max, bool min_open = false) {
  return {name, min, max, min_open, false, false};
}
LiveParameter count_parameter(std::string_view name, double min, double max) {
  return {name, min, max, false, true, false};
}
LiveParameter vector_parameter(std::string_view name, double min, double max) {
  return {name, min, max, false, false, true};
}

float as_float(const ParameterValue& value) {
  return float(std::get<double>(value));
}
int as_int(const ParameterValue& value) {
  return int(std::get<double>(value));
}

void check_value(const LiveParameter& p, const ParameterValue& value) {
  const std::string name(p.name);
  if (p.vector) {
    const Vec3f* v = std::get_if<Vec3f>(&value);
    if (!v) throw ParameterError("parameter '" + name + "': expected a vector (x, y, z), got a number");
    for (float c : {v->x, v->y, v->z})
      if (!p.contains(c))
        throw ParameterError("parameter '" + name + "': expected each component in " + describe_range(p) +
                             ", got " + format_number(c));
    return;
  }
  const double* x = std::get_if<double>(&value);
  if (!x) throw ParameterError("parameter '" + name + "': expected a number, got a vector");
  if (p.integer && *x != std::floor(*x))
    throw ParameterError("parameter '" + name + "': expected a whole number, got " + format_number(*x));
  if (!p.contains(float(*x)))
    throw ParameterError("parameter '" + name + "': expected a value in " + describe_range(p) + ", got " +
                         format_number(*x));
}

template <typename Params, std::size_t N>
std::vector<LiveParameter> list(const std::array<LiveSetting<Params>, N>& table, const Params& params) {
  std::vector<LiveParameter> out;
  for (const LiveSetting<Params>& s : table)
    if (!s.available || s.available(params)) out.push_back(s.parameter);
  return out;
}

template <typename Params, std::size_t N>
bool apply(const std::array<LiveSetting<Params>, N>& table, Params& params, std::string_view name,
           const ParameterValue& value) {
  for (const LiveSetting<Params>& s : table) {
    if (s.parameter.name != name || (s.available && !s.available(params))) continue;
    check_value(s.parameter, value);
    s.set(params, value);
    return true;
  }
  return false;
}

// WCSPH: the adaptive time step (wcsph_physics.h, adaptive_time_step) reads c0, alpha, cfl and dt_max at
// every step, and gravity enters through the force condition, so all of these are live. A new speed of sound
// re-derives the Tait stiffness B = rho0 c0^2 / gamma as build_setup does; the same step's time step
// already uses the new c0.
const std::array<LiveSetting<SphParameters>, 7> kWcsph = {{
    {vector_parameter("gravity_m_per_s2", -1000, 1000),
     [](SphParameters& p, const ParameterValue& v) { p.gravity = std::get<Vec3f>(v); }},
    {number_parameter("viscosity_alpha", 0, 1),
     [](SphParameters& p, const ParameterValue& v) { p.viscosity_alpha = as_float(v); }},
    {number_parameter("xsph_epsilon", 0, 1),
     [](SphParameters& p, const ParameterValue& v) { p.xsph_epsilon = as_float(v); }},
    {number_parameter("speed_of_sound_m_per_s", 0, 1e5, true),
     [](SphParameters& p, const ParameterValue& v) {
       p.speed_of_sound = as_float(v);
       p.tait_stiffness = p.rest_density * p.speed_of_sound * p.speed_of_sound / p.tait_exponent;
     }},
    {number_parameter("cfl", 0, 1, true),
     [](SphParameters& p, const ParameterValue& v) { p.cfl = as_float(v); }},
    {number_parameter("dt_max_s", 0, kInfinity, true),
     [](SphParameters& p, const ParameterValue& v) {
       if (!(as_float(v) > p.dt_min))
         throw ParameterError("parameter 'dt_max_s': expected a value above dt_min_s = " +
                              format_number(p.dt_min) + ", got " + format_number(as_float(v)));
       p.dt_max = as_float(v);
     }},
    {number_parameter("dt_min_s", 0, kInfinity, true),
     [](SphParameters& p, const ParameterValue& v) {
       if (!(as_float(v) < p.dt_max))
         throw ParameterError("parameter 'dt_min_s': expected a value below dt_max_s = " +
                              format_number(p.dt_max) + ", got " + format_number(as_float(v)));
       p.dt_min = as_float(v);
     }},
}};

// DFSPH and PBF step with dt = cfl spacing / max speed, capped by dt_max (dfsph_physics.h,
// incompressible_time_step), chosen anew every step.
const std::array<LiveSetting<SphParameters>, 3> kIncompressible = {{
    kWcsph[0],
    kWcsph[4],
    {number_parameter("dt_max_s", 0, kInfinity, true),
     [](SphParameters& p, const ParameterValue& v) { p.dt_max = as_float(v); }},
}};

// Targets in percent, as parameters() reports them and the scene file writes them.
const std::array<LiveSetting<DfsphParameters>, 5> kDfsph = {{
    {number_parameter("density_error_target_percent", 1e-4, 10),
     [](DfsphParameters& d, const ParameterValue& v) { d.density_error = as_float(v) / 100.0f; }},
    {number_parameter("divergence_error_target_percent", 1e-4, 100),
     [](DfsphParameters& d, const ParameterValue& v) { d.divergence_error = as_float(v) / 100.0f; }},
    {count_parameter("min_iterations", 0, 1000),
     [](DfsphParameters& d, const ParameterValue& v) {
       if (as_int(v) > d.max_iterations)
         throw ParameterError("parameter 'min_iterations': expected at most max_iterations = " +
                              std::to_string(d.max_iterations) + ", got " + std::to_string(as_int(v)));
       d.min_iterations = as_int(v);
     }},
    {count_parameter("max_iterations", 1, 10000),
     [](DfsphParameters& d, const ParameterValue& v) {
       if (as_int(v) < d.min_iterations)
         throw ParameterError("parameter 'max_iterations': expected at least min_iterations = " +
                              std::to_string(d.min_iterations) + ", got " + std::to_string(as_int(v)));
       d.max_iterations = as_int(v);
     }},
    {number_parameter("viscosity_m2_per_s", 0, 1),
     [](DfsphParameters& d, const ParameterValue& v) { d.viscosity = as_float(v); }},
}};

// The relaxation is stored as eps = relaxation G with G = 1 / lambda_scale, the bulk gradient sum the
// solver measured at setup (pbf_solver.h).
const std::array<LiveSetting<PbfParameters>, 8> kPbf = {{
    {count_parameter("iterations", 1, 1000),
     [](PbfParameters& p, const ParameterValue& v) { p.iterations = as_int(v); }},
    {number_parameter("density_error_target_percent", 0, 10),
     [](PbfParameters& p, const ParameterValue& v) { p.density_error = as_float(v) / 100.0f; }},
    {number_parameter("relaxation", 0, 10),
     [](PbfParameters& p, const ParameterValue& v) {
       p.relaxation = as_float(v);
       if (p.lambda_scale > 0.0f) p.relaxation_absolute = p.relaxation / p.lambda_scale;
     }},
    {number_parameter("scorr_k", 0, 1),
     [](PbfParameters& p, const ParameterValue& v) { p.scorr_k = as_float(v); }},
    {number_parameter("scorr_n", 1, 8),
     [](PbfParameters& p, const ParameterValue& v) { p.scorr_n = as_float(v); }},
    {number_parameter("scorr_dq", 0, 1, true),
     [](PbfParameters& p, const ParameterValue& v) { p.scorr_dq = as_float(v); }},
    {number_parameter("xsph", 0, 1), [](PbfParameters& p, const ParameterValue& v) { p.xsph = as_float(v); }},
    {number_parameter("vorticity", 0, kInfinity),
     [](PbfParameters& p, const ParameterValue& v) { p.vorticity = as_float(v); }},
}};

// DEM steps with a fixed dt derived from the collision time pi sqrt(m*/k) (dem_setup.cpp), so the stiffness,
// the Young's modulus and the grain sizes apply on restart. Restitution (the damping ratio derived from it),
// friction, cohesion and the wall restitution do not enter that derivation. Gravity does for the Hertz law,
// whose collision time was taken at the speed of a fall through the domain: there a stronger gravity than
// the time step assumed applies on restart.
const std::array<LiveSetting<DemParameters>, 5> kDem = {{
    {vector_parameter("gravity_m_per_s2", -1000, 1000),
     [](DemParameters& p, const ParameterValue& v) {
       const Vec3f g = std::get<Vec3f>(v);
       const float magnitude = std::sqrt(length_squared(g));
       if (p.normal_model == NormalModel::hertz && magnitude > p.time_step_gravity * (1.0f + 1e-6f))
         throw ParameterError("parameter 'gravity_m_per_s2': the Hertz time step was chosen for |g| <= " +
                              format_number(p.time_step_gravity) + " m/s^2; a stronger gravity (" +
                              format_number(magnitude) + ") applies on restart");
       p.gravity = g;
     }},
    {number_parameter("restitution", 0, 1, true),
     [](DemParameters& p, const ParameterValue& v) {
       // zeta = -ln e / sqrt(pi^2 + ln^2 e), as build_dem_setup derives it.
       const double log_e = std::log(std::get<double>(v));
       p.restitution = as_float(v);
       p.damping_ratio = float(-log_e / std::sqrt(3.14159265358979 * 3.14159265358979 + log_e * log_e));
     },
     [](const DemParameters& p) { return p.damping_from_restitution; }},
    {number_parameter("friction", 0, 10),
     [](DemParameters& p, const ParameterValue& v) { p.friction = as_float(v); }},
    {number_parameter("cohesion_n_per_m", 0, kInfinity),
     [](DemParameters& p, const ParameterValue& v) { p.cohesion = as_float(v); }},
    {number_parameter("wall_restitution", 0, 1),
     [](DemParameters& p, const ParameterValue& v) { p.wall_restitution = as_float(v); }},
}};

// N-body: a fixed leapfrog step the scene gives directly, so dt is live like the softening and the opening
// angle. A kick-drift-kick step is symmetric on its own; its stability is the same as for a scene that
// starts with that dt.
const std::array<LiveSetting<NbodyParameters>, 3> kNbody = {{
    {number_parameter("softening", 0, kInfinity),
     [](NbodyParameters& p, const ParameterValue& v) { p.softening = std::get<double>(v); }},
    {number_parameter("dt", 0, kInfinity, true),
     [](NbodyParameters& p, const ParameterValue& v) { p.dt = std::get<double>(v); }},
    {number_parameter("theta", 0, 1, true),
     [](NbodyParameters& p, const ParameterValue& v) { p.theta = std::get<double>(v); },
     [](const NbodyParameters& p) { return p.method == NbodyMethod::barnes_hut; }},
}};

}  // namespace

bool LiveParameter::contains(float value) const {
  if (!std::isfinite(value)) return false;
  return (min_open ? value > min : value >= min) && value <= max;
}

std::vector<LiveParameter> live_parameters(const SphParameters& wcsph) {
  return list(kWcsph, wcsph);
}
bool set_live_parameter(SphParameters& wcsph, std::string_view name, const ParameterValue& value) {
  return apply(kWcsph, wcsph, name, value);
}
std::vector<LiveParameter> live_incompressible_parameters() {
  return list(kIncompressible, SphParameters{});
}
bool set_live_incompressible_parameter(SphParameters& fluid, std::string_view name,
                                       const ParameterValue& value) {
  return apply(kIncompressible, fluid, name, value);
}
std::vector<LiveParameter> live_parameters(const DfsphParameters& dfsph) {
  return list(kDfsph, dfsph);
}
bool set_live_parameter(DfsphParameters& dfsph, std::string_view name, const ParameterValue& value) {
  return apply(kDfsph, dfsph, name, value);
}
std::vector<LiveParameter> live_parameters(const PbfParameters& pbf) {
  return list(kPbf, pbf);
}
bool set_live_parameter(PbfParameters& pbf, std::string_view name, const ParameterValue& value) {
  return apply(kPbf, pbf, name, value);
}
std::vector<LiveParameter> live_parameters(const DemParameters& dem) {
  return list(kDem, dem);
}
bool set_live_parameter(DemParameters& dem, std::string_view name, const ParameterValue& value) {
  return apply(kDem, dem, name, value);
}
std::vector<LiveParameter> live_parameters(const NbodyParameters& nbody) {
  return list(kNbody, nbody);
}
bool set_live_parameter(NbodyParameters& nbody, std::string_view name, const ParameterValue& value) {
  return apply(kNbody, nbody, name, value);
}

void refuse_parameter(const Simulation& simulation, std::string_view name) {
  std::string live;
  for (const LiveParameter& p : simulation.live_parameters())
    live += (live.empty() ? "" : ", ") + std::string(p.name);
  const std::string which =
      live.empty() ? "this solver changes none while running" : "the ones that change while running: " + live;
  const std::vector<NamedValue> all = simulation.parameters();
  const bool known = std::any_of(all.begin(), all.end(), [&](const NamedValue& v) { return v.name == name; });
  if (known)
    throw ParameterError("parameter '" + std::string(name) +
                         "' applies on restart only (it needs new particles or a new time step); " + which);
  throw ParameterError("unknown parameter '" + std::string(name) + "'; " + which);
}

void Simulation::set_parameter(std::string_view name, const ParameterValue& value) {
  (void)value;
  refuse_parameter(*this, name);
}

}  // namespace surge
