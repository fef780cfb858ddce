// Solids in SPH become boundary particles the way the tank walls do (sim/setup/build_fluid_setup.cpp,
// place_wall_particles): lattice sites `layers` deep behind the surface, so the fluid meets a wall that
// looks like more fluid. Fixed and prescribed solids take the fluid's cubic lattice; a floating body takes
// a lattice of its own, fitted to its bounds as the walls' is to the domain (fitted_lattice). And fluid
// sites too close to a solid are left out, as the wall lattice leaves half a spacing between the walls and
// the first fluid layer.
#pragma once

#include <vector>

#include "sim/core/vec.h"
#include "sim/geometry/solid.h"

namespace surge {

// The sites origin + (i step.x, j step.y, k step.z) for all integers i, j, k.
struct SiteLattice {
  Vec3d origin;  // [m]
  Vec3d step;    // [m] > 0 on each axis
  // Rounded to float, as particles are stored.
  Vec3f site(long i, long j, long k) const {
    return {float(origin.x + double(i) * step.x), float(origin.y + double(j) * step.y),
            float(origin.z + double(k) * step.z)};
  }
};

// n = max(1, round(length / spacing)): the number of equal steps the tank walls spread their particles over
// a domain's side in (place_wall_particles), and a floating body over its bounds (fitted_lattice).
long even_steps(double length, double spacing);

// A solid's own lattice, spread over its bounds the way the tank walls spread theirs over the domain: per
// axis n = max(1, round(extent / spacing)) steps of extent / n, the first site half a step inside the lower
// bound. An axis-aligned box's outermost sites then lie half a step inside each face, so its boundary
// particles stand for exactly its volume (the fluid keeps half a step off them beyond the face), wherever
// it sits relative to the fluid's lattice; on the fluid's lattice a face between lattice planes acts at the
// nearest plane halfway between sites, up to half a spacing off.
SiteLattice fitted_lattice(const Solid& solid, double spacing);

// The sites of `lattice` inside the solid within `depth` [m] of its surface: -depth <= signed_distance <= 0
// (a site on the surface counts); the general form of the call below, same rules and order.
std::vector<Vec3f> sample_solid_lattice(const Solid& solid, const SiteLattice& lattice, double depth);

// Whether a lattice site lies inside the solid deeper than `depth` below its surface: a site that is
// neither a boundary particle of a shell `depth` deep nor fluid.
bool deep_inside(const Solid& solid, Vec3f site, double depth);

// The sites origin + spacing (i, j, k) inside the solid within layers * spacing of its surface:
// -layers * spacing <= signed_distance <= 0 (a site on the surface counts). A solid thinner than the shell
// is filled: its whole interior is within reach of the surface. Sites are rounded to float first and
// tested as rounded, so a site returned is inside by the very test a caller would make on it. Ordered by
// z, then y, then x.
//
// To put a solid's particles on the fluid's lattice, pass the fluid's lattice origin: sph_setup places
// fluid at domain_min + (i + 1/2) spacing, i.e. lattice_origin = domain_min + spacing / 2 on each axis.
// A solid thinner than a spacing may catch no site at all; the caller should say so.
std::vector<Vec3f> sample_solid_lattice(const Solid& solid, double spacing, int layers, Vec3d lattice_origin);

// Whether a fluid particle at `site` must be removed: inside the solid, or outside but nearer its surface
// than `clearance` [m]. Half a spacing matches the walls (the wall lattice's first layer sits half a
// spacing behind the wall, the first fluid layer half a spacing in front). A site exactly `clearance`
// away is kept: the comparison allows 1e-5 of the clearance for rounding, so that a lattice that puts
// fluid exactly half a spacing from a face keeps that layer.
bool fluid_site_blocked(const Solid& solid, Vec3f site, double clearance);

}  // namespace surge
