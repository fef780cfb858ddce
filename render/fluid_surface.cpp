#include "render/fluid_surface.h"

#include <glad/gl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace surge::render {
namespace {

constexpr int kEnvironmentWidth = 512, kEnvironmentHeight = 256;
// Spheres of radius half the spacing fill pi/6 of a cubic lattice's cells (fluid_thickness.frag).
constexpr float kFillCorrection = 6.0f / 3.14159265f;
// The range Gaussian's sigma in particle radii: two spheres meeting make a dip of about one radius, which
// must be smoothed away; water in front of other water differs by many radii and stays apart.
constexpr float kRangeRadii = 3.0f;
// The narrow-range filter's limits in particle radii (Truong & Yuksel 2018 use 10.5 and 1): a surface in
// front of another is at least a few particles nearer; a sample beyond the range counts as one radius behind.
constexpr float kNarrowRangeThresholdRadii = 10.5f;
constexpr float kNarrowRangeClampRadii = 1.0f;
// The thickness is drawn at 1/2 the view's resolution each way: a quarter of the fragments in the pass that
// shades every particle in full (additive blending, no depth to reject with), for a quantity that is blurred
// over at least two particle radii afterwards (fluid_thickness_blur.frag) and only read through that blur.
constexpr int kThicknessDownsampling = 2;
// What absorbed light comes back as, as a share of the water's colour (fluid_composite.frag).
constexpr float kScatterShare = 0.30f;
constexpr float kSprayBrightness = 0.95f;
constexpr float kSpraySize = 0.7f;  // spray point diameter over the particle's
constexpr std::array<float, 4> kGlassPane{0.80f, 0.88f, 0.96f, 0.10f};
constexpr std::array<float, 4> kGlassEdge{0.90f, 0.95f, 1.00f, 0.75f};
constexpr int kFloorVertices = 6, kPaneVertices = 24, kEdgeVertices = 24;
// The shadow maps' side [px] lies between these; within them its texel is one particle radius (below).
constexpr int kMinShadowMapSize = 512, kMaxShadowMapSize = 2048;
// The share of the floor's direct light that water in its path takes away: water is clear, so its shadow is
// lighter than a solid's, which takes all of it (the light the water bends into caustics is not drawn).
constexpr float kWaterShadowStrength = 0.55f;
// The light's angular radius [rad]: a sun blurred by a hazy sky, so a shadow's edge widens with the height
// of the water or solid that casts it (a penumbra 10 cm wide per metre of height), as under a real sky.
constexpr float kLightAngularRadius = 0.05f;
// Splatting (fluid_splat.comp). A sprite up to this wide [px] is splatted by one invocation, which loops over
// its pixels (at most 7 x 7); a wider one, near the camera, gets a work group of its own. The dam break's
// sprites at 1M and 4M particles, 1920 x 1080, are 1 to 3 px across, the shadow map's about 2.
constexpr float kMaxOwnSplatPx = 6.0f;
// The thickness in fixed point: a sphere's whole chord through its centre is this many units, so a pixel
// holds up to 2^32 / 2^16 = 65536 chords, far more than any line of sight crosses, and the smallest share
// splatted (a sphere a tenth of a pixel across adds 1 % of its chord) is still 655 units.
constexpr float kThicknessUnitsPerChord = 65536.0f;
constexpr int kSplatGroupSize = 128;       // fluid_splat.comp's local_size_x
constexpr GLuint kMaxSplatGroups = 65535;  // GL's least guaranteed work group count along x
// The splat lists' heads, in words (fluid_splat.comp): a DispatchIndirectCommand and the count; a
// DrawElementsIndirectCommand, padded, its first index right after it.
constexpr GLuint kWideListHead = 4, kSprayListHead = 8;
// Cleared into the depth splat: more than any float's bits, read back as "no fluid"
// (fluid_splat_resolve.comp).
constexpr GLuint kNoDepth = 0xffffffffu;

unsigned make_texture(GLenum format, int width, int height, GLint filter) {
  unsigned texture = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &texture);
  glTextureStorage2D(texture, 1, format, width, height);
  glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, filter);
  glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, filter);
  glTextureParameteri(texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

// The shadow map's side [px] for `light`: a texel of one particle radius. The shadow's sharpest detail is its
// narrowest penumbra, 1.5 radii (u_min_penumbra_m), so finer texels show nothing more, and each costs: every
// particle is drawn into the map each frame, and its sprite's area grows with the square of the side (2048 px
// over the dam break's tank made a 1M-particle run's sprites 4.4 px across, more fragments than the view's).
int shadow_map_size(const ShadowView& light, float particle_radius) {
  const float texels = light.width_m / std::max(particle_radius, 1e-6f);
  return std::clamp(int(std::ceil(texels / 64.0f)) * 64, kMinShadowMapSize, kMaxShadowMapSize);
}

unsigned make_framebuffer(unsigned color, unsigned depth) {
  unsigned framebuffer = 0;
  glCreateFramebuffers(1, &framebuffer);
  glNamedFramebufferTexture(framebuffer, GL_COLOR_ATTACHMENT0, color, 0);
  if (depth != 0) glNamedFramebufferTexture(framebuffer, GL_DEPTH_ATTACHMENT, depth, 0);
  if (glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteFramebuffers(1, &framebuffer);
    throw std::runtime_error("the surface style's framebuffer is incomplete (float render targets missing?)");
  }
  return framebuffer;
}

void set_matrices(const ShaderProgram& program, const Mat4& view, const Mat4& projection) {
  glProgramUniformMatrix4fv(program.id(), program.uniform("u_view"), 1, GL_FALSE, view.m.data());
  glProgramUniformMatrix4fv(program.id(), program.uniform("u_projection"), 1, GL_FALSE, projection.m.data());
}

// The spray test's threshold [m]: a lone particle's chord through its centre is one diameter, times the fill
// correction (fluid_particle.vert, fluid_splat.comp).
float spray_thickness_m(const RenderSettings& settings) {
  return settings.spray_max_particles * kFillCorrection * 2.0f * settings.particle_radius;
}

Vec3f eye_direction(const Mat4& view, Vec3f world) {
  const Vec4 eye = view * Vec4{world.x, world.y, world.z, 0.0f};
  return normalized(Vec3f{eye.x, eye.y, eye.z});
}

}  // namespace

