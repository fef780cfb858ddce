// Splatting (shaders/fluid_splat.comp: the surface style's shadow map, thickness and depth passes done by a
// compute shader with image atomics, particle_passes = "compute") against the point sprites it replaces
// ("sprites"), on the dam break as `surge run --render` frames it, in a real GL context (Mesa offscreen).
// The same particles go through both paths in one context; each pass's image must agree pixel for pixel,
// within what rounding and a pixel centre on a sprite's very edge can change.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "app/backend_choice.h"
#include "app/graphics/render_defaults.h"
#include "render/camera.h"
#include "render/fluid_surface.h"
#include "render/headless_gl_context.h"
#include "render/offscreen_target.h"
#include "render/particle_renderer.h"
#include "render/png_writer.h"
#include "sim/scene/scene.h"

namespace surge::app {
namespace {

constexpr int kWidth = 480, kHeight = 270;
constexpr double kTime = 0.12;  // [s] of the dam break

// What one frame's passes left, for one path.
struct Passes {
  std::vector<std::uint8_t> rgba;
  std::vector<float> raw_depth, smooth_depth, thickness, shadow_map;  // top row first, at the view's size
  std::vector<float> thickness_texels;  // the thickness pass's own image: its resolution, bottom row first
};

// How far two images of one pass are apart. A pixel is "covered" where its value differs from `empty`.
struct Difference {
  long covered = 0;     // pixels covered in the sprites' image
  long mismatched = 0;  // covered in one image and not in the other
  long beyond = 0;      // covered in both, differing by more than the tolerance
  double largest = 0;   // the largest difference where both are covered
  double mean = 0;      // the mean difference where both are covered
  double sum_sprites = 0, sum_splat = 0;
};

Difference compare(const std::vector<float>& sprites, const std::vector<float>& splat, float empty,
                   float tolerance) {
  Difference out;
  EXPECT_EQ(sprites.size(), splat.size());
  for (std::size_t k = 0; k < std::min(sprites.size(), splat.size()); ++k) {
    const bool in_sprites = sprites[k] != empty, in_splat = splat[k] != empty;
    out.covered += in_sprites;
    out.mismatched += in_sprites != in_splat;
    if (!in_sprites || !in_splat) continue;
    const double difference = std::abs(sprites[k] - splat[k]);
    out.largest = std::max(out.largest, difference);
    out.beyond += difference > tolerance;
    out.sum_sprites += sprites[k];
    out.sum_splat += splat[k];
    out.mean += difference;
  }
  out.mean /= double(std::max(out.covered - out.mismatched, 1L));
  return out;
}

// Where tests leave pictures to look at: $OUT, else the temporary directory.
std::filesystem::path picture_directory() {
  const char* out = std::getenv("OUT");
  return out && *out ? std::filesystem::path(out) : std::filesystem::temp_directory_path();
}

class SplatTest : public ::testing::Test {
 protected:
  // The dam break (3000 particles) stepped on the CPU to t = 0.12 s: the column collapsing, its front
  // running along the floor, so the frame holds a bulk, a thin front and their shadow.
  static void SetUpTestSuite() {
    const Scene scene = load_scene(std::filesystem::path(SURGE_SOURCE_DIR) / "scenes" / "dam_break.toml");
    BackendChoice backend = choose_backend(ExecutionMode::cpu, scene, {.particles_override = 3000});
    Simulation& simulation = *backend.simulation;
    while (simulation.status().time_s < kTime) simulation.step();
    ParticleFrame frame;
    simulation.download(frame);
    positions_ = frame.position;
    look_ = scene_look(simulation);
    context_ = std::make_unique<render::HeadlessGlContext>();
    std::printf("%s\n", context_->description().c_str());  // whose rasteriser the splat is held to
  }
  static void TearDownTestSuite() { context_.reset(); }

  void SetUp() override {
    camera_ = render::OrbitCamera::framing(look_.domain_min, look_.domain_max,
                                           *render::parse_camera_preset("perspective"));
    settings_.particle_radius = look_.particle_radius;
    settings_.show_color_bar = false;
    RenderLook surface;
    surface.style = RenderStyle::surface;
    apply_render_look(surface, look_, settings_);
  }

