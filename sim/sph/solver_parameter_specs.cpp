#include "sim/sph/solver_parameter_specs.h"

#include <array>
#include <string>

#include "sim/core/parameter_table.h"

namespace surge {

namespace {

using DfsphSpec = ParameterSpec<DfsphParameters>;
using PbfSpec = ParameterSpec<PbfParameters>;
constexpr SolverSet kDfsphOnly = {SolverKind::dfsph};
constexpr SolverSet kPbfOnly = {SolverKind::pbf};

int live_count(const ParameterValue& value) {
  return int(std::get<double>(value));
}

// Bender & Koschier 2017. Targets are written in percent, as the paper and SPlisHSPlasH give them. Every
// setting here is read anew at each step's solves, so all but the free-surface threshold and the switch of
// the divergence solve (which choose the particles' treatment at setup) are live.
constexpr std::array kDfsphParameters = {
    DfsphSpec{.key = "density_error",
              .member = &DfsphParameters::density_error,
              .unit = "%",
              .range = ValueRange::closed(1e-4, 10),
              .description =
                  "the density solve stops when the average predicted density excess over all particles "
                  "is below this share of ρ₀",
              .file_scale = 100,
              .reported_name = "density_error_target_percent",
              .live_for = kDfsphOnly,
              .runtime_member = &DfsphParameters::density_error},
    DfsphSpec{.key = "divergence_error",
              .member = &DfsphParameters::divergence_error,
              .unit = "%",
              .range = ValueRange::closed(1e-4, 100),
              .description =
                  "the divergence solve stops when the average density change one step of the current "
                  "velocities would cause, (Dρ/Dt)·dt, is below this share of ρ₀ (the convention of "
                  "SPlisHSPlasH)",
              .file_scale = 100,
              .reported_name = "divergence_error_target_percent",
              .live_for = kDfsphOnly,
              .runtime_member = &DfsphParameters::divergence_error},
    DfsphSpec{.key = "min_iterations",
              .member = &DfsphParameters::min_iterations,
              .range = ValueRange::closed(0, 1000),
              .description = "density solve iterations at least (the divergence solve runs at least one)",
              .allowed_note = ", ≤ `max_iterations`",
              .live_for = kDfsphOnly,
              .apply =
                  [](DfsphParameters& d, const ParameterValue& v) {
                    if (live_count(v) > d.max_iterations)
                      throw ParameterError("parameter 'min_iterations': expected at most max_iterations = " +
                                           std::to_string(d.max_iterations) + ", got " +
                                           std::to_string(live_count(v)));
                    d.min_iterations = live_count(v);
                  }},
    DfsphSpec{.key = "max_iterations",
              .member = &DfsphParameters::max_iterations,
              .range = ValueRange::closed(1, 10000),
              .description = "iterations at most, per solve",
              .live_for = kDfsphOnly,
              .apply =
                  [](DfsphParameters& d, const ParameterValue& v) {
                    if (live_count(v) < d.min_iterations)
                      throw ParameterError("parameter 'max_iterations': expected at least min_iterations = " +
                                           std::to_string(d.min_iterations) + ", got " +
                                           std::to_string(live_count(v)));
                    d.max_iterations = live_count(v);
                  }},
    DfsphSpec{.key = "divergence_solve",
              .member = &DfsphParameters::divergence_solve,
              .description = "false skips the divergence solve (a constant-density solver only)"},
    DfsphSpec{.key = "hydrostatic_start",
              .member = &DfsphParameters::hydrostatic_start,
              .description = "the first step's density solve starts from the water's hydrostatic pressure "
                             "(ρ₀ g depth below the top of each box block; drops start at zero): fewer "
                             "iterations on the first steps; false starts from zero"},
    DfsphSpec{.key = "viscosity",
              .member = &DfsphParameters::viscosity,
              .unit = "m^2/s",
              .range = ValueRange::closed(0, 1),
              .description = "kinematic viscosity ν (Morris et al. 1997); water is 1e-6",
              .reported_name = "viscosity_m2_per_s",
              .live_for = kDfsphOnly,
              .runtime_member = &DfsphParameters::viscosity},
    DfsphSpec{.key = "surface_neighbor_count",
              .member = &DfsphParameters::surface_neighbor_count,
              .range = ValueRange::closed(0, 200),
              .description =
                  "particles with fewer fluid and wall neighbours are at the free surface and keep their "
                  "velocity divergence"},
};

// Macklin & Mueller 2013. All are read anew by each step's constraint iterations. The relaxation is kept as
// eps = relaxation G with G = 1 / lambda_scale, the bulk gradient sum the solver measured at setup
// (pbf_solver.h).
constexpr std::array kPbfParameters = {
    PbfSpec{.key = "iterations",
            .member = &PbfParameters::iterations,
            .range = ValueRange::closed(1, 1000),
            .description = "constraint iterations per step",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::iterations},
    PbfSpec{.key = "density_error",
            .member = &PbfParameters::density_error,
            .unit = "%",
            .range = ValueRange::closed(0, 10),
            .description =
                "stop earlier once the average density excess is below this; 0 = always run `iterations`",
            .file_scale = 100,
            .reported_name = "density_error_target_percent",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::density_error},
    PbfSpec{
        .key = "relaxation",
        .member = &PbfParameters::relaxation,
        .range = ValueRange::closed(0, 10),
        .description = "ε of the constraint, as a fraction of Σ\\|∇C\\|² of a particle in the resting bulk",
        .live_for = kPbfOnly,
        .apply =
            [](PbfParameters& p, const ParameterValue& v) {
              p.relaxation = float(std::get<double>(v));
              if (p.lambda_scale > 0.0f) p.relaxation_absolute = p.relaxation / p.lambda_scale;
            }},
    PbfSpec{.key = "scorr_k",
            .member = &PbfParameters::scorr_k,
            .range = ValueRange::closed(0, 1),
            .description =
                "strength k of the artificial pressure against clumping, as a density excess (off by "
                "default: it carries part of the water's weight past the walls, and solids feel less)",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::scorr_k},
    PbfSpec{.key = "scorr_n",
            .member = &PbfParameters::scorr_n,
            .range = ValueRange::closed(1, 8),
            .description = "its exponent n",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::scorr_n},
    PbfSpec{.key = "scorr_dq",
            .member = &PbfParameters::scorr_dq,
            .range = ValueRange::left_open(0, 1),
            .description =
                "its reference distance Δq, as a fraction of the kernel support (of 2 spacings, for a "
                "wider support)",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::scorr_dq},
    PbfSpec{.key = "xsph",
            .member = &PbfParameters::xsph,
            .range = ValueRange::closed(0, 1),
            .description = "XSPH viscosity c",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::xsph},
    PbfSpec{.key = "vorticity",
            .member = &PbfParameters::vorticity,
            .range = ValueRange::at_least(0),
            .description = "vorticity confinement ε; 0 = off",
            .live_for = kPbfOnly,
            .runtime_member = &PbfParameters::vorticity},
};

}  // namespace

std::span<const ParameterSpec<DfsphParameters>> dfsph_parameter_specs() {
  return kDfsphParameters;
}
std::span<const ParameterSpec<PbfParameters>> pbf_parameter_specs() {
  return kPbfParameters;
}

namespace {

template <typename Params>
std::vector<LiveParameter> own_live_parameters(std::span<const ParameterSpec<Params>> specs,
                                               SolverKind solver, const Params& params) {
  std::vector<LiveParameter> out;
  append_live_parameters(specs, solver, params, out);
  return out;
}

}  // namespace

std::vector<LiveParameter> live_parameters(const DfsphParameters& dfsph) {
  return own_live_parameters(dfsph_parameter_specs(), SolverKind::dfsph, dfsph);
}
bool set_live_parameter(DfsphParameters& dfsph, std::string_view name, const ParameterValue& value) {
  return apply_live_parameter(dfsph_parameter_specs(), SolverKind::dfsph, dfsph, name, value);
}
std::vector<LiveParameter> live_parameters(const PbfParameters& pbf) {
  return own_live_parameters(pbf_parameter_specs(), SolverKind::pbf, pbf);
}
bool set_live_parameter(PbfParameters& pbf, std::string_view name, const ParameterValue& value) {
  return apply_live_parameter(pbf_parameter_specs(), SolverKind::pbf, pbf, name, value);
}

std::vector<NamedValue> describe_parameters(const DfsphParameters& dfsph) {
  std::vector<NamedValue> values = {{"solver", std::string("dfsph")}};
  append_reported_parameters(dfsph_parameter_specs(), SolverKind::dfsph, dfsph, values);
  return values;
}
std::vector<NamedValue> describe_parameters(const PbfParameters& pbf) {
  std::vector<NamedValue> values = {{"solver", std::string("pbf")}};
  append_reported_parameters(pbf_parameter_specs(), SolverKind::pbf, pbf, values);
  return values;
}

}  // namespace surge
