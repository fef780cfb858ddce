// Whether two placed solids share volume: a moving or floating solid may not start inside another solid
// (two rigid bodies cannot interpenetrate, and the contact springs would fling them apart at the first
// step), so the scene loader refuses such a pair.
//
// The test samples the two bounding boxes' intersection at cell centres, `resolution` apart (coarser when
// the intersection is over 128 cells long), and reports the first sample deeper than half a cell inside
// both solids. So an overlap thinner than about one cell can pass unseen, and two solids that only touch
// (a box standing on another, face on face) never count. The loader passes half the particle spacing when
// the scene gives one: what is thinner than that the particles cannot resolve.
#pragma once

#include <optional>

#include "sim/core/vec.h"
#include "sim/geometry/solid.h"

namespace surge {

// A point inside both solids by more than half a sampling cell, or nothing. resolution >= 0 [m].
std::optional<Vec3d> shared_volume_point(const Solid& a, const Solid& b, double resolution);

}  // namespace surge
