// The viewer's live parameters: a widget for every parameter the running simulation changes between steps
// (Simulation::live_parameters), applied at once, and the solver's other parameters listed as applying on
// restart. Edits are remembered, so a restart of the same scene or a mode switch keeps them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/backend/simulation.h"

namespace surge::app {

class LiveParametersPanel {
 public:
  // Draws the widgets (inside the caller's ImGui window) with the simulation's current values. An edit goes
  // to simulation.set_parameter() at once; returns its refusal, or an empty string.
  std::string draw(Simulation& simulation);
  // Applies the remembered edits to a new simulation of the same scene; returns the refusals, if any.
  std::string reapply(Simulation& simulation) const;
  // Applies one edit and remembers it, as the widgets do; returns its refusal, or an empty string.
  std::string set(Simulation& simulation, std::string_view name, const ParameterValue& value) {
    return remember_and_apply(simulation, name, value);
  }
  // A different scene: its parameters start from its file.
  void forget() { edits_.clear(); }

 private:
  std::string remember_and_apply(Simulation& simulation, std::string_view name, const ParameterValue& value);
  std::vector<std::pair<std::string, ParameterValue>> edits_;  // the last value per name, in edit order
};

}  // namespace surge::app