Vec3f light_direction(const RenderSettings& settings) {
  return normalized(settings.look.light_direction);
}

ShadowView shadow_view(const RenderSettings& settings) {
  const Vec3f center = 0.5f * (settings.box_min + settings.box_max);
  const float reach =
      0.5f * std::sqrt(length_squared(settings.box_max - settings.box_min)) + 2.0f * settings.particle_radius;
  const Vec3f to_light = light_direction(settings);
  // Any up that is not along the light will do: the map is square and centred.
  const Vec3f up = std::abs(to_light.z) > 0.99f ? Vec3f{0, 1, 0} : Vec3f{0, 0, 1};
  ShadowView out;
  out.view = look_at(center + reach * to_light, center, up);
  out.projection = orthographic(reach, reach, 0.0f, 2.0f * reach);
  out.depth_range_m = 2.0f * reach;
  out.width_m = 2.0f * reach;
  return out;
}

FluidSurface::FluidSurface(const std::filesystem::path& shaders)
    : environment_program_(shaders / "fullscreen.vert", shaders / "environment.frag"),
      sky_program_(shaders / "fullscreen.vert", shaders / "sky.frag"),
      floor_program_(shaders / "solid.vert", shaders / "floor.frag"),
      solid_program_(shaders / "solid.vert", shaders / "solid.frag"),
      thickness_program_(shaders / "fluid_particle.vert", shaders / "fluid_thickness.frag"),
      depth_program_(shaders / "fluid_particle.vert", shaders / "fluid_depth.frag"),
      smooth_program_(shaders / "fullscreen.vert", shaders / "fluid_smooth.frag"),
      narrow_range_program_(shaders / "fullscreen.vert", shaders / "fluid_smooth_narrow_range.frag"),
      blur_program_(shaders / "fullscreen.vert", shaders / "fluid_thickness_blur.frag"),
      composite_program_(shaders / "fullscreen.vert", shaders / "fluid_composite.frag"),
      spray_program_(shaders / "fluid_particle.vert", shaders / "fluid_spray.frag"),
      shadow_program_(shaders / "fluid_particle.vert", shaders / "fluid_shadow.frag"),
      splat_program_(shaders / "fluid_splat.comp"),
      splat_resolve_program_(shaders / "fluid_splat_resolve.comp") {
  glCreateVertexArrays(1, &empty_vertex_array_);
  glCreateVertexArrays(1, &box_vertex_array_);
  glCreateBuffers(1, &box_buffer_);
  glNamedBufferData(box_buffer_, GLsizeiptr((kFloorVertices + kPaneVertices + kEdgeVertices) * sizeof(Vec3f)),
                    nullptr, GL_DYNAMIC_DRAW);
  glVertexArrayVertexBuffer(box_vertex_array_, 0, box_buffer_, 0, sizeof(Vec3f));
  glEnableVertexArrayAttrib(box_vertex_array_, 0);
  glVertexArrayAttribFormat(box_vertex_array_, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(box_vertex_array_, 0, 0);
  environment_texture_ = make_texture(GL_RGBA16F, kEnvironmentWidth, kEnvironmentHeight, GL_LINEAR);
  // Longitude wraps around; the poles do not.
  glTextureParameteri(environment_texture_, GL_TEXTURE_WRAP_S, GL_REPEAT);
  // The listed spray's positions come from the fluid's buffer, bound each frame (it may be reallocated).
  glCreateVertexArrays(1, &spray_vertex_array_);
  glEnableVertexArrayAttrib(spray_vertex_array_, 0);
  glVertexArrayAttribFormat(spray_vertex_array_, 0, 4, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(spray_vertex_array_, 0, 0);
}

FluidSurface::~FluidSurface() {
  release_targets();
  delete_shadow_maps();
  glDeleteTextures(1, &environment_texture_);
  const unsigned lists[] = {wide_particles_, spray_particles_};
  glDeleteBuffers(2, lists);
  glDeleteVertexArrays(1, &spray_vertex_array_);
  glDeleteBuffers(1, &box_buffer_);
  glDeleteVertexArrays(1, &box_vertex_array_);
  glDeleteVertexArrays(1, &empty_vertex_array_);
}

void FluidSurface::draw_environment_texture(Vec3f to_light) {
  if (environment_drawn_ && to_light.x == environment_light_.x && to_light.y == environment_light_.y &&
      to_light.z == environment_light_.z)
    return;
  environment_drawn_ = true;
  environment_light_ = to_light;
  GLint bound = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound);
  const unsigned framebuffer = make_framebuffer(environment_texture_, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, kEnvironmentWidth, kEnvironmentHeight);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glProgramUniform3f(environment_program_.id(), environment_program_.uniform("u_to_light"), to_light.x,
                     to_light.y, to_light.z);
  glUseProgram(environment_program_.id());
  glBindVertexArray(empty_vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(bound));
  glDeleteFramebuffers(1, &framebuffer);
}

void FluidSurface::delete_shadow_maps() {
  const unsigned shadow_framebuffers[] = {water_shadow_framebuffer_, solid_shadow_framebuffer_};
  glDeleteFramebuffers(2, shadow_framebuffers);
  const unsigned shadow_maps[] = {water_shadow_map_, solid_shadow_map_, water_shadow_splat_view_,
                                  water_shadow_splat_};
  glDeleteTextures(4, shadow_maps);
  water_shadow_framebuffer_ = solid_shadow_framebuffer_ = water_shadow_map_ = solid_shadow_map_ = 0;
  water_shadow_splat_ = water_shadow_splat_view_ = 0;
}

void FluidSurface::resize_shadow_maps(int size) {
  if (size == shadow_map_size_) return;
  delete_shadow_maps();
  shadow_map_size_ = size;
  for (auto [map, framebuffer] : {std::pair{&water_shadow_map_, &water_shadow_framebuffer_},
                                  std::pair{&solid_shadow_map_, &solid_shadow_framebuffer_}}) {
    *map = make_texture(GL_DEPTH_COMPONENT32F, size, size, GL_NEAREST);
    glCreateFramebuffers(1, framebuffer);
    glNamedFramebufferTexture(*framebuffer, GL_DEPTH_ATTACHMENT, *map, 0);
    glNamedFramebufferDrawBuffer(*framebuffer, GL_NONE);
  }
  water_shadow_splat_ = make_texture(GL_R32UI, size, size, GL_NEAREST);
  // A view needs a name never bound (glGenTextures), not a made texture (glCreateTextures).
  glGenTextures(1, &water_shadow_splat_view_);
  glTextureView(water_shadow_splat_view_, GL_TEXTURE_2D, water_shadow_splat_, GL_R32F, 0, 1, 0, 1);
  for (GLenum filter : {GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER})
    glTextureParameteri(water_shadow_splat_view_, filter, GL_NEAREST);
  for (GLenum wrap : {GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T})
    glTextureParameteri(water_shadow_splat_view_, wrap, GL_CLAMP_TO_EDGE);
}

void FluidSurface::release_targets() {
  const unsigned framebuffers[] = {scene_framebuffer_,      thickness_framebuffer_,  depth_framebuffer_,
                                   smooth_framebuffers_[0], smooth_framebuffers_[1], blur_framebuffers_[0],
                                   blur_framebuffers_[1]};
  glDeleteFramebuffers(7, framebuffers);
  const unsigned textures[] = {scene_color_,          scene_depth_,     thickness_,
                               thickness_depth_,      raw_depth_,       depth_buffer_,
                               smooth_depth_[0],      smooth_depth_[1], blurred_thickness_[0],
                               blurred_thickness_[1], thickness_splat_, depth_splat_};
  glDeleteTextures(12, textures);
  scene_framebuffer_ = thickness_framebuffer_ = depth_framebuffer_ = 0;
  smooth_framebuffers_[0] = smooth_framebuffers_[1] = blur_framebuffers_[0] = blur_framebuffers_[1] = 0;
  scene_color_ = scene_depth_ = thickness_ = thickness_depth_ = raw_depth_ = depth_buffer_ = 0;
  smooth_depth_[0] = smooth_depth_[1] = blurred_thickness_[0] = blurred_thickness_[1] = 0;
  thickness_splat_ = depth_splat_ = 0;
  width_ = height_ = thickness_width_ = thickness_height_ = 0;
}

void FluidSurface::resize(int width, int height) {
  if (width == width_ && height == height_) return;
  release_targets();
  width_ = width;
  height_ = height;
  // The scene is sampled off-pixel by the refraction: linear filtering.
  scene_color_ = make_texture(GL_RGBA8, width, height, GL_LINEAR);
  scene_depth_ = make_texture(GL_DEPTH_COMPONENT32F, width, height, GL_NEAREST);
  scene_framebuffer_ = make_framebuffer(scene_color_, scene_depth_);
  // The thickness at half the resolution (rounded up), with the scene's depth brought down to it each frame.
  thickness_width_ = (width + kThicknessDownsampling - 1) / kThicknessDownsampling;
  thickness_height_ = (height + kThicknessDownsampling - 1) / kThicknessDownsampling;
  thickness_ = make_texture(GL_R32F, thickness_width_, thickness_height_, GL_NEAREST);
  thickness_depth_ = make_texture(GL_DEPTH_COMPONENT32F, thickness_width_, thickness_height_, GL_NEAREST);
  thickness_framebuffer_ = make_framebuffer(thickness_, thickness_depth_);
  raw_depth_ = make_texture(GL_R32F, width, height, GL_NEAREST);
  depth_buffer_ = make_texture(GL_DEPTH_COMPONENT32F, width, height, GL_NEAREST);
  depth_framebuffer_ = make_framebuffer(raw_depth_, depth_buffer_);
  thickness_splat_ = make_texture(GL_R32UI, thickness_width_, thickness_height_, GL_NEAREST);
  depth_splat_ = make_texture(GL_R32UI, width, height, GL_NEAREST);
  for (int k = 0; k < 2; ++k) {
    smooth_depth_[k] = make_texture(GL_R32F, width, height, GL_NEAREST);
    smooth_framebuffers_[k] = make_framebuffer(smooth_depth_[k], 0);
    // The blur's result is read between its texels by the composite: linear filtering brings it up to the
    // full resolution.
    blurred_thickness_[k] =
        make_texture(GL_R32F, thickness_width_, thickness_height_, k == 1 ? GL_LINEAR : GL_NEAREST);
    blur_framebuffers_[k] = make_framebuffer(blurred_thickness_[k], 0);
  }
}

void FluidSurface::update_box(const RenderSettings& settings) {
  if (!settings.has_box) return;
  const Vec3f lo = settings.box_min, hi = settings.box_max;
  if (box_built_ && lo.x == built_min_.x && lo.y == built_min_.y && lo.z == built_min_.z &&
      hi.x == built_max_.x && hi.y == built_max_.y && hi.z == built_max_.z)
    return;
  std::vector<Vec3f> vertices;
  // The floor: a square around the box, big enough that it fades into the sky before its edge.
  const float reach = 3.0f * std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  const float cx = 0.5f * (lo.x + hi.x), cy = 0.5f * (lo.y + hi.y);
  const Vec3f f00{cx - reach, cy - reach, lo.z}, f10{cx + reach, cy - reach, lo.z};
  const Vec3f f01{cx - reach, cy + reach, lo.z}, f11{cx + reach, cy + reach, lo.z};
  vertices.insert(vertices.end(), {f00, f10, f11, f00, f11, f01});
  // The box's corners: bit 0 picks x, bit 1 y, bit 2 z.
  const auto corner = [&](int k) {
    return Vec3f{k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
  };
  // The four side panes (the floor is the bottom, the top is open).
  for (const std::array<int, 4>& pane : {std::array<int, 4>{0, 1, 5, 4}, std::array<int, 4>{2, 3, 7, 6},
                                         std::array<int, 4>{0, 2, 6, 4}, std::array<int, 4>{1, 3, 7, 5}}) {
    vertices.insert(vertices.end(), {corner(pane[0]), corner(pane[1]), corner(pane[2]), corner(pane[0]),
                                     corner(pane[2]), corner(pane[3])});
  }
  // The twelve edges: pairs of corners that differ in one bit.
  for (int k = 0; k < 8; ++k)
    for (int bit : {1, 2, 4})
      if ((k & bit) == 0) vertices.insert(vertices.end(), {corner(k), corner(k | bit)});
  glNamedBufferSubData(box_buffer_, 0, GLsizeiptr(vertices.size() * sizeof(Vec3f)), vertices.data());
  box_built_ = true;
  built_min_ = lo;
  built_max_ = hi;
}

void FluidSurface::draw(const ParticleBuffers& fluid, const SolidMeshes* solids, const OrbitCamera& camera,
                        int width, int height, const RenderSettings& settings) {
  GLint target = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
  resize(width, height);
  update_box(settings);
  const Mat4 view = camera.view();
  const Mat4 projection = camera.projection(float(width) / float(height));
  glEnable(GL_PROGRAM_POINT_SIZE);
  glDepthMask(GL_TRUE);
  if (settings.look.particle_passes == ParticlePasses::compute) reserve_splat_lists(fluid.count());
  draw_environment_texture(light_direction(settings));
  draw_shadow_maps(fluid, solids, settings);
  glViewport(0, 0, width, height);

  // The scene without the water: what the water refracts, and what shows where there is none.
  glBindFramebuffer(GL_FRAMEBUFFER, scene_framebuffer_);
  draw_scene(camera, view, projection, solids, settings);

  // Thickness: every particle in front of the scene, summed. Tested against the scene's depth (not
  // written: water behind water adds to it), so that water behind a solid does not thicken the water seen
  // in front of it. At the thickness's lower resolution (kThicknessDownsampling), against the scene's depth
  // sampled down to it (nearest: depths do not average).
  // The splat (compute) path or the sprites' (raster); with no particles the sprites' clears suffice.
  const bool splatting = settings.look.particle_passes == ParticlePasses::compute && fluid.count() > 0;
  glBlitNamedFramebuffer(scene_framebuffer_, thickness_framebuffer_, 0, 0, width, height, 0, 0,
                         thickness_width_, thickness_height_, GL_DEPTH_BUFFER_BIT, GL_NEAREST);
  if (splatting) {
    const GLuint none = 0;
    glClearTexImage(thickness_splat_, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
    splat(fluid, SplatPass::thickness, thickness_splat_, thickness_width_, thickness_height_, view,
          projection, settings);
    resolve(SplatPass::thickness, thickness_splat_, thickness_, thickness_width_, thickness_height_,
            kFillCorrection * 2.0f * settings.particle_radius / kThicknessUnitsPerChord);
  } else {
    const float zero[4] = {0, 0, 0, 0};
    glClearNamedFramebufferfv(thickness_framebuffer_, GL_COLOR, 0, zero);
    glBindFramebuffer(GL_FRAMEBUFFER, thickness_framebuffer_);
    glViewport(0, 0, thickness_width_, thickness_height_);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_FALSE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    draw_particles(thickness_program_, fluid, view, projection, settings, 0);
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glViewport(0, 0, width, height);
  }

  // Depth of the nearest sphere, spray left out (the thickness decides what is spray).
  if (splatting) {
    glClearTexImage(depth_splat_, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &kNoDepth);
    const GLuint no_spray = 0;
    glClearNamedBufferSubData(spray_particles_, GL_R32UI, 0, sizeof(GLuint), GL_RED_INTEGER, GL_UNSIGNED_INT,
                              &no_spray);
    splat(fluid, SplatPass::depth, depth_splat_, width, height, view, projection, settings);
    resolve(SplatPass::depth, depth_splat_, raw_depth_, width, height, 1.0f);
  } else {
    const float zero[4] = {0, 0, 0, 0}, far_depth = 1.0f;
    glClearNamedFramebufferfv(depth_framebuffer_, GL_COLOR, 0, zero);
    glClearNamedFramebufferfv(depth_framebuffer_, GL_DEPTH, 0, &far_depth);
    glBindFramebuffer(GL_FRAMEBUFFER, depth_framebuffer_);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    draw_particles(depth_program_, fluid, view, projection, settings, settings.look.spray ? 1 : 0);
  }

  smooth_depth(projection, settings);
  blur_thickness(projection, settings);

  // Into the caller's framebuffer: every pixel, with the depth of what it shows.
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(target));
  glViewport(0, 0, width, height);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_ALWAYS);
  composite(view, projection, settings);
  glDepthFunc(GL_LESS);

  if (settings.look.spray) {
    // Bright points over what is there, hidden behind nearer water or glass edges; they add light.
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE);
    glDepthMask(GL_FALSE);
    // Splatting listed the spray: only those are drawn (select 3), not every particle tested again.
    draw_particles(spray_program_, fluid, view, projection, settings, splatting ? 3 : 2);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }
  draw_glass(view, projection, settings);
}

