// build_dem_setup: from a granular scene to grains. Each block fills its region with a cubic lattice of
// spacing 2 r_max (its largest grain diameter), the first site r_max from the block's lower corner, as
// NVIDIA's `particles` sample places its grid of grains; radii, jitter and masses come from a small
// deterministic generator, so a scene always gives the same grains.
#include "sim/setup/build_dem_setup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "sim/core/particle_limits.h"
#include "sim/dem/contact_history.h"
#include "sim/dem/dem_setup.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/scene/scene.h"
#include "sim/setup/host_memory.h"

namespace surge {

namespace {

constexpr double kPi = 3.14159265358979323846;

// SplitMix64 (Steele, Lea & Flood 2014): a tiny generator whose sequence is the same on every platform,
// unlike std::uniform_real_distribution's.
class GrainRandom {
 public:
  explicit GrainRandom(std::uint64_t seed) : state_(seed) {}
  double uniform() {  // in [0, 1)
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return double((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }
  double symmetric() { return 2.0 * uniform() - 1.0; }  // in [-1, 1)

 private:
  std::uint64_t state_;
};

struct PlacedGrain {
  Vec4f position;  // w = radius
  Vec4f velocity;  // w = mass
};

double axis(Vec3f v, int a) {
  return a == 0 ? v.x : (a == 1 ? v.y : v.z);
}

long lattice_side(long count) {
  long side = std::max(1L, long(std::cbrt(double(count))));
  while (side * side * side < count) ++side;
  return side;
}

// Lattice sites of one block, before jitter.
std::vector<Vec3f> block_sites(const GrainBlock& block) {
  const double spacing = 2.0 * block.grain_radius_max;
  std::vector<Vec3f> sites;
  if (block.shape == GrainBlock::Shape::lattice) {
    const long side = lattice_side(block.count);
    for (long k = 0; k < block.count; ++k) {
      const long i = k % side, j = (k / side) % side, l = k / (side * side);
      sites.push_back({float(block.min.x + (i + 0.5) * spacing), float(block.min.y + (j + 0.5) * spacing),
                       float(block.min.z + (l + 0.5) * spacing)});
    }
    return sites;
  }
  const bool sphere = block.shape == GrainBlock::Shape::sphere;
  const Vec3f low = sphere ? block.center - Vec3f{block.radius, block.radius, block.radius} : block.min;
  const Vec3f high = sphere ? block.center + Vec3f{block.radius, block.radius, block.radius} : block.max;
  long n[3];
  // The tolerance forgives float rounding of extents written as whole multiples of a diameter (0.204 - 0.2 is
  // 0.00399999 in float): without it the hourglass plate, one diameter thick, had no grains at all.
  for (int a = 0; a < 3; ++a) n[a] = long(std::floor((axis(high, a) - axis(low, a)) / spacing + 1e-3));
  const double inside = double(block.radius) - block.grain_radius_max;
  for (long k = 0; k < n[2]; ++k)
    for (long j = 0; j < n[1]; ++j)
      for (long i = 0; i < n[0]; ++i) {
        const Vec3f site{float(low.x + (i + 0.5) * spacing), float(low.y + (j + 0.5) * spacing),
                         float(low.z + (k + 0.5) * spacing)};
        if (sphere && length_squared(site - block.center) > inside * inside) continue;
        sites.push_back(site);
      }
  return sites;
}

std::vector<PlacedGrain> place_block(const GrainBlock& block, std::uint64_t seed) {
  GrainRandom random(seed);
  std::vector<PlacedGrain> grains;
  for (const Vec3f site : block_sites(block)) {
    const double radius =
        block.grain_radius + (block.grain_radius_max - block.grain_radius) * random.uniform();
    const double reach = block.jitter * block.grain_radius;
    const Vec3f jittered{float(site.x + reach * random.symmetric()),
                         float(site.y + reach * random.symmetric()),
                         float(site.z + reach * random.symmetric())};
    const double mass =
        block.mass > 0.0f ? double(block.mass) : block.density * 4.0 / 3.0 * kPi * radius * radius * radius;
    grains.push_back({make_vec4(jittered, float(radius)), make_vec4(block.velocity, float(mass))});
  }
  return grains;
}

long count_moving(const std::vector<GrainBlock>& blocks) {
  long count = 0;
  for (const GrainBlock& block : blocks)
    if (!block.fixed) count += long(block_sites(block).size());
  return count;
}

// The blocks resized for about `target` moving grains. Lattice blocks take their share of the target as
// their count, and their grains shrink by halves until the lattice fits in the domain again: that keeps
// the grid a power of two, as NVIDIA's sample does (radius 1/64 and grid 64^3 for 16k grains, 1/128 and
// 128^3 for 1M, 1/256 and 256^3 for 4M). Box and sphere blocks, fixed ones included, scale every grain
// radius by one factor, corrected twice by counting.
std::vector<GrainBlock> resize_blocks(const Scene& scene, long target) {
  std::vector<GrainBlock> blocks = scene.dem.blocks;
  const long original = count_moving(blocks);
  long filled_original = 0, filled_target = 0;  // moving grains of the box and sphere blocks
  for (GrainBlock& block : blocks) {
    if (block.fixed) continue;
    const long own = long(block_sites(block).size());
    const long share = std::max(1L, long(std::llround(double(target) * double(own) / double(original))));
    if (block.shape != GrainBlock::Shape::lattice) {
      filled_original += own;
      filled_target += share;
      continue;
    }
    block.count = share;
    if (block.clamp_overflow) continue;
    const long side = lattice_side(share);
    for (int guard = 0; guard < 40; ++guard) {
      bool fits = true;
      for (int a = 0; a < 3; ++a)
        fits = fits && axis(block.min, a) + side * 2.0 * block.grain_radius_max <=
                           axis(scene.domain_max, a) + 1e-6 * std::abs(axis(scene.domain_max, a));
      if (fits) break;
      block.grain_radius *= 0.5f;
      block.grain_radius_max *= 0.5f;
    }
  }
  if (filled_original == 0) return blocks;
  double factor = std::cbrt(double(filled_original) / double(filled_target));
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<GrainBlock> trial = blocks;
    long filled = 0;
    for (std::size_t b = 0; b < trial.size(); ++b) {
      if (trial[b].shape == GrainBlock::Shape::lattice) continue;
      trial[b].grain_radius = float(blocks[b].grain_radius * factor);
      trial[b].grain_radius_max = float(blocks[b].grain_radius_max * factor);
      if (!trial[b].fixed) filled += long(block_sites(trial[b]).size());
    }
    if (pass == 2 || filled == 0) {
      blocks = trial;
      break;
    }
    factor *= std::cbrt(double(filled) / double(filled_target));
  }
  return blocks;
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g s", seconds);
  return text;
}

}  // namespace

DemSetup build_dem_setup(const Scene& scene, long particles_override) {
  const DemScene& d = scene.dem;
  // Checked before resize_blocks places trial lattices of that many grains.
  if (particles_override > kMaxParticles)
    throw SceneError(scene.path, 0, "--particles",
                     "expected at most " + approximate_count(double(kMaxParticles)) + " grains, got " +
                         approximate_count(double(particles_override)));
  if (particles_override > 0) {
    // The grains' ParticleFrame, and the sites and placed grains they are made from.
    constexpr double kSetupBytesPerGrain = 2 * sizeof(Vec4f) + 3 * sizeof(float) + 2 * sizeof(Vec4f);
    check_setup_memory(scene, "--particles", 0, double(particles_override),
                       double(particles_override) * kSetupBytesPerGrain, "grains", "to set up");
  }
  const std::vector<GrainBlock> blocks =
      particles_override > 0 ? resize_blocks(scene, particles_override) : d.blocks;
  const std::string count_key = particles_override > 0 ? "--particles" : "dem.block";
  const int count_line = particles_override > 0 ? 0 : scene.line_of("dem.block");

  DemSetup setup;
  std::vector<Vec4f> fixed;
  double smallest_mass = 1e300, smallest_radius = 1e300, largest_radius = 0, fastest = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const GrainBlock& block = blocks[b];
    for (const PlacedGrain& grain : place_block(block, 0x5EEDull + b)) {
      largest_radius = std::max(largest_radius, double(grain.position.w));
      if (block.fixed) {
        fixed.push_back(grain.position);
        continue;
      }
      setup.grains.position.push_back(grain.position);
      setup.grains.velocity.push_back(grain.velocity);
      smallest_mass = std::min(smallest_mass, double(grain.velocity.w));
      smallest_radius = std::min(smallest_radius, double(grain.position.w));
      fastest = std::max(fastest, std::sqrt(double(length_squared(xyz(grain.velocity)))));
    }
    if (block.shape == GrainBlock::Shape::lattice && !block.clamp_overflow) {
      const long side = lattice_side(block.count);
      for (int a = 0; a < 3; ++a) {
        const double far = axis(block.min, a) + side * 2.0 * block.grain_radius_max;
        if (far > axis(scene.domain_max, a) * (1 + 1e-6) + 1e-9) {
          throw SceneError(scene.path, particles_override > 0 ? 0 : block.line,
                           particles_override > 0 ? "--particles" : "dem.block[" + std::to_string(b) + "]",
                           "a lattice of " + std::to_string(block.count) + " grains (" +
                               std::to_string(side) + " a side) reaches " + std::to_string(far) +
                               " m, beyond the domain: expected fewer grains or a smaller grain_radius");
        }
      }
    }
  }
  const std::size_t n = setup.grains.size();
  if (n == 0)
    throw SceneError(scene.path, count_line, count_key,
                     "no moving grain fits in the blocks: expected larger blocks or a smaller grain_radius");
  if (n > std::size_t(0xFFFFFFF0u))
    throw SceneError(scene.path, count_line, count_key,
                     std::to_string(n) + " grains: expected fewer than 4,294,967,280 (32-bit grain ids)");
  ParticleFrame& grains = setup.grains;
  grains.id.resize(n);
  grains.pressure.assign(n, 0.0f);
  grains.density.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    grains.id[i] = std::uint32_t(i);
    const double r = grains.position[i].w;
    grains.density[i] = float(grains.velocity[i].w / (4.0 / 3.0 * kPi * r * r * r));
  }

