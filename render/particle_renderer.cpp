#include "render/particle_renderer.h"

#include <glad/gl.h>

#include <cstdio>
#include <cstring>

#include "render/fluid_surface.h"
#include "stb_easy_font.h"

namespace surge::render {
namespace {

constexpr int kColorMapSamples = 256;

// One overlay vertex: pixel position, colour, and a colour-map position (< 0: use the colour).
struct OverlayVertex {
  float x, y;
  float r, g, b, a;
  float map_position;
};

void add_quad(std::vector<OverlayVertex>& out, float x0, float y0, float x1, float y1, Rgb color,
              float map_bottom = -1.0f, float map_top = -1.0f) {
  const OverlayVertex top_left{x0, y0, color.r, color.g, color.b, 1.0f, map_top};
  const OverlayVertex top_right{x1, y0, color.r, color.g, color.b, 1.0f, map_top};
  const OverlayVertex bottom_left{x0, y1, color.r, color.g, color.b, 1.0f, map_bottom};
  const OverlayVertex bottom_right{x1, y1, color.r, color.g, color.b, 1.0f, map_bottom};
  out.insert(out.end(), {top_left, bottom_left, bottom_right, top_left, bottom_right, top_right});
}

// Text as quads from stb_easy_font (a public-domain header in libstb-dev), scaled from its 7-pixel font.
void add_text(std::vector<OverlayVertex>& out, float x, float y, float scale, const std::string& text,
              Rgb color) {
  struct EasyFontVertex {
    float x, y, z;
    unsigned char rgba[4];
  };
  static EasyFontVertex scratch[4 * 1024];
  const int quads =
      stb_easy_font_print(0, 0, const_cast<char*>(text.c_str()), nullptr, scratch, sizeof scratch);
  for (int q = 0; q < quads; ++q) {
    const EasyFontVertex* v = &scratch[4 * q];
    add_quad(out, x + scale * v[0].x, y + scale * v[0].y, x + scale * v[2].x, y + scale * v[2].y, color);
  }
}

}  // namespace

ParticleBuffers::ParticleBuffers() {
  glCreateVertexArrays(1, &vertex_array_);
  glEnableVertexArrayAttrib(vertex_array_, 0);
  glVertexArrayAttribFormat(vertex_array_, 0, 4, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(vertex_array_, 0, 0);
  glEnableVertexArrayAttrib(vertex_array_, 1);
  glVertexArrayAttribFormat(vertex_array_, 1, 1, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(vertex_array_, 1, 1);
}

ParticleBuffers::~ParticleBuffers() {
  glDeleteBuffers(1, &position_buffer_);
  glDeleteBuffers(1, &scalar_buffer_);
  glDeleteVertexArrays(1, &vertex_array_);
}

void ParticleBuffers::resize(std::size_t count) {
  count_ = count;
  if (count <= capacity_ && position_buffer_ != 0) return;
  glDeleteBuffers(1, &position_buffer_);
  glDeleteBuffers(1, &scalar_buffer_);
  capacity_ = std::max<std::size_t>(count, 1);
  glCreateBuffers(1, &position_buffer_);
  glNamedBufferData(position_buffer_, GLsizeiptr(capacity_ * sizeof(Vec4f)), nullptr, GL_DYNAMIC_DRAW);
  glCreateBuffers(1, &scalar_buffer_);
  glNamedBufferData(scalar_buffer_, GLsizeiptr(capacity_ * sizeof(float)), nullptr, GL_DYNAMIC_DRAW);
  glVertexArrayVertexBuffer(vertex_array_, 0, position_buffer_, 0, sizeof(Vec4f));
  glVertexArrayVertexBuffer(vertex_array_, 1, scalar_buffer_, 0, sizeof(float));
}

std::size_t ParticleBuffers::upload(const ParticleView& view) {
  resize(view.count);
  if (view.count == 0) return 0;
  std::size_t bytes = view.count * sizeof(Vec4f);
  glNamedBufferSubData(position_buffer_, 0, GLsizeiptr(bytes), view.position);
  if (view.scalar) {
    glNamedBufferSubData(scalar_buffer_, 0, GLsizeiptr(view.count * sizeof(float)), view.scalar);
    bytes += view.count * sizeof(float);
  }
  return bytes;
}

ParticleRenderer::ParticleRenderer(const std::filesystem::path& shaders)
    : shader_dir_(shaders),
      sphere_program_(shaders / "particle_sphere.vert", shaders / "particle_sphere.frag"),
      glow_program_(shaders / "glow.vert", shaders / "glow.frag"),
      overlay_program_(shaders / "overlay.vert", shaders / "overlay.frag"),
      solids_(shaders) {
  const std::vector<unsigned char> map = sample_color_map(kColorMapSamples);
  glCreateTextures(GL_TEXTURE_1D, 1, &color_map_texture_);
  glTextureStorage1D(color_map_texture_, 1, GL_RGB8, kColorMapSamples);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTextureSubImage1D(color_map_texture_, 0, 0, kColorMapSamples, GL_RGB, GL_UNSIGNED_BYTE, map.data());
  glTextureParameteri(color_map_texture_, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(color_map_texture_, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTextureParameteri(color_map_texture_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);

  glCreateVertexArrays(1, &overlay_vertex_array_);
  glCreateBuffers(1, &overlay_buffer_);
  glVertexArrayVertexBuffer(overlay_vertex_array_, 0, overlay_buffer_, 0, sizeof(OverlayVertex));
  const GLuint offsets[3] = {offsetof(OverlayVertex, x), offsetof(OverlayVertex, r),
                             offsetof(OverlayVertex, map_position)};
  const GLint sizes[3] = {2, 4, 1};
  for (GLuint attribute = 0; attribute < 3; ++attribute) {
    glEnableVertexArrayAttrib(overlay_vertex_array_, attribute);
    glVertexArrayAttribFormat(overlay_vertex_array_, attribute, sizes[attribute], GL_FLOAT, GL_FALSE,
                              offsets[attribute]);
    glVertexArrayAttribBinding(overlay_vertex_array_, attribute, 0);
  }
}

ParticleRenderer::~ParticleRenderer() {
  surface_.reset();
  glDeleteTextures(1, &color_map_texture_);
  glDeleteBuffers(1, &overlay_buffer_);
  glDeleteVertexArrays(1, &overlay_vertex_array_);
}

void ParticleRenderer::draw(const OrbitCamera& camera, int width, int height,
                            const RenderSettings& settings) {
  if (settings.look.style == RenderStyle::surface) {
    if (!surface_) surface_ = std::make_unique<FluidSurface>(shader_dir_);
    surface_->draw(fluid_, settings.show_solids ? &solids_ : nullptr, camera, width, height, settings);
    // The walls as in the spheres style, over the water (whose depth the surface wrote). No colour bar: the
    // water is not coloured by a quantity.
    if (settings.show_boundary) draw_boundary(camera, width, height, settings);
    return;
  }
  if (settings.look.style == RenderStyle::glow) {
    draw_glow(camera, width, height, settings);
    if (settings.show_color_bar && settings.color_by != ColorBy::fixed)
      draw_color_bar(width, height, settings);
    return;
  }
  glViewport(0, 0, width, height);
  glClearColor(settings.background.r, settings.background.g, settings.background.b, 1.0f);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_BLEND);
  glEnable(GL_PROGRAM_POINT_SIZE);
  draw_particles(fluid_, camera, width, height, settings, settings.color_by != ColorBy::fixed,
                 kFixedParticleColor);
  if (settings.show_solids)
    solids_.draw(camera.view(), camera.projection(float(width) / float(height)), light_direction(settings));
  if (settings.show_boundary) draw_boundary(camera, width, height, settings);
  if (settings.show_color_bar && settings.color_by != ColorBy::fixed) draw_color_bar(width, height, settings);
}

void ParticleRenderer::draw_boundary(const OrbitCamera& camera, int width, int height,
                                     const RenderSettings& settings) {
  // After the fluid, depth-tested against it but not written: a wall in front of the fluid tints it, a
  // wall behind it stays hidden, and the wall spheres do not hide one another.
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
  draw_particles(boundary_, camera, width, height, settings, false, kBoundaryParticleColor,
                 settings.boundary_opacity);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
}

void ParticleRenderer::draw_glow(const OrbitCamera& camera, int width, int height,
                                 const RenderSettings& settings) {
  // Night: the glow reads against black, and adding light to a grey background would wash it out.
  glViewport(0, 0, width, height);
  glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  if (fluid_.count() == 0) return;
  // Light adds up in any order: no depth test, no sorting.
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE);
  glEnable(GL_PROGRAM_POINT_SIZE);
  const GLuint program = glow_program_.id();
  const Mat4 view = camera.view();
  const Mat4 projection = camera.projection(float(width) / float(height));
  glProgramUniformMatrix4fv(program, glow_program_.uniform("u_view"), 1, GL_FALSE, view.m.data());
  glProgramUniformMatrix4fv(program, glow_program_.uniform("u_projection"), 1, GL_FALSE, projection.m.data());
  // A reference body's sprite twice its sphere's radius, so neighbours' halos meet and a crowd glows as one.
  glProgramUniform1f(program, glow_program_.uniform("u_radius"), 2.0f * settings.particle_radius);
  glProgramUniform1f(program, glow_program_.uniform("u_reference_mass"), settings.reference_mass);
  glProgramUniform1f(program, glow_program_.uniform("u_viewport_height"), float(height));
  glProgramUniform1f(program, glow_program_.uniform("u_peak"), settings.glow_peak);
  float low = settings.color_min, high = settings.color_max;
  if (!(high > low)) low -= 0.5f, high = low + 1.0f;
  glProgramUniform2f(program, glow_program_.uniform("u_scalar_range"), low, high);
  glProgramUniform1i(program, glow_program_.uniform("u_use_color_map"), settings.color_by != ColorBy::fixed);
  glProgramUniform3f(program, glow_program_.uniform("u_fixed_color"), kGlowColor.r, kGlowColor.g,
                     kGlowColor.b);
  glProgramUniform1i(program, glow_program_.uniform("u_color_map"), 0);
  glBindTextureUnit(0, color_map_texture_);
  glUseProgram(program);
  glBindVertexArray(fluid_.vertex_array());
  glDrawArrays(GL_POINTS, 0, GLsizei(fluid_.count()));
  glBindVertexArray(0);
  glDisable(GL_BLEND);
  glEnable(GL_DEPTH_TEST);
}

void ParticleRenderer::draw_particles(const ParticleBuffers& buffers, const OrbitCamera& camera, int width,
                                      int height, const RenderSettings& settings, bool use_color_map,
                                      Rgb fixed_color, float alpha) {
  if (buffers.count() == 0) return;
  const GLuint program = sphere_program_.id();
  glUseProgram(program);
  const Mat4 view = camera.view();
  const Mat4 projection = camera.projection(float(width) / float(height));
  glProgramUniformMatrix4fv(program, sphere_program_.uniform("u_view"), 1, GL_FALSE, view.m.data());
  glProgramUniformMatrix4fv(program, sphere_program_.uniform("u_projection"), 1, GL_FALSE,
                            projection.m.data());
  glProgramUniform1f(program, sphere_program_.uniform("u_radius"), settings.particle_radius);
  // The walls' w is their volume, not a radius: only the moving particles may carry radii.
  glProgramUniform1i(program, sphere_program_.uniform("u_radius_from_w"),
                     settings.radius_from_w && &buffers == &fluid_ ? 1 : 0);
  glProgramUniform1f(program, sphere_program_.uniform("u_viewport_height"), float(height));
  // An empty range would divide by zero; widen it symmetrically.
  float low = settings.color_min, high = settings.color_max;
  if (!(high > low)) low -= 0.5f, high = low + 1.0f;
  glProgramUniform2f(program, sphere_program_.uniform("u_scalar_range"), low, high);
  glProgramUniform1i(program, sphere_program_.uniform("u_use_color_map"), use_color_map ? 1 : 0);
  glProgramUniform3f(program, sphere_program_.uniform("u_fixed_color"), fixed_color.r, fixed_color.g,
                     fixed_color.b);
  glProgramUniform1i(program, sphere_program_.uniform("u_lighting"), settings.lighting ? 1 : 0);
  glProgramUniform1f(program, sphere_program_.uniform("u_alpha"), alpha);
  glProgramUniform1i(program, sphere_program_.uniform("u_color_map"), 0);
  glBindTextureUnit(0, color_map_texture_);
  glBindVertexArray(buffers.vertex_array());
  glDrawArrays(GL_POINTS, 0, GLsizei(buffers.count()));
  glBindVertexArray(0);
}

void ParticleRenderer::draw_color_bar(int width, int height, const RenderSettings& settings) {
  // Sized for the image: a bar half the image high at the right edge, labels at 1x to 3x font scale.
  const float scale = float(std::max(1, std::min(3, height / 360)));
  const float bar_width = 12.0f * scale, bar_height = 0.5f * float(height);
  const float right_margin = 70.0f * scale;
  const float x0 = float(width) - right_margin, x1 = x0 + bar_width;
  const float y0 = 0.25f * float(height), y1 = y0 + bar_height;
  const Rgb text_color{0.92f, 0.92f, 0.92f};
  std::vector<OverlayVertex> vertices;
  add_quad(vertices, x0 - scale, y0 - scale, x1 + scale, y1 + scale, text_color);  // frame
  add_quad(vertices, x0, y0, x1, y1, {}, 0.0f, 1.0f);
  add_text(vertices, x1 + 4.0f * scale, y0 - 3.0f * scale, scale, format_color_bar_value(settings.color_max),
           text_color);
  add_text(vertices, x1 + 4.0f * scale, y1 - 3.0f * scale, scale, format_color_bar_value(settings.color_min),
           text_color);
  add_text(vertices, x0 - 20.0f * scale, y0 - 16.0f * scale, scale, color_by_label(settings.color_by),
           text_color);

  glNamedBufferData(overlay_buffer_, GLsizeiptr(vertices.size() * sizeof(OverlayVertex)), vertices.data(),
                    GL_STREAM_DRAW);
  const GLuint program = overlay_program_.id();
  glUseProgram(program);
  glProgramUniform2f(program, overlay_program_.uniform("u_viewport"), float(width), float(height));
  glProgramUniform1i(program, overlay_program_.uniform("u_color_map"), 0);
  glBindTextureUnit(0, color_map_texture_);
  glDisable(GL_DEPTH_TEST);
  glBindVertexArray(overlay_vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, GLsizei(vertices.size()));
  glBindVertexArray(0);
  glEnable(GL_DEPTH_TEST);
}

std::string format_color_bar_value(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", double(value));
  return text;
}

}  // namespace surge::render
