// The domain cut into slabs along one axis, one slab per rank, and where the cuts go so that every rank
// owns about as many particles as the others (the load balance). Plain host code with no transport in it:
// the counts it balances come from a histogram that the caller sums over the ranks.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "sim/core/vec.h"

namespace surge {

// The axis along which the box is longest: cuts across it give the thinnest cut faces for slabs of a given
// volume, so the fewest particles in the halos.
int longest_axis(Vec3f domain_min, Vec3f domain_max);

inline float component(const Vec4f& v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}
inline float component(const Vec3f& v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

struct SlabDecomposition {
  int axis = 0;
  float lo = 0, hi = 0;     // the domain along the axis [m]: the histogram's range
  std::vector<float> cuts;  // ranks - 1 ascending positions [m]; rank r owns [cuts[r-1], cuts[r])

  int ranks() const { return int(cuts.size()) + 1; }
  // The rank whose slab holds coordinate x; the outer slabs reach to infinity, so a particle outside the
  // domain still has an owner (and the solver, not the decomposition, reports it as escaped).
  int owner(float x) const;
  float slab_min(int rank) const;  // -inf for rank 0
  float slab_max(int rank) const;  // +inf for the last rank
};

// Counts of `positions` along `axis` in `bins` equal bins over [lo, hi) (those outside in the end bins).
std::vector<long long> axis_histogram(std::span<const Vec4f> positions, int axis, float lo, float hi,
                                      int bins);
// Cuts that split the particles counted in `histogram` (over [lo, hi)) into `ranks` slabs of nearly equal
// count: cut k lies at the bin edge where the running count comes nearest k * total / ranks. The imbalance
// left is at most about one bin's count per cut.
std::vector<float> balanced_cuts(std::span<const long long> histogram, float lo, float hi, int ranks);
// Cuts that split [lo, hi) into slabs of equal width, whatever the particles: a start that the load balance
// must then correct (the tests use it to move the cuts far).
std::vector<float> even_cuts(float lo, float hi, int ranks);

}  // namespace surge
