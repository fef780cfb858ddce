#include "app/viewer/live_parameters_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>

namespace surge::app {

namespace {

const NamedValue* find_value(const std::vector<NamedValue>& values, std::string_view name) {
  for (const NamedValue& v : values)
    if (v.name == name) return &v;
  return nullptr;
}

// ImGui's drag limits: an open lower end starts just above it, an unbounded upper end at FLT_MAX.
float lowest(const LiveParameter& p) {
  return p.min_open ? std::nextafter(float(p.min), FLT_MAX) : float(p.min);
}
float highest(const LiveParameter& p) {
  return p.max >= double(FLT_MAX) ? FLT_MAX : float(p.max);
}

// ImGui's drag format with the parameter's unit after the number ("%.4g m/s"); '%' doubled for printf. The
// unit stays ASCII ("m/s^2"): the default font has no superscripts.
std::string drag_format(const char* number, std::string_view unit) {
  std::string format = number;
  if (unit.empty()) return format;
  format += ' ';
  for (char c : unit) format += c == '%' ? std::string("%%") : std::string(1, c);
  return format;
}

std::string describe(const NamedValue& v) {
  std::ostringstream text;
  if (const auto* x = std::get_if<double>(&v.value)) {
    text << *x;
  } else if (const auto* vector = std::get_if<Vec3f>(&v.value)) {
    text << "(" << vector->x << ", " << vector->y << ", " << vector->z << ")";
  } else {
    text << std::get<std::string>(v.value);
  }
  return text.str();
}

}  // namespace

std::string LiveParametersPanel::draw(Simulation& simulation) {
  const std::vector<NamedValue> values = simulation.parameters();
  const std::vector<LiveParameter> live = simulation.live_parameters();
  std::string refusal;
  ImGui::TextDisabled("live: applies at the next step");
  for (const LiveParameter& p : live) {
    const NamedValue* current = find_value(values, p.name);
    if (!current) continue;
    const std::string label(p.name);
    if (p.vector) {
      const Vec3f v = std::get<Vec3f>(current->value);
      float xyz[3] = {v.x, v.y, v.z};
      if (ImGui::DragFloat3(label.c_str(), xyz, 0.05f, lowest(p), highest(p),
                            drag_format("%.2f", p.unit).c_str(), ImGuiSliderFlags_AlwaysClamp))
        refusal = remember_and_apply(simulation, p.name, Vec3f{xyz[0], xyz[1], xyz[2]});
    } else if (p.integer) {
      int count = int(std::get<double>(current->value));
      if (ImGui::DragInt(label.c_str(), &count, 0.2f, int(p.min), int(highest(p)), "%d",
                         ImGuiSliderFlags_AlwaysClamp))
        refusal = remember_and_apply(simulation, p.name, double(count));
    } else {
      float x = float(std::get<double>(current->value));
      // A step of 1 % of the value (or of the range's width for a value at zero) per pixel dragged.
      const float speed = std::max(0.01f * std::abs(x), 1e-6f);
      if (ImGui::DragFloat(label.c_str(), &x, speed, lowest(p), highest(p),
                           drag_format("%.4g", p.unit).c_str(), ImGuiSliderFlags_AlwaysClamp))
        refusal = remember_and_apply(simulation, p.name, double(x));
    }
  }
  if (ImGui::TreeNode("on restart (scene file)")) {
    for (const NamedValue& v : values) {
      const bool is_live =
          std::any_of(live.begin(), live.end(), [&](const LiveParameter& p) { return p.name == v.name; });
      if (!is_live) ImGui::TextDisabled("%s = %s", v.name.c_str(), describe(v).c_str());
    }
    ImGui::TreePop();
  }
  return refusal;
}

std::string LiveParametersPanel::remember_and_apply(Simulation& simulation, std::string_view name,
                                                    const ParameterValue& value) {
  try {
    simulation.set_parameter(name, value);
  } catch (const ParameterError& e) {
    return e.what();
  }
  const auto same = [&](const auto& edit) { return edit.first == name; };
  edits_.erase(std::remove_if(edits_.begin(), edits_.end(), same), edits_.end());
  edits_.emplace_back(std::string(name), value);
  return {};
}

std::string LiveParametersPanel::reapply(Simulation& simulation) const {
  std::string refusals;
  for (const auto& [name, value] : edits_) {
    try {
      simulation.set_parameter(name, value);
    } catch (const ParameterError& e) {
      refusals += (refusals.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  return refusals;
}

}  // namespace surge::app
