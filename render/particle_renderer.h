// Draws particles as shaded spheres (point-sprite impostors with true depth), coloured through the
// colour map, with an optional colour bar, and the scene's solids as lit meshes (solid_meshes.h); or, in
// the surface style, the fluid as a liquid surface in a scene (fluid_surface.h); or, in the glow style,
// bodies as glowing sprites whose light adds up (glow.vert). Into whatever framebuffer
// is bound (a window or an OffscreenTarget). Needs a current OpenGL 4.5 core context.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/color_map.h"
#include "render/particle_view.h"
#include "render/shader_program.h"
#include "render/solid_meshes.h"
#include "sim/scene/render_look.h"

namespace surge::render {

// GL buffers of particles: positions (vec4 per particle) and one float per particle for colour.
// Filled from the host (upload) or written on the device by CUDA (CudaGlBuffers maps them).
class ParticleBuffers {
 public:
  ParticleBuffers();
  ~ParticleBuffers();
  ParticleBuffers(const ParticleBuffers&) = delete;
  ParticleBuffers& operator=(const ParticleBuffers&) = delete;

  // Makes room for `count` particles and draws that many; contents are undefined until written.
  // Reallocates (and so invalidates CUDA registrations) only when the capacity grows.
  void resize(std::size_t count);
  // resize() + copy from host memory; returns the bytes sent to the GL buffers.
  std::size_t upload(const ParticleView& view);

  std::size_t count() const { return count_; }
  std::size_t capacity() const { return capacity_; }
  unsigned position_buffer() const { return position_buffer_; }
  unsigned scalar_buffer() const { return scalar_buffer_; }
  unsigned vertex_array() const { return vertex_array_; }

 private:
  unsigned vertex_array_ = 0, position_buffer_ = 0, scalar_buffer_ = 0;
  std::size_t count_ = 0, capacity_ = 0;
};

struct RenderSettings {
  ColorBy color_by = ColorBy::speed;
  float color_min = 0.0f;          // value at the colour map's first colour
  float color_max = 1.0f;          // value at its last colour
  float particle_radius = 0.005f;  // [m]
  bool radius_from_w = false;      // grains: each sphere at its own radius, kept in position.w
  bool lighting = true;
  bool show_boundary = false;
  bool show_solids = true;  // the scene's solids as shaded meshes (SolidMeshes), in both styles
  // Each wall sphere's opacity: the walls are drawn after the fluid, blended and without writing depth, so
  // the tank reads as tinted glass and the fluid behind a wall shows through it (opaque walls hid it).
  float boundary_opacity = 0.12f;
  bool show_color_bar = true;
  Rgb background = kBackgroundColor;

  // The style and the surface's parameters (a scene's [render] table, the viewer's panel).
  RenderLook look;
  // The surface style's scene: a sky always; a floor with a grid at the box's bottom and the box as a glass
  // tank when the box is known (has_box).
  bool has_box = false;
  Vec3f box_min{}, box_max{};  // [m]
  float grid_spacing = 0.1f;   // [m] between the floor's grid lines
  bool show_floor = true, show_tank = true;
  float specular = 1.0f;  // highlight strength; tests that compare colours turn it off
  // Spray: a particle with less water along the line of sight through its centre than this many particles
  // hold (one alone holds one; fluid_particle.vert says why this is decided on screen).
  float spray_max_particles = 1.5f;
  int filter_iterations = 3;  // of the depth smoothing (x then y each)
  // The glow style: a body of this mass is a sprite of particle_radius (heavier ones larger and brighter);
  // 0: every body alike. Its light at the centre, as a share of full brightness (glow.vert).
  float reference_mass = 0.0f;
  float glow_peak = 0.5f;
};

class FluidSurface;

class ParticleRenderer {
 public:
  explicit ParticleRenderer(const std::filesystem::path& shaders = shader_directory());
  ~ParticleRenderer();
  ParticleRenderer(const ParticleRenderer&) = delete;
  ParticleRenderer& operator=(const ParticleRenderer&) = delete;

  ParticleBuffers& fluid() { return fluid_; }
  ParticleBuffers& boundary() { return boundary_; }
  SolidMeshes& solids() { return solids_; }
  // The surface style's passes; null until the first frame drawn in that style.
  const FluidSurface* surface() const { return surface_.get(); }

  // Clears the bound framebuffer's viewport [0, width) x [0, height) and draws.
  void draw(const OrbitCamera& camera, int width, int height, const RenderSettings& settings);

 private:
  void draw_particles(const ParticleBuffers& buffers, const OrbitCamera& camera, int width, int height,
                      const RenderSettings& settings, bool use_color_map, Rgb fixed_color,
                      float alpha = 1.0f);
  void draw_boundary(const OrbitCamera& camera, int width, int height, const RenderSettings& settings);
  void draw_glow(const OrbitCamera& camera, int width, int height, const RenderSettings& settings);
  void draw_color_bar(int width, int height, const RenderSettings& settings);

  std::filesystem::path shader_dir_;
  // Built on the first surface frame, so that the spheres style compiles only its own shaders.
  std::unique_ptr<FluidSurface> surface_;
  ShaderProgram sphere_program_;
  ShaderProgram glow_program_;
  ShaderProgram overlay_program_;
  ParticleBuffers fluid_, boundary_;
  SolidMeshes solids_;
  unsigned color_map_texture_ = 0;
  unsigned overlay_vertex_array_ = 0, overlay_buffer_ = 0;
};

// Where the colour bar's labels go: "%.3g", e.g. "0.012", "1.02e+03".
std::string format_color_bar_value(float value);

}  // namespace surge::render
