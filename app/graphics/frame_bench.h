// `surge bench --render`: frames of a live run as a viewer would show them, offscreen: each frame is
// one simulation step, the particles brought to GL (interop or host upload) and drawn as spheres, the
// GPU finished. Reports frame time, fps and the bus bytes per frame.
#pragma once

#include <iosfwd>

#include "app/render_options.h"
#include "sim/backend/simulation.h"

namespace surge::app {

struct FrameBenchResult {
  long frames = 0;
  double frame_ms = 0.0;  // wall time per frame: step + feed + draw + glFinish
  double draw_ms = 0.0;   // of which feeding and drawing
  double bus_bytes_per_frame = 0.0;
  std::string path;  // how particles reached GL
};

FrameBenchResult measure_frames(Simulation& simulation, const RenderOptions& options, long frames,
                                int cuda_device, std::ostream& messages);

}  // namespace surge::app
