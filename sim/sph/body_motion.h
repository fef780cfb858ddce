// How a solid in the fluid moves ([[solid]] motion, docs/scenes.md "Moving and floating solids"): the
// prescribed motions, written as closed forms of the time, and the floating body's rigid-body step. Plain
// data and SURGE_HD functions: the solver runs them in a one-thread pass where the body states live (on the
// GPU a one-thread kernel), so a moving solid costs no bus bytes.
//
// A body's pose is its reference point c (the centre of mass of a floating body, the solid's centre
// otherwise) and its orientation q (a unit quaternion, identity at rest). Its particles keep their offsets
// from c at rest, r_k; at any time x_k = c + R(q) r_k and v_k = v + omega x (x_k - c).
//
// Prescribed motions start at t = 0 from the rest pose. A ramp T > 0 brings the motion in smoothly: the
// amplitude (or the velocity) grows linearly over [0, T], so a piston does not start with a jolt that would
// send a pressure wave through the tank.
//
//   linear     c = c0 + V s(t),                 s(t) = t^2 / 2T for t < T, t - T/2 after (the ramped time)
//   oscillate  c = c0 + A r(t) sin(2 pi f t + phi)          (a piston wave-maker; r(t) = min(t / T, 1))
//   hinge      theta = Theta r(t) sin(2 pi f t + phi)       about `axis` through `pivot` (a flap)
//   rotate     theta = Omega s(t)                           about `axis` through `pivot` (a paddle, a mixer)
//   table      c = c0 + d(t), theta(t) about axis/pivot, linear between the rows of a CSV time table
//   floating   Newton-Euler under the fluid's force and torque, gravity and contact (integrate_floating)
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/vec.h"