  // Contact law.
  DemParameters& p = setup.params;
  p.normal_model = d.normal_model;
  p.stiffness = d.stiffness;
  p.effective_modulus =
      float(double(d.youngs_modulus) / (2.0 * (1.0 - double(d.poisson_ratio) * d.poisson_ratio)));
  p.damping_from_restitution = d.normal_damping < 0.0f;
  p.restitution = d.restitution;
  const double log_e = std::log(double(d.restitution));
  p.damping_ratio = float(-log_e / std::sqrt(kPi * kPi + log_e * log_e));
  p.normal_damping = std::max(d.normal_damping, 0.0f);
  p.friction_model = d.friction_model;
  p.friction = d.friction;
  p.tangential_damping = d.tangential_damping;
  p.cohesion = d.cohesion;
  const double shear_modulus = double(d.youngs_modulus) / (2.0 * (1.0 + double(d.poisson_ratio)));
  p.effective_shear_modulus = float(shear_modulus / (2.0 * (2.0 - double(d.poisson_ratio))));
  p.tangential_stiffness_ratio = d.tangential_stiffness_ratio;
  p.rotation = d.rotation;
  p.rolling_friction = d.rolling_friction;
  if (p.friction_model == FrictionModel::mindlin) {
    p.contact_slots = unsigned(d.contact_slots);
    p.fixed_partner_base = std::uint32_t(n);
    if (n + fixed.size() >= std::size_t(kWallPartner))
      throw SceneError(scene.path, count_line, count_key,
                       "moving plus fixed grains must be fewer than 4,294,967,280 for the contact history's "
                       "32-bit partner keys");
  }
  p.gravity = scene.dem.gravity;
  p.wall_model = d.wall_model;
  p.wall_restitution = d.wall_restitution;
  for (int f = 0; f < 6; ++f)
    if (scene.walls[std::size_t(f)]) p.wall_mask |= 1u << f;
  p.domain_min = scene.domain_min;
  p.domain_max = scene.domain_max;
  p.max_radius = float(largest_radius);