void FluidSurface::draw_scene(const OrbitCamera& camera, const Mat4& view, const Mat4& projection,
                              const SolidMeshes* solids, const RenderSettings& settings) {
  const float far_depth = 1.0f;
  glClearNamedFramebufferfv(scene_framebuffer_, GL_DEPTH, 0, &far_depth);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  set_matrices(sky_program_, view, projection);
  glProgramUniform1i(sky_program_.id(), sky_program_.uniform("u_environment"), 0);
  glBindTextureUnit(0, environment_texture_);
  glUseProgram(sky_program_.id());
  glBindVertexArray(empty_vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  // The solids, opaque: the water refracts them where it lies in front, and hides them (composite) where
  // it lies nearer.
  const Vec3f to_light = light_direction(settings);
  if (solids != nullptr) solids->draw(view, projection, to_light);
  if (!settings.has_box) return;

  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glBindVertexArray(box_vertex_array_);
  if (settings.show_floor) {
    const GLuint program = floor_program_.id();
    set_matrices(floor_program_, view, projection);
    const Vec3f eye = camera.eye();
    const Vec3f lo = settings.box_min, hi = settings.box_max;
    glProgramUniform1f(program, floor_program_.uniform("u_spacing"), std::max(settings.grid_spacing, 1e-6f));
    glProgramUniform3f(program, floor_program_.uniform("u_to_light"), to_light.x, to_light.y, to_light.z);
    glProgramUniform3f(program, floor_program_.uniform("u_eye"), eye.x, eye.y, eye.z);
    glProgramUniform2f(program, floor_program_.uniform("u_center"), 0.5f * (lo.x + hi.x),
                       0.5f * (lo.y + hi.y));
    glProgramUniform1f(program, floor_program_.uniform("u_fade_radius"),
                       3.0f * std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}));
    glProgramUniform1i(program, floor_program_.uniform("u_environment"), 0);
    // The shadow maps' texel (u, v, depth) in [0, 1]^3 from a world point: clip space halved and shifted.
    const ShadowView light = shadow_view(settings);
    Mat4 to_texture = Mat4::identity();
    for (int row = 0; row < 3; ++row) to_texture.at(row, row) = 0.5f, to_texture.at(row, 3) = 0.5f;
    const Mat4 shadow_from_world = to_texture * light.projection * light.view;
    glProgramUniformMatrix4fv(program, floor_program_.uniform("u_shadow_from_world"), 1, GL_FALSE,
                              shadow_from_world.m.data());
    glProgramUniform1i(program, floor_program_.uniform("u_water_shadow_map"), 1);
    glProgramUniform1i(program, floor_program_.uniform("u_solid_shadow_map"), 2);
    glProgramUniform1i(program, floor_program_.uniform("u_water_shadows"), water_shadow_drawn_ ? 1 : 0);
    glProgramUniform1i(program, floor_program_.uniform("u_solid_shadows"), solid_shadow_drawn_ ? 1 : 0);
    glProgramUniform1f(program, floor_program_.uniform("u_water_shadow_strength"), kWaterShadowStrength);
    glProgramUniform1f(program, floor_program_.uniform("u_shadow_depth_m"), light.depth_range_m);
    glProgramUniform1f(program, floor_program_.uniform("u_shadow_width_m"), light.width_m);
    glProgramUniform1f(program, floor_program_.uniform("u_light_angular_radius"), kLightAngularRadius);
    // The narrowest penumbra: one and a half particle radii, so a sheet one particle thick casts an even
    // shadow rather than a pattern of dots; a solid's edge is softened alike, as one light casts both.
    glProgramUniform1f(program, floor_program_.uniform("u_min_penumbra_m"), 1.5f * settings.particle_radius);
    glBindTextureUnit(1, water_shadow_sampled_);
    glBindTextureUnit(2, solid_shadow_map_);
    glUseProgram(program);
    glDrawArrays(GL_TRIANGLES, 0, kFloorVertices);
  }
  if (settings.show_tank) {
    // The edges here too, so that those behind the water are seen through it, refracted.
    set_matrices(solid_program_, view, projection);
    glProgramUniform4fv(solid_program_.id(), solid_program_.uniform("u_color"), 1, kGlassEdge.data());
    glUseProgram(solid_program_.id());
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    glDrawArrays(GL_LINES, kFloorVertices + kPaneVertices, kEdgeVertices);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }
  glBindVertexArray(0);
}

