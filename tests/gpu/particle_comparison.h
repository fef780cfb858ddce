// Comparing two runs particle by particle: positions by creation id, so the backends' cell orders do not
// matter.
#pragma once

#include <cmath>
#include <vector>

#include "sim/backend/simulation.h"

namespace surge {

inline std::vector<Vec4f> positions_by_id(Simulation& simulation) {
  ParticleFrame frame;
  simulation.download(frame);
  std::vector<Vec4f> out(frame.size());
  for (std::size_t k = 0; k < frame.size(); ++k) out[frame.id[k]] = frame.position[k];
  return out;
}

// The largest distance between the same particle in two runs [m]; a NaN anywhere makes it NaN.
inline double largest_difference(const std::vector<Vec4f>& a, const std::vector<Vec4f>& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::sqrt(double(length_squared(xyz(a[i]) - xyz(b[i]))));
    if (!(d <= largest)) largest = d;
  }
  return largest;
}

}  // namespace surge
