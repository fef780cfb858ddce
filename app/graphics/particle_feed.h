// Brings a simulation's fluid particles into the renderer's GL buffers, once per frame.
// GPU backend with the GL context on the same GPU: CUDA-GL interop, one map/unmap per frame and a
// device-to-device copy, nothing on the bus. Otherwise (CPU backend, interop unavailable): download to
// the host and upload to GL, both recorded in the simulation's transfer ledger.
#pragma once

#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>

#include "render/color_map.h"
#include "render/cuda_gl_buffers.h"
#include "render/particle_renderer.h"
#include "sim/backend/simulation.h"

namespace surge::app {

class ParticleFeed {
 public:
  // try_interop: the GL context sits on the simulation's CUDA device. Messages (one line when interop
  // fails) go to `messages`.
  ParticleFeed(Simulation& simulation, render::ParticleBuffers& buffers, bool try_interop,
               std::ostream& messages);
  // Fills the buffers with the current particles, coloured by `color_by`.
  void update(render::ColorBy color_by);
  bool using_interop() const { return interop_ != nullptr; }
  // "CUDA-GL interop (device to device)" or "host upload"
  std::string path_description() const;

 private:
  void update_through_host(render::ColorBy color_by);

  Simulation& simulation_;
  render::ParticleBuffers& buffers_;
  std::ostream& messages_;
  bool interop_wanted_;
  std::unique_ptr<render::CudaGlBuffers> interop_;
  ParticleFrame frame_;
  std::vector<float> scalar_;
};

// Uploads the wall particles the simulation publishes (kBoundaryField) once: they never move. Recorded in
// `ledger`. Uploads nothing for a simulation without walls (DEM, n-body).
void upload_boundary(const Simulation& simulation, render::ParticleBuffers& buffers, TransferLedger& ledger);
// Each frame, where the scene's solids move: the wall particles where they stand now (through host memory,
// both ways counted in the ledger); nothing when no solid moves.
void update_moving_boundary(Simulation& simulation, render::ParticleBuffers& buffers, TransferLedger& ledger);

}  // namespace surge::app
