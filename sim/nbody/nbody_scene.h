// What a scene's [nbody] table says (docs/scenes.md): the force method and its constants, and the systems
// of bodies to place. The loader range-checks every value; build_nbody_setup() places the bodies.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/vec.h"
#include "sim/nbody/nbody_parameters.h"

namespace surge {

// One [[nbody.system]]: a generator of bodies and where it sits. Lengths, masses and times are in the
// scene's units (N-body units with G = 1 in the shipped scenes).
struct BodySystem {
  enum class Model { plummer, disc_galaxy, two_body };
  Model model = Model::plummer;
  long bodies = 0;                // plummer, disc_galaxy: body count (disc: the central mass included)
  double mass = 1.0;              // plummer: total mass; disc_galaxy: disc mass
  double scale_radius = 0.0;      // plummer: a; disc_galaxy: exponential scale length R_d
  double truncation = 0.0;        // largest radius, in scale radii (plummer a, disc R_d)
  double central_mass = 0.0;      // disc_galaxy: the point mass at the centre
  double scale_height = 0.0;      // disc_galaxy: z0 of the sech^2(z/z0) vertical profile
  Vec3d normal{0.0, 0.0, 1.0};    // disc_galaxy: spin axis (the disc rotates counter-clockwise about it)
  double masses[2] = {1.0, 1.0};  // two_body
  double semi_major_axis = 1.0;   // two_body
  double eccentricity = 0.0;      // two_body, in [0, 1)
  Vec3d center{}, velocity{};     // the system's centre of mass position and velocity
  int line = 0;                   // line of its table in the scene file
};

struct NbodySceneSettings {
  NbodyParameters parameters;
  std::uint64_t seed = 1;  // random sampling of Plummer and disc bodies; the same seed gives the same bodies
  std::vector<BodySystem> systems;
};

}  // namespace surge
