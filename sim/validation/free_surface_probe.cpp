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

// Cell coordinates packed into one 64-bit key, 21 bits per axis, counted from the lowest cell present.
std::uint64_t pack_cell(std::int64_t x, std::int64_t y, std::int64_t z) {
  return std::uint64_t(x) << 42 | std::uint64_t(y) << 21 | std::uint64_t(z);
}
constexpr std::uint32_t kNoLabel = 0xFFFFFFFFu;
constexpr std::int64_t kMaxCellsPerAxis = (std::int64_t(1) << 21) - 2;

}  // namespace

std::vector<std::uint32_t> label_connected_groups(const std::vector<Vec4f>& positions, float link_distance) {
  if (!(link_distance > 0.0f))
    throw std::invalid_argument("label_connected_groups: link distance must be > 0");
  const std::size_t n = positions.size();
  DisjointSets sets(n);
  if (n == 0) return {};

  // Cells one link wide, so linked particles are in the same or a neighbouring cell. Particles are sorted by
  // cell; each occupied cell is then visited once and paired with itself and the 13 neighbours "after" it
  // (half of the 26), so every pair of cells is looked at once.
  const double cell = link_distance;
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  for (const Vec4f& p : positions) {
    lo[0] = std::min(lo[0], double(p.x));
    lo[1] = std::min(lo[1], double(p.y));
    lo[2] = std::min(lo[2], double(p.z));
  }
  const auto cell_of = [&](const Vec4f& p, int axis) {
    const double v = axis == 0 ? p.x : axis == 1 ? p.y : p.z;
    const auto c = std::int64_t(std::floor((v - lo[axis]) / cell)) + 1;  // +1: a neighbour at -1 stays >= 0
    if (c > kMaxCellsPerAxis)
      throw std::invalid_argument(
          "label_connected_groups: particles spread over more than 2^21 link distances");
    return c;
  };
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(n);
  for (std::size_t i = 0; i < n; ++i)
    keyed[i] = {pack_cell(cell_of(positions[i], 0), cell_of(positions[i], 1), cell_of(positions[i], 2)),
                std::uint32_t(i)};
  std::sort(keyed.begin(), keyed.end());
  std::unordered_map<std::uint64_t, std::pair<std::size_t, std::size_t>> range_of_cell;  // [begin, end)
  range_of_cell.reserve(n);
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin + 1;
    while (end < n && keyed[end].first == keyed[begin].first) ++end;
    range_of_cell.emplace(keyed[begin].first, std::make_pair(begin, end));
    begin = end;
  }

  const float link2 = link_distance * link_distance;
  const auto linked = [&](std::uint32_t i, std::uint32_t j) {
    const float rx = positions[i].x - positions[j].x, ry = positions[i].y - positions[j].y,
                rz = positions[i].z - positions[j].z;
    return rx * rx + ry * ry + rz * rz < link2;
  };
  for (const auto& [key, range] : range_of_cell) {
    const std::int64_t cx = std::int64_t(key >> 42), cy = std::int64_t(key >> 21 & 0x1FFFFF),
                       cz = std::int64_t(key & 0x1FFFFF);
    for (std::size_t a = range.first; a < range.second; ++a)
      for (std::size_t b = a + 1; b < range.second; ++b)
        if (linked(keyed[a].second, keyed[b].second)) sets.unite(keyed[a].second, keyed[b].second);
    for (std::int64_t dz = -1; dz <= 1; ++dz)
      for (std::int64_t dy = -1; dy <= 1; ++dy)
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
          // The half stencil: neighbours whose (dz, dy, dx) is lexicographically positive.
          if (dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx <= 0)))) continue;
          const auto other = range_of_cell.find(pack_cell(cx + dx, cy + dy, cz + dz));
          if (other == range_of_cell.end()) continue;
          for (std::size_t a = range.first; a < range.second; ++a)
            for (std::size_t b = other->second.first; b < other->second.second; ++b)
              if (linked(keyed[a].second, keyed[b].second)) sets.unite(keyed[a].second, keyed[b].second);
        }
  }

  std::vector<std::uint32_t> label(n);
  std::vector<std::uint32_t> label_of_root(n, kNoLabel);
  std::uint32_t groups = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t& root_label = label_of_root[sets.find(std::uint32_t(i))];
    if (root_label == kNoLabel) root_label = groups++;
    label[i] = root_label;
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
