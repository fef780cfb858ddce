#include "app/graphics/particle_feed.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "app/graphics/render_defaults.h"

namespace surge::app {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

ParticleFeed::ParticleFeed(Simulation& simulation, render::ParticleBuffers& buffers, bool try_interop,
                           std::ostream& messages)
    : simulation_(simulation), buffers_(buffers), messages_(messages), interop_wanted_(try_interop) {}

std::string ParticleFeed::path_description() const {
  return interop_ ? "CUDA-GL interop (device to device, no bus traffic)"
                  : "host upload (counted in the ledger)";
}

void ParticleFeed::update(render::ColorBy color_by) {
  const std::size_t n = simulation_.fluid_count();
  if (interop_wanted_) {
    try {
      // Register once, for the simulation's capacity (an emitter grows the count up to it); again only if
      // the GL buffers had to grow (a new simulation).
      if (buffers_.capacity() < n || !interop_ || interop_->position_buffer() != buffers_.position_buffer()) {
        interop_.reset();
        buffers_.resize(std::max(n, simulation_.capacity()));
        interop_ = std::make_unique<render::CudaGlBuffers>(buffers_);
      }
      buffers_.resize(n);
      const render::CudaGlBuffers::Mapped mapped = interop_->map();
      const bool on_device = simulation_.copy_to_device_buffers(
          {mapped.d_position, color_by == render::ColorBy::fixed ? nullptr : mapped.d_scalar,
           particle_scalar(color_by)});
      interop_->unmap();
      if (on_device) return;
      interop_.reset();  // a backend with host particles: interop has nothing to offer
      interop_wanted_ = false;
    } catch (const render::CudaGlInteropError& e) {
      messages_ << "note: CUDA-GL interop is unavailable (" << e.what()
                << "); particles go through host memory each frame instead, counted in the transfer ledger\n";
      interop_.reset();
      interop_wanted_ = false;
    }
  }
  update_through_host(color_by);
}

void ParticleFeed::update_through_host(render::ColorBy color_by) {
  simulation_.download(frame_);
  const std::size_t n = frame_.size();
  const float* scalar = nullptr;
  if (color_by != render::ColorBy::fixed) {
    scalar_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      switch (color_by) {
        case render::ColorBy::speed:
          scalar_[i] = std::sqrt(length_squared(xyz(frame_.velocity[i])));
          break;
        case render::ColorBy::density:
          scalar_[i] = frame_.density[i];
          break;
        default:
          scalar_[i] = frame_.pressure[i];
          break;
      }
    }
    scalar = scalar_.data();
  }
  const auto start = std::chrono::steady_clock::now();
  const std::size_t bytes = buffers_.upload({n, frame_.position.data(), scalar});
  simulation_.ledger().record(CopyDirection::host_to_device, bytes, milliseconds_since(start),
                              "particles to OpenGL (host upload)");
}

void upload_boundary(const Simulation& simulation, render::ParticleBuffers& buffers, TransferLedger& ledger) {
  const StaticField* walls = simulation.static_field(kBoundaryField);
  if (walls == nullptr) return;
  const auto start = std::chrono::steady_clock::now();
  const std::size_t bytes = buffers.upload({walls->positions.size(), walls->positions.data(), nullptr});
  ledger.record(CopyDirection::host_to_device, bytes, milliseconds_since(start),
                "wall particles to OpenGL (once)");
}

void update_moving_boundary(Simulation& simulation, render::ParticleBuffers& buffers,
                            TransferLedger& ledger) {
  std::vector<Vec4f> positions;
  if (!simulation.download_moving_boundary(positions)) return;
  const auto start = std::chrono::steady_clock::now();
  const std::size_t bytes = buffers.upload({positions.size(), positions.data(), nullptr});
  ledger.record(CopyDirection::host_to_device, bytes, milliseconds_since(start),
                "moving wall particles to OpenGL (each frame)");
}

}  // namespace surge::app
