// The scene's solids (obstacles, wave-makers, floating bodies) as lit, opaque triangle meshes: each solid's
// triangles go to GL once, in its body's frame, and a model matrix per solid places it each frame. This is
// all the renderer knows of solids; the app turns a simulation's surfaces and poses into it
// (app/graphics/solid_feed.h). Both styles draw them depth-tested with the particles: the spheres style
// among the spheres, the surface style into the scene the water refracts (fluid_surface.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "render/color_map.h"
#include "render/gl_math.h"
#include "render/shader_program.h"
#include "sim/core/vec.h"

namespace surge::render {

// Matte, light enough that the shading of its faces reads against the dark background and under water.
inline constexpr Rgb kSolidColor{0.74f, 0.71f, 0.66f};

// Towards the sun, world space (z up): high, over the left shoulder of the default perspective camera. The
// surface style's sky and water are lit from here too (fluid_surface.cpp), and the solids of both styles.
inline Vec3f sun_direction() {
  return normalized(Vec3f{-0.45f, -0.55f, 1.0f});
}

// One solid's shape: three corners per triangle, counter-clockwise seen from outside, in its own frame.
struct SolidShapeView {
  const Vec3f* corners = nullptr;
  std::size_t corner_count = 0;  // a multiple of 3
};

// Corner normals for lighting: the area-weighted mean of the normals of the triangles that share the
// corner's position and bend from its own triangle by less than kCreaseDegrees, so a tessellated sphere
// or cylinder side shades smoothly while a box's faces and a cylinder's rims stay sharp.
inline constexpr float kCreaseDegrees = 40.0f;
std::vector<Vec3f> corner_normals(const SolidShapeView& shape);

class SolidMeshes {
 public:
  explicit SolidMeshes(const std::filesystem::path& shaders);
  ~SolidMeshes();
  SolidMeshes(const SolidMeshes&) = delete;
  SolidMeshes& operator=(const SolidMeshes&) = delete;

  // Replaces the solids by `shapes`, each placed by the identity until set_model; returns the bytes sent to
  // GL (positions and normals).
  std::size_t set_shapes(const std::vector<SolidShapeView>& shapes);
  // Where solid k stands: world = model * body-frame corner (a rigid motion: rotation and translation).
  void set_model(std::size_t solid, const Mat4& model);
  const Mat4& model(std::size_t solid) const { return solids_[solid].model; }
  std::size_t count() const { return solids_.size(); }

  // Draws every solid, opaque, depth-tested and writing depth, into the bound framebuffer: Lambert shading
  // by a light from `to_light` (world space, unit) over an ambient that is brighter for faces turned up.
  void draw(const Mat4& view, const Mat4& projection, Vec3f to_light, Rgb color = kSolidColor) const;

 private:
  struct Solid {
    std::size_t first = 0, count = 0;  // corners in the buffer
    Mat4 model = Mat4::identity();
  };
  ShaderProgram program_;
  unsigned vertex_array_ = 0, buffer_ = 0;
  std::vector<Solid> solids_;
};

}  // namespace surge::render