void FluidSurface::draw_particles(const ShaderProgram& program, const ParticleBuffers& fluid,
                                  const Mat4& view, const Mat4& projection, const RenderSettings& settings,
                                  int select) {
  if (fluid.count() == 0) return;
  const GLuint id = program.id();
  set_matrices(program, view, projection);
  glProgramUniform1f(id, program.uniform("u_radius"), settings.particle_radius);
  // The viewport the pass draws into: the thickness's is smaller than the view's.
  GLint viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_VIEWPORT, viewport);
  glProgramUniform2f(id, program.uniform("u_viewport"), float(viewport[2]), float(viewport[3]));
  glProgramUniform1i(id, program.uniform("u_select"), select);
  // The depth pass writes the sphere's depth and declares it conservative (fluid_depth.frag).
  const bool writes_depth = &program == &depth_program_;
  glProgramUniform1i(id, program.uniform("u_at_front"), writes_depth ? 1 : 0);
  glProgramUniform1i(id, program.uniform("u_thickness"), 1);
  glProgramUniform1f(id, program.uniform("u_spray_thickness"), spray_thickness_m(settings));
  glProgramUniform1f(id, program.uniform("u_spray_size"), kSpraySize);
  glProgramUniform1f(id, program.uniform("u_fill_correction"), kFillCorrection);
  glProgramUniform3f(id, program.uniform("u_color"), kSprayBrightness, kSprayBrightness, kSprayBrightness);
  if (select != 0) glBindTextureUnit(1, thickness_);
  glUseProgram(id);
  if (select == 3) {
    // The spray the depth splat listed: its indices and count are in spray_particles_ (fluid_splat.comp).
    glVertexArrayVertexBuffer(spray_vertex_array_, 0, fluid.position_buffer(), 0, sizeof(Vec4f));
    glBindVertexArray(spray_vertex_array_);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, spray_particles_);
    glDrawElementsIndirect(GL_POINTS, GL_UNSIGNED_INT, nullptr);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
  } else {
    glBindVertexArray(fluid.vertex_array());
    glDrawArrays(GL_POINTS, 0, GLsizei(fluid.count()));
  }
  glBindVertexArray(0);
}

