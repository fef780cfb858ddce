#include "sim/geometry/polyhedral_mass.h"

namespace surge {

MassProperties polyhedral_mass_properties(const TriangleMesh& mesh, double density) {
  MassProperties p;
  if (mesh.vertices.empty()) return p;
  // Reference point: the vertices' mean, so moments are taken close to the body and a mesh far from
  // the origin does not lose its inertia to cancellation.
  Vec3d o{};
  for (const Vec3d& v : mesh.vertices) o += v;
  o = (1.0 / double(mesh.vertices.size())) * o;

  // For the tetrahedron (o, a, b, c), coordinates relative to o, with D = a . (b x c):
  //   integral of 1 = D / 6,  of x = D (a + b + c) / 24,
  //   of x_i x_j = D / 120 (a_i a_j + b_i b_j + c_i c_j + s_i s_j),  s = a + b + c.
  double volume = 0.0;
  Vec3d first{};
  double second[3][3]{};
  for (const auto& t : mesh.triangles) {
    const Vec3d a = mesh.vertices[t[0]] - o, b = mesh.vertices[t[1]] - o, c = mesh.vertices[t[2]] - o;
    const double det = dot(a, cross(b, c));
    const Vec3d s = a + b + c;
    volume += det / 6.0;
    first += (det / 24.0) * s;
    const double va[3] = {a.x, a.y, a.z}, vb[3] = {b.x, b.y, b.z}, vc[3] = {c.x, c.y, c.z},
                 vs[3] = {s.x, s.y, s.z};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        second[i][j] += det / 120.0 * (va[i] * va[j] + vb[i] * vb[j] + vc[i] * vc[j] + vs[i] * vs[j]);
  }
  p.volume = volume;
  p.mass = density * volume;
  const Vec3d centre = (1.0 / volume) * first;
  p.center_of_mass = o + centre;
  // Second moments about the centre of mass (parallel axis), then I = rho (tr(C) 1 - C).
  const double c[3] = {centre.x, centre.y, centre.z};
  double central[3][3]{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) central[i][j] = second[i][j] - volume * c[i] * c[j];
  const double trace = central[0][0] + central[1][1] + central[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) p.inertia.m[i][j] = density * ((i == j ? trace : 0.0) - central[i][j]);
  return p;
}

}  // namespace surge