  Passes render(ParticlePasses passes) {
    render::ParticleRenderer renderer;
    renderer.fluid().upload({positions_.size(), positions_.data(), nullptr});
    render::OffscreenTarget target(kWidth, kHeight);
    target.bind();
    settings_.look.particle_passes = passes;
    renderer.draw(camera_, kWidth, kHeight, settings_);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR)) << particle_passes_name(passes);
    const render::FluidSurface& surface = *renderer.surface();
    return {target.read_rgba(),
            surface.read_depth(false),
            surface.read_depth(true),
            surface.read_thickness(false),
            surface.read_water_shadow_map(),
            surface.read_thickness_texels(false)};
  }

  // The median sprite's width [px] in the view (fluid_particle.vert's point size).
  float median_sprite_px() const {
    const render::Mat4 view = camera_.view(), projection = camera_.projection(float(kWidth) / float(kHeight));
    std::vector<float> widths;
    for (const Vec4f& p : positions_) {
      const render::Vec4 eye = view * render::Vec4{p.x, p.y, p.z, 1.0f};
      widths.push_back(2.0f * settings_.particle_radius * projection.at(1, 1) * 0.5f * kHeight / -eye.z);
    }
    std::nth_element(widths.begin(), widths.begin() + long(widths.size() / 2), widths.end());
    return widths[widths.size() / 2];
  }

  static std::vector<Vec4f> positions_;
  static SceneLook look_;
  static std::unique_ptr<render::HeadlessGlContext> context_;
  render::OrbitCamera camera_;
  render::RenderSettings settings_;
};
std::vector<Vec4f> SplatTest::positions_;
SceneLook SplatTest::look_;
std::unique_ptr<render::HeadlessGlContext> SplatTest::context_;

// Pixels whose colour differs by more than `by` levels in some channel, and the largest difference.
std::pair<long, int> colour_difference(const Passes& a, const Passes& b, int by) {
  long count = 0;
  int largest = 0;
  for (std::size_t k = 0; k < a.rgba.size(); k += 4) {
    int worst = 0;
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(a.rgba[k + c]) - int(b.rgba[k + c])));
    count += worst > by;
    largest = std::max(largest, worst);
  }
  return {count, largest};
}

void print(const char* name, const Difference& d) {
  std::printf(
      "%-9s covered %6ld px, by one path only %3ld, beyond the tolerance %4ld, difference: mean %.2g, "
      "largest %.2g; sums %.7g / %.7g\n",
      name, d.covered, d.mismatched, d.beyond, d.mean, d.largest, d.sum_sprites, d.sum_splat);
}

// Both paths on the frame as it is now, compared pass by pass. They compute the same formulas from the same
// sprite centre and size: fluid_splat.comp per pixel it visits, the fragment shaders from gl_FragCoord (not
// gl_PointCoord, whose placement GL leaves to the rasteriser; fluid_particle.vert). What remains is rounding
// (a shader compiler may fuse the vertex and compute stages' arithmetic differently), which the sphere's
// sqrt(1 - r^2) (its depth, its chord) magnifies at a sprite's rim, where two spheres meeting can switch the
// nearer one. Tolerances, with what Mesa llvmpipe gave in brackets (framed; close up):
// - coverage: at most 0.1 % of the covered pixels covered by one path only [0; 0];
// - depth, raw and smoothed: mean difference within 0.2 % (smoothed 0.1 %) of a particle radius [raw 1.8e-8
// m,
//   smoothed 1.5e-7 m; 2.6e-9 m, 3e-8 m], at most 0.1 % of the pixels beyond 10 % of a radius [0; 0];
// - thickness: mean difference within 0.1 % of the mean thickness [1.4e-6; 1.3e-6], total within 1e-4 of
//   itself [equal to 7 digits; equal] (its fixed-point step here is 2.8e-7 m, a 65536th of a chord);
// - shadow map: mean difference within 1e-5 of its depth range [0], at most 0.1 % of its pixels beyond 1e-3
//   [0];
// - the picture: at most 0.1 % of its pixels differ by more than 2 levels of 255 in some channel [0; 0.005
// %],
//   none by more than 32 (room for a spray point on the test's threshold to flip) [1; 5].
void expect_same_passes(const Passes& sprites, const Passes& splat, float radius, const char* what) {
  SCOPED_TRACE(what);
  const Difference depth = compare(sprites.raw_depth, splat.raw_depth, 0.0f, 0.1f * radius);
  const Difference smoothed = compare(sprites.smooth_depth, splat.smooth_depth, 0.0f, 0.1f * radius);
  const Difference thickness = compare(sprites.thickness, splat.thickness, 0.0f, 0.1f * radius);
  const Difference shadow = compare(sprites.shadow_map, splat.shadow_map, 1.0f, 1e-3f);
  const auto [changed, largest_change] = colour_difference(sprites, splat, 2);
  print("depth", depth);
  print("smoothed", smoothed);
  print("thickness", thickness);
  print("shadow", shadow);
  std::printf("picture: %ld px differ by more than 2 levels, the largest by %d\n", changed, largest_change);
  ASSERT_GT(depth.covered, 1000) << "too little water in the frame to compare";
  for (const auto& [name, d, mean] :
       {std::tuple{"depth", depth, 0.002f * radius}, std::tuple{"smoothed", smoothed, 0.001f * radius}}) {
    EXPECT_LE(d.mismatched, d.covered / 1000) << name;
    EXPECT_LE(d.mean, mean) << name;
    EXPECT_LE(d.beyond, d.covered / 1000) << name;
  }
  EXPECT_LE(thickness.mismatched, thickness.covered / 1000);
  EXPECT_LE(thickness.mean, 0.001 * thickness.sum_sprites / double(thickness.covered));
  EXPECT_NEAR(thickness.sum_splat, thickness.sum_sprites, 1e-4 * thickness.sum_sprites);
  if (!sprites.shadow_map.empty()) {
    ASSERT_GT(shadow.covered, 1000) << "too little water in the shadow map to compare";
    EXPECT_LE(shadow.mismatched, shadow.covered / 1000);
    EXPECT_LE(shadow.mean, 1e-5);
    EXPECT_LE(shadow.beyond, shadow.covered / 1000);
  }
  EXPECT_LE(changed, long(sprites.rgba.size() / 4 / 1000));
  EXPECT_LE(largest_change, 32);
}

