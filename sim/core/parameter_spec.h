// A parameter declared once: its scene key, where it is kept, its unit, range, meaning, and whether a running
// simulation takes it. Each family writes a table of these next to its parameter struct; the scene loader,
// the live parameters and the benchmark reports (served by parameter_table.h) and docs/scenes.md (`surge
// params --markdown`) all read the tables, so a name, range or default cannot drift between them.
//
// Defaults are the parameter struct's own member initialisers: the table points at the member, and the
// documentation reads the member of a default-constructed struct.
#pragma once

#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "sim/core/live_parameter.h"
#include "sim/core/solver_kind.h"
#include "sim/core/vec.h"

namespace surge {

// A number as a live parameter's message quotes it ("0.001", "1e-07").
std::string format_parameter_number(double value);

// An interval of accepted values. Checked on the float the engine stores, so an overflow to inf or an
// underflow of a tiny value is caught with the value the user wrote.
struct ValueRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;

  static constexpr ValueRange above(double low) {
    return {low, std::numeric_limits<double>::infinity(), true};
  }
  static constexpr ValueRange at_least(double low) { return {low, std::numeric_limits<double>::infinity()}; }
  static constexpr ValueRange closed(double low, double high) { return {low, high}; }
  static constexpr ValueRange left_open(double low, double high) { return {low, high, true}; }
  static constexpr ValueRange right_open(double low, double high) { return {low, high, false, true}; }
  static constexpr ValueRange any() { return {}; }

  bool unbounded() const { return std::isinf(min) && std::isinf(max); }
  bool contains(float value) const {
    if (!std::isfinite(value)) return false;
    const bool above_min = min_open ? value > min : value >= min;
    const bool below_max = max_open ? value < max : value <= max;
    return above_min && below_max;
  }
};

// Where a scene struct keeps a parameter; the member's type says what the file holds (a number, an integer,
// true/false, three numbers).
template <typename Owner>
using ParameterMember =
    std::variant<float Owner::*, double Owner::*, int Owner::*, long Owner::*, bool Owner::*, Vec3f Owner::*>;

// A set of solvers, for the ones that take a parameter while running.
class SolverSet {
 public:
  constexpr SolverSet() = default;
  constexpr SolverSet(std::initializer_list<SolverKind> solvers) {
    for (SolverKind solver : solvers) bits_ |= bit(solver);
  }
  constexpr bool contains(SolverKind solver) const { return (bits_ & bit(solver)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }

 private:
  static constexpr unsigned bit(SolverKind solver) { return 1u << static_cast<unsigned>(solver); }
  unsigned bits_ = 0;
};

inline constexpr SolverSet kFluidSolvers = {SolverKind::wcsph, SolverKind::dfsph, SolverKind::pbf};

// One parameter. `Owner` is the struct the scene loader fills; `Runtime` the one a running simulation
// reads, which differs where setup derives the run's parameters from the scene's (SphParameters from
// Scene, DemParameters from DemScene).
template <typename Owner, typename Runtime = Owner>
struct ParameterSpec {
  std::string_view key;           // in its scene table
  ParameterMember<Owner> member;  // where the scene keeps it
  std::string_view unit = "";     // as the file writes it ("m", "kg/m^3", "%"); empty: dimensionless
  ValueRange range = ValueRange::any();
  std::string_view description = "";  // the documentation's meaning column (Markdown)
  // The file writes the kept value times this (a fraction written in percent: 100); kept = written / it, in
  // float as the engine keeps it.
  float file_scale = 1;
  // The name parameters() reports and set_parameter() takes, its unit in it ("speed_of_sound_m_per_s");
  // empty: the key.
  std::string_view reported_name = "";
  // The documentation's default and allowed columns where the struct's value and the range need words
  // ("0 = automatic"; "an error with `hertz`", appended to the range).
  std::string_view default_note = "";
  std::string_view allowed_note = "";
  // The solvers that use it, where fewer than all that read its table: a scene of another solver giving it is
  // an error, as the value would be ignored. Empty: every solver that reads the table.
  SolverSet only_for = {};

  // Live: the solvers whose running simulation takes it, and how. A parameter is live when a scene that
  // started with the new value would have the same particles and the same time-step rule.
  SolverSet live_for = {};
  // Where the running simulation keeps it: the reports read it here (parameter_table.h), and for a live
  // entry set_parameter writes value / file_scale here...
  ParameterMember<Runtime> runtime_member = {};
  // ...or this does, for a parameter that re-derives others or is checked against them; it receives a
  // value already checked against the range.
  void (*apply)(Runtime& runtime, const ParameterValue& value) = nullptr;
  // Whether the run in its state uses it (null: always): a live entry is taken, and a reported one reported,
  // only where this says so.
  bool (*available)(const Runtime& runtime) = nullptr;
  std::optional<ValueRange> live_range = {};  // empty: `range`

  std::string_view name() const { return reported_name.empty() ? key : reported_name; }
  bool live() const { return !live_for.empty(); }
};

}  // namespace surge
