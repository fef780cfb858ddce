#include "sim/nbody/barnes_hut_cpu.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <utility>

#include "sim/nbody/morton.h"
#include "sim/nbody/radix_tree.h"

namespace surge {

template <typename T>
void CpuBarnesHut<T>::sort_by_morton_code(const std::vector<Body<T>>& bodies) {
  const std::size_t n = bodies.size();
  Vec3<T> lo = bodies[0].x, hi = bodies[0].x;
  for (const Body<T>& b : bodies) {
    lo = {min_of(lo.x, b.x.x), min_of(lo.y, b.x.y), min_of(lo.z, b.x.z)};
    hi = {max_of(hi.x, b.x.x), max_of(hi.y, b.x.y), max_of(hi.z, b.x.z)};
  }
  const MortonFrame<T> frame = morton_frame(lo, hi);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(n);
#pragma omp parallel for schedule(static) if (n > 1024)
  for (std::int64_t k = 0; k < std::int64_t(n); ++k)
    keyed[k] = {morton_code(bodies[k].x, frame), std::uint32_t(k)};
  // Ties broken by index, as the GPU's stable radix sort does.
  std::sort(keyed.begin(), keyed.end());
  order_.resize(n);
  codes_.resize(n);
  sorted_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    codes_[k] = keyed[k].first;
    order_[k] = keyed[k].second;
    sorted_[k] = bodies[keyed[k].second];
  }
}

template <typename T>
void CpuBarnesHut<T>::build_nodes(T theta) {
  const std::int64_t n = std::int64_t(sorted_.size());
  const std::int64_t internal = n - 1;
  left_.assign(internal, 0);
  right_.assign(internal, 0);
  internal_parent_.assign(internal, -1);
  leaf_parent_.assign(n, -1);
  other_end_.assign(internal, 0);
  visits_.assign(internal, 0);
  summary_.resize(internal);
  nodes_.resize(internal);
  const RadixTreeView tree{left_.data(), right_.data(), internal_parent_.data(), leaf_parent_.data(),
                           other_end_.data()};
#pragma omp parallel for schedule(static) if (n > 1024)
  for (std::int64_t i = 0; i < internal; ++i) build_radix_tree_node(codes_.data(), n, i, tree);

  // Bottom-up, as on the GPU: each leaf climbs towards the root; at every node the first arrival stops and
  // the second, which finds both children done, merges them and climbs on.
  const auto summary_of = [&](std::int32_t child) {
    return child < 0 ? leaf_summary(sorted_[~child]) : summary_[child];
  };
#pragma omp parallel for schedule(static) if (n > 1024)
  for (std::int64_t leaf = 0; leaf < n; ++leaf) {
    std::int32_t node = leaf_parent_[leaf];
    while (node >= 0) {
      if (std::atomic_ref<std::int32_t>(visits_[node]).fetch_add(1, std::memory_order_acq_rel) == 0) break;
      summary_[node] = merge_summaries(summary_of(left_[node]), summary_of(right_[node]));
      nodes_[node] = node_moments(summary_[node], theta, other_end_[node]);
      std::atomic_thread_fence(std::memory_order_release);
      node = internal_parent_[node];
    }
  }
}

template <typename T>
void CpuBarnesHut<T>::build(const std::vector<Body<T>>& bodies, T theta) {
  if (bodies.empty()) {
    sorted_.clear();
    order_.clear();
    return;
  }
  sort_by_morton_code(bodies);
  build_nodes(theta);
}

template <typename T>
void CpuBarnesHut<T>::gravity(T gravitational_constant, T softening, std::uint32_t leaf_size,
                              bool with_potential, GravityField<T>& out) const {
  const std::size_t n = sorted_.size();
  out.acceleration.assign(n, Vec3<T>{});
  out.potential.assign(with_potential ? n : 0, T(0));
  out.interactions = 0;
  if (n == 0) return;
  const BarnesHutTreeView<T> view{sorted_.data(), nodes_.data(),    left_.data(),
                                  right_.data(),  std::uint32_t(n), std::max<std::uint32_t>(leaf_size, 1)};
  const T eps2 = softening * softening;
  std::uint64_t interactions = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : interactions) if (n > 1024)
  for (std::int64_t k = 0; k < std::int64_t(n); ++k) {
    const std::uint32_t original = order_[k];
    if (with_potential) {
      const GravityAtBody<T> g = barnes_hut_gravity<true>(view, std::uint32_t(k), eps2);
      out.acceleration[original] = g.acceleration * gravitational_constant;
      out.potential[original] = g.potential * gravitational_constant;
      interactions += g.interactions;
    } else {
      const GravityAtBody<T> g = barnes_hut_gravity<false>(view, std::uint32_t(k), eps2);
      out.acceleration[original] = g.acceleration * gravitational_constant;
      interactions += g.interactions;
    }
  }
  out.interactions = interactions;
}

template <typename T>
void CpuBarnesHut<T>::compute(const std::vector<Body<T>>& bodies, T gravitational_constant, T softening,
                              T theta, std::uint32_t leaf_size, bool with_potential, GravityField<T>& out) {
  build(bodies, theta);
  gravity(gravitational_constant, softening, leaf_size, with_potential, out);
}

template <typename T>
void all_pairs_gravity(const std::vector<Body<T>>& bodies, T gravitational_constant, T softening,
                       bool with_potential, GravityField<T>& out) {
  const std::int64_t n = std::int64_t(bodies.size());
  out.acceleration.assign(n, Vec3<T>{});
  out.potential.assign(with_potential ? n : 0, T(0));
  const T eps2 = softening * softening;
  const Body<T>* all = bodies.data();
  // Branch-free inner loops the compiler can vectorise: a body's pull on itself is zero (r = 0, guarded for
  // eps = 0), and its own potential term is subtracted after the sum.
#pragma omp parallel for schedule(static) if (n > 64)
  for (std::int64_t i = 0; i < n; ++i) {
    const Vec3<T> x_i = all[i].x;
    Vec3<T> a{};
    for (std::int64_t j = 0; j < n; ++j) add_pair_acceleration<true>(x_i, all[j], eps2, a);
    out.acceleration[i] = a * gravitational_constant;
    if (with_potential) {
      T phi = 0;
      for (std::int64_t j = 0; j < n; ++j) phi += pair_potential(x_i, all[j], eps2);
      out.potential[i] = (phi - pair_potential(x_i, all[i], eps2)) * gravitational_constant;
    }
  }
  out.interactions = std::uint64_t(n) * std::uint64_t(n);
}

template class CpuBarnesHut<float>;
template class CpuBarnesHut<double>;
template void all_pairs_gravity(const std::vector<Body<float>>&, float, float, bool, GravityField<float>&);
template void all_pairs_gravity(const std::vector<Body<double>>&, double, double, bool,
                                GravityField<double>&);

}  // namespace surge