// The frame `surge run --render` draws, at this size sprites about 3 px across, each splatted by one
// invocation (and the shadow map's about 2).
TEST_F(SplatTest, TheDamBreakSplattedIsTheDamBreakDrawnAsSprites) {
  const Passes sprites = render(ParticlePasses::sprites);
  const Passes splat = render(ParticlePasses::compute);
  std::printf("dam break, %zu particles at t = %.2f s, %dx%d, sprites %.2f px across (median):\n",
              positions_.size(), kTime, kWidth, kHeight, median_sprite_px());
  expect_same_passes(sprites, splat, look_.particle_radius, "framed as surge run frames it");
  const std::filesystem::path pictures = picture_directory();
  render::write_png(pictures / "splat_dam_break_sprites.png", kWidth, kHeight, sprites.rgba);
  render::write_png(pictures / "splat_dam_break_compute.png", kWidth, kHeight, splat.rgba);
}

// Close up, sprites wider than one invocation splats (kMaxOwnSplatPx, 6 px): each is listed and splatted
// by a work group of its own; the passes still agree.
TEST_F(SplatTest, WideSpritesNearTheCameraAreSplattedAlike) {
  camera_.target = {0.12f, 0.073f, 0.06f};  // the collapsing column's front
  camera_.distance = 0.3f;
  const Passes sprites = render(ParticlePasses::sprites);
  const Passes splat = render(ParticlePasses::compute);
  const float width_px = median_sprite_px();
  std::printf("close up: sprites %.1f px across (median)\n", width_px);
  ASSERT_GT(width_px, 12.0f) << "the close-up does not make wide sprites";
  expect_same_passes(sprites, splat, look_.particle_radius, "close up");
  render::write_png(picture_directory() / "splat_dam_break_close_up.png", kWidth, kHeight, splat.rgba);
}

// What one path drew against the sphere's exact footprint: the pixels whose centres lie on its disc,
// each with the depth of the sphere's surface there and its chord (fluid_particle.vert, fluid_splat.comp).
struct FootprintError {
  long pixels = 0;              // pixels on some sphere's disc, away from its rim
  long missing = 0, extra = 0;  // such pixels not drawn; pixels drawn off every disc (rims aside)
  double worst_depth = 0;       // [m]
  double worst_thickness = 0;   // [m]
};

// One particle's sprite in a target of `width` x `height` px, computed in double from the same formulas.
struct ExactSprite {
  double window_x, window_y, size, area_share, center_eye_z;
  bool in_frame;  // its centre in the view: GL draws a point whose centre is outside not at all
};

