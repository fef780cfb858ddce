// build_nbody_setup: from a scene's [[nbody.system]] tables to bodies.
#include "sim/setup/build_nbody_setup.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/core/particle_limits.h"
#include "sim/nbody/body_generators.h"
#include "sim/nbody/nbody_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/host_memory.h"

namespace surge {

namespace {

bool resizable(const BodySystem& system) {
  return system.model != BodySystem::Model::two_body;
}

// Body counts per system: the scene's own, or `total` shared in the scene's proportions among the systems
// that can change size (the last one takes the rounding remainder).
std::vector<long> body_counts(const Scene& scene, long total) {
  const auto& systems = scene.nbody.systems;
  std::vector<long> counts(systems.size(), 2);
  for (std::size_t k = 0; k < systems.size(); ++k)
    if (resizable(systems[k])) counts[k] = systems[k].bodies;
  if (total <= 0) return counts;

  long fixed = 0, scalable = 0;
  std::size_t last = systems.size();
  for (std::size_t k = 0; k < systems.size(); ++k) {
    if (resizable(systems[k])) {
      scalable += systems[k].bodies;
      last = k;
    } else {
      fixed += 2;
    }
  }
  if (last == systems.size()) {
    const int line = scene.line_of("nbody.system[0]");
    throw SceneError(scene.path, line, "nbody.system[0]",
                     "--particles cannot apply: every system here is \"two_body\" (two bodies each)");
  }
  const long wanted = std::max(1L, total - fixed);
  long given = 0;
  for (std::size_t k = 0; k < systems.size(); ++k) {
    if (!resizable(systems[k]) || k == last) continue;
    counts[k] = std::max(2L, std::lround(double(wanted) * double(systems[k].bodies) / double(scalable)));
    given += counts[k];
  }
  counts[last] = std::max(2L, wanted - given);
  return counts;
}

}  // namespace

NbodySetup build_nbody_setup(const Scene& scene, long particles_override) {
  NbodySetup setup;
  setup.params = scene.nbody.parameters;
  if (particles_override > kMaxParticles)
    throw SceneError(scene.path, 0, "--particles",
                     "expected at most " + approximate_count(double(kMaxParticles)) + " bodies, got " +
                         approximate_count(double(particles_override)));
  const std::vector<long> counts = body_counts(scene, particles_override);
  double bodies = 0;
  for (long count : counts) bodies += double(count);
  // Each body's position and mass, and its velocity, in double (nbody_setup.h).
  constexpr double kSetupBytesPerBody = 4 * sizeof(double) + 3 * sizeof(double);
  check_setup_memory(scene, particles_override > 0 ? "--particles" : "nbody.system",
                     particles_override > 0 ? 0 : scene.line_of("nbody.system"), bodies,
                     bodies * kSetupBytesPerBody, "bodies", "to set up");
  BodyList list;
  const double g = setup.params.gravitational_constant;
  for (std::size_t k = 0; k < scene.nbody.systems.size(); ++k) {
    const BodySystem& system = scene.nbody.systems[k];
    // One stream per system, so adding a system does not change the bodies of the others.
    UniformRandom random(scene.nbody.seed * 1000003ull + k);
    switch (system.model) {
      case BodySystem::Model::plummer:
        add_plummer_sphere(system, counts[k], g, random, list);
        break;
      case BodySystem::Model::disc_galaxy:
        add_disc_galaxy(system, counts[k], g, setup.params.softening, random, list);
        break;
      case BodySystem::Model::two_body:
        add_two_body(system, g, list);
        break;
    }
  }
  if (list.bodies.empty()) {
    throw SceneError(scene.path, scene.line_of("nbody.system"), "nbody.system", "the scene places no bodies");
  }
  setup.bodies = std::move(list.bodies);
  setup.velocities = std::move(list.velocities);
  return setup;
}

}  // namespace surge
