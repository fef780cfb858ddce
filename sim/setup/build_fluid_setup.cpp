// build_setup: from a scene to particles. Fluid particles sit on a cubic lattice anchored at the
// domain's lower corner (first particle half a spacing from the wall); wall particles continue the
// lattice outwards in `wall_layers` layers, so the first fluid layer is one spacing from the first
// wall layer, as it would be from more fluid.
#include "sim/setup/build_fluid_setup.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include "sim/core/particle_limits.h"
#include "sim/geometry/solid_lattice.h"
#include "sim/geometry/triangle_mesh.h"
#include "sim/index/cell_index_cpu.h"
#include "sim/scene/scene.h"
#include "sim/setup/host_memory.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {

namespace {

// Whether a fluid lattice site of spacing `spacing` lies in a solid ([[solid]]), where there is no fluid:
// those sites are the solid's boundary particles or its interior (fluid_site_blocked tests the bounds
// first, which keeps meshes off most of the lattice). A floating body, on a lattice of its own
// (fitted_lattice), also keeps the fluid half a spacing off its surface, as the walls do: its outermost
// particles sit half a step inside, so the fluid starts at least one spacing from them, never overlapping.
bool in_a_solid(const Scene& scene, double spacing, Vec3f site) {
  for (const SolidSettings& solid : scene.solids) {
    const double clearance = solid.motion.kind == MotionKind::floating ? 0.5 * spacing : 0.0;
    if (fluid_site_blocked(*solid.solid, site, clearance)) return true;
  }
  return false;
}

bool block_contains(const FluidBlock& block, Vec3f p) {
  if (block.shape == FluidBlock::Shape::sphere)
    return length_squared(p - block.center) <= block.radius * block.radius;
  return p.x >= block.min.x && p.x < block.max.x && p.y >= block.min.y && p.y < block.max.y &&
         p.z >= block.min.z && p.z < block.max.z;
}

float along(Vec3f v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

// The fluid lattice: site (i, j, k) at domain_min + (i + 1/2, j + 1/2, k + 1/2) spacing, i in [0, n[0]).
struct Lattice {
  Vec3f origin;
  double spacing;
  long n[3];
  float coordinate(int axis, long i) const { return float(along(origin, axis) + (i + 0.5) * spacing); }
};

Lattice domain_lattice(const Scene& scene, double spacing) {
  const Vec3f extent = scene.domain_max - scene.domain_min;
  return {scene.domain_min,
          spacing,
          {long(extent.x / spacing), long(extent.y / spacing), long(extent.z / spacing)}};
}

struct IndexRange {
  long first = 0, last = -1;  // inclusive; empty when last < first
  bool contains(long i) const { return i >= first && i <= last; }
};

// The lattice indices along `axis` whose sites may lie in [low, high], with an index of slack either side
// for rounding (block_contains decides), clamped to the domain's lattice.
IndexRange sites_between(const Lattice& lattice, int axis, double low, double high) {
  const double origin = along(lattice.origin, axis);
  const double top = double(lattice.n[axis] - 1);
  const auto index = [&](double x) { return std::clamp(x, -1.0, top + 1.0); };
  return {std::max(0L, long(std::floor(index((low - origin) / lattice.spacing - 0.5))) - 1),
          std::min(lattice.n[axis] - 1, long(std::ceil(index((high - origin) / lattice.spacing - 0.5))) + 1)};
}

using BlockBox = std::array<IndexRange, 3>;

BlockBox block_box(const Lattice& lattice, const FluidBlock& block) {
  BlockBox box;
  for (int axis = 0; axis < 3; ++axis) {
    const bool sphere = block.shape == FluidBlock::Shape::sphere;
    const double low = sphere ? double(along(block.center, axis)) - block.radius : along(block.min, axis);
    const double high = sphere ? double(along(block.center, axis)) + block.radius : along(block.max, axis);
    box[axis] = sites_between(lattice, axis, low, high);
  }
  return box;
}

// Calls visit(i) for each index in the union of the boxes' ranges along `axis`, in increasing order.
template <typename Visit>
void for_each_index_in_union(const std::vector<const BlockBox*>& boxes, int axis, Visit&& visit) {
  std::vector<IndexRange> ranges;
  for (const BlockBox* box : boxes)
    if ((*box)[axis].first <= (*box)[axis].last) ranges.push_back((*box)[axis]);
  std::sort(ranges.begin(), ranges.end(), [](IndexRange a, IndexRange b) { return a.first < b.first; });
  long next = std::numeric_limits<long>::min();  // the first index not yet visited
  for (const IndexRange& range : ranges)
    for (long i = std::max(range.first, next); i <= range.last; ++i, next = i) visit(i);
}

// Calls visit(site, block) for every lattice site of spacing `spacing` inside some fluid block; a site
// inside several blocks counts once, for the first block listed. Only the sites of the blocks' bounding
// boxes are visited (a 5 cm block in a 100 m tank is 125,000 sites at 1 mm, not 10^15), in the order a scan
// of the whole domain (z, then y, then x) would visit them, so particle order and ids do not depend on it.
void for_each_fluid_site(const Scene& scene, double spacing,
                         const std::function<void(Vec3f, const FluidBlock&)>& visit,
                         long* examined = nullptr) {
  const Lattice lattice = domain_lattice(scene, spacing);
  std::vector<BlockBox> boxes;
  for (const FluidBlock& block : scene.blocks) boxes.push_back(block_box(lattice, block));
  std::vector<const BlockBox*> all, in_plane, in_row;
  for (const BlockBox& box : boxes) all.push_back(&box);
  for_each_index_in_union(all, 2, [&](long k) {
    in_plane.clear();
    for (const BlockBox* box : all)
      if ((*box)[2].contains(k)) in_plane.push_back(box);
    for_each_index_in_union(in_plane, 1, [&](long j) {
      in_row.clear();
      for (const BlockBox* box : in_plane)
        if ((*box)[1].contains(j)) in_row.push_back(box);
      for_each_index_in_union(in_row, 0, [&](long i) {
        if (examined != nullptr) ++*examined;
        const Vec3f site{lattice.coordinate(0, i), lattice.coordinate(1, j), lattice.coordinate(2, k)};
        for (const FluidBlock& block : scene.blocks)
          if (block_contains(block, site)) {
            if (!in_a_solid(scene, spacing, site)) visit(site, block);
            break;
          }
      });
    });
  });
}

long count_fluid_sites(const Scene& scene, double spacing) {
  long count = 0;
  for_each_fluid_site(scene, spacing, [&](Vec3f, const FluidBlock&) { ++count; });
  return count;
}

double block_volume(const FluidBlock& block) {
  if (block.shape == FluidBlock::Shape::sphere)
    return 4.0 / 3.0 * 3.14159265358979 * std::pow(block.radius, 3.0);
  const Vec3f e = block.max - block.min;
  return double(e.x) * e.y * e.z;
}

// The spacing that puts about `target` particles in the scene's fluid: a first guess from the block
// volumes, then two corrections from counting lattice sites (overlaps and rounding at the edges).
double spacing_for_count(const Scene& scene, long target) {
  double volume = 0;
  for (const FluidBlock& block : scene.blocks) volume += block_volume(block);
  double spacing = std::cbrt(volume / double(target));
  for (int pass = 0; pass < 2; ++pass) {
    const long count = count_fluid_sites(scene, spacing);
    if (count == 0) break;
    spacing *= std::cbrt(double(count) / double(target));
  }
  return spacing;
}

// Coordinates of wall particles along one axis: evenly spread over [lo, hi] (so no gap opens where the
// domain is not a whole number of spacings), continued by `layers` beyond either end.
std::vector<float> wall_axis_coordinates(float lo, float hi, double spacing, int layers) {
  const long n = even_steps(hi - lo, spacing);
  const double step = (hi - lo) / double(n);
  std::vector<float> coordinates;
  for (long i = -layers; i < n + layers; ++i) coordinates.push_back(float(lo + (i + 0.5) * step));
  return coordinates;
}

std::vector<Vec4f> place_wall_particles(const Scene& scene, double spacing) {
  const int layers = scene.wall_layers;
  const auto xs = wall_axis_coordinates(scene.domain_min.x, scene.domain_max.x, spacing, layers);
  const auto ys = wall_axis_coordinates(scene.domain_min.y, scene.domain_max.y, spacing, layers);
  const auto zs = wall_axis_coordinates(scene.domain_min.z, scene.domain_max.z, spacing, layers);
  const auto walled = [&](Face f) { return scene.walls[std::size_t(f)]; };
  // Per axis: 0 inside the domain, -1 below it, +1 above it. A site outside the domain is a wall site
  // when every face it lies beyond has a wall, so corners of two walls are filled and open faces are not.
  const auto side = [](float v, float lo, float hi) { return v < lo ? -1 : (v > hi ? 1 : 0); };
  std::vector<Vec4f> particles;
  const std::size_t inner_x_first = std::size_t(layers), inner_x_end = xs.size() - std::size_t(layers);
  for (float z : zs)
    for (float y : ys) {
      const int sy = side(y, scene.domain_min.y, scene.domain_max.y);
      const int sz = side(z, scene.domain_min.z, scene.domain_max.z);
      // A row beyond an open face holds no wall site at all, and a row through the domain has them only in
      // its first and last layers: skipping the rest keeps this loop to the walls' sites rather than the
      // whole domain's.
      if (sy != 0 && !walled(sy < 0 ? Face::y_min : Face::y_max)) continue;
      if (sz != 0 && !walled(sz < 0 ? Face::z_min : Face::z_max)) continue;
      const bool row_inside = sy == 0 && sz == 0;
      for (std::size_t ix = 0; ix < xs.size(); ++ix) {
        if (row_inside && ix == inner_x_first && inner_x_end > inner_x_first) ix = inner_x_end;
        if (ix >= xs.size()) break;
        const float x = xs[ix];
        const int sx = side(x, scene.domain_min.x, scene.domain_max.x);
        if (sx == 0 && sy == 0 && sz == 0) continue;
        if (sx != 0 && !walled(sx < 0 ? Face::x_min : Face::x_max)) continue;
        particles.push_back({x, y, z, 0.0f});
      }
    }
  return particles;
}

// 6 significant digits: lengths in messages.
std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// About how many fluid particles a spacing puts in the blocks: each block's volume in lattice cells, at most
// its bounding box's sites (overlaps count twice, which only errs towards refusing).
double estimate_fluid_sites(const Scene& scene, double spacing) {
  const Lattice lattice = domain_lattice(scene, spacing);
  double total = 0;
  for (const FluidBlock& block : scene.blocks) {
    const BlockBox box = block_box(lattice, block);
    double sites = 1;
    for (const IndexRange& range : box) sites *= double(std::max(0L, range.last - range.first + 1));
    total += std::min(sites, block_volume(block) / (spacing * spacing * spacing));
  }
  return total;
}

// Wall particles: the shell of `wall_layers` around the domain's lattice, every face counted (an upper
// bound; open faces have none).
double estimate_wall_sites(const Scene& scene, double spacing) {
  const Vec3f extent = scene.domain_max - scene.domain_min;
  double inside = 1, outside = 1;
  for (int axis = 0; axis < 3; ++axis) {
    const double n = std::max(1.0, std::round(double(along(extent, axis)) / spacing));
    inside *= n;
    outside *= n + 2.0 * scene.wall_layers;
  }
  return outside - inside;
}

// The setup's own host memory, per element: a fluid particle's ParticleFrame (position, velocity, density,
// pressure, id); a wall particle placed, sorted by cell and given a volume; a grid cell's start in the
// walls' index. What the backend then allocates comes on top, so a refusal here is certain.
constexpr double kSetupBytesPerFluidParticle = 2 * sizeof(Vec4f) + 3 * sizeof(float);
constexpr double kSetupBytesPerWallParticle = 2 * sizeof(Vec4f) + 2 * sizeof(std::uint32_t) + sizeof(float);
constexpr double kSetupBytesPerCell = 2 * sizeof(std::uint32_t);
constexpr double kMaxGridCells = 4.0e9;

// Refuses, before anything is allocated, a resolution whose fluid, walls or grid exceed the limits or the
// host's memory; `fluid` is the expected fluid particle count.
void check_setup_size(const Scene& scene, double spacing, double fluid, double run_bytes_per_particle,
                      const std::string& key, int line) {
  const auto fail = [&](const std::string& problem) { throw SceneError(scene.path, line, key, problem); };
  const std::string at_spacing = " at a spacing of " + short_number(spacing) + " m";
  if (fluid > double(kMaxParticles)) {
    const double fits = spacing * std::cbrt(fluid / double(kMaxParticles));
    fail("about " + approximate_count(fluid) + " fluid particles" + at_spacing + ": expected at most " +
         approximate_count(double(kMaxParticles)) + " (a spacing of at least " + short_number(fits) + " m)");
  }
  const Vec3f extent = scene.domain_max - scene.domain_min;
  const std::string domain =
      short_number(extent.x) + " x " + short_number(extent.y) + " x " + short_number(extent.z) + " m domain";
  const double support = double(scene.support_ratio) * spacing;
  const double margin = 2.0 * ((scene.wall_layers + 1) * spacing + support);
  double cells = 1;
  for (int axis = 0; axis < 3; ++axis) cells *= std::ceil((double(along(extent, axis)) + margin) / support);
  if (cells >= kMaxGridCells) {
    fail("the " + domain + " in grid cells of one kernel support (" + short_number(support) +
         " m) is about " + approximate_count(cells) +
         " cells: expected fewer than 4e9 (a smaller domain, or a coarser resolution)");
  }
  const double walls = estimate_wall_sites(scene, spacing);
  if (walls > double(kMaxParticles)) {
    fail("the walls of the " + domain + at_spacing + " take about " + approximate_count(walls) +
         " particles: expected at most " + approximate_count(double(kMaxParticles)) +
         " (a smaller domain, or a coarser resolution)");
  }
  const double capacity =
      fluid + (scene.emitters.empty() ? 0.0 : double(scene.emitters.front().max_particles));
  const double bytes = capacity * (kSetupBytesPerFluidParticle + run_bytes_per_particle) +
                       walls * kSetupBytesPerWallParticle + cells * kSetupBytesPerCell;
  check_setup_memory(scene, key, line, capacity, bytes, "fluid particles",
                     "the setup, with " + approximate_count(walls) + " wall particles and " +
                         approximate_count(cells) + " grid cells" +
                         (run_bytes_per_particle > 0 ? ", and the CPU's simulation state" : ""));
}

// Particle mass such that a particle inside a perfect lattice sums exactly the rest density:
// m = rho0 / sum_j W(x_i - x_j). With a support of two spacings the plain rho0 dx^3 is off by a few
// per cent, which would start every scene with a pressure jolt.
template <typename Kernel>
double lattice_mass(const Kernel& kernel, double rest_density, double spacing) {
  const int reach = int(std::ceil(kernel.support / spacing));
  double sum = 0;
  for (int k = -reach; k <= reach; ++k)
    for (int j = -reach; j <= reach; ++j)
      for (int i = -reach; i <= reach; ++i)
        sum += kernel.value(spacing * std::sqrt(double(i * i + j * j + k * k)));
  return rest_density / sum;
}

// sum_k W(x_b - x_k) over the sites of the rest lattice inside the domain and outside the solids: the fluid
// a wall or solid particle bounds when the tank is full.
template <typename Kernel>
float rest_lattice_sum(const Scene& scene, double spacing, const Kernel& kernel, Vec3f x_b) {
  const Vec3f extent = scene.domain_max - scene.domain_min;
  const long n[3] = {long(extent.x / spacing), long(extent.y / spacing), long(extent.z / spacing)};
  const float lo[3] = {scene.domain_min.x, scene.domain_min.y, scene.domain_min.z};
  const float x[3] = {x_b.x, x_b.y, x_b.z};
  long first[3], last[3];
  for (int a = 0; a < 3; ++a) {
    first[a] = std::max(0L, long(std::floor((x[a] - kernel.support - lo[a]) / spacing)));
    last[a] = std::min(n[a] - 1, long(std::ceil((x[a] + kernel.support - lo[a]) / spacing)));
  }
  float sum = 0.0f;
  for (long k = first[2]; k <= last[2]; ++k)
    for (long j = first[1]; j <= last[1]; ++j)
      for (long i = first[0]; i <= last[0]; ++i) {
        const Vec3f site{float(lo[0] + (i + 0.5) * spacing), float(lo[1] + (j + 0.5) * spacing),
                         float(lo[2] + (k + 0.5) * spacing)};
        if (in_a_solid(scene, spacing, site)) continue;
        sum += kernel.value(std::sqrt(length_squared(site - x_b)));
      }
  return sum;
}

// A floating body's particle at x_b on its own lattice (fitted_lattice): sum_k W(x_b - x_k) over that
// lattice's sites within the support, its own particles and the sites outside it, which stand for the
// fluid, but not the sites deeper inside than its shell. Its volume 1 / sum is then the fluid it stands for
// once immersed, wherever it floats, and whatever it started next to.
template <typename Kernel>
float own_lattice_sum(const Solid& solid, const SiteLattice& lattice, double depth, const Kernel& kernel,
                      Vec3f x_b) {
  const double step[3] = {lattice.step.x, lattice.step.y, lattice.step.z};
  const double offset[3] = {x_b.x - lattice.origin.x, x_b.y - lattice.origin.y, x_b.z - lattice.origin.z};
  long centre[3], reach[3];
  for (int a = 0; a < 3; ++a) {
    centre[a] = std::lround(offset[a] / step[a]);
    reach[a] = long(std::ceil(kernel.support / step[a]));
  }
  float sum = 0.0f;
  for (long k = centre[2] - reach[2]; k <= centre[2] + reach[2]; ++k)
    for (long j = centre[1] - reach[1]; j <= centre[1] + reach[1]; ++j)
      for (long i = centre[0] - reach[0]; i <= centre[0] + reach[0]; ++i) {
        const Vec3f site = lattice.site(i, j, k);
        const float r = std::sqrt(length_squared(site - x_b));
        if (r >= kernel.support || deep_inside(solid, site, depth)) continue;
        sum += kernel.value(r);
      }
  return sum;
}

SymMat3f to_symmetric(const Mat3d& m) {
  return {float(m.m[0][0]), float(m.m[1][1]), float(m.m[2][2]),
          float(m.m[0][1]), float(m.m[0][2]), float(m.m[1][2])};
}

Mat3d inverse(const Mat3d& a) {
  const auto& m = a.m;
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  Mat3d r;
  r.m[0][0] = (m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det;
  r.m[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det;
  r.m[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
  r.m[1][0] = (m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det;
  r.m[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det;
  r.m[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
  r.m[2][0] = (m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det;
  r.m[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det;
  r.m[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
  return r;
}

// Solid k as a body (sim/sph/solid_bodies.h): its particles, walls [first, last) before the sort, at
// place_of[] after it. A floating body takes its mass, centre of mass and inertia from its shape and density
// (the analytic volume, not the particles': the buoyancy the fluid exerts is that of the shape too), and
// contact springs as stiff as the fluid: k = m_p c0^2 / dp^2 per particle pair (m_p its mass over its
// particles), so a contact's oscillation is as fast as a sound wave across a spacing, which the time step
// already resolves, and a body resting on the floor presses into it by well under a tenth of a spacing;
// half-critical damping.
// A solid's surface as a triangle list relative to its body's reference point, in float for the renderer:
// the offsets are small, so their rounding is far below a pixel where the world coordinates' might not be.
std::vector<Vec3f> body_frame_triangles(const TriangleMesh& mesh, Vec3d center) {
  std::vector<Vec3f> corners;
  corners.reserve(3 * mesh.triangles.size());
  for (const auto& triangle : mesh.triangles)
    for (std::uint32_t v : triangle) {
      const Vec3d r = mesh.vertices[v] - center;
      corners.push_back({float(r.x), float(r.y), float(r.z)});
    }
  return corners;
}

void add_solid_body(const SolidSettings& solid, std::uint32_t k, std::size_t first, std::size_t last,
                    const std::vector<std::uint32_t>& place_of, SphSetup& setup) {
  SolidBodiesSetup& solids = setup.solids;
  SolidBodySetup body;
  body.name = solid.name;
  body.motion = solid.motion;
  Vec3d center = solid.center;
  const std::uint32_t count = std::uint32_t(last - first);
  if (body.motion.kind == MotionKind::floating) {
    const MassProperties mass = solid.solid->mass_properties(solid.density);
    center = mass.center_of_mass;
    body.motion.mass = float(mass.mass);
    body.motion.inertia = to_symmetric(mass.inertia);
    body.motion.inverse_inertia = to_symmetric(inverse(mass.inertia));
    const double spacing = setup.params.spacing, c0 = setup.params.speed_of_sound;
    const double particle_mass = mass.mass / double(count);
    const double stiffness = particle_mass * c0 * c0 / (spacing * spacing);
    body.motion.contact_stiffness = float(stiffness);
    body.motion.contact_damping = float(std::sqrt(stiffness * particle_mass));
  }
  const Vec3f c0{float(center.x), float(center.y), float(center.z)};
  body.motion.rest_center = c0;
  body.initial.center = c0;
  if (body.motion.kind == MotionKind::table) {
    body.motion.table_first = std::uint32_t(solids.table.size());
    body.motion.table_rows = std::uint32_t(solid.table.size());
    solids.table.insert(solids.table.end(), solid.table.begin(), solid.table.end());
  }
  body.surface = body_frame_triangles(solid.solid->surface_mesh(), center);
  body.first = std::uint32_t(solids.offset.size());
  body.count = count;
  for (std::size_t w = first; w < last; ++w) {
    const std::uint32_t place = place_of[w];
    const Vec4f x = setup.boundary[place];
    solids.offset.push_back(make_vec4(xyz(x) - c0, x.w));
    solids.boundary_index.push_back(place);
    solids.body.push_back(k);
  }
  solids.bodies.push_back(std::move(body));
}

}  // namespace

long fluid_sites_examined(const Scene& scene, double spacing) {
  long examined = 0;
  for_each_fluid_site(
      scene, spacing, [](Vec3f, const FluidBlock&) {}, &examined);
  return examined;
}

SphSetup build_setup(const Scene& scene, long particles_override, double run_bytes_per_particle) {
  SphSetup setup;
  SphParameters& p = setup.params;
  const bool by_count = particles_override > 0 || scene.target_particles > 0;
  const long target = particles_override > 0 ? particles_override : scene.target_particles;
  const std::string resolution_key = particles_override > 0 ? "--particles"
                                     : by_count             ? "resolution.particles"
                                                            : "resolution.spacing";
  const int resolution_line = particles_override > 0 ? 0 : scene.line_of(resolution_key);
  if (particles_override > kMaxParticles)
    throw SceneError(scene.path, 0, resolution_key,
                     "expected at most " + approximate_count(double(kMaxParticles)) + " particles, got " +
                         approximate_count(double(particles_override)));
  // Sized from the scene before any particle is placed: the lattice below allocates as it goes.
  if (by_count) {
    double volume = 0;
    for (const FluidBlock& block : scene.blocks) volume += block_volume(block);
    check_setup_size(scene, std::cbrt(volume / double(target)), double(target), run_bytes_per_particle,
                     resolution_key, resolution_line);
  } else {
    check_setup_size(scene, double(scene.spacing), estimate_fluid_sites(scene, double(scene.spacing)),
                     run_bytes_per_particle, resolution_key, resolution_line);
  }
  const double spacing = by_count ? spacing_for_count(scene, target) : double(scene.spacing);

  // Fluid particles.
  ParticleFrame& fluid = setup.fluid;
  // Reserved from the estimate, so growing does not hold the old and the new array at once.
  const auto expected = std::size_t(1.02 * estimate_fluid_sites(scene, spacing)) + 64;
  fluid.position.reserve(expected);
  fluid.velocity.reserve(expected);
  for_each_fluid_site(scene, spacing, [&](Vec3f site, const FluidBlock& block) {
    fluid.position.push_back(make_vec4(site, 0.0f));
    fluid.velocity.push_back(make_vec4(block.velocity, 0.0f));
  });
  const std::size_t n = fluid.position.size();
  if (n == 0)
    throw SceneError(scene.path, resolution_line, resolution_key,
                     "no fluid particle fits in the fluid blocks at a spacing of " + std::to_string(spacing) +
                         " m: expected a smaller spacing or more particles");
  if (n > std::size_t(0xFFFFFFF0u))
    throw SceneError(
        scene.path, resolution_line, resolution_key,
        std::to_string(n) + " particles: expected fewer than 4,294,967,280 (32-bit particle ids)");
  if (!scene.emitters.empty()) {
    const EmitterSettings& e = scene.emitters.front();
    const std::string key = "emitter[0].max_particles";
    if (double(n) + double(e.max_particles) > double(0xFFFFFFF0u))
      throw SceneError(scene.path, scene.line_of(key), key,
                       std::to_string(n) + " initial particles plus " + std::to_string(e.max_particles) +
                           ": expected fewer than 4,294,967,280 in all (32-bit particle ids)");
    setup.emitter = make_emitter(e.center, e.direction, e.radius, e.shape == EmitterSettings::Shape::square,
                                 e.speed, float(spacing), double(e.start),
                                 e.end > 0.0f ? double(e.end) : std::numeric_limits<double>::infinity(),
                                 std::uint32_t(e.max_particles));
    setup.emitter.nozzle.first_id = std::uint32_t(n);
    if (setup.emitter.max_particles < setup.emitter.nozzle.layer_size)
      throw SceneError(scene.path, scene.line_of(key), key,
                       "expected at least one layer of the nozzle (" +
                           std::to_string(setup.emitter.nozzle.layer_size) + " particles at a spacing of " +
                           std::to_string(spacing) + " m), got " + std::to_string(e.max_particles));
  }
  fluid.density.assign(n, scene.rest_density);
  fluid.pressure.assign(n, 0.0f);
  fluid.id.resize(n);
  for (std::size_t i = 0; i < n; ++i) fluid.id[i] = std::uint32_t(i);

  // Parameters.
  p.kernel = scene.kernel;
  p.spacing = float(spacing);
  p.support = float(scene.support_ratio * spacing);
  p.rest_density = scene.rest_density;
  p.particle_mass =
      float(p.kernel == KernelType::wendland_c2
                ? lattice_mass(WendlandC2Kernel<double>::make(double(p.support)), p.rest_density, spacing)
                : lattice_mass(CubicSplineKernel<double>::make(double(p.support)), p.rest_density, spacing));
  p.tait_exponent = scene.tait_exponent;
  p.viscosity_alpha = scene.viscosity_alpha;
  p.xsph_epsilon = scene.xsph_epsilon;
  p.continuity_density = scene.continuity_density;
  p.density_diffusion = scene.density_diffusion;
  p.gravity = scene.gravity;
  p.cfl = scene.cfl;
  p.dt_max = scene.dt_max;
  p.dt_min = scene.dt_min;
  p.domain_min = scene.domain_min;
  p.domain_max = scene.domain_max;
  for (std::size_t face = 0; face < scene.slip_walls.size(); ++face)
    if (scene.slip_walls[face]) p.slip_faces |= 1u << face;
  if (scene.speed_of_sound > 0.0f) {
    p.speed_of_sound = scene.speed_of_sound;
  } else {
    // c0 = 10 v_max keeps density variations near 1 % (Monaghan 1994). The largest expected speed is a
    // fall from the highest fluid particle to the lowest point of the domain, plus the fastest block.
    const float g = std::sqrt(length_squared(scene.gravity));
    const Vec3f up = g > 0.0f ? (-1.0f / g) * scene.gravity : Vec3f{0, 0, 1};
    float lowest = 1e30f, highest = -1e30f, fastest = 0.0f;
    for (float cx : {scene.domain_min.x, scene.domain_max.x})
      for (float cy : {scene.domain_min.y, scene.domain_max.y})
        for (float cz : {scene.domain_min.z, scene.domain_max.z})
          lowest = std::min(lowest, dot(up, Vec3f{cx, cy, cz}));
    for (std::size_t i = 0; i < n; ++i) {
      highest = std::max(highest, dot(up, xyz(fluid.position[i])));
      fastest = std::max(fastest, std::sqrt(length_squared(xyz(fluid.velocity[i]))));
    }
    for (const EmitterSettings& emitter : scene.emitters) {
      highest = std::max(highest, dot(up, emitter.center));
      fastest = std::max(fastest, emitter.speed);
    }
    const float v_max = std::sqrt(2.0f * g * std::max(0.0f, highest - lowest)) + fastest;
    p.speed_of_sound = 10.0f * std::max(v_max, 1.0f);  // 1 m/s floor: a scene at rest still needs a stiffness
  }
  p.tait_stiffness = p.rest_density * p.speed_of_sound * p.speed_of_sound / p.tait_exponent;

  // The water at rest: each particle of a box block at its depth below the block's top along gravity, with
  // the hydrostatic pressure rho0 g depth. A sphere is a drop in free fall, with no pressure inside; fluid
  // given in a frame has its own state. Continuity density, a state the run carries, starts from it (at the
  // Tait density of that pressure, so a tank starts at rest instead of ringing from an uncompressed
  // lattice), and so does DFSPH's first pressure solve (dfsph_solver.h).
  const float g = std::sqrt(length_squared(scene.gravity));
  if (g > 0.0f) {
    const Vec3f up = (-1.0f / g) * scene.gravity;
    setup.hydrostatic_pressure.assign(n, 0.0f);
    std::size_t i = 0;
    for_each_fluid_site(scene, spacing, [&](Vec3f site, const FluidBlock& block) {
      if (block.shape == FluidBlock::Shape::box) {
        float top = -1e30f;
        for (float cx : {block.min.x, block.max.x})
          for (float cy : {block.min.y, block.max.y})
            for (float cz : {block.min.z, block.max.z}) top = std::max(top, dot(up, Vec3f{cx, cy, cz}));
        const float depth = top - dot(up, site);
        setup.hydrostatic_pressure[i] = p.rest_density * g * std::max(depth, 0.0f);
        if (p.continuity_density) fluid.density[i] = hydrostatic_density(p, depth);
      }
      ++i;
    });
  }

  // Grid: cells of one support (or a fraction of it, [resolution] cells_per_support), covering the domain,
  // the wall layers and one support of margin. One cell size drives both the keys the index sorts by and
  // the search (neighbor_loop.h).
  const float margin = float((scene.wall_layers + 1) * spacing) + p.support;
  GridGeometry& grid = setup.grid;
  grid.cells_per_support = scene.cells_per_support;
  grid.cell_size = p.support / float(scene.cells_per_support);
  grid.inv_cell_size = 1.0f / grid.cell_size;
  grid.origin = scene.domain_min - Vec3f{margin, margin, margin};
  const Vec3f span = scene.domain_max - scene.domain_min + Vec3f{2 * margin, 2 * margin, 2 * margin};
  grid.nx = std::max(1, int(std::ceil(span.x / grid.cell_size)));
  grid.ny = std::max(1, int(std::ceil(span.y / grid.cell_size)));
  grid.nz = std::max(1, int(std::ceil(span.z / grid.cell_size)));
  if (double(grid.nx) * grid.ny * grid.nz >= 4.0e9)
    throw SceneError(
        scene.path, resolution_line, resolution_key,
        "the grid would need more than 4e9 cells: expected a coarser resolution for this domain");

  // Wall particles, sorted by cell once (they never move), with their volumes after Akinci et al. 2012,
  // eq. 4: V_b = 1 / sum_k W_bk. Akinci sums over wall particles only, which suits a wall of one layer;
  // our walls are several layers continuing the fluid lattice, and there the sum over wall particles
  // alone leaves the surface layer with an 18 % larger volume, over-counting the wall's density
  // contribution (+2.6 % density in the first fluid layer, measured as a 5-10 % pressure excess in
  // the hydrostatic test). Summing over the wall and the fluid lattice at rest beside it gives every
  // wall particle the volume of the fluid it stands for, while corners and edges keep Akinci's
  // correction for their sparser neighbourhoods.
  //
  // Fixed and prescribed solids are sampled on the fluid's lattice too, `layers` deep behind their surface
  // (as DualSPHysics' GenCase draws obstacles on the case's one grid), so the first fluid site is one
  // spacing from the last solid site and the surface is resolved to half a spacing. A floating body is
  // sampled on a lattice of its own, fitted to its bounds (fitted_lattice), so that its particles stand for
  // the exact shape its mass is reckoned from: on the fluid's lattice a box 25 spacings high had its lowest
  // sites 0.875 spacings above its bottom face and its highest 0.125 below its top, so it floated 0.375
  // spacings high (issue 12). Its particles' volumes are summed on that lattice alone (own_lattice_sum).
  // Sites outside the domain are the walls' already.
  std::vector<Vec4f> walls = place_wall_particles(scene, spacing);
  const SiteLattice fluid_lattice{{scene.domain_min.x + 0.5 * spacing, scene.domain_min.y + 0.5 * spacing,
                                   scene.domain_min.z + 0.5 * spacing},
                                  {spacing, spacing, spacing}};
  std::vector<SiteLattice> solid_lattice;
  std::vector<std::size_t> solid_first(scene.solids.size() + 1);
  for (std::size_t k = 0; k < scene.solids.size(); ++k) {
    const SolidSettings& solid = scene.solids[k];
    const bool floating = solid.motion.kind == MotionKind::floating;
    solid_lattice.push_back(floating ? fitted_lattice(*solid.solid, spacing) : fluid_lattice);
    solid_first[k] = walls.size();
    std::size_t kept = 0;
    for (Vec3f site : sample_solid_lattice(*solid.solid, solid_lattice[k], solid.layers * spacing)) {
      if (site.x < scene.domain_min.x || site.y < scene.domain_min.y || site.z < scene.domain_min.z ||
          site.x > scene.domain_max.x || site.y > scene.domain_max.y || site.z > scene.domain_max.z)
        continue;
      walls.push_back(make_vec4(site, 0.0f));
      ++kept;
    }
    if (kept == 0)
      throw SceneError(scene.path, solid.line, "solid[" + std::to_string(k) + "]",
                       "the solid holds no site of the particle lattice at a spacing of " +
                           std::to_string(spacing) +
                           " m: expected a solid at least one spacing thick, or a "
                           "smaller spacing");
  }
  solid_first[scene.solids.size()] = walls.size();
  CpuCellIndex wall_index;
  wall_index.build(grid, walls);
  setup.boundary.resize(walls.size());
  for (std::size_t k = 0; k < walls.size(); ++k) setup.boundary[k] = walls[wall_index.sorted_order()[k]];
  setup.boundary_cell_start = wall_index.cell_start();
  const CellIndexView view{setup.boundary.data(), setup.boundary_cell_start.data()};
  const float support2 = p.support * p.support;
  std::vector<float> volume(setup.boundary.size());
  with_kernel(p.kernel, p.support, [&](auto kernel) {
#pragma omp parallel for schedule(static)
    for (std::int64_t b = 0; b < std::int64_t(setup.boundary.size()); ++b) {
      const Vec3f x_b = xyz(setup.boundary[b]);
      float sum = 0.0f;
      for_each_neighbor(grid, view, x_b, support2,
                        [&](std::uint32_t, Vec3f, float r2) { sum += kernel.value(std::sqrt(r2)); });
      sum += rest_lattice_sum(scene, spacing, kernel, x_b);
      volume[b] = 1.0f / sum;
    }
    return 0;
  });
  std::vector<std::uint32_t> place_of(walls.size());
  for (std::size_t k = 0; k < walls.size(); ++k) place_of[wall_index.sorted_order()[k]] = std::uint32_t(k);
  with_kernel(p.kernel, p.support, [&](auto kernel) {
    for (std::size_t k = 0; k < scene.solids.size(); ++k) {
      const SolidSettings& solid = scene.solids[k];
      if (solid.motion.kind != MotionKind::floating) continue;
#pragma omp parallel for schedule(static)
      for (std::int64_t w = std::int64_t(solid_first[k]); w < std::int64_t(solid_first[k + 1]); ++w) {
        const std::uint32_t b = place_of[std::size_t(w)];
        volume[b] = 1.0f / own_lattice_sum(*solid.solid, solid_lattice[k], solid.layers * spacing, kernel,
                                           xyz(setup.boundary[b]));
      }
    }
    return 0;
  });
  for (std::size_t b = 0; b < volume.size(); ++b) setup.boundary[b].w = volume[b];

  for (std::size_t k = 0; k < scene.solids.size(); ++k)
    add_solid_body(scene.solids[k], std::uint32_t(k), solid_first[k], solid_first[k + 1], place_of, setup);
  return setup;
}

}  // namespace surge
