#include "app/graphics/live_session.h"

#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "sim/backend/simulation_factory.h"
#include "sim/sph/sph_setup.h"

namespace surge::app {

LiveSession::LiveSession(const Scene& scene, const std::string& backend_request,
                         std::optional<ExecutionMode> mode, long particles,
                         render::ParticleRenderer& renderer, bool show_boundary, std::ostream& messages)
    : scene_(scene), particles_(particles) {
  const SimulationOptions simulation_options{.particles_override = particles};
  backend_ = mode ? choose_mode(*mode, scene, simulation_options)
                  : choose_backend(parse_backend_request(backend_request), scene, simulation_options);
  mode_ = backend_.mode;
  messages << backend_line(backend_) << '\n';
  Simulation& running = simulation();
  feed_ = std::make_unique<ParticleFeed>(running, renderer.fluid(), backend_.mode == ExecutionMode::gpu,
                                         messages);
  solid_feed_ = std::make_unique<SolidFeed>(running, renderer.solids());
  look_ = scene_look(running);
  if (show_boundary) upload_boundary(running, renderer.boundary(), running.ledger());
  status_ = running.status();
}

FrameFigures LiveSession::frame(int steps, bool read_status, render::ColorBy color_by) {
  Simulation& running = simulation();
  FrameFigures figures;
  const std::size_t before_steps = running.ledger().total_bytes();
  for (int k = 0; k < steps; ++k) running.step();
  figures.step_bytes = running.ledger().total_bytes() - before_steps;
  // Without a readback the step count is still known here: the panel's step is that of the frame drawn.
  if (read_status)
    status_ = running.status();
  else
    status_.step += steps;
  const std::size_t before_feed = running.ledger().total_bytes();
  feed_->update(color_by);
  if (steps > 0) solid_feed_->update();
  figures.feed_bytes = running.ledger().total_bytes() - before_feed;
  figures.stages = running.stage_times();
  running.reset_timers();
  return figures;
}

std::string LiveSession::switch_mode(ExecutionMode next, render::ParticleRenderer& renderer,
                                     std::ostream& messages) {
  const ExecutionMode from = mode_;
  const SimulationOptions simulation_options{.particles_override = particles_};
  std::unique_ptr<Simulation> switched =
      switch_execution_mode(simulation(), scene_, next, simulation_options);
  switched->set_emitter_enabled(simulation().emitter_enabled());  // the nozzle stays as the user left it
  feed_.reset();  // they refer to the simulation being replaced
  solid_feed_.reset();
  backend_.simulation = std::move(switched);
  backend_.mode = next;
  // describe_mode names the device for cpu and gpu; a hybrid mode's text needs its name in front.
  backend_.description = next == ExecutionMode::cpu || next == ExecutionMode::gpu
                             ? describe_mode(next)
                             : std::string(mode_name(next)) + ": " + describe_mode(next);
  mode_ = next;
  Simulation& running = simulation();
  feed_ = std::make_unique<ParticleFeed>(running, renderer.fluid(), next == ExecutionMode::gpu, messages);
  solid_feed_ = std::make_unique<SolidFeed>(running, renderer.solids());
  status_ = running.status();
  char line[160];
  std::snprintf(line, sizeof line, "mode %s -> %s at step %ld, t = %.6f s", mode_name(from), mode_name(next),
                status_.step, status_.time_s);
  return line;
}

}  // namespace surge::app
