// A named number a solver reports: a parameter it runs with, or a figure of its last step (iterations
// used, density error reached, total energy). The unit is in the name's last word when it has one.
#pragma once

#include <string>
#include <variant>

#include "sim/core/vec.h"

namespace surge {

struct NamedValue {
  std::string name;  // "particle_mass_kg", "density_error_percent", "kernel"
  std::variant<double, Vec3f, std::string> value;
};

}  // namespace surge
