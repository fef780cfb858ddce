// The moving particles' arrays where a backend keeps them (host memory on the CPU, device memory on the GPU),
// for readers that take them in place instead of a copy: the Python module hands them to NumPy, CuPy and
// PyTorch as views (docs/python.md). Each points at `count` entries in the backend's current order, which
// the sort by cell changes every step (read `id` beside the others to follow a particle), and holds until
// the next step: the sort gathers into a second set of buffers and swaps them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/vec.h"

namespace surge {

struct ParticleArrays {
  const Vec4f* position = nullptr;  // [m]; w is the solver's own (unused by readers)
  const Vec4f* velocity = nullptr;  // [m/s]
  const float* density = nullptr;   // [kg/m^3]; null where the solver keeps none (grains)
  const float* pressure = nullptr;  // [Pa]; null where the solver keeps none
  const std::uint32_t* id = nullptr;
  std::size_t count = 0;
  bool on_device = false;  // true: CUDA device pointers (device 0)
};

}  // namespace surge