void FluidSurface::reserve_splat_lists(std::size_t particles) {
  if (particles <= splat_list_capacity_ && wide_particles_ != 0) return;
  const unsigned old[] = {wide_particles_, spray_particles_};
  glDeleteBuffers(2, old);
  splat_list_capacity_ = particles;
  glCreateBuffers(1, &wide_particles_);
  glCreateBuffers(1, &spray_particles_);
  glNamedBufferData(wide_particles_, GLsizeiptr((kWideListHead + particles) * sizeof(GLuint)), nullptr,
                    GL_DYNAMIC_COPY);
  glNamedBufferData(spray_particles_, GLsizeiptr((kSprayListHead + particles) * sizeof(GLuint)), nullptr,
                    GL_DYNAMIC_COPY);
  // The heads' fixed words, once: work groups 0 x 1 x 1, none listed; 0 points of 1 instance from index 8.
  const GLuint wide_head[kWideListHead] = {0, 1, 1, 0};
  const GLuint spray_head[kSprayListHead] = {0, 1, kSprayListHead, 0, 0, 0, 0, 0};
  glNamedBufferSubData(wide_particles_, 0, sizeof wide_head, wide_head);
  glNamedBufferSubData(spray_particles_, 0, sizeof spray_head, spray_head);
  glVertexArrayElementBuffer(spray_vertex_array_, spray_particles_);
}