ExactSprite exact_sprite(const render::Mat4& view, const render::Mat4& projection, const Vec4f& p,
                         double radius, int width, int height) {
  double eye[4], clip[4];
  for (int r = 0; r < 4; ++r) {
    eye[r] = view.at(r, 0) * double(p.x) + view.at(r, 1) * double(p.y) + view.at(r, 2) * double(p.z) +
             view.at(r, 3);
  }
  for (int r = 0; r < 4; ++r) {
    clip[r] = 0;
    for (int c = 0; c < 4; ++c) clip[r] += projection.at(r, c) * eye[c];
  }
  const double diameter = radius * projection.at(1, 1) * height / clip[3];
  const double size = std::max(diameter, 1.0);
  return {(clip[0] / clip[3] * 0.5 + 0.5) * width,
          (clip[1] / clip[3] * 0.5 + 0.5) * height,
          size,
          diameter * diameter / (size * size),
          eye[2],
          std::abs(clip[0]) <= clip[3] && std::abs(clip[1]) <= clip[3]};
}

// Compares a pass's image (bottom row first; depth: [m] in front of the eye; thickness: [m] of water) with
// the exact one.
// Pixels within 1e-3 of a disc's rim (r^2 in [0.999, 1.001]) are left out: there float rounding of r^2
// decides either way, in either path.
FootprintError footprint_error(const std::vector<ExactSprite>& sprites, const std::vector<float>& image,
                               int width, int height, double radius, bool thickness) {
  FootprintError out;
  std::vector<double> exact(std::size_t(width) * height, -1.0);  // -1: on no disc; NaN: on a rim
  for (const ExactSprite& s : sprites) {
    if (!s.in_frame) continue;
    const int x0 = std::max(int(std::floor(s.window_x - s.size)), 0);
    const int x1 = std::min(int(std::ceil(s.window_x + s.size)), width - 1);
    const int y0 = std::max(int(std::floor(s.window_y - s.size)), 0);
    const int y1 = std::min(int(std::ceil(s.window_y + s.size)), height - 1);
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double dx = 2 * (x + 0.5 - s.window_x) / s.size, dy = 2 * (y + 0.5 - s.window_y) / s.size;
        const double r2 = dx * dx + dy * dy;
        double& value = exact[std::size_t(y) * width + x];
        if (r2 >= 1.001) continue;
        if (r2 > 0.999) {
          value = std::nan("");
          continue;
        }
        // Thickness: the chord scaled to metres of water (fluid_thickness.frag's 6/pi); depth: the surface.
        value = thickness ? 6.0 / 3.14159265 * 2 * radius * std::sqrt(1 - r2) * s.area_share
                          : -(s.center_eye_z + radius * std::sqrt(1 - r2));
      }
  }
  for (std::size_t k = 0; k < exact.size(); ++k) {
    if (std::isnan(exact[k])) continue;
    const bool drawn = image[k] != 0.0f;
    if (exact[k] < 0) {
      out.extra += drawn;
      continue;
    }
    ++out.pixels;
    if (!drawn) {
      ++out.missing;
      continue;
    }
    const double error = std::abs(double(image[k]) - exact[k]);
    double& worst = thickness ? out.worst_thickness : out.worst_depth;
    worst = std::max(worst, error);
  }
  return out;
}

