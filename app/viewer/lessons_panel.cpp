#include "app/viewer/lessons_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "sim/core/gpu_info.h"

namespace surge::app {
namespace {

// One colour per stage, in kStageNames order, so the bars of all modes read alike.
constexpr std::array<ImU32, kStageCount> kStageColors = {
    IM_COL32(230, 159, 0, 255),  IM_COL32(86, 180, 233, 255),  IM_COL32(0, 158, 115, 255),
    IM_COL32(240, 228, 66, 255), IM_COL32(204, 121, 167, 255), IM_COL32(160, 160, 160, 255)};

}  // namespace

LessonsPanel::LessonsPanel() {
  if (!query_gpu(&why_no_gpu_) && why_no_gpu_.empty()) why_no_gpu_ = "no CUDA GPU";
}

std::optional<ExecutionMode> LessonsPanel::draw(ExecutionMode current, SolverKind solver) const {
  std::optional<ExecutionMode> picked;
  // The mode switch: one radio button per mode on one line; an unavailable one is greyed, and each
  // distinct reason is written once below them.
  std::vector<std::string> reasons;
  for (ExecutionMode mode : kExecutionModes) {
    const std::string why_not = why_mode_unavailable(mode, solver, why_no_gpu_);
    if (mode != kExecutionModes.front()) ImGui::SameLine();
    ImGui::BeginDisabled(!why_not.empty());
    if (ImGui::RadioButton(mode_name(mode), mode == current) && mode != current) picked = mode;
    ImGui::EndDisabled();
    if (!why_not.empty() && std::find(reasons.begin(), reasons.end(), why_not) == reasons.end())
      reasons.push_back(why_not);
  }
  ImGui::PushTextWrapPos(0.0f);
  for (const std::string& reason : reasons) ImGui::TextDisabled("%s", reason.c_str());
  ImGui::PopTextWrapPos();

  // The stacked bars: one per measured mode, all on the scale of the slowest, so lengths compare.
  const double slowest = comparison_.slowest_ms_per_step();
  if (slowest <= 0.0) {
    ImGui::TextDisabled("no steps measured yet");
    return picked;
  }
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const float bar_width = std::max(ImGui::GetContentRegionAvail().x, 50.0f);
  const float bar_height = ImGui::GetTextLineHeight();
  for (ExecutionMode mode : kExecutionModes) {
    const auto& m = comparison_.measured(mode);
    if (!m) continue;
    char line[160];
    const std::optional<double> speedup = comparison_.speedup_over_cpu(mode);
    char speedup_text[32] = "";
    if (speedup) std::snprintf(speedup_text, sizeof speedup_text, ", %.2fx cpu", *speedup);
    std::snprintf(line, sizeof line, "%s%s: %.3f ms/step, %.0f bytes/step%s", mode_name(mode),
                  mode == current ? " (now)" : "", m->total_ms_per_step(), m->bytes_per_step, speedup_text);
    ImGui::TextUnformatted(line);
    ImVec2 corner = ImGui::GetCursorScreenPos();
    for (std::size_t s = 0; s < m->stage_ms_per_step.size(); ++s) {
      const float length = float(m->stage_ms_per_step[s] / slowest) * bar_width;
      draw_list->AddRectFilled(corner, ImVec2(corner.x + length, corner.y + bar_height), kStageColors[s]);
      corner.x += length;
    }
    ImGui::Dummy(ImVec2(bar_width, bar_height));
  }
  // The legend: the stage colours, in order.
  for (std::size_t s = 0; s < kStageNames.size(); ++s) {
    if (s % 3 != 0) ImGui::SameLine();
    ImGui::ColorButton(kStageNames[s], ImGui::ColorConvertU32ToFloat4(kStageColors[s]),
                       ImGuiColorEditFlags_NoTooltip, ImVec2(bar_height, bar_height));
    ImGui::SameLine();
    ImGui::TextUnformatted(kStageNames[s]);
  }
  return picked;
}

}  // namespace surge::app
