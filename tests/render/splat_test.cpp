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
  std::vector<float> raw_depth, smooth_depth, thickness, shadow_map;
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
    return {target.read_rgba(), surface.read_depth(false), surface.read_depth(true),
            surface.read_thickness(false), surface.read_water_shadow_map()};
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

// Both paths on the frame as it is now, compared pass by pass. They compute the same formulas, but the
// rasteriser interpolates gl_PointCoord across the sprite where fluid_splat.comp computes each pixel's
// disc position directly; the two differ in the last bits, which the sphere's sqrt(1 - r^2) (its depth, its
// chord) magnifies at a sprite's rim, and where two spheres meet there the nearer one can switch. Tolerances,
// with what Mesa llvmpipe gave in brackets (framed; close up):
// - coverage: at most 0.5 % of the covered pixels covered by one path only [0; 0];
// - depth, raw and smoothed: mean difference within 2 % (smoothed 1 %) of a particle radius [raw 0.14 %,
//   smoothed 0.12 %; 0.011 %, 0.007 %], at most 1 % of the pixels beyond 10 % of a radius (a rim switching
//   spheres) [raw 0.06 %, smoothed 0; 0.004 %, 0];
// - thickness: mean difference within 1 % of the mean thickness [0.05 %; 0.01 %], total within 1e-3 of
//   itself [7e-5; 3e-6] (its fixed-point step here is 2.8e-7 m, a 65536th of a chord);
// - shadow map: mean difference within 1e-5 of its depth range [4.6e-7], at most 1 % of its pixels beyond
//   1e-3 [0.006 %];
// - the picture: at most 0.1 % of its pixels differ by more than 2 levels of 255 in some channel [0.0015 %;
//   0.005 %], none by more than 32 (room for a spray point on the test's threshold to flip) [3; 4].
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
       {std::tuple{"depth", depth, 0.02f * radius}, std::tuple{"smoothed", smoothed, 0.01f * radius}}) {
    EXPECT_LE(d.mismatched, d.covered / 200) << name;
    EXPECT_LE(d.mean, mean) << name;
    EXPECT_LE(d.beyond, d.covered / 100) << name;
  }
  EXPECT_LE(thickness.mismatched, thickness.covered / 200);
  EXPECT_LE(thickness.mean, 0.01 * thickness.sum_sprites / double(thickness.covered));
  EXPECT_NEAR(thickness.sum_splat, thickness.sum_sprites, 1e-3 * thickness.sum_sprites);
  if (!sprites.shadow_map.empty()) {
    ASSERT_GT(shadow.covered, 1000) << "too little water in the shadow map to compare";
    EXPECT_LE(shadow.mismatched, shadow.covered / 200);
    EXPECT_LE(shadow.mean, 1e-5);
    EXPECT_LE(shadow.beyond, shadow.covered / 100);
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

}  // namespace
}  // namespace surge::app