  // Time step: a fraction of the shortest contact, two of the lightest grains (m* = m/2, R* = r/2). A
  // Hertz contact is shorter the faster the impact; the fastest expected is a fall through the whole
  // domain along gravity plus the fastest block.
  const double m_eff = 0.5 * smallest_mass;
  double collision_time = 0;
  if (p.normal_model == NormalModel::linear) {
    collision_time = linear_collision_time(p.stiffness, m_eff);
  } else {
    const Vec3f extent = scene.domain_max - scene.domain_min;
    const double g = std::sqrt(double(length_squared(scene.dem.gravity)));
    const double height = std::sqrt(double(length_squared(extent)));
    const double speed = std::max(std::sqrt(2.0 * g * height) + fastest, 1e-3);
    collision_time = hertz_collision_time(p.effective_modulus, 0.5 * smallest_radius, m_eff, speed);
  }
  p.collision_time = float(collision_time);
  p.time_step_gravity = std::sqrt(length_squared(scene.dem.gravity));
  if (d.time_step > 0.0f) {
    // Symplectic Euler on a contact of angular frequency omega is stable for omega dt < 2, that is
    // dt < (2/pi) t_c.
    const double limit = 2.0 / kPi * collision_time;
    if (double(d.time_step) >= limit)
      throw SceneError(scene.path, scene.line_of("dem.time_step"), "dem.time_step",
                       "expected a time step below (2/pi) x the collision time " +
                           format_seconds(collision_time) + " = " + format_seconds(limit) +
                           " (beyond it the integrator is unstable), got " + format_seconds(d.time_step));
    p.dt = d.time_step;
  } else {
    p.dt = float(d.collision_time_fraction * collision_time);
  }

