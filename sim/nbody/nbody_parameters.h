// What the n-body solver runs with: the force method and its constants, in the scene's units (N-body
// units, G = 1, unless the scene says otherwise).
#pragma once

#include <string_view>
#include <vector>

namespace surge {

// How accelerations are summed. all_pairs and all_pairs_naive compute the same O(N^2) sum (the naive
// one reads every body from global memory, the tiled one through shared memory); barnes_hut approximates
// distant groups by their centre of mass, O(N log N).
enum class NbodyMethod { all_pairs, all_pairs_naive, barnes_hut };
inline constexpr std::string_view nbody_method_name(NbodyMethod method) {
  return method == NbodyMethod::all_pairs         ? "all_pairs"
         : method == NbodyMethod::all_pairs_naive ? "all_pairs_naive"
                                                  : "barnes_hut";
}

struct NbodyParameters {
  NbodyMethod method = NbodyMethod::all_pairs;
  double gravitational_constant = 1.0;  // G [length^3 / (mass time^2)]; 1 in N-body units
  double softening = 0.01;              // Plummer softening length eps [length]; 0 = point masses
  double theta = 0.5;                   // Barnes-Hut opening angle (dimensionless)
  // Barnes-Hut: a near node of at most this many bodies is summed body by body rather than opened
  // (barnes_hut_physics.h). 32 from the H200 sweep of scenes/plummer_tree.toml (2026-12-04, ms a step at
  // 1M / 4M bodies): leaf 1 36.1 / 149.7, 8 34.5 / 145.0, 16 32.5 / 137.5, 32 32.5 / 131.0
  // (docs/perf/2026-12-04-barnes-hut-leaves.md); larger leaves are also more exact.
  int leaf_size = 32;
  double dt = 0.01;  // fixed time step [time]
};

struct NamedValue;
// The parameters as a benchmark records them.
std::vector<NamedValue> describe_parameters(const NbodyParameters& parameters);

}  // namespace surge
