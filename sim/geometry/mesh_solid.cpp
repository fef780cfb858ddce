#include "sim/geometry/mesh_solid.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "sim/geometry/mesh_check.h"
#include "sim/geometry/polyhedral_mass.h"

namespace surge {

namespace {

// A right-handed frame (u, v, d), u x v = d: the ray runs along d, triangles are seen projected on (u, v).
struct RayFrame {
  Vec3d u, v, d;
};

RayFrame frame_along(Vec3d direction) {
  const Vec3d d = (1.0 / length(direction)) * direction;
  const Vec3d helper = std::abs(d.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  const Vec3d u_raw = cross(helper, d);
  const Vec3d u = (1.0 / length(u_raw)) * u_raw;
  return {u, cross(d, u), d};
}

// The axes first: their projections are exact (a dot product with a unit axis picks a coordinate). Then
// three oblique directions with no rational relation to each other or to the axes, for points whose axis
// rays all run along edges (an axis-aligned mesh has many).
const std::array<RayFrame, 6>& ray_frames() {
  static const std::array<RayFrame, 6> frames = {
      RayFrame{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
      RayFrame{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
      RayFrame{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
      frame_along({0.5698402910, 0.7548776662, 0.3248618545}),
      frame_along({-0.6180339887, 0.3819660113, 0.6867213416}),
      frame_along({0.2763932023, -0.8506508084, 0.4472135955}),
  };
  return frames;
}

enum class RayVerdict { counted, too_close_to_edge, on_surface };

struct RayCount {
  RayVerdict verdict = RayVerdict::counted;
  int winding = 0;
};

// Sign of an edge function with its rounding band: 0 when |w| is within what rounding could have made it.
int sign_beyond_rounding(double w, double magnitude) {
  const double band = 1e-10 * magnitude;
  return w > band ? 1 : (w < -band ? -1 : 0);
}

// Signed crossings of the ray point + t d (t > 0) with the triangles. In the projection onto (u, v),
// with the point at the origin, the edge functions w_a, w_b, w_c (twice the signed areas of the
// sub-triangles opposite a, b, c) all share a sign exactly when the ray meets the triangle, and their
// normalised values are the barycentric coordinates of the crossing.
RayCount count_crossings(const TriangleBvh& bvh, Vec3d point, const RayFrame& f) {
  RayCount count;
  bvh.for_each_along_ray(point, f.d, [&](const Triangle& tri) {
    if (count.verdict != RayVerdict::counted) return;
    const Vec3d a = tri.a - point, b = tri.b - point, c = tri.c - point;
    const double au = dot(a, f.u), av = dot(a, f.v), bu = dot(b, f.u), bv = dot(b, f.v);
    const double cu = dot(c, f.u), cv = dot(c, f.v);
    const double w_a = bu * cv - bv * cu, w_b = cu * av - cv * au, w_c = au * bv - av * bu;
    const int s_a = sign_beyond_rounding(w_a, std::abs(bu * cv) + std::abs(bv * cu));
    const int s_b = sign_beyond_rounding(w_b, std::abs(cu * av) + std::abs(cv * au));
    const int s_c = sign_beyond_rounding(w_c, std::abs(au * bv) + std::abs(av * bu));
    const bool has_positive = s_a > 0 || s_b > 0 || s_c > 0, has_negative = s_a < 0 || s_b < 0 || s_c < 0;
    if (has_positive && has_negative) return;  // clearly beside the triangle
    if (s_a == 0 || s_b == 0 || s_c == 0) {    // on an edge or vertex, as far as rounding lets us tell
      count.verdict = RayVerdict::too_close_to_edge;
      return;
    }
    const double ad = dot(a, f.d), bd = dot(b, f.d), cd = dot(c, f.d);
    const double sum = w_a + w_b + w_c;  // twice the projected area: > 0 when the normal points along d
    const double t = (w_a * ad + w_b * bd + w_c * cd) / sum;
    if (std::abs(t) <= 1e-10 * std::max({std::abs(ad), std::abs(bd), std::abs(cd)})) {
      count.verdict = RayVerdict::on_surface;
      return;
    }
    if (t > 0.0) count.winding += sum > 0.0 ? 1 : -1;
  });
  return count;
}

}  // namespace

MeshSolid::MeshSolid(TriangleMesh mesh, const Transform& transform, const std::string& source) {
  check_scale(transform);
  for (Vec3d& v : mesh.vertices) v = transform.to_world(v);
  CheckedMesh checked = check_mesh(std::move(mesh), source);
  world_ = std::move(checked.mesh);
  flipped_ = checked.flipped_inside_out;
  bvh_ = TriangleBvh(world_);
  for (const Vec3d& v : world_.vertices) bounds_.grow(v);
}

bool MeshSolid::contains(Vec3d point) const {
  if (!bounds_.contains(point)) return false;
  for (const RayFrame& frame : ray_frames()) {
    const RayCount count = count_crossings(bvh_, point, frame);
    if (count.verdict == RayVerdict::on_surface) return true;
    if (count.verdict == RayVerdict::counted) return count.winding != 0;
  }
  // Every ray passed within rounding of an edge: the point is on an edge or a vertex, or within rounding
  // of one. On the surface counts as inside; a point only nearly there is settled by the winding number,
  // which is 1 or 0 away from the surface, whatever rays would do.
  const Vec3d e = bounds_.extent();
  const double on_surface = 1e-9 * std::max({e.x, e.y, e.z});
  if (bvh_.closest_distance_squared(point, on_surface * on_surface) <= on_surface * on_surface) return true;
  return generalized_winding_number(point) >= 0.5;
}

double MeshSolid::signed_distance(Vec3d point) const {
  const double d = std::sqrt(bvh_.closest_distance_squared(point, std::numeric_limits<double>::infinity()));
  return contains(point) ? -d : d;
}

double MeshSolid::surface_distance(Vec3d point, double max_distance) const {
  const double limit2 = std::isinf(max_distance) ? max_distance : max_distance * max_distance;
  return std::sqrt(bvh_.closest_distance_squared(point, limit2));
}

MassProperties MeshSolid::mass_properties(double density) const {
  return polyhedral_mass_properties(world_, density);
}

double MeshSolid::generalized_winding_number(Vec3d point) const {
  // Each triangle subtends the solid angle 2 atan2(a . (b x c), |a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|)
  // (Van Oosterom & Strackee 1983); a closed surface's total over 4 pi counts how often it wraps the point.
  double solid_angle = 0.0;
  for (const Triangle& tri : bvh_.triangles()) {
    const Vec3d a = tri.a - point, b = tri.b - point, c = tri.c - point;
    const double la = length(a), lb = length(b), lc = length(c);
    solid_angle += 2.0 * std::atan2(dot(a, cross(b, c)),
                                    la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb);
  }
  return solid_angle / (4.0 * std::numbers::pi);
}

}  // namespace surge
