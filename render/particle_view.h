// What the renderer knows of particles: how many, where, and one scalar to colour them by, in host
// memory. Simulations reach the GPU-side buffers (ParticleBuffers) through CUDA-GL interop instead.
#pragma once

#include <cstddef>

#include "sim/core/vec.h"

namespace surge::render {

struct ParticleView {
  std::size_t count = 0;
  const Vec4f* position = nullptr;  // count entries; xyz [m]
  const float* scalar = nullptr;    // count entries, or nullptr when particles have a fixed colour
};

}  // namespace surge::render
