// The emitter: fluid entering a running simulation through a nozzle (scene table [[emitter]],
// docs/scenes.md), as the inlets of DualSPHysics and the emitters of SPlisHSPlasH feed theirs.
//
// A nozzle is a disc (or a square) of `radius` around `center`, facing `direction`. Fluid leaves it in
// layers: the particles of a layer sit on a square lattice of the fluid spacing inside the disc, all with the
// nozzle velocity (speed x direction) and the rest density. Layer k is due at
//   t_k = start + k * spacing / speed,
// the moment the layer before it has moved one spacing, so the jet leaves as a lattice of the fluid spacing.
// A layer that enters at a step starting at t >= t_k is placed speed * (t - t_k) ahead of the nozzle, where
// it would be had it entered at t_k: the layers stay one spacing apart whatever the time step.
//
// The rule against overlapping fluid: a layer is skipped (not delayed) when any fluid particle lies in the
// slot it would fill, a slab one spacing thick centred on the layer and half a spacing wider than the nozzle.
// The previous layer, one spacing ahead, is outside that slot; fluid that has not moved on (a jet backing up
// from a pool, a submerged nozzle, the previous layer stopped by a wall) is inside it. Skipping rather than
// delaying keeps the schedule: the next layer again enters one spacing behind the one before it.
//
// While the nozzle is open it guides the layer it let out last: see in_nozzle_guide.
//
// Only the newest layer due is emitted at a step (the earlier ones are dropped): when the time step is
// shorter than spacing / speed (the CFL condition makes it so for every solver) none is ever dropped, and
// after the emitter was switched off the jet restarts at the nozzle instead of far ahead of it.
//
// The functions below run on the host (CPU backends, the incompressible solvers' decisions) and on the device
// (the GPU WCSPH backend decides and writes a layer without the host).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

// A nozzle in SI units, plain data for host and device.
struct EmitterNozzle {
  Vec3f center{};     // centre of the outlet disc [m]
  Vec3f direction{};  // unit vector along the jet
  Vec3f across_u{};   // unit vectors spanning the disc, orthogonal to direction and to each other
  Vec3f across_v{};
  float radius = 0.0f;  // disc radius, or half the side of a square nozzle [m]
  bool square = false;
  float speed = 0.0f;                                      // [m/s]
  float spacing = 0.0f;                                    // the fluid's particle spacing [m]
  double start_s = 0.0;                                    // first layer's time [s]
  double end_s = std::numeric_limits<double>::infinity();  // no layer after this [s]
  std::uint32_t layer_size = 0;                            // particles per layer
  std::uint32_t first_id = 0;  // creation id of the first emitted particle (the initial fluid's count)
};

// The emitter a backend runs: the nozzle, its layer's offsets from the nozzle centre (layer_size of them,
// in the disc's plane; w = 0) and the particles allocated for it beyond the initial fluid.
struct EmitterSetup {
  bool present = false;
  EmitterNozzle nozzle;
  std::vector<Vec4f> layer;
  std::uint32_t max_particles = 0;
};

// The newest layer due at time_s (its index k with t_k <= time_s), or -1 before the first or after `end`.
SURGE_HD long long latest_due_layer(const EmitterNozzle& nozzle, double time_s) {
  if (time_s < nozzle.start_s || time_s > nozzle.end_s) return -1;
  return (long long)(floor((time_s - nozzle.start_s) * double(nozzle.speed) / double(nozzle.spacing)));
}

SURGE_HD double layer_due_time(const EmitterNozzle& nozzle, long long layer) {
  return nozzle.start_s + double(layer) * double(nozzle.spacing) / double(nozzle.speed);
}

// How far layer `layer` has travelled past the nozzle when it enters at time_s [m].
SURGE_HD float layer_advance(const EmitterNozzle& nozzle, long long layer, double time_s) {
  return float(double(nozzle.speed) * (time_s - layer_due_time(nozzle, layer)));
}

// True when x lies in the slot a layer `advance` ahead of the nozzle would fill (see the rule above).
SURGE_HD bool in_layer_slot(const EmitterNozzle& nozzle, Vec3f x, float advance) {
  const Vec3f r = x - nozzle.center;
  const float along = dot(r, nozzle.direction) - advance;
  const float half = 0.5f * nozzle.spacing;
  if (along <= -half || along >= half) return false;
  const float reach = nozzle.radius + half;
  const float u = dot(r, nozzle.across_u), v = dot(r, nozzle.across_v);
  if (nozzle.square) return fabsf(u) <= reach && fabsf(v) <= reach;
  return u * u + v * v <= reach * reach;
}

