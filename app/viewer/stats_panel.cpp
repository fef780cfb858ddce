#include "app/viewer/stats_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>

namespace surge::app {

void StatsPanel::record_steps(std::size_t particles, int steps) {
  particle_steps_per_s_ = double(particles) * steps * fps_;
}

void StatsPanel::record_stages(const StageTimes& stages) {
  last_stages_ = stages;
  step_ms_[std::size_t(next_)] = float(stages.total_ms() / double(stages.steps));
  next_ = (next_ + 1) % kHistoryLength;
}

double StatsPanel::end_frame(std::size_t ledger_bytes) {
  const auto now = Clock::now();
  const double frame_s = std::chrono::duration<double>(now - last_frame_).count();
  last_frame_ = now;
  fps_ = 0.9 * fps_ + 0.1 * (frame_s > 0 ? 1.0 / frame_s : 0.0);
  bus_bytes_per_frame_ =
      0.9 * bus_bytes_per_frame_ + 0.1 * double(ledger_bytes - std::min(ledger_bytes, ledger_bytes_last_));
  ledger_bytes_last_ = ledger_bytes;
  return frame_s;
}

void StatsPanel::draw_status(LiveSession& session) const {
  const Simulation& simulation = session.simulation();
  ImGui::TextUnformatted(session.backend().description.c_str());
  ImGui::Text("%zu fluid + %zu wall particles", simulation.fluid_count(), simulation.boundary_count());
  ImGui::Text("t = %.4f s, step %ld, dt = %.2e s", session.status().time_s, session.status().step,
              double(session.status().dt_s));
  ImGui::Text("%.1f fps, %.3g particle-steps/s", fps_, particle_steps_per_s_);
  ImGui::Text("bus: %.0f bytes/frame (%s)", bus_bytes_per_frame_,
              session.feed().using_interop() ? "interop" : "host upload");
}

void StatsPanel::draw_timings() const {
  if (!ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen) || last_stages_.steps == 0) return;
  const double total = std::max(last_stages_.total_ms(), 1e-9);
  for (int s = 0; s < kStageCount; ++s) {
    const double ms = last_stages_.ms[std::size_t(s)] / double(last_stages_.steps);
    char label[64];
    std::snprintf(label, sizeof label, "%s %.3f ms", kStageNames[std::size_t(s)], ms);
    ImGui::ProgressBar(float(last_stages_.ms[std::size_t(s)] / total), ImVec2(-1, 0), label);
  }
  ImGui::PlotLines("step ms", step_ms_.data(), kHistoryLength, next_, nullptr, 0.0f, FLT_MAX, ImVec2(0, 60));
}

}  // namespace surge::app
