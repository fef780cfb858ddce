#include "sim/distributed/slab_decomposition.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace surge {

int longest_axis(Vec3f domain_min, Vec3f domain_max) {
  const Vec3f extent{domain_max.x - domain_min.x, domain_max.y - domain_min.y, domain_max.z - domain_min.z};
  if (extent.x >= extent.y && extent.x >= extent.z) return 0;
  return extent.y >= extent.z ? 1 : 2;
}

int SlabDecomposition::owner(float x) const {
  return int(std::upper_bound(cuts.begin(), cuts.end(), x) - cuts.begin());
}
float SlabDecomposition::slab_min(int rank) const {
  return rank == 0 ? -std::numeric_limits<float>::infinity() : cuts[std::size_t(rank - 1)];
}
float SlabDecomposition::slab_max(int rank) const {
  return rank + 1 == ranks() ? std::numeric_limits<float>::infinity() : cuts[std::size_t(rank)];
}

std::vector<long long> axis_histogram(std::span<const Vec4f> positions, int axis, float lo, float hi,
                                      int bins) {
  std::vector<long long> counts(std::size_t(bins), 0);
  const double scale = double(bins) / double(hi - lo);
  for (const Vec4f& x : positions) {
    const double at = std::floor((double(component(x, axis)) - lo) * scale);
    const int bin = at < 0 ? 0 : at >= bins ? bins - 1 : int(at);
    ++counts[std::size_t(bin)];
  }
  return counts;
}

std::vector<float> balanced_cuts(std::span<const long long> histogram, float lo, float hi, int ranks) {
  long long total = 0;
  for (long long count : histogram) total += count;
  const std::size_t bins = histogram.size();
  const double width = double(hi - lo) / double(bins);
  std::vector<float> cuts;
  long long below = 0;  // particles left of edge e
  std::size_t edge = 0;
  for (int k = 1; k < ranks; ++k) {
    const double target = double(total) * k / ranks;
    // Walk right while the next edge is nearer the target; edges never go back, so cuts stay ordered.
    while (edge < bins &&
           std::abs(double(below + histogram[edge]) - target) <= std::abs(double(below) - target)) {
      below += histogram[edge];
      ++edge;
    }
    cuts.push_back(float(lo + width * double(edge)));
  }
  return cuts;
}

std::vector<float> even_cuts(float lo, float hi, int ranks) {
  std::vector<float> cuts;
  for (int k = 1; k < ranks; ++k) cuts.push_back(lo + (hi - lo) * float(k) / float(ranks));
  return cuts;
}

}  // namespace surge
