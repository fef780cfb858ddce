#include "sim/core/parameter_spec.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "sim/core/parameter_table.h"

namespace surge {

std::string format_parameter_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

bool LiveParameter::contains(float value) const {
  if (!std::isfinite(value)) return false;
  return (min_open ? value > min : value >= min) && value <= max;
}

namespace {

std::string describe_range(const LiveParameter& p) {
  std::string text = std::string(p.min_open ? "(" : "[") + format_parameter_number(p.min) + ", ";
  return text + (p.max == std::numeric_limits<double>::infinity() ? std::string("inf)")
                                                                  : format_parameter_number(p.max) + "]");
}

}  // namespace

void check_live_value(const LiveParameter& p, const ParameterValue& value) {
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

}  // namespace surge
