#include "sim/backend/simulation.h"

#include <algorithm>
#include <string>
#include <vector>

namespace surge {

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
