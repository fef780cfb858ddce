// The surface style: the fluid drawn as one liquid surface by screen-space fluid rendering (van der Laan,
// Green & Sainz, "Screen Space Fluid Rendering with Curvature Flow", I3D 2009; Green, "Screen Space Fluid
// Rendering for Games", GDC 2010), in a scene of sky, floor and glass tank. Sees only particle positions,
// in the same GL buffers as the spheres style, so a GPU simulation feeds it through interop unchanged.
//
// A frame, pass by pass (each a shader in shaders/). The three passes over every particle (shadow, thickness,
// depth) either splat the particles with a compute shader (fluid_splat.comp, then fluid_splat_resolve.comp:
// RenderLook::particle_passes = compute, the default) or draw them as point sprites (sprites); the pictures
// are the same but for ties and rounding (docs/rendering.md, "Cost of a surface frame").
//   shadow     the particles' spheres seen from the light, depth only, into the water's shadow map
//              (fluid_shadow.frag); the solids at their poses this frame, likewise, into the solids' own
//   scene      sky (environment.frag, sky.frag), the scene's solids (solid_mesh.frag), floor with a grid
//              (floor.frag, soft-shadowed through both shadow maps), tank edges: colour + depth
//   thickness  every particle in front of the scene adds its chord, blended additively, at half the
//              resolution (fluid_thickness.frag)
//   depth      the nearest sphere surface's distance, spray left out (fluid_particle.vert, fluid_depth.frag)
//   smoothing  separable bilateral filter of that depth, a few iterations (fluid_smooth.frag), or the
//              narrow-range filter (fluid_smooth_narrow_range.frag); a Gaussian
//              blur of the thickness (fluid_thickness_blur.frag)
//   composite  into the bound framebuffer: normals, Fresnel, refraction, absorption (fluid_composite.frag)
//   spray      isolated particles as small bright points (fluid_spray.frag); when splatting, only the
//              particles the depth splat listed as spray are drawn
//   glass      the tank's panes and edges, blended, depth-tested against the water
#pragma once

#include <filesystem>
#include <vector>

#include "render/camera.h"
#include "render/particle_renderer.h"
#include "render/shader_program.h"
#include "render/solid_meshes.h"

namespace surge::render {

// Towards the light, unit, world space: the scene's [render] light_direction.
Vec3f light_direction(const RenderSettings& settings);

// The shadow maps' camera: orthographic, looking along the light at the box's centre, framing the box's
// bounding sphere (the particles and the solids stay in the box).
struct ShadowView {
  Mat4 view, projection;
  float depth_range_m = 1;  // [m] of the map's depth from 0 to 1
  float width_m = 1;        // [m] across the map
};
ShadowView shadow_view(const RenderSettings& settings);

class FluidSurface {
 public:
  explicit FluidSurface(const std::filesystem::path& shaders);
  ~FluidSurface();
  FluidSurface(const FluidSurface&) = delete;
  FluidSurface& operator=(const FluidSurface&) = delete;

  // Draws the scene and the fluid into the framebuffer bound now, viewport [0, width) x [0, height).
  // `solids` (null: none) go into the scene the water refracts.
  void draw(const ParticleBuffers& fluid, const SolidMeshes* solids, const OrbitCamera& camera, int width,
            int height, const RenderSettings& settings);