void FluidSurface::splat(const ParticleBuffers& fluid, SplatPass pass, unsigned target, int target_width,
                         int target_height, const Mat4& view, const Mat4& projection,
                         const RenderSettings& settings) {
  const ShaderProgram& p = splat_program_;
  const GLuint id = p.id();
  set_matrices(p, view, projection);
  glProgramUniform1f(id, p.uniform("u_radius"), settings.particle_radius);
  glProgramUniform2f(id, p.uniform("u_viewport"), float(target_width), float(target_height));
  glProgramUniform1i(id, p.uniform("u_pass"), int(pass));
  glProgramUniform1ui(id, p.uniform("u_count"), GLuint(fluid.count()));
  glProgramUniform1f(id, p.uniform("u_max_own_px"), kMaxOwnSplatPx);
  glProgramUniform1f(id, p.uniform("u_units_per_chord"), kThicknessUnitsPerChord);
  glProgramUniform1i(id, p.uniform("u_scene_depth"), 0);
  glProgramUniform1i(id, p.uniform("u_thickness"), 1);
  glProgramUniform1i(id, p.uniform("u_spray"), settings.look.spray ? 1 : 0);
  glProgramUniform1f(id, p.uniform("u_spray_thickness"), spray_thickness_m(settings));
  glBindTextureUnit(0, thickness_depth_);
  glBindTextureUnit(1, thickness_);
  glBindImageTexture(0, target, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, fluid.position_buffer());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, wide_particles_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, spray_particles_);
  // No wide particles listed yet: no work groups (word 0), count 0 (word 3).
  const GLuint none = 0;
  for (GLuint word : {0u, 3u})
    glClearNamedBufferSubData(wide_particles_, GL_R32UI, word * sizeof(GLuint), sizeof(GLuint),
                              GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
  glUseProgram(id);
  glProgramUniform1i(id, p.uniform("u_cooperative"), 0);
  const std::size_t groups = (fluid.count() + kSplatGroupSize - 1) / kSplatGroupSize;
  glDispatchCompute(GLuint(std::min<std::size_t>(groups, kMaxSplatGroups)), 1, 1);
  // The list and its work group count, written above, are read by the dispatch below.
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT |
                  GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  glProgramUniform1i(id, p.uniform("u_cooperative"), 1);
  glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, wide_particles_);
  glDispatchComputeIndirect(0);
  glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
  // The image for the resolve (or the floor's sampler), the spray list for its draw.
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT);
}

