// libFuzzer harness for the scene loader: the bytes go through parse_scene, the path `surge run` takes
// after reading the file (load_scene reads it and calls parse_scene): the byte check in front of toml++
// (sim/scene/scene_text.h), toml++ itself, every family's reader with its range checks, and the solver
// checks. A scene that loads and is small goes on through the setup its solver's backend builds first.
//
// A SceneError is the loader's answer to bad input, and is fine. Anything else is a finding: a crash, an
// ASan or UBSan report (the build aborts on the first one), another exception type (it escapes, so
// std::terminate aborts), a run past libFuzzer's -timeout, or memory past its -rss_limit_mb.
// scripts/fuzz.sh builds and runs it; docs/fuzzing-and-sanitizers.md says how.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/setup/build_nbody_setup.h"

namespace {

using namespace surge;

// The setup's own bound is host memory, and a scene that fits there can still take minutes under ASan,
// which the fuzzer would report as a timeout of a valid scene. So the harness builds the setup only for
// scenes of a few thousand particles: enough to place fluid, walls, solids and grains on real lattices.
constexpr double kMaxSetupParticles = 20'000;

double sites_along(float extent, double spacing) {
  return std::ceil(double(extent) / spacing) + 1;
}

// Fluid and wall sites of the whole domain's lattice, walls included (a bound on both), and the
// solids' boundary sites, which may lie outside the domain.
bool small_fluid_scene(const Scene& scene) {
  if (!(scene.spacing > 0) || scene.target_particles > 0) return false;  // a count sets the spacing later
  const double spacing = scene.spacing;
  const double margin = 2.0 * (scene.wall_layers + 2);
  const Vec3f extent = scene.domain_max - scene.domain_min;
  const double lattice = (sites_along(extent.x, spacing) + margin) *
                         (sites_along(extent.y, spacing) + margin) *
                         (sites_along(extent.z, spacing) + margin);
  double sites = lattice;
  for (const SolidSettings& solid : scene.solids) {
    const Aabb box = solid.solid->bounds();
    const Vec3d size = box.max - box.min;
    const double layers = 2.0 * (solid.layers + 2);
    sites += (std::ceil(size.x / spacing) + layers) * (std::ceil(size.y / spacing) + layers) *
             (std::ceil(size.z / spacing) + layers);
  }
  const double emitted = scene.emitters.empty() ? 0.0 : double(scene.emitters.front().max_particles);
  return sites + emitted <= kMaxSetupParticles;
}

bool small_dem_scene(const Scene& scene) {
  double grains = 0;
  for (const GrainBlock& block : scene.dem.blocks) {
    const double site = 2.0 * double(block.grain_radius);
    if (block.shape == GrainBlock::Shape::lattice) {
      grains += double(block.count);
    } else if (!(site > 0)) {
      return false;
    } else {
      const Vec3f size = block.shape == GrainBlock::Shape::box
                             ? block.max - block.min
                             : Vec3f{2 * block.radius, 2 * block.radius, 2 * block.radius};
      grains += (std::ceil(double(size.x) / site) + 1) * (std::ceil(double(size.y) / site) + 1) *
                (std::ceil(double(size.z) / site) + 1);
    }
  }
  return grains * double(std::max(1L, scene.dem.contact_slots / 16)) <= kMaxSetupParticles;
}

bool small_nbody_scene(const Scene& scene) {
  double bodies = 0;
  for (const BodySystem& system : scene.nbody.systems) bodies += double(std::max(2L, system.bodies));
  return bodies <= kMaxSetupParticles;
}

void build_small_setup(const Scene& scene) {
  if (is_fluid_solver(scene.solver)) {
    if (small_fluid_scene(scene)) build_setup(scene, 0, kCpuRunBytesPerFluidParticle);
  } else if (scene.solver == SolverKind::dem) {
    if (small_dem_scene(scene)) build_dem_setup(scene);
  } else if (scene.solver == SolverKind::nbody) {
    if (small_nbody_scene(scene)) build_nbody_setup(scene);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // A folder that does not exist: a solid's mesh file or motion table named relative to it is one the
    // loader cannot open (an expected SceneError), so the run reads no file but the input.
    const Scene scene = parse_scene(text, "/nonexistent/surge-fuzz/scene.toml");
    build_small_setup(scene);
  } catch (const SceneError&) {
    // The loader's answer to a bad scene: what the fuzzer expects of most inputs.
  }
  return 0;
}
