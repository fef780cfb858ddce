#include "app/graphics/frame_bench.h"

#include <chrono>
#include <ostream>

#include "app/graphics/offscreen_frames.h"

namespace surge::app {

FrameBenchResult measure_frames(Simulation& simulation, const RenderOptions& options, long frames,
                                int cuda_device, std::ostream& messages) {
  OffscreenRenderer renderer(simulation, options, cuda_device, messages);
  // Warm-up: shader compilation, buffer allocation and the interop registration happen here.
  for (int i = 0; i < 3; ++i) {
    simulation.step();
    renderer.draw();
  }
  simulation.status();
  simulation.ledger().clear();

  using Clock = std::chrono::steady_clock;
  double draw_s = 0.0;
  const auto start = Clock::now();
  for (long i = 0; i < frames; ++i) {
    simulation.step();
    const auto draw_start = Clock::now();
    renderer.draw();  // waits for the step (the copy to GL follows it) and for the GPU to finish drawing
    draw_s += std::chrono::duration<double>(Clock::now() - draw_start).count();
  }
  const double total_s = std::chrono::duration<double>(Clock::now() - start).count();
  FrameBenchResult result;
  result.frames = frames;
  result.frame_ms = 1e3 * total_s / double(frames);
  result.draw_ms = 1e3 * draw_s / double(frames);
  result.bus_bytes_per_frame = double(simulation.ledger().total_bytes()) / double(frames);
  result.path = renderer.description();
  return result;
}

}  // namespace surge::app
