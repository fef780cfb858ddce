#include "sim/nbody/body_generators.h"

#include <algorithm>
#include <cmath>

namespace surge {

namespace {

constexpr double kPi = 3.141592653589793;

// A direction drawn uniformly on the unit sphere (cos(polar angle) uniform in [-1, 1]).
Vec3d isotropic_direction(UniformRandom& random) {
  const double cos_theta = 2.0 * random.next() - 1.0;
  const double sin_theta = std::sqrt(std::max(0.0, 1.0 - cos_theta * cos_theta));
  const double phi = 2.0 * kPi * random.next();
  return {sin_theta * std::cos(phi), sin_theta * std::sin(phi), cos_theta};
}

// Moves the bodies appended since `first` so their centre of mass sits at `center` moving at `velocity`:
// sampling noise otherwise gives a finite system a net drift.
void place_system(BodyList& out, std::size_t first, const BodySystem& system) {
  double mass = 0;
  Vec3d position_sum{}, momentum{};
  for (std::size_t i = first; i < out.bodies.size(); ++i) {
    mass += out.bodies[i].m;
    position_sum += out.bodies[i].x * out.bodies[i].m;
    momentum += out.velocities[i] * out.bodies[i].m;
  }
  const Vec3d shift = system.center - position_sum * (1.0 / mass);
  const Vec3d boost = system.velocity - momentum * (1.0 / mass);
  for (std::size_t i = first; i < out.bodies.size(); ++i) {
    out.bodies[i].x += shift;
    out.velocities[i] += boost;
  }
}

Vec3d cross(Vec3d a, Vec3d b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// Fraction of an exponential disc's mass inside x = R / R_d: 1 - (1 + x) e^-x.
double exponential_disc_mass_fraction(double x) {
  return 1.0 - (1.0 + x) * std::exp(-x);
}

// The x at which the enclosed fraction reaches `fraction` (< the fraction inside the truncation), by
// bisection: the function is monotonic, and 60 halvings pin x to double precision.
double exponential_disc_radius(double fraction, double x_max) {
  double low = 0.0, high = x_max;
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (low + high);
    (exponential_disc_mass_fraction(mid) < fraction ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

}  // namespace

void add_plummer_sphere(const BodySystem& system, long count, double gravitational_constant,
                        UniformRandom& random, BodyList& out) {
  const std::size_t first = out.bodies.size();
  const double a = system.scale_radius;
  const double body_mass = system.mass / double(count);
  const double r_max = system.truncation * a;
  for (long k = 0; k < count; ++k) {
    // Radius from the cumulative mass M(<r)/M = X = r^3 / (r^2 + a^2)^(3/2), inverted:
    // r = a / sqrt(X^(-2/3) - 1) (Aarseth, Henon & Wielen 1974). Radii beyond the truncation are
    // drawn again.
    double r;
    do {
      const double x = std::max(random.next(), 1e-300);
      r = a / std::sqrt(std::pow(x, -2.0 / 3.0) - 1.0);
    } while (!(r <= r_max));
    // Speed as a fraction q of the local escape speed, from the distribution g(q) = q^2 (1 - q^2)^(7/2)
    // by von Neumann rejection under its bound 0.1 (same paper).
    double q, g;
    do {
      q = random.next();
      g = 0.1 * random.next();
    } while (g > q * q * std::pow(1.0 - q * q, 3.5));
    // v_escape = sqrt(2 G M / a) (1 + r^2 / a^2)^(-1/4), from the Plummer potential -G M / sqrt(r^2 + a^2).
    const double v_escape =
        std::sqrt(2.0 * gravitational_constant * system.mass / a) * std::pow(1.0 + r * r / (a * a), -0.25);
    out.bodies.push_back({isotropic_direction(random) * r, body_mass});
    out.velocities.push_back(isotropic_direction(random) * (q * v_escape));
  }
  place_system(out, first, system);
}

void add_disc_galaxy(const BodySystem& system, long count, double gravitational_constant, double softening,
                     UniformRandom& random, BodyList& out) {
  const std::size_t first = out.bodies.size();
  const bool has_center = system.central_mass > 0;
  const long disc_bodies = count - (has_center ? 1 : 0);
  if (has_center) {
    out.bodies.push_back({Vec3d{}, system.central_mass});
    out.velocities.push_back(Vec3d{});
  }
  // An orthonormal frame (e1, e2, n) with n the spin axis.
  const Vec3d n = system.normal;
  const Vec3d helper = std::abs(n.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  Vec3d e1 = cross(helper, n);
  e1 = e1 * (1.0 / std::sqrt(dot(e1, e1)));
  const Vec3d e2 = cross(n, e1);

  const double r_d = system.scale_radius;
  const double x_max = system.truncation;
  const double fraction_inside = exponential_disc_mass_fraction(x_max);
  const double body_mass = system.mass / double(std::max(1L, disc_bodies));
  for (long k = 0; k < disc_bodies; ++k) {
    // Surface density Sigma(R) ~ exp(-R / R_d) out to the truncation (Freeman 1970), by inverting the
    // enclosed mass; vertical density ~ sech^2(z / z0) (Spitzer 1942), whose inverse CDF is z0 atanh(2u - 1).
    const double fraction = random.next() * fraction_inside;
    const double radius = r_d * exponential_disc_radius(fraction, x_max);
    const double phi = 2.0 * kPi * random.next();
    const double u = std::clamp(random.next(), 1e-12, 1.0 - 1e-12);
    const double z = system.scale_height * std::atanh(2.0 * u - 1.0);
    // Circular speed from the mass enclosed as if it were spherical, softened as the force is:
    // v^2 = G M(<R) R^2 / (R^2 + eps^2)^(3/2). A flat disc pulls a little harder than this at its edge, so
    // the disc starts slightly out of equilibrium; for a collision the encounter dominates long before.
    const double enclosed =
        system.central_mass + system.mass * exponential_disc_mass_fraction(radius / r_d) / fraction_inside;
    const double speed = std::sqrt(gravitational_constant * enclosed * radius * radius /
                                   std::pow(radius * radius + softening * softening, 1.5));
    const Vec3d radial = e1 * std::cos(phi) + e2 * std::sin(phi);
    const Vec3d tangential = e2 * std::cos(phi) - e1 * std::sin(phi);
    out.bodies.push_back({radial * radius + n * z, body_mass});
    out.velocities.push_back(tangential * speed);
  }
  place_system(out, first, system);
}

void add_two_body(const BodySystem& system, double gravitational_constant, BodyList& out) {
  const std::size_t first = out.bodies.size();
  const double m1 = system.masses[0], m2 = system.masses[1], total = m1 + m2;
  const double a = system.semi_major_axis, e = system.eccentricity;
  // At apocentre the separation is a (1 + e) and, by the vis-viva equation v^2 = G M (2/r - 1/a), the
  // relative speed is sqrt(G M (1 - e) / (a (1 + e))), perpendicular to the separation.
  const double separation = a * (1.0 + e);
  const double speed = std::sqrt(gravitational_constant * total * (1.0 - e) / (a * (1.0 + e)));
  out.bodies.push_back({Vec3d{-m2 / total * separation, 0, 0}, m1});
  out.bodies.push_back({Vec3d{m1 / total * separation, 0, 0}, m2});
  out.velocities.push_back(Vec3d{0, -m2 / total * speed, 0});
  out.velocities.push_back(Vec3d{0, m1 / total * speed, 0});
  place_system(out, first, system);
}

double kepler_period(const BodySystem& system, double gravitational_constant) {
  const double a = system.semi_major_axis;
  return 2.0 * kPi * std::sqrt(a * a * a / (gravitational_constant * (system.masses[0] + system.masses[1])));
}

}  // namespace surge