namespace surge {

enum class MotionKind : std::int32_t { fixed, linear, oscillate, hinge, rotate, table, floating };
inline constexpr const char* kMotionNames[] = {"fixed",  "linear", "oscillate", "hinge",
                                               "rotate", "table",  "floating"};

inline constexpr std::uint32_t kNoBody = 0xFFFFFFFFu;

// Unit quaternion (w, x, y, z).
struct Quatf {
  float w = 1, x = 0, y = 0, z = 0;
};

SURGE_HD Quatf quat_multiply(const Quatf& a, const Quatf& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

SURGE_HD Quatf quat_normalized(const Quatf& q) {
  const float inverse = 1.0f / sqrtf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w * inverse, q.x * inverse, q.y * inverse, q.z * inverse};
}

// Rotation by `angle` [rad] about the unit vector `axis`.
SURGE_HD Quatf quat_from_axis_angle(Vec3f axis, float angle) {
  const float s = sinf(0.5f * angle);
  return {cosf(0.5f * angle), s * axis.x, s * axis.y, s * axis.z};
}

// R(q) v.
SURGE_HD Vec3f rotate(const Quatf& q, Vec3f v) {
  const Vec3f u{q.x, q.y, q.z};
  const Vec3f t = 2.0f * cross(u, v);
  return v + q.w * t + cross(u, t);
}
// R(q)^T v.
SURGE_HD Vec3f rotate_back(const Quatf& q, Vec3f v) {
  return rotate(Quatf{q.w, -q.x, -q.y, -q.z}, v);
}

// A symmetric 3x3 matrix: an inertia tensor in the body's axes, or its inverse.
struct SymMat3f {
  float xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
};
SURGE_HD Vec3f operator*(const SymMat3f& m, Vec3f v) {
  return {m.xx * v.x + m.xy * v.y + m.xz * v.z, m.xy * v.x + m.yy * v.y + m.yz * v.z,
          m.xz * v.x + m.yz * v.y + m.zz * v.z};
}

// What the scene prescribes (or, for a floating body, its constants). Angles in radians, frequencies in Hz.
struct BodyMotion {
  MotionKind kind = MotionKind::fixed;
  Vec3f rest_center{};                            // c0 [m]
  Vec3f velocity{};                               // linear [m/s]
  Vec3f amplitude{};                              // oscillate [m]
  Vec3f pivot{};                                  // hinge, rotate, table [m]
  Vec3f axis{0, 0, 1};                            // hinge, rotate, table: unit vector
  float angle = 0;                                // hinge: amplitude Theta [rad]
  float angular_speed = 0;                        // rotate: Omega [rad/s]
  float frequency = 0;                            // oscillate, hinge [Hz]
  float phase = 0;                                // oscillate, hinge [rad]
  float ramp = 0;                                 // T [s]; 0 = none
  std::uint32_t table_first = 0, table_rows = 0;  // table: rows of the shared time table
  // floating
  float mass = 0;               // [kg]
  SymMat3f inertia;             // about the centre of mass, body axes [kg m^2]
  SymMat3f inverse_inertia;     // its inverse [1/(kg m^2)]
  float contact_stiffness = 0;  // per particle pair [N/m] (floating_contact_force)
  float contact_damping = 0;    // per particle pair [N s/m]
};

// A row of a motion time table: time [s], displacement of the reference point [m] and angle [rad].
struct MotionTableRow {
  float time = 0;
  Vec3f displacement{};
  float angle = 0;
};

// Where a body is and how it moves; kept where the particles live. Force and torque are the fluid's (and the
// contacts') last sum on the body, about c; doubles, as the device's reductions write them.
struct BodyState {
  Vec3f center{};
  Quatf orientation{};
  Vec3f velocity{};
  Vec3f angular_velocity{};  // [rad/s], world axes
  double force[3] = {}, torque[3] = {};
};

// The ramp's factor r(t) and its rate, and the ramped time s(t) = integral of r.
struct Ramp {
  float factor, rate, time;
};
SURGE_HD Ramp ramp_at(float ramp, float t) {
  if (ramp > 0.0f && t < ramp) return {t / ramp, 1.0f / ramp, 0.5f * t * t / ramp};
  return {1.0f, 0.0f, ramp > 0.0f ? t - 0.5f * ramp : t};
}

// A rotation by theta about the axis through `pivot`, turning at theta_rate, applied to the rest pose.
SURGE_HD BodyState rotated_about_pivot(const BodyMotion& m, Vec3f center, float theta, float theta_rate) {
  BodyState s;
  s.orientation = quat_from_axis_angle(m.axis, theta);
  s.center = m.pivot + rotate(s.orientation, center - m.pivot);
  s.angular_velocity = theta_rate * m.axis;
  s.velocity = cross(s.angular_velocity, s.center - m.pivot);
  return s;
}

// The pose and velocities of a prescribed motion at time t (every kind but floating).
SURGE_HD BodyState prescribed_state(const BodyMotion& m, const MotionTableRow* table, double time) {
  const float t = float(time);
  const Ramp r = ramp_at(m.ramp, t);
  BodyState s;
  s.center = m.rest_center;
  switch (m.kind) {
    case MotionKind::linear:
      s.center = m.rest_center + r.time * m.velocity;
      s.velocity = r.factor * m.velocity;
      break;
    case MotionKind::oscillate: {
      const float omega = 2.0f * 3.14159265358979f * m.frequency;
      const float phase = omega * t + m.phase;
      s.center = m.rest_center + (r.factor * sinf(phase)) * m.amplitude;
      s.velocity = (r.rate * sinf(phase) + r.factor * omega * cosf(phase)) * m.amplitude;
      break;
    }
    case MotionKind::hinge: {
      const float omega = 2.0f * 3.14159265358979f * m.frequency;
      const float phase = omega * t + m.phase;
      const float theta = m.angle * r.factor * sinf(phase);
      const float rate = m.angle * (r.rate * sinf(phase) + r.factor * omega * cosf(phase));
      s = rotated_about_pivot(m, m.rest_center, theta, rate);
      break;
    }
    case MotionKind::rotate:
      s = rotated_about_pivot(m, m.rest_center, m.angular_speed * r.time, m.angular_speed * r.factor);
      break;
    case MotionKind::table: {
      if (m.table_rows == 0) break;
      const MotionTableRow* rows = table + m.table_first;
      // The segment [rows[k], rows[k + 1]] holding t; before the first row and after the last, the body
      // holds that row's pose at rest.
      std::uint32_t k = 0;
      while (k + 1 < m.table_rows && rows[k + 1].time <= t) ++k;
      if (t <= rows[0].time || k + 1 >= m.table_rows) {
        const MotionTableRow& held = t <= rows[0].time ? rows[0] : rows[m.table_rows - 1];
        s = rotated_about_pivot(m, m.rest_center + held.displacement, held.angle, 0.0f);
        s.velocity = Vec3f{};
        break;
      }
      const MotionTableRow& a = rows[k];
      const MotionTableRow& b = rows[k + 1];
      const float span = b.time - a.time;
      const float u = (t - a.time) / span;
      const Vec3f displacement = a.displacement + u * (b.displacement - a.displacement);
      const Vec3f translation_rate = (1.0f / span) * (b.displacement - a.displacement);
      const float theta = a.angle + u * (b.angle - a.angle);
      // The translation moves the pivot with the body: rotate about the displaced pivot.
      BodyMotion displaced = m;
      displaced.pivot = m.pivot + displacement;
      s = rotated_about_pivot(displaced, m.rest_center + displacement, theta, (b.angle - a.angle) / span);
      s.velocity = s.velocity + translation_rate;
      break;
    }
    case MotionKind::fixed:
    case MotionKind::floating:
      break;
  }
  return s;
}

// One step of a floating body, symplectic Euler as the fluid's: velocities from the force and torque summed
// this step (and gravity), then the pose from the new velocities. The angular step is Euler's equation in
// the body's axes, I_b omega_b' = T_b - omega_b x (I_b omega_b), and the orientation advances
// by the quaternion rate q' = (0, omega) q / 2, renormalised.
SURGE_HD void integrate_floating(const BodyMotion& m, Vec3f gravity, float dt, BodyState& s) {
  const Vec3f force{float(s.force[0]), float(s.force[1]), float(s.force[2])};
  const Vec3f torque{float(s.torque[0]), float(s.torque[1]), float(s.torque[2])};
  s.velocity = s.velocity + dt * ((1.0f / m.mass) * force + gravity);
  // In body axes: omega_b = R^T omega, L_b = I_b omega_b, and I_b^-1 is what the motion keeps.
  const Vec3f omega_body = rotate_back(s.orientation, s.angular_velocity);
  const Vec3f torque_body = rotate_back(s.orientation, torque);
  const Vec3f momentum_body = m.inertia * omega_body;
  const Vec3f rate_body = m.inverse_inertia * (torque_body - cross(omega_body, momentum_body));
  s.angular_velocity = rotate(s.orientation, omega_body + dt * rate_body);
  s.center = s.center + dt * s.velocity;
  const Vec3f w = s.angular_velocity;
  const Quatf spin = quat_multiply(Quatf{0.0f, w.x, w.y, w.z}, s.orientation);
  s.orientation =
      quat_normalized(Quatf{s.orientation.w + 0.5f * dt * spin.w, s.orientation.x + 0.5f * dt * spin.x,
                            s.orientation.y + 0.5f * dt * spin.y, s.orientation.z + 0.5f * dt * spin.z});
}

// A body particle's place and velocity from its body's state and its rest offset r from c.
SURGE_HD Vec3f body_point(const BodyState& s, Vec3f offset) {
  return s.center + rotate(s.orientation, offset);
}
SURGE_HD Vec3f body_point_velocity(const BodyState& s, Vec3f point) {
  return s.velocity + cross(s.angular_velocity, point - s.center);
}

// The contact of a floating body's particle with another solid's (or a wall's) particle at distance r < d:
// a spring-dashpot along the line of centres, n = r_ab / r, pushing them apart:
//   F = k (d - r) n - c min(0, v_ab . n) n
// (the dashpot only resists approach, so bodies do not stick). d is the particle spacing: the gap the
// lattice leaves between a solid and the fluid or wall beside it. Frictionless.
SURGE_HD Vec3f floating_contact_force(const BodyMotion& m, float spacing, Vec3f r_ab, float r, Vec3f v_ab) {
  if (r <= 0.0f || r >= spacing) return {};
  const Vec3f n = (1.0f / r) * r_ab;
  const float approach = dot(v_ab, n);
  const float magnitude =
      m.contact_stiffness * (spacing - r) - (approach < 0.0f ? m.contact_damping * approach : 0.0f);
  return magnitude * n;
}

}  // namespace surge
