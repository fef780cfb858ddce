// Where the water is in a dam-break frame: the surge front (the largest x of the main body of fluid) and the
// residual height at the back wall (the top of the main body next to x = back wall). Particles closer than a
// link distance are connected; the "main body" is every connected group that holds at least a set fraction
// of the particles. Spray (drops that have left the sheet) forms small groups and is ignored; a sheet that
// has torn into a few large pieces, or water left at the back wall when the rest has run off, still counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/vec.h"

namespace surge {

struct FreeSurfaceProbeSettings {
  float spacing = 0;        // particle spacing [m]: a particle stands for a cube of this side
  float link_distance = 0;  // particles closer than this belong to the same group [m]
  float back_wall_x = 0;    // the wall the column stands against [m]; the front runs towards +x
  float floor_z = 0;        // the tank floor [m]
  float band_width = 0;     // the height is taken over x in [back_wall_x, back_wall_x + band_width) [m]
  float min_body_fraction = 0.02f;  // a group with fewer than this fraction of the particles is spray
};

struct FreeSurfaceProbe {
  // Largest x of the main body plus half a spacing (the edge of the last particle's cube), measured
  // from the back wall [m].
  double front = 0;
  // Top of the main body within the band plus half a spacing, above the floor [m]; 0 when the band is dry.
  double height = 0;
  std::size_t body_particles = 0;   // in the main body
  std::size_t spray_particles = 0;  // in every other group
  std::size_t body_groups = 0;      // groups that make up the main body
};

// Labels of connected groups (link distance as above): label[i] is the group of particle i, groups numbered
// from 0 by their first particle. Uses a uniform grid of cells one link distance wide, so O(n).
std::vector<std::uint32_t> label_connected_groups(const std::vector<Vec4f>& positions, float link_distance);

FreeSurfaceProbe probe_free_surface(const std::vector<Vec4f>& positions,
                                    const FreeSurfaceProbeSettings& settings);

}  // namespace surge