// The nozzle guides the fluid it lets out, as a pipe does: while it is open, an emitted particle less than
// one spacing downstream of the outlet (the newest layer, until the next one enters) moves with the nozzle
// velocity whatever the forces on it. Fluid the nozzle did not emit (a pool around it) is left alone. Without
// that, the newest layer, with nothing behind it, is pushed back into the nozzle by the layer ahead (WCSPH's
// stiff equation of state turns a 1 % compression of a thin jet into tens of kPa) and then fills the slot of
// the layers after it.
SURGE_HD bool in_nozzle_guide(const EmitterNozzle& nozzle, Vec3f x, std::uint32_t id) {
  if (id < nozzle.first_id) return false;
  const Vec3f r = x - nozzle.center;
  const float along = dot(r, nozzle.direction);
  const float half = 0.5f * nozzle.spacing;
  if (along <= -half || along >= nozzle.spacing) return false;
  const float reach = nozzle.radius + half;
  const float u = dot(r, nozzle.across_u), v = dot(r, nozzle.across_v);
  if (nozzle.square) return fabsf(u) <= reach && fabsf(v) <= reach;
  return u * u + v * v <= reach * reach;
}

// The nozzle is open between start and end (and while switched on and not full: the caller's part).
SURGE_HD bool nozzle_open(const EmitterNozzle& nozzle, double time_s) {
  return time_s >= nozzle.start_s && time_s <= nozzle.end_s;
}

SURGE_HD Vec4f nozzle_velocity(const EmitterNozzle& nozzle) {
  return make_vec4(nozzle.speed * nozzle.direction, 0.0f);
}

// Position and velocity of the particle at `offset` (one of EmitterSetup::layer) of a layer `advance` ahead.
SURGE_HD void place_emitted_particle(const EmitterNozzle& nozzle, Vec4f offset, float advance,
                                     Vec4f& position /* out */, Vec4f& velocity /* out */) {
  position = make_vec4(nozzle.center + xyz(offset) + advance * nozzle.direction, 0.0f);
  velocity = nozzle_velocity(nozzle);
}

// Builds the nozzle's frame and its layer: lattice sites (i, j) * spacing with centres inside the disc
// (|site| <= radius) or the square (|i|, |j| * spacing <= radius). direction need not be normalised.
EmitterSetup make_emitter(Vec3f center, Vec3f direction, float radius, bool square, float speed,
                          float spacing, double start_s, double end_s, std::uint32_t max_particles);

// What a backend that knows the time on the host needs to run the emitter; the GPU WCSPH backend keeps the
// same numbers on the device.
struct EmitterSchedule {
  long long next_layer = 0;   // layers before this one have entered or were skipped
  bool enabled = true;        // switched live by a viewer
  bool full = false;          // a layer no longer fits in the capacity: the emitter has stopped
  std::uint32_t next_id = 0;  // creation id of the next emitted particle
};

// The first layer a run starting (or continuing, after a mode switch) at time_s considers. Layers due more
// than half a layer interval earlier have been handled; a later one may or may not have entered, and the
// slot rule settles it: had it entered, its particles would still fill its slot and it is skipped.
inline long long first_layer_from(const EmitterNozzle& nozzle, double time_s) {
  const double half_interval = 0.5 * double(nozzle.spacing) / double(nozzle.speed);
  const long long layer = latest_due_layer(nozzle, time_s - half_interval);
  return layer < 0 ? 0 : layer + 1;
}

// Whether the nozzle guides its fluid now (see in_nozzle_guide).
inline bool nozzle_guides(const EmitterSetup& emitter, const EmitterSchedule& schedule, double time_s) {
  return emitter.present && schedule.enabled && !schedule.full && nozzle_open(emitter.nozzle, time_s);
}

// The layer to emit at time_s, or -1: none due, switched off, or full. Marks the schedule full when the
// layer due does not fit between `active` and `capacity`.
inline long long layer_to_emit(const EmitterSetup& emitter, EmitterSchedule& schedule, double time_s,
                               std::size_t active, std::size_t capacity) {
  if (!emitter.present || !schedule.enabled || schedule.full) return -1;
  const long long layer = latest_due_layer(emitter.nozzle, time_s);
  if (layer < schedule.next_layer) return -1;
  if (active + emitter.nozzle.layer_size > capacity) {
    schedule.full = true;
    return -1;
  }
  return layer;
}

}  // namespace surge
