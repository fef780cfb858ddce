#include "sim/validation/free_surface_probe.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace surge {

namespace {

// Union-find with path halving and union by size.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n), size_(n, 1) {
    std::iota(parent_.begin(), parent_.end(), std::uint32_t(0));
  }
  std::uint32_t find(std::uint32_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];
      i = parent_[i];
    }
    return i;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> size_;
};

struct CellKey {
  long x, y, z;
  bool operator==(const CellKey&) const = default;
};
struct CellKeyHash {
  std::size_t operator()(const CellKey& k) const {
    // Large odd multipliers spread neighbouring cells over the table (Teschner et al. 2003 style hash).
    return std::size_t(k.x) * 73856093u ^ std::size_t(k.y) * 19349663u ^ std::size_t(k.z) * 83492791u;
  }
};

}  // namespace

std::vector<std::uint32_t> label_connected_groups(const std::vector<Vec4f>& positions, float link_distance) {
  if (!(link_distance > 0.0f))
    throw std::invalid_argument("label_connected_groups: link distance must be > 0");
  const std::size_t n = positions.size();
  const double cell = link_distance;
  const auto key_of = [&](const Vec4f& p) {
    return CellKey{long(std::floor(p.x / cell)), long(std::floor(p.y / cell)), long(std::floor(p.z / cell))};
  };
  std::unordered_map<CellKey, std::vector<std::uint32_t>, CellKeyHash> cells;
  for (std::size_t i = 0; i < n; ++i) cells[key_of(positions[i])].push_back(std::uint32_t(i));

  DisjointSets sets(n);
  const float link2 = link_distance * link_distance;
  for (std::size_t i = 0; i < n; ++i) {
    const CellKey home = key_of(positions[i]);
    for (long dz = -1; dz <= 1; ++dz)
      for (long dy = -1; dy <= 1; ++dy)
        for (long dx = -1; dx <= 1; ++dx) {
          const auto it = cells.find({home.x + dx, home.y + dy, home.z + dz});
          if (it == cells.end()) continue;
          for (std::uint32_t j : it->second) {
            if (j <= i) continue;
            const float rx = positions[i].x - positions[j].x, ry = positions[i].y - positions[j].y,
                        rz = positions[i].z - positions[j].z;
            if (rx * rx + ry * ry + rz * rz < link2) sets.unite(std::uint32_t(i), j);
          }
        }
  }

  std::vector<std::uint32_t> label(n);
  std::unordered_map<std::uint32_t, std::uint32_t> label_of_root;
  for (std::size_t i = 0; i < n; ++i) {
    const auto [it, inserted] =
        label_of_root.try_emplace(sets.find(std::uint32_t(i)), std::uint32_t(label_of_root.size()));
    label[i] = it->second;
  }
  return label;
}

FreeSurfaceProbe probe_free_surface(const std::vector<Vec4f>& positions,
                                    const FreeSurfaceProbeSettings& settings) {
  FreeSurfaceProbe probe;
  if (positions.empty()) return probe;
  const std::vector<std::uint32_t> label = label_connected_groups(positions, settings.link_distance);
  std::vector<std::size_t> group_size;
  for (std::uint32_t l : label) {
    if (l >= group_size.size()) group_size.resize(l + 1, 0);
    ++group_size[l];
  }
  // A group is body when it is large enough; if the water has broken into nothing but small groups, the
  // largest of them stands for the body, so a probe always measures something.
  const std::size_t min_size = std::max<std::size_t>(
      1, std::size_t(std::ceil(double(settings.min_body_fraction) * double(positions.size()))));
  const std::size_t largest = *std::max_element(group_size.begin(), group_size.end());
  std::vector<bool> is_body(group_size.size());
  for (std::size_t g = 0; g < group_size.size(); ++g) {
    is_body[g] = group_size[g] >= std::min(min_size, largest);
    if (!is_body[g]) continue;
    probe.body_particles += group_size[g];
    ++probe.body_groups;
  }
  probe.spray_particles = positions.size() - probe.body_particles;

  double front_x = -INFINITY, top_z = -INFINITY;
  const double half = 0.5 * settings.spacing;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (!is_body[label[i]]) continue;
    const Vec4f& p = positions[i];
    front_x = std::max(front_x, double(p.x));
    if (p.x < settings.back_wall_x + settings.band_width) top_z = std::max(top_z, double(p.z));
  }
  probe.front = front_x + half - settings.back_wall_x;
  probe.height = std::isfinite(top_z) ? top_z + half - settings.floor_z : 0.0;
  return probe;
}

}  // namespace surge
