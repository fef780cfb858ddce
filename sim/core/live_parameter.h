// A parameter a running simulation takes between steps (Simulation::set_parameter): the value, the range
// it takes, and the refusal. Each solver family lists its own from its parameter table
// (sim/core/parameter_table.h).
#pragma once

#include <stdexcept>
#include <string_view>
#include <variant>

#include "sim/core/vec.h"

namespace surge {

// A value for set_parameter: a number in the unit its name ends with, or a vector (gravity_m_per_s2).
using ParameterValue = std::variant<double, Vec3f>;

// One parameter a running simulation can change, with the values it takes.
struct LiveParameter {
  std::string_view name;  // as parameters() reports it: "gravity_m_per_s2", "iterations"
  double min = 0, max = 0;
  bool min_open = false;  // min itself refused
  bool integer = false;   // a count (iterations)
  bool vector = false;    // a Vec3f, each component in [min, max]
  std::string_view unit;  // as the scene file writes it ("m/s", "%"); empty: dimensionless
  bool contains(float value) const;
};

// set_parameter's refusal: an unknown name, one that applies on restart only, a value of the wrong kind or
// out of range. The message names the parameter and what it expected.
class ParameterError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace surge
