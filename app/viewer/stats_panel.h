// The viewer's statistics: the lines at the top of its panel (backend, particles, simulated time, frame rate,
// bus bytes per frame) and the Timings section (each stage's share of the last frame's steps, and the step
// time over the last frames).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

#include "app/graphics/live_session.h"
#include "sim/backend/simulation.h"

namespace surge::app {

class StatsPanel {
 public:
  // This frame ran `steps` steps of `particles` fluid particles (particle-steps per second at the frame
  // rate).
  void record_steps(std::size_t particles, int steps);
  // The stage times of a frame that stepped.
  void record_stages(const StageTimes& stages);
  // Ends the frame: updates the frame rate and the bus bytes since the last frame from the simulation's
  // ledger total. Returns the frame's duration [s].
  double end_frame(std::size_t ledger_bytes);
  // A new simulation: its ledger starts again from zero.
  void forget_ledger() { ledger_bytes_last_ = 0; }

  // Both draw inside the caller's ImGui window.
  void draw_status(LiveSession& session) const;
  void draw_timings() const;

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr int kHistoryLength = 240;
  std::array<float, kHistoryLength> step_ms_{};  // a ring: next_ is the oldest
  int next_ = 0;
  StageTimes last_stages_;
  double fps_ = 0.0, particle_steps_per_s_ = 0.0;
  Clock::time_point last_frame_ = Clock::now();
  std::size_t ledger_bytes_last_ = 0;
  double bus_bytes_per_frame_ = 0.0;
};

}  // namespace surge::app