  // The last frame's passes, for tests, rows from the top of the image down: the fluid's distance in front
  // of the eye [m] (0 where there is none) before and after smoothing, and its thickness [m] before and after
  // the blur, brought up from its lower resolution as the composite reads it (bilinear).
  std::vector<float> read_depth(bool smoothed) const;
  std::vector<float> read_thickness(bool blurred = true) const;
  // The thickness as its pass left it: its own (lower) resolution, rows from the bottom.
  std::vector<float> read_thickness_texels(bool blurred = false) const;
  // The water's shadow map the floor read in the last frame, depth from the light in [0, 1] (1: no water),
  // water_shadow_map_side() squared, rows from the bottom; empty when no shadow was drawn.
  std::vector<float> read_water_shadow_map() const;
  int water_shadow_map_side() const { return shadow_map_size_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  void resize(int width, int height);
  void release_targets();
  void draw_environment_texture(Vec3f to_light);
  void draw_shadow_maps(const ParticleBuffers& fluid, const SolidMeshes* solids,
                        const RenderSettings& settings);
  void resize_shadow_maps(int size);
  void delete_shadow_maps();
  void draw_scene(const OrbitCamera& camera, const Mat4& view, const Mat4& projection,
                  const SolidMeshes* solids, const RenderSettings& settings);
  void draw_particles(const ShaderProgram& program, const ParticleBuffers& fluid, const Mat4& view,
                      const Mat4& projection, const RenderSettings& settings, int select);
  // The compute path (fluid_splat.comp): one pass over the particles into the r32ui image `target`, then the
  // particles too wide for one invocation each, a work group each.
  enum class SplatPass { shadow = 0, thickness = 1, depth = 2 };
  void splat(const ParticleBuffers& fluid, SplatPass pass, unsigned target, int target_width,
             int target_height, const Mat4& view, const Mat4& projection, const RenderSettings& settings);
  // `splatted` (r32ui) into `resolved` (r32f) as the sprites would have left it (fluid_splat_resolve.comp).
  void resolve(SplatPass pass, unsigned splatted, unsigned resolved, int width, int height,
               float metres_per_unit);
  // Makes the wide and the spray particles' lists hold `particles` indices.
  void reserve_splat_lists(std::size_t particles);
  void smooth_depth(const Mat4& projection, const RenderSettings& settings);
  void blur_thickness(const Mat4& projection, const RenderSettings& settings);
  void composite(const Mat4& view, const Mat4& projection, const RenderSettings& settings);
  void draw_glass(const Mat4& view, const Mat4& projection, const RenderSettings& settings);
  void update_box(const RenderSettings& settings);
  std::vector<float> read_texture(unsigned texture) const;

  ShaderProgram environment_program_, sky_program_, floor_program_, solid_program_;
  ShaderProgram thickness_program_, depth_program_, smooth_program_, narrow_range_program_, blur_program_,
      composite_program_, spray_program_, shadow_program_;
  ShaderProgram splat_program_, splat_resolve_program_;
  unsigned empty_vertex_array_ = 0;

  // The sky as a latitude-longitude texture, drawn again only when the light moves.
  unsigned environment_texture_ = 0;
  bool environment_drawn_ = false;
  Vec3f environment_light_{};
  // Depth of the particles and, apart, of the solids seen from the light; each drawn every frame when the
  // floor has shadows and there is water or a solid to cast them. Apart, because water is clear and a solid
  // is opaque: one map would keep only the nearer of the two, and water over a solid would lighten its
  // shadow. Both are made (and remade) at the size the particles' radius asks for.
  unsigned water_shadow_framebuffer_ = 0, water_shadow_map_ = 0;
  bool water_shadow_drawn_ = false;
  // The water's shadow map when splatted: r32ui for the atomics, and a view of it as r32f for the floor.
  unsigned water_shadow_splat_ = 0, water_shadow_splat_view_ = 0;
  unsigned water_shadow_sampled_ = 0;  // the map the floor reads this frame: the sprites' or the splat's
  unsigned solid_shadow_framebuffer_ = 0, solid_shadow_map_ = 0;
  bool solid_shadow_drawn_ = false;
  int shadow_map_size_ = 0;

  // Per-frame targets, sized with the viewport.
  int width_ = 0, height_ = 0;
  unsigned scene_framebuffer_ = 0, scene_color_ = 0, scene_depth_ = 0;
  int thickness_width_ = 0, thickness_height_ = 0;  // a fraction of the view's (kThicknessDownsampling)
  unsigned thickness_framebuffer_ = 0, thickness_ = 0, thickness_depth_ = 0;
  unsigned depth_framebuffer_ = 0, raw_depth_ = 0, depth_buffer_ = 0;
  unsigned smooth_framebuffers_[2] = {0, 0}, smooth_depth_[2] = {0, 0};
  int smoothed_ = -1;  // which smooth_depth_ holds the result; -1: none (raw_depth_ is it)
  unsigned blur_framebuffers_[2] = {0, 0}, blurred_thickness_[2] = {0, 0};  // [1] holds the result
  // The splats' r32ui images, at the thickness's and the view's resolution.
  unsigned thickness_splat_ = 0, depth_splat_ = 0;

  // The splats' lists (fluid_splat.comp), each a few words of indirect command then particle indices: the
  // particles too wide to splat alone (glDispatchComputeIndirect), and the spray (glDrawElementsIndirect,
  // through spray_vertex_array_, whose element buffer is the list).
  unsigned wide_particles_ = 0, spray_particles_ = 0;
  std::size_t splat_list_capacity_ = 0;
  unsigned spray_vertex_array_ = 0;

  // The floor and the tank, rebuilt when the box changes: floor quad (6 vertices), tank panes (4 sides, 24
  // vertices) then edges (12 lines, 24 vertices).
  unsigned box_vertex_array_ = 0, box_buffer_ = 0;
  bool box_built_ = false;
  Vec3f built_min_{}, built_max_{};
};

}  // namespace surge::render