  // Grid: cells of one largest diameter over the domain, so every contact is within the 27 cells around
  // a grain. Grains beyond the domain fall into border cells (GridGeometry clamps) and the domain check
  // ends the run before they get far.
  GridGeometry& grid = setup.grid;
  grid.cell_size = float(2.0 * largest_radius);
  grid.inv_cell_size = 1.0f / grid.cell_size;
  grid.origin = scene.domain_min;
  const Vec3f span = scene.domain_max - scene.domain_min;
  grid.nx = std::max(1, int(std::ceil(span.x / grid.cell_size - 1e-4)));
  grid.ny = std::max(1, int(std::ceil(span.y / grid.cell_size - 1e-4)));
  grid.nz = std::max(1, int(std::ceil(span.z / grid.cell_size - 1e-4)));
  if (double(grid.nx) * grid.ny * grid.nz >= 4.0e9)
    throw SceneError(scene.path, count_line, count_key,
                     "the grid would need more than 4e9 cells: expected larger grains for this domain");

  // Fixed grains never move: sorted by cell once.
  CpuCellIndex fixed_index;
  fixed_index.build(grid, fixed);
  setup.fixed.resize(fixed.size());
  for (std::size_t k = 0; k < fixed.size(); ++k) setup.fixed[k] = fixed[fixed_index.sorted_order()[k]];
  setup.fixed_cell_start = fixed_index.cell_start();
  return setup;
}

}  // namespace surge
