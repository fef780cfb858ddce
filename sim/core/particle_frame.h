// A host-side snapshot of the fluid particles, as exporters and tests read it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/vec.h"

namespace surge {

struct ParticleFrame {
  std::vector<Vec4f> position;    // [m]; w unused
  std::vector<Vec4f> velocity;    // [m/s]; w unused
  std::vector<float> density;     // [kg/m^3]
  std::vector<float> pressure;    // [Pa]
  std::vector<std::uint32_t> id;  // creation index: stable across the reordering by cell
  double time_s = 0.0;
  long step = 0;

  std::size_t size() const { return position.size(); }
  void resize(std::size_t n) {
    position.resize(n);
    velocity.resize(n);
    density.resize(n);
    pressure.resize(n);
    id.resize(n);
  }
};

}  // namespace surge
