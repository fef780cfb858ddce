#include "sim/sph/emitter.h"

#include <cmath>

namespace surge {

namespace {

Vec3f normalized(Vec3f v) {
  return (1.0f / std::sqrt(length_squared(v))) * v;
}

}  // namespace

EmitterSetup make_emitter(Vec3f center, Vec3f direction, float radius, bool square, float speed,
                          float spacing, double start_s, double end_s, std::uint32_t max_particles) {
  EmitterSetup emitter;
  emitter.present = true;
  emitter.max_particles = max_particles;
  EmitterNozzle& nozzle = emitter.nozzle;
  nozzle.center = center;
  nozzle.direction = normalized(direction);
  // The disc's frame: start from the coordinate axis least aligned with the jet, so the cross product is
  // never near zero.
  const Vec3f d = nozzle.direction;
  const float ax = std::fabs(d.x), ay = std::fabs(d.y), az = std::fabs(d.z);
  const Vec3f least = ax <= ay && ax <= az ? Vec3f{1, 0, 0} : (ay <= az ? Vec3f{0, 1, 0} : Vec3f{0, 0, 1});
  nozzle.across_u = normalized(cross(d, least));
  nozzle.across_v = cross(d, nozzle.across_u);
  nozzle.radius = radius;
  nozzle.square = square;
  nozzle.speed = speed;
  nozzle.spacing = spacing;
  nozzle.start_s = start_s;
  nozzle.end_s = end_s;

  // A site whose centre lies on the rim by rounding still belongs to the nozzle.
  const double rim = double(radius) / double(spacing) + 1e-4;
  const long reach = long(std::floor(rim));
  for (long j = -reach; j <= reach; ++j)
    for (long i = -reach; i <= reach; ++i) {
      if (!square && double(i * i + j * j) > rim * rim) continue;
      const Vec3f offset = (float(i) * spacing) * nozzle.across_u + (float(j) * spacing) * nozzle.across_v;
      emitter.layer.push_back(make_vec4(offset, 0.0f));
    }
  nozzle.layer_size = std::uint32_t(emitter.layer.size());
  return emitter;
}

}  // namespace surge