// Isolated spheres (no two sprites touch) on the plane through the camera's target, at sub-pixel offsets
// that step through a pixel, seen from three distances: sprites under a pixel in the thickness's half
// resolution (drawn a pixel wide, their chords scaled by their area), about 3 px as `surge run` frames the
// dam break, and 16 px (each splatted by a work group). Each path's depth and thickness must be the sphere's
// exact footprint: every pixel whose centre lies on a disc drawn, none off them, the depth within 1e-3 of a
// radius plus 1e-6 of the distance (a float's eye depth there is good to about 1e-7 of it, and the view
// transform adds a few roundings), and the chord within 1e-3 of a whole chord (the fixed point's step is
// 1.5e-5 of one). Mesa gave 9.3e-4, 2.2e-4, 6.9e-5 of a radius and 1.8e-4, 1.3e-4, 6.8e-5 of a chord (far,
// framed, close), both paths. This tells which path is right where they differ, on any rasteriser.
TEST_F(SplatTest, BothPathsDrawTheSpheresExactFootprint) {
  settings_.spray_max_particles = 0.0f;  // isolated spheres are not spray here: both paths draw them all
  settings_.show_floor = settings_.show_tank = false;  // nothing in front of them
  const float radius = look_.particle_radius;
  const float aspect = float(kWidth) / float(kHeight);
  const std::vector<float> distances = {3.0f * camera_.distance, camera_.distance, 0.2f * camera_.distance};
  for (const float distance : distances) {
    camera_.distance = distance;
    const render::Mat4 view = camera_.view(), projection = camera_.projection(aspect);
    const double sprite_px = radius * projection.at(1, 1) * kHeight / distance;
    // Sprites 4 widths apart (at least 4 px), stepping by 0.37 px beyond that so offsets cover a pixel.
    const double step_px = std::max(4.0 * sprite_px, 4.0) + 0.37;
    std::vector<Vec4f> spheres;
    for (double y = -0.85 * kHeight / 2; y < 0.85 * kHeight / 2; y += step_px)
      for (double x = -0.85 * kWidth / 2; x < 0.85 * kWidth / 2; x += step_px + 0.11) {
        const Vec3f p =
            camera_.point_on_target_plane(float(x / (kWidth / 2)), float(y / (kHeight / 2)), aspect);
        spheres.push_back({p.x, p.y, p.z, 0.0f});
      }
    // And spheres whose centres lie a quarter of a sprite outside each side of the frame, their discs partly
    // in it: GL discards such a point whole (GL 4.5 core, section 13.5), so both paths must draw nothing
    // there.
    const double outside_x = 1 + 0.5 * sprite_px / kWidth,
                 outside_y = 1 + 0.5 * sprite_px / kHeight;  // [ndc]
    for (const double along : {-0.5, 0.0, 0.5})
      for (const auto& [x, y] : {std::pair{outside_x, along}, std::pair{-outside_x, along},
                                 std::pair{along, outside_y}, std::pair{along, -outside_y}}) {
        const Vec3f p = camera_.point_on_target_plane(float(x), float(y), aspect);
        spheres.push_back({p.x, p.y, p.z, 0.0f});
      }
    std::swap(spheres, positions_);
    const Passes sprites = render(ParticlePasses::sprites);
    const Passes splat = render(ParticlePasses::compute);
    std::swap(spheres, positions_);
    SCOPED_TRACE(testing::Message() << "sprites " << sprite_px << " px across");
    std::printf("%zu isolated spheres, %.2f px across (%.2f px in the thickness):\n", spheres.size(),
                sprite_px, sprite_px / 2);
    const int thickness_width = (kWidth + 1) / 2, thickness_height = (kHeight + 1) / 2;  // fluid_surface.cpp
    std::vector<ExactSprite> exact_depth, exact_thickness;
    for (const Vec4f& p : spheres) {
      exact_depth.push_back(exact_sprite(view, projection, p, radius, kWidth, kHeight));
      exact_thickness.push_back(exact_sprite(view, projection, p, radius, thickness_width, thickness_height));
    }
    for (const auto& [name, passes] : {std::pair{"sprites", &sprites}, std::pair{"compute", &splat}}) {
      std::vector<float> depth_bottom_up(passes->raw_depth.size());
      for (int y = 0; y < kHeight; ++y)
        std::copy_n(&passes->raw_depth[std::size_t(kHeight - 1 - y) * kWidth], kWidth,
                    &depth_bottom_up[std::size_t(y) * kWidth]);
      const FootprintError depth =
          footprint_error(exact_depth, depth_bottom_up, kWidth, kHeight, radius, false);
      ASSERT_EQ(passes->thickness_texels.size(), std::size_t(thickness_width) * thickness_height);
      const FootprintError thickness = footprint_error(exact_thickness, passes->thickness_texels,
                                                       thickness_width, thickness_height, radius, true);
      std::printf(
          "  %-7s depth: %ld px on discs, %ld missing, %ld off them, worst %.2g of a radius; thickness: %ld "
          "px, "
          "%ld missing, %ld off, worst %.2g of a chord\n",
          name, depth.pixels, depth.missing, depth.extra, depth.worst_depth / radius, thickness.pixels,
          thickness.missing, thickness.extra, thickness.worst_thickness / (6.0 / 3.14159265 * 2 * radius));
      SCOPED_TRACE(name);
      ASSERT_GT(depth.pixels, 500) << "too few spheres in view to measure";
      EXPECT_EQ(depth.missing, 0);
      EXPECT_EQ(depth.extra, 0);
      EXPECT_LE(depth.worst_depth, 1e-3 * radius + 1e-6 * distance);
      EXPECT_EQ(thickness.missing, 0);
      EXPECT_EQ(thickness.extra, 0);
      EXPECT_LE(thickness.worst_thickness, 1e-3 * 6.0 / 3.14159265 * 2 * radius);
    }
  }
}

}  // namespace
}  // namespace surge::app