void FluidSurface::resolve(SplatPass pass, unsigned splatted, unsigned resolved, int width, int height,
                           float metres_per_unit) {
  const ShaderProgram& p = splat_resolve_program_;
  glProgramUniform1i(p.id(), p.uniform("u_pass"), int(pass));
  glProgramUniform1f(p.id(), p.uniform("u_metres_per_unit"), metres_per_unit);
  glBindImageTexture(0, splatted, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
  glBindImageTexture(1, resolved, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
  glUseProgram(p.id());
  glDispatchCompute(GLuint((width + 7) / 8), GLuint((height + 7) / 8), 1);
  // Read by texture fetches next (the depth splat's spray test, the blur, the smoothing), and by the tests'
  // read-backs (glGetTextureImage).
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
}

void FluidSurface::draw_shadow_maps(const ParticleBuffers& fluid, const SolidMeshes* solids,
                                    const RenderSettings& settings) {
  const bool floor_shadows = settings.has_box && settings.show_floor && settings.look.shadows;
  water_shadow_drawn_ = floor_shadows && fluid.count() > 0;
  solid_shadow_drawn_ = floor_shadows && solids != nullptr && solids->count() > 0;
  if (!water_shadow_drawn_ && !solid_shadow_drawn_) return;
  const ShadowView light = shadow_view(settings);
  resize_shadow_maps(shadow_map_size(light, settings.particle_radius));
  const float far_depth = 1.0f;
  const bool splatting = settings.look.particle_passes == ParticlePasses::compute;
  water_shadow_sampled_ = splatting ? water_shadow_splat_view_ : water_shadow_map_;
  if (water_shadow_drawn_ && splatting) {
    // As below, splatted: the nearest depth, 1 where no sphere is (fluid_splat.comp).
    const float far = 1.0f;
    GLuint far_bits = 0;
    std::memcpy(&far_bits, &far, sizeof far_bits);
    glClearTexImage(water_shadow_splat_, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &far_bits);
    splat(fluid, SplatPass::shadow, water_shadow_splat_, shadow_map_size_, shadow_map_size_, light.view,
          light.projection, settings);
  } else if (water_shadow_drawn_) {
    // The particles' spheres seen from the light, depth only: the floor (floor.frag) is in shadow where a
    // sphere lies between it and the light. From the same GL buffers as every other pass: no bus bytes.
    const GLuint id = shadow_program_.id();
    set_matrices(shadow_program_, light.view, light.projection);
    glProgramUniform1f(id, shadow_program_.uniform("u_radius"), settings.particle_radius);
    glProgramUniform2f(id, shadow_program_.uniform("u_viewport"), float(shadow_map_size_),
                       float(shadow_map_size_));
    glProgramUniform1i(id, shadow_program_.uniform("u_select"), 0);
    glProgramUniform1i(id, shadow_program_.uniform("u_at_front"), 1);
    glClearNamedFramebufferfv(water_shadow_framebuffer_, GL_DEPTH, 0, &far_depth);
    glBindFramebuffer(GL_FRAMEBUFFER, water_shadow_framebuffer_);
    glViewport(0, 0, shadow_map_size_, shadow_map_size_);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_BLEND);
    glUseProgram(id);
    glBindVertexArray(fluid.vertex_array());
    glDrawArrays(GL_POINTS, 0, GLsizei(fluid.count()));
    glBindVertexArray(0);
  }
  if (solid_shadow_drawn_) {
    // The solids at this frame's poses (their model matrices, which the app sets each frame from the poses
    // it already reads for drawing them: no further bus bytes), seen from the light. Their own shader, its
    // colour going nowhere (the framebuffer has no colour buffer): only the depth is kept.
    glClearNamedFramebufferfv(solid_shadow_framebuffer_, GL_DEPTH, 0, &far_depth);
    glBindFramebuffer(GL_FRAMEBUFFER, solid_shadow_framebuffer_);
    glViewport(0, 0, shadow_map_size_, shadow_map_size_);
    solids->draw(light.view, light.projection, light_direction(settings));
  }
}

void FluidSurface::smooth_depth(const Mat4& projection, const RenderSettings& settings) {
  smoothed_ = -1;
  if (settings.filter_iterations <= 0 || !(settings.look.filter_radius > 0)) return;
  const bool narrow_range = settings.look.filter == DepthFilter::narrow_range;
  const ShaderProgram& program = narrow_range ? narrow_range_program_ : smooth_program_;
  const GLuint id = program.id();
  const float radius = settings.particle_radius;
  glProgramUniform1i(id, program.uniform("u_depth"), 0);
  glProgramUniform1f(id, program.uniform("u_radius"), radius);
  glProgramUniform1f(id, program.uniform("u_filter_radius"), settings.look.filter_radius);
  glProgramUniform1f(id, program.uniform("u_pixels_per_m"), projection.at(1, 1) * 0.5f * float(height_));
  if (narrow_range) {
    glProgramUniform1f(id, program.uniform("u_threshold"), kNarrowRangeThresholdRadii * radius);
    glProgramUniform1f(id, program.uniform("u_clamp"), kNarrowRangeClampRadii * radius);
    glProgramUniform1i(id, program.uniform("u_raw_depth"), 1);
    glBindTextureUnit(1, raw_depth_);
  } else {
    glProgramUniform1f(id, program.uniform("u_range"), kRangeRadii * radius);
  }
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(id);
  glBindVertexArray(empty_vertex_array_);
  unsigned source = raw_depth_;
  int out = 0;
  for (int iteration = 0; iteration < settings.filter_iterations; ++iteration) {
    for (const auto& [dx, dy] : {std::pair{1, 0}, std::pair{0, 1}}) {
      glBindFramebuffer(GL_FRAMEBUFFER, smooth_framebuffers_[out]);
      glProgramUniform2i(id, program.uniform("u_direction"), dx, dy);
      glBindTextureUnit(0, source);
      glDrawArrays(GL_TRIANGLES, 0, 3);
      source = smooth_depth_[out];
      smoothed_ = out;
      out ^= 1;
    }
  }
  glBindVertexArray(0);
}

void FluidSurface::blur_thickness(const Mat4& projection, const RenderSettings& settings) {
  const GLuint id = blur_program_.id();
  glProgramUniform1i(id, blur_program_.uniform("u_thickness"), 0);
  glProgramUniform1i(id, blur_program_.uniform("u_depth"), 1);
  glProgramUniform1f(id, blur_program_.uniform("u_radius"), settings.particle_radius);
  // At least two radii, so the lumps of the lattice go even when the depth smoothing is turned down.
  glProgramUniform1f(id, blur_program_.uniform("u_filter_radius"),
                     std::max(settings.look.filter_radius, 2.0f));
  glProgramUniform1f(id, blur_program_.uniform("u_pixels_per_m"),
                     projection.at(1, 1) * 0.5f * float(thickness_height_));
  glViewport(0, 0, thickness_width_, thickness_height_);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(id);
  glBindVertexArray(empty_vertex_array_);
  glBindTextureUnit(1, raw_depth_);
  unsigned source = thickness_;
  for (int pass = 0; pass < 2; ++pass) {
    glBindFramebuffer(GL_FRAMEBUFFER, blur_framebuffers_[pass]);
    glProgramUniform2i(id, blur_program_.uniform("u_direction"), pass == 0 ? 1 : 0, pass == 0 ? 0 : 1);
    glBindTextureUnit(0, source);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    source = blurred_thickness_[pass];
  }
  glBindVertexArray(0);
  glViewport(0, 0, width_, height_);
}

void FluidSurface::composite(const Mat4& view, const Mat4& projection, const RenderSettings& settings) {
  const GLuint id = composite_program_.id();
  const auto& p = composite_program_;
  set_matrices(p, view, projection);
  glProgramUniform1i(id, p.uniform("u_depth"), 0);
  glProgramUniform1i(id, p.uniform("u_thickness"), 1);
  glProgramUniform1i(id, p.uniform("u_scene_color"), 2);
  glProgramUniform1i(id, p.uniform("u_scene_depth"), 3);
  glProgramUniform1i(id, p.uniform("u_environment"), 4);
  glProgramUniform2f(id, p.uniform("u_viewport"), float(width_), float(height_));
  glProgramUniform1f(id, p.uniform("u_pixels_per_m"), projection.at(1, 1) * 0.5f * float(height_));
  const Vec3f to_light = eye_direction(view, light_direction(settings));
  glProgramUniform3f(id, p.uniform("u_to_light_eye"), to_light.x, to_light.y, to_light.z);
  // Beer-Lambert with the colour left after 1/absorption metres: exp(-k / absorption) = colour, so
  // k = -ln(colour) * absorption per channel.
  const Vec3f color = settings.look.color;
  const auto coefficient = [&](float share) {
    return -std::log(std::clamp(share, 1e-3f, 1.0f)) * settings.look.absorption;
  };
  glProgramUniform3f(id, p.uniform("u_absorption"), coefficient(color.x), coefficient(color.y),
                     coefficient(color.z));
  glProgramUniform3f(id, p.uniform("u_scatter_color"), kScatterShare * color.x, kScatterShare * color.y,
                     kScatterShare * color.z);
  glProgramUniform1f(id, p.uniform("u_refraction"), settings.look.refraction);
  glProgramUniform1f(id, p.uniform("u_specular"), settings.specular);
  glBindTextureUnit(0, smoothed_ >= 0 ? smooth_depth_[smoothed_] : raw_depth_);
  glBindTextureUnit(1, blurred_thickness_[1]);
  glBindTextureUnit(2, scene_color_);
  glBindTextureUnit(3, scene_depth_);
  glBindTextureUnit(4, environment_texture_);
  glDisable(GL_BLEND);
  glUseProgram(id);
  glBindVertexArray(empty_vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
}

void FluidSurface::draw_glass(const Mat4& view, const Mat4& projection, const RenderSettings& settings) {
  if (!settings.has_box || !settings.show_tank) return;
  // Tinted panes and bright edges over the water and the scene, depth-tested against the water so a pane
  // behind it stays behind, never writing depth: glass hides nothing.
  set_matrices(solid_program_, view, projection);
  glUseProgram(solid_program_.id());
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_FALSE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glBindVertexArray(box_vertex_array_);
  glProgramUniform4fv(solid_program_.id(), solid_program_.uniform("u_color"), 1, kGlassPane.data());
  glDrawArrays(GL_TRIANGLES, kFloorVertices, kPaneVertices);
  glProgramUniform4fv(solid_program_.id(), solid_program_.uniform("u_color"), 1, kGlassEdge.data());
  glDrawArrays(GL_LINES, kFloorVertices + kPaneVertices, kEdgeVertices);
  glBindVertexArray(0);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
}

std::vector<float> FluidSurface::read_texture(unsigned texture) const {
  const std::size_t row = std::size_t(width_);
  std::vector<float> bottom_up(row * std::size_t(height_));
  if (bottom_up.empty()) return bottom_up;
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(texture, 0, GL_RED, GL_FLOAT, GLsizei(bottom_up.size() * sizeof(float)),
                    bottom_up.data());
  std::vector<float> top_down(bottom_up.size());
  for (int y = 0; y < height_; ++y) {
    std::memcpy(&top_down[std::size_t(y) * row], &bottom_up[std::size_t(height_ - 1 - y) * row],
                row * sizeof(float));
  }
  return top_down;
}

std::vector<float> FluidSurface::read_depth(bool smoothed) const {
  return read_texture(smoothed && smoothed_ >= 0 ? smooth_depth_[smoothed_] : raw_depth_);
}

std::vector<float> FluidSurface::read_water_shadow_map() const {
  if (!water_shadow_drawn_) return {};
  std::vector<float> out(std::size_t(shadow_map_size_) * std::size_t(shadow_map_size_));
  const bool splatted = water_shadow_sampled_ == water_shadow_splat_view_;
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(water_shadow_sampled_, 0, splatted ? GL_RED : GL_DEPTH_COMPONENT, GL_FLOAT,
                    GLsizei(out.size() * sizeof(float)), out.data());
  return out;
}

std::vector<float> FluidSurface::read_thickness_texels(bool blurred) const {
  const unsigned texture = blurred ? blurred_thickness_[1] : thickness_;
  std::vector<float> texels(std::size_t(thickness_width_) * std::size_t(thickness_height_));
  if (texels.empty()) return texels;
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(texture, 0, GL_RED, GL_FLOAT, GLsizei(texels.size() * sizeof(float)), texels.data());
  return texels;
}

std::vector<float> FluidSurface::read_thickness(bool blurred) const {
  std::vector<float> out(std::size_t(width_) * std::size_t(height_));
  if (out.empty()) return out;
  const std::vector<float> low = read_thickness_texels(blurred);
  // Bilinear, from the texel centres, clamped at the edges: as the composite's texture() reads it.
  const auto at = [&](int x, int y) {
    x = std::clamp(x, 0, thickness_width_ - 1);
    y = std::clamp(y, 0, thickness_height_ - 1);
    return low[std::size_t(y) * std::size_t(thickness_width_) + std::size_t(x)];
  };
  const float scale_x = float(thickness_width_) / float(width_);
  const float scale_y = float(thickness_height_) / float(height_);
  for (int y = 0; y < height_; ++y) {
    const float v = (float(y) + 0.5f) * scale_y - 0.5f;
    const int y0 = int(std::floor(v));
    const float fy = v - float(y0);
    for (int x = 0; x < width_; ++x) {
      const float u = (float(x) + 0.5f) * scale_x - 0.5f;
      const int x0 = int(std::floor(u));
      const float fx = u - float(x0);
      const float value = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) +
                          fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1));
      out[std::size_t(height_ - 1 - y) * std::size_t(width_) + std::size_t(x)] = value;  // rows from the top
    }
  }
  return out;
}

}  // namespace surge::render
