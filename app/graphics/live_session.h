// A simulation as the live viewer runs it: the backend, the execution mode the Lessons panel shows, the feed
// of its particles into the renderer's GL buffers and the look derived from its parameters. `surge view`
// makes one per scene start or restart; the Lessons panel's live switch continues the same particles in
// another mode. Nothing here needs a window, so the GPU tests run the viewer's switch in a headless EGL
// context on the H200 (tests/gpu/live_session_test.cpp).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "app/backend_choice.h"
#include "app/graphics/particle_feed.h"
#include "app/graphics/render_defaults.h"
#include "app/graphics/solid_feed.h"
#include "render/color_map.h"
#include "render/particle_renderer.h"
#include "sim/backend/execution_mode.h"
#include "sim/scene/scene.h"

namespace surge::app {

// What one viewer frame measured: stage times of its steps and the ledger bytes they and the feed moved.
struct FrameFigures {
  StageTimes stages;           // accumulated over the frame's steps (timers reset after each frame)
  std::size_t step_bytes = 0;  // ledger bytes of the steps (the status readback not included)
  // ledger bytes of bringing the particles to GL (zero through interop) and the moving solids' poses
  std::size_t feed_bytes = 0;
};

class LiveSession {
 public:
  // `mode`, when set, replaces the backend request (`surge view --mode`, or the mode a restart keeps).
  // Uploads the walls to `renderer` when `show_boundary`. Messages (backend line, interop fallback) go to
  // `messages`. Throws what choose_backend / choose_mode throw.
  LiveSession(const Scene& scene, const std::string& backend_request, std::optional<ExecutionMode> mode,
              long particles, render::ParticleRenderer& renderer, bool show_boundary, std::ostream& messages);

  // Runs `steps` steps (0 = paused), reads the status when `read_status` (a small readback that shows in the
  // ledger, so the viewer asks twice a second), and feeds the particles to GL coloured by `color_by`, and
  // the solids' poses when it stepped.
  FrameFigures frame(int steps, bool read_status, render::ColorBy color_by);

  // The Lessons panel's switch: the particles, time and step of the running simulation continued in `next`
  // (sim/backend/simulation_factory.h, switch_execution_mode), fed to the same GL buffers. Returns the line
  // the viewer prints: "mode cpu -> gpu at step S, t = T s". What cannot switch (why_solver_lacks_mode) is
  // std::invalid_argument, and the session is unchanged.
  std::string switch_mode(ExecutionMode next, render::ParticleRenderer& renderer, std::ostream& messages);

  Simulation& simulation() { return *backend_.simulation; }
  const BackendChoice& backend() const { return backend_; }
  ExecutionMode mode() const { return mode_; }
  const ParticleFeed& feed() const { return *feed_; }
  const SceneLook& look() const { return look_; }
  const Scene& scene() const { return scene_; }
  long particles() const { return particles_; }
  // The last status read; its step is advanced by the steps run since, its time is that of the read.
  const StepStatus& status() const { return status_; }

 private:
  Scene scene_;
  long particles_;
  BackendChoice backend_;
  ExecutionMode mode_ = ExecutionMode::cpu;
  std::unique_ptr<ParticleFeed> feed_;
  std::unique_ptr<SolidFeed> solid_feed_;
  SceneLook look_;
  StepStatus status_;
};

}  // namespace surge::app
