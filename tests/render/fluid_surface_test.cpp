// The surface style (render/fluid_surface.h) draws what it should, measured on small offscreen images (Mesa
// in CI): a ball of particles becomes one smooth disc, thicker water absorbs more, the scene behind shows
// through and is shifted by refraction, isolated particles become bright points, the glass tank does not
// hide the water, and water and solids cast shadows on the floor.
#include "render/fluid_surface.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "render/camera.h"
#include "render/headless_gl_context.h"
#include "render/offscreen_target.h"
#include "render/particle_renderer.h"
#include "render/png_writer.h"

namespace surge::render {
namespace {

constexpr int kSize = 128;

struct Picture {
  std::vector<std::uint8_t> rgba;  // rows from the top
  std::vector<float> raw_depth, smooth_depth, thickness;
  float luminance(int x, int y) const {
    const std::size_t k = (std::size_t(y) * kSize + std::size_t(x)) * 4;
    return 0.2126f * rgba[k] + 0.7152f * rgba[k + 1] + 0.0722f * rgba[k + 2];
  }
  int channel(int x, int y, int c) const { return rgba[(std::size_t(y) * kSize + std::size_t(x)) * 4 + c]; }
  float depth(const std::vector<float>& field, int x, int y) const {
    return field[std::size_t(y) * kSize + std::size_t(x)];
  }
};

// Particles on a cubic lattice of spacing 2r inside a ball of radius `radius` about `center`.
std::vector<Vec4f> lattice_ball(Vec3f center, float radius, float r) {
  std::vector<Vec4f> out;
  const int n = int(std::ceil(radius / (2 * r)));
  for (int i = -n; i <= n; ++i)
    for (int j = -n; j <= n; ++j)
      for (int k = -n; k <= n; ++k) {
        const Vec3f offset{2 * r * float(i), 2 * r * float(j), 2 * r * float(k)};
        if (length_squared(offset) <= radius * radius) out.push_back(make_vec4(center + offset, 0.0f));
      }
  return out;
}

// A box of particles of spacing 2r: nx by ny by nz of them from `corner` (the first particle's centre).
std::vector<Vec4f> lattice_box(Vec3f corner, int nx, int ny, int nz, float r) {
  std::vector<Vec4f> out;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        out.push_back(make_vec4(corner + Vec3f{2 * r * float(i), 2 * r * float(j), 2 * r * float(k)}, 0.0f));
  return out;
}

class FluidSurfaceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = std::make_unique<HeadlessGlContext>(); }
  static void TearDownTestSuite() { context_.reset(); }

  void SetUp() override {
    renderer_ = std::make_unique<ParticleRenderer>();
    // Looking along +y at the origin from 1 m away: x is right, z is up in the image.
    camera_.target = {0, 0, 0};
    camera_.distance = 1.0f;
    camera_.yaw_deg = 0.0f;
    camera_.pitch_deg = 0.0f;
    settings_.look.style = RenderStyle::surface;
    settings_.particle_radius = kRadius;
    settings_.show_color_bar = false;
  }
  void TearDown() override { renderer_.reset(); }

  Picture render(const std::vector<Vec4f>& positions) {
    renderer_->fluid().upload({positions.size(), positions.data(), nullptr});
    OffscreenTarget target(kSize, kSize);
    target.bind();
    renderer_->draw(camera_, kSize, kSize, settings_);
    const FluidSurface& surface = *renderer_->surface();
    return {target.read_rgba(), surface.read_depth(false), surface.read_depth(true),
            surface.read_thickness()};
  }
  // The pixel (from the left, from the top) where the camera sees world point `p`.
  std::pair<int, int> pixel_of(Vec3f p) const {
    const Vec4 clip = camera_.projection(1.0f) * camera_.view() * Vec4{p.x, p.y, p.z, 1.0f};
    return {int((clip.x / clip.w * 0.5f + 0.5f) * kSize), int((0.5f - 0.5f * clip.y / clip.w) * kSize)};
  }
  // Pixels per metre at `distance` in front of the eye.
  float pixels_per_m(float distance) const {
    return 0.5f * float(kSize) / std::tan(0.5f * camera_.fov_y_deg * 3.14159265f / 180.0f) / distance;
  }

  static constexpr float kRadius = 0.02f;  // [m]
  static std::unique_ptr<HeadlessGlContext> context_;
  std::unique_ptr<ParticleRenderer> renderer_;
  OrbitCamera camera_;
  RenderSettings settings_;
};
std::unique_ptr<HeadlessGlContext> FluidSurfaceTest::context_;

// The root mean square of the depth's second differences along x and y [m per px^2] over the pixels within
// `fraction` of the disc's radius around the image centre.
double second_difference_rms(const Picture& picture, const std::vector<float>& field, float disc_px,
                             float fraction) {
  double sum = 0;
  long count = 0;
  for (int y = 1; y < kSize - 1; ++y)
    for (int x = 1; x < kSize - 1; ++x) {
      if (std::hypot(x + 0.5f - kSize / 2, y + 0.5f - kSize / 2) > fraction * disc_px) continue;
      const float c = picture.depth(field, x, y);
      const double along_x = picture.depth(field, x - 1, y) + picture.depth(field, x + 1, y) - 2 * c;
      const double along_y = picture.depth(field, x, y - 1) + picture.depth(field, x, y + 1) - 2 * c;
      sum += along_x * along_x + along_y * along_y;
      count += 2;
    }
  return std::sqrt(sum / double(std::max(count, 1L)));
}

// A ball of radius 0.24 m of particles of radius 0.02 m, 1 m away: its depth as spheres is bumpy where the
// particles meet (dips of about a radius, a few pixels apart); smoothed, its second differences must be those
// of a smooth ball, pixel^2 / R, to within a few times, and far below the spheres' bumps.
TEST_F(FluidSurfaceTest, ABallOfParticlesIsOneSmoothDisc) {
  // Seen off the lattice's axes: along an axis its rows of spheres line up and leave see-through gaps, which
  // a fluid's particles never keep.
  camera_.yaw_deg = 17.0f;
  camera_.pitch_deg = 11.0f;
  const float ball = 0.24f;
  const Picture picture = render(lattice_ball({0, 0, 0}, ball, kRadius));
  const float disc_px = (ball + kRadius) * pixels_per_m(1.0f);
  // A smooth ball's depth z = sqrt(R^2 - x^2) has z'' = -1/R at its centre: pixel^2 / R per px^2, with the
  // pixel's size at the ball's front.
  const double pixel_m = 1.0 / pixels_per_m(1.0f - ball);
  const double smooth_ball = pixel_m * pixel_m / ball;
  const double raw = second_difference_rms(picture, picture.raw_depth, disc_px, 0.6f);
  const double smoothed = second_difference_rms(picture, picture.smooth_depth, disc_px, 0.6f);
  RecordProperty("raw_rms", std::to_string(raw));
  RecordProperty("smoothed_rms", std::to_string(smoothed));
  std::printf("second differences (RMS): spheres %.3g m/px^2, smoothed %.3g, a smooth ball %.3g\n", raw,
              smoothed, smooth_ball);
  EXPECT_LT(smoothed, 3.0 * smooth_ball) << "bumps left after smoothing";
  EXPECT_GT(raw, 10.0 * smoothed) << "the spheres' bumps were not smoothed away";

  // One disc: every pixel within 0.8 of its radius is water (no holes; the lattice's outline steps by a
  // spacing, 15 % of the radius), none beyond 1.15 of it, and the water's pixels are one connected region.
  int holes = 0, outside = 0, water = 0;
  std::vector<int> label(std::size_t(kSize * kSize), 0);
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      const bool wet = picture.depth(picture.smooth_depth, x, y) > 0;
      const float from_centre = std::hypot(x + 0.5f - kSize / 2, y + 0.5f - kSize / 2);
      if (!wet && from_centre < 0.8f * disc_px) ++holes;
      if (wet && from_centre > 1.15f * disc_px) ++outside;
      water += wet;
    }
  EXPECT_EQ(holes, 0);
  EXPECT_EQ(outside, 0) << "water beyond the disc";
  std::vector<std::pair<int, int>> stack = {{kSize / 2, kSize / 2}};
  int reached = 0;
  while (!stack.empty()) {
    const auto [x, y] = stack.back();
    stack.pop_back();
    if (x < 0 || y < 0 || x >= kSize || y >= kSize) continue;
    int& seen = label[std::size_t(y * kSize + x)];
    if (seen || picture.depth(picture.smooth_depth, x, y) <= 0) continue;
    seen = 1;
    ++reached;
    stack.insert(stack.end(), {{x + 1, y}, {x - 1, y}, {x, y + 1}, {x, y - 1}});
  }
  EXPECT_EQ(reached, water) << "the water is not one region";
}

// The narrow-range filter (Truong & Yuksel 2018) on the ball of the test above, by the same measure: its
// second differences within the same bound (3x a smooth ball's) and far below the spheres'.
class NarrowRangeBallTest : public FluidSurfaceTest {
 protected:
  struct Smoothness {
    double spheres, bilateral, narrow_range, smooth_ball;
  };
  Smoothness measure() {
    camera_.yaw_deg = 17.0f;
    camera_.pitch_deg = 11.0f;
    const float ball = 0.24f;
    const std::vector<Vec4f> particles = lattice_ball({0, 0, 0}, ball, kRadius);
    const float disc_px = (ball + kRadius) * pixels_per_m(1.0f);
    const double pixel_m = 1.0 / pixels_per_m(1.0f - ball);
    settings_.look.filter = DepthFilter::bilateral;
    const Picture bilateral = render(particles);
    settings_.look.filter = DepthFilter::narrow_range;
    const Picture narrow_range = render(particles);
    const Smoothness out{second_difference_rms(bilateral, bilateral.raw_depth, disc_px, 0.6f),
                         second_difference_rms(bilateral, bilateral.smooth_depth, disc_px, 0.6f),
                         second_difference_rms(narrow_range, narrow_range.smooth_depth, disc_px, 0.6f),
                         pixel_m * pixel_m / ball};
    std::printf(
        "second differences (RMS): spheres %.3g m/px^2, bilateral %.3g, narrow-range %.3g, a smooth "
        "ball %.3g\n",
        out.spheres, out.bilateral, out.narrow_range, out.smooth_ball);
    return out;
  }
};

TEST_F(NarrowRangeBallTest, TheNarrowRangeFilterSmoothsABallOfParticles) {
  const Smoothness s = measure();
  EXPECT_LT(s.narrow_range, 3.0 * s.smooth_ball) << "bumps left after smoothing";
  EXPECT_GT(s.spheres, 10.0 * s.narrow_range) << "the spheres' bumps were not smoothed away";
}

// Not met: on this ball the narrow-range filter leaves 1.37e-4 m/px^2 against the bilateral's 1.00e-4 (a
// smooth ball: 7.8e-5). Inside the ball every neighbour is within its 10.5-radius range, so it is a plain
// Gaussian there, and takes in the ball's steep rim, which the bilateral's range Gaussian (3 radii) leaves
// out; a narrower range (3 or 5 radii) is far worse (5e-3 and more), as the hard limits then cut into the
// bumps between particles. Enable once the filter matches the bilateral on this measure.
TEST_F(NarrowRangeBallTest, DISABLED_TheNarrowRangeFilterSmoothsABallAtLeastAsWellAsTheBilateral) {
  const Smoothness s = measure();
  EXPECT_LE(s.narrow_range, s.bilateral) << "the narrow-range filter leaves more bumps";
}

// Two balls, one 0.4 m behind the other and half hidden by it (their facing surfaces 15 particle radii
// apart), smoothed by the narrow-range filter: the near ball's depth is what it is without the far one; no
// pixel of the far ball beside the near one is smoothed in front of the far ball's own front (a filter blind
// to depth would pull them a good part of the 0.3 m gap forward); and the step between them stays whole.
TEST_F(FluidSurfaceTest, TheNarrowRangeFilterKeepsADepthStepSharp) {
  settings_.look.filter = DepthFilter::narrow_range;
  const std::vector<Vec4f> near_ball = lattice_ball({-0.06f, -0.3f, 0}, 0.1f, kRadius);
  const std::vector<Vec4f> far_ball = lattice_ball({0.1f, 0.1f, 0}, 0.14f, kRadius);
  std::vector<Vec4f> both = near_ball;
  both.insert(both.end(), far_ball.begin(), far_ball.end());
  const Picture near_alone = render(near_ball), far_alone = render(far_ball), together = render(both);
  double near_worst = 0, far_nearest = 1e9, step_smallest = 1e9, raw_step_smallest = 1e9;
  float far_front = 1e9f;  // the far ball's nearest sphere surface, alone
  for (float d : far_alone.raw_depth)
    if (d > 0) far_front = std::min(far_front, d);
  int near_pixels = 0, far_beside_near = 0;
  for (int y = 1; y < kSize - 1; ++y)
    for (int x = 1; x < kSize - 1; ++x) {
      const float here = together.depth(together.smooth_depth, x, y);
      if (near_alone.depth(near_alone.raw_depth, x, y) > 0) {
        near_worst =
            std::max(near_worst, double(std::abs(here - near_alone.depth(near_alone.smooth_depth, x, y))));
        ++near_pixels;
        // The step to the far ball just right of the near one's rim, smoothed and as the spheres are.
        if (near_alone.depth(near_alone.raw_depth, x + 1, y) <= 0 &&
            far_alone.depth(far_alone.raw_depth, x + 1, y) > 0) {
          step_smallest =
              std::min(step_smallest, double(together.depth(together.smooth_depth, x + 1, y) - here));
          raw_step_smallest =
              std::min(raw_step_smallest, double(together.depth(together.raw_depth, x + 1, y) -
                                                 together.depth(together.raw_depth, x, y)));
        }
      } else if (far_alone.depth(far_alone.raw_depth, x, y) > 0) {
        // Far pixels within the filter's reach of the near ball (11 px here): where a filter blind to depth
        // would blend the two.
        bool beside = false;
        for (int d = -11; d <= 11 && !beside; ++d)
          beside = near_alone.depth(near_alone.raw_depth, std::clamp(x + d, 0, kSize - 1), y) > 0;
        if (!beside) continue;
        ++far_beside_near;
        far_nearest = std::min(far_nearest, double(here));
      }
    }
  std::printf(
      "narrow-range: near ball %d px, worst change by the far one %.4f m; far ball %d px beside the near "
      "one, nearest %.3f m (its front %.3f m); smallest step %.3f m (spheres %.3f m)\n",
      near_pixels, near_worst, far_beside_near, far_nearest, far_front, step_smallest, raw_step_smallest);
  ASSERT_GT(near_pixels, 300);
  ASSERT_GT(far_beside_near, 100) << "the balls do not meet on screen";
  EXPECT_LT(near_worst, 0.1 * kRadius) << "the near ball's depth was pulled towards the far one";
  EXPECT_GT(far_nearest, far_front - kRadius) << "the far ball's depth was pulled towards the near one";
  EXPECT_GT(step_smallest, 0.95 * raw_step_smallest) << "the step between the balls was smoothed";
}

// Far away, where a particle projects smaller than a pixel (more so in the thickness pass, drawn at half the
// resolution), a point still covers a whole pixel: the slab must read as deep as it is, not as deep as pixel-
// wide particles would make it. A slab 10 particles deep (0.1 m) of radius 5 mm, 3 m away: 0.6 px across in
// the view, 0.3 px in the thickness pass, too small for the blur to spread (its radius is under a pixel).
TEST_F(FluidSurfaceTest, SubPixelParticlesAddTheWaterTheyHold) {
  const float radius = 0.005f;
  settings_.particle_radius = radius;
  camera_.distance = 3.0f;
  const Picture picture = render(lattice_box({-0.245f, -0.045f, -0.245f}, 50, 10, 50, radius));
  const float diameter_px = 2 * radius * pixels_per_m(3.0f);
  // The mean over the slab's middle (a quarter of its width each way): single pixels count a few particles.
  const int half_px = int(0.125f * pixels_per_m(3.0f));
  double sum = 0;
  int count = 0;
  for (int y = kSize / 2 - half_px; y < kSize / 2 + half_px; ++y)
    for (int x = kSize / 2 - half_px; x < kSize / 2 + half_px; ++x)
      sum += picture.depth(picture.thickness, x, y), ++count;
  const double mean_m = sum / count;
  std::printf("sub-pixel particles (%.2f px across): thickness %.4f m over %d px (slab 0.1 m deep)\n",
              diameter_px, mean_m, count);
  ASSERT_LT(diameter_px, 1.0f);
  EXPECT_NEAR(mean_m, 0.1, 0.015);
}

// Two slabs side by side in front of the sky, 2 and 10 particles deep along the view: the thickness pass
// reads their depths in metres, and the thick one is darker and further from the sky's colour behind it.
TEST_F(FluidSurfaceTest, ThickerWaterAbsorbsMore) {
  settings_.specular = 0.0f;
  settings_.look.refraction = 0.0f;
  settings_.look.absorption = 4.0f;
  std::vector<Vec4f> particles = lattice_box({-0.26f, -0.2f, -0.14f}, 5, 2, 8, kRadius);
  const std::vector<Vec4f> thick = lattice_box({0.1f, -0.2f, -0.14f}, 5, 10, 8, kRadius);
  particles.insert(particles.end(), thick.begin(), thick.end());
  const Picture picture = render(particles);
  const Picture sky = render({});
  // The slabs' centres: x = -0.18 and +0.18 m at the distance of their fronts.
  const int row = kSize / 2;
  const int thin_x = int(kSize / 2 - 0.18f * pixels_per_m(1.0f - 0.2f));
  const int thick_x = int(kSize / 2 + 0.18f * pixels_per_m(1.0f - 0.2f));
  const float thin_m = picture.depth(picture.thickness, thin_x, row);
  const float thick_m = picture.depth(picture.thickness, thick_x, row);
  std::printf("thickness: thin %.3f m (lattice 0.08), thick %.3f m (0.40)\n", thin_m, thick_m);
  EXPECT_NEAR(thin_m, 0.08f, 0.03f);
  EXPECT_NEAR(thick_m, 0.40f, 0.12f);
  const auto tint = [&](int x) {  // distance from the sky behind, summed over the channels
    int sum = 0;
    for (int c = 0; c < 3; ++c) sum += std::abs(picture.channel(x, row, c) - sky.channel(x, row, c));
    return sum;
  };
  std::printf("luminance: sky %.1f, thin %.1f, thick %.1f; tint: thin %d, thick %d\n",
              sky.luminance(thin_x, row), picture.luminance(thin_x, row), picture.luminance(thick_x, row),
              tint(thin_x), tint(thick_x));
  EXPECT_GT(tint(thin_x), 10) << "thin water is not tinted at all";
  EXPECT_GT(tint(thick_x), tint(thin_x) + 60);
  EXPECT_LT(picture.luminance(thick_x, row), picture.luminance(thin_x, row) - 25.0f);
  // Red goes first (water's colour is blue-green): the thick slab's red falls furthest below its blue.
  EXPECT_GT(picture.channel(thick_x, row, 2) - picture.channel(thick_x, row, 0),
            picture.channel(thin_x, row, 2) - picture.channel(thin_x, row, 0));
}

// Normalised cross-correlation of the luminance of two pictures over the pixels within `radius_px` of the
// image centre: 1 where one is a brightened or darkened copy of the other, near 0 where they are unrelated.
double correlation(const Picture& a, const Picture& b, float radius_px) {
  std::vector<double> u, v;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      if (std::hypot(x + 0.5f - kSize / 2, y + 0.5f - kSize / 2) < radius_px)
        u.push_back(a.luminance(x, y)), v.push_back(b.luminance(x, y));
  const double mu = std::accumulate(u.begin(), u.end(), 0.0) / double(u.size());
  const double mv = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double uv = 0, uu = 0, vv = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    uv += (u[i] - mu) * (v[i] - mv);
    uu += (u[i] - mu) * (u[i] - mu);
    vv += (v[i] - mv) * (v[i] - mv);
  }
  return uv / std::sqrt(uu * vv + 1e-12);
}

double luminance_spread(const Picture& picture, float radius_px) {
  double sum = 0, squares = 0;
  long count = 0;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      if (std::hypot(x + 0.5f - kSize / 2, y + 0.5f - kSize / 2) < radius_px) {
        const double l = picture.luminance(x, y);
        sum += l, squares += l * l, ++count;
      }
  const double mean = sum / double(count);
  return std::sqrt(std::max(squares / double(count) - mean * mean, 0.0));
}

// Looking down through a ball of water at the floor's grid: without refraction the grid shows through in
// place (tinted: correlation with the bare floor near 1); with it the grid is still seen (its contrast
// stays) but shifted (correlation drops).
TEST_F(FluidSurfaceTest, TheFloorShowsThroughAndRefractionShiftsIt) {
  camera_.pitch_deg = 89.0f;
  settings_.has_box = true;
  settings_.box_min = {-0.5f, -0.5f, -0.35f};
  settings_.box_max = {0.5f, 0.5f, 0.3f};
  settings_.show_tank = false;
  settings_.grid_spacing = 0.05f;
  settings_.specular = 0.0f;
  settings_.look.absorption = 1.0f;
  settings_.look.shadows = false;  // the bare floor it is compared with has none
  const float ball = 0.2f;
  const std::vector<Vec4f> water = lattice_ball({0, 0, 0}, ball, kRadius);
  const Picture floor = render({});
  const float region_px = 0.5f * ball * pixels_per_m(1.0f - ball);
  const double floor_spread = luminance_spread(floor, region_px);
  ASSERT_GT(floor_spread, 10.0) << "no grid under the ball to see";
  settings_.look.refraction = 0.0f;
  const Picture straight = render(water);
  settings_.look.refraction = RenderLook{}.refraction;
  const Picture refracted = render(water);
  const double straight_match = correlation(straight, floor, region_px);
  const double refracted_match = correlation(refracted, floor, region_px);
  const double refracted_spread = luminance_spread(refracted, region_px);
  std::printf("correlation with the bare floor: refraction 0: %.3f, default: %.3f; contrast %.1f of %.1f\n",
              straight_match, refracted_match, refracted_spread, floor_spread);
  EXPECT_GT(straight_match, 0.9) << "the floor does not show through the water in place";
  EXPECT_LT(refracted_match, straight_match - 0.3) << "refraction did not shift the floor";
  EXPECT_GT(refracted_spread, 0.3 * floor_spread) << "the grid is no longer seen through the water";
}

// Three lone particles over the floor, beside a block of water: each lone one is a bright point and no part
// of the surface; none of the block's particles, its rim included, is spray. With spray off, a lone particle
// is a drop of surface.
TEST_F(FluidSurfaceTest, IsolatedParticlesAreBrightPoints) {
  camera_.pitch_deg = 30.0f;
  settings_.has_box = true;
  settings_.box_min = {-0.6f, -0.6f, -0.5f};
  settings_.box_max = {0.6f, 0.6f, 0.4f};
  settings_.show_tank = false;
  settings_.specular = 0.0f;
  std::vector<Vec4f> particles = lattice_box({0.05f, -0.1f, -0.1f}, 6, 6, 6, kRadius);
  const std::vector<Vec4f> lone = {{-0.3f, 0, 0.1f, 0}, {-0.2f, 0, -0.15f, 0}, {-0.1f, 0, 0.2f, 0}};
  particles.insert(particles.end(), lone.begin(), lone.end());
  const Picture picture = render(particles);
  const Picture floor = render({});
  const Mat4 clip_from_world = camera_.projection(1.0f) * camera_.view();
  const auto pixel_of = [&](Vec4f p) {
    const Vec4 clip = clip_from_world * Vec4{p.x, p.y, p.z, 1.0f};
    return std::pair{int((clip.x / clip.w * 0.5f + 0.5f) * kSize),
                     int((0.5f - 0.5f * clip.y / clip.w) * kSize)};
  };
  for (const Vec4f& p : lone) {
    const auto [x, y] = pixel_of(p);
    for (int c = 0; c < 3; ++c) {
      EXPECT_GE(picture.channel(x, y, c), 235) << "a lone particle at " << x << "," << y << " is not bright";
    }
    EXPECT_LT(floor.luminance(x, y), 215.0f) << "the background there is too bright to tell";
    EXPECT_EQ(picture.depth(picture.raw_depth, x, y), 0.0f) << "a lone particle is part of the surface";
  }
  // Nothing else is spray: the block's rim, whose particles are seen grazing (little water through their
  // centres), has water beside it.
  int other_bright = 0;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      bool near_lone = false;
      for (const Vec4f& p : lone) {
        const auto [lx, ly] = pixel_of(p);
        near_lone = near_lone || std::hypot(float(x - lx), float(y - ly)) < 5.0f;
      }
      bool bright = true;
      for (int c = 0; c < 3; ++c) bright = bright && picture.channel(x, y, c) >= 235;
      other_bright += !near_lone && bright;
    }
  EXPECT_LT(other_bright, 3) << "the block's particles are drawn as spray";
  const auto [bx, by] = pixel_of({0.15f, -0.1f, 0.0f, 0});
  EXPECT_GT(picture.depth(picture.raw_depth, bx, by), 0.0f) << "the block is not surface";
  EXPECT_LT(picture.luminance(bx, by), 230.0f) << "the block is drawn as spray";

  settings_.look.spray = false;
  const Picture no_spray = render(particles);
  const auto [x, y] = pixel_of(lone[0]);
  EXPECT_GT(no_spray.depth(no_spray.raw_depth, x, y), 0.0f) << "without spray, a lone particle is surface";
}

// A ball of water in the tank, seen through its front pane: the water is still there, pixel for pixel,
// only slightly tinted; and the tank is drawn (its edges show where there is no water).
TEST_F(FluidSurfaceTest, TheGlassTankDoesNotHideTheWater) {
  camera_.pitch_deg = 20.0f;
  settings_.has_box = true;
  settings_.box_min = {-0.3f, -0.3f, -0.3f};
  settings_.box_max = {0.3f, 0.3f, 0.3f};
  settings_.specular = 0.0f;
  const std::vector<Vec4f> water = lattice_ball({0, 0, -0.08f}, 0.2f, kRadius);
  settings_.show_tank = false;
  const Picture bare = render({}), open = render(water);
  settings_.show_tank = true;
  const Picture tank = render({}), glass = render(water);
  const auto differs = [](const Picture& a, const Picture& b, int x, int y, int by) {
    int sum = 0;
    for (int c = 0; c < 3; ++c) sum += std::abs(a.channel(x, y, c) - b.channel(x, y, c));
    return sum > by;
  };
  int water_open = 0, water_in_glass = 0, tank_pixels = 0, much_changed = 0;
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      const bool wet = open.depth(open.smooth_depth, x, y) > 0;
      water_open += wet && differs(open, bare, x, y, 30);
      water_in_glass += wet && differs(glass, tank, x, y, 30);
      tank_pixels += !wet && differs(tank, bare, x, y, 30);
      much_changed += wet && differs(glass, open, x, y, 60);
    }
  std::printf("water pixels: open %d, in the tank %d; tank pixels %d; water changed by > 60: %d\n",
              water_open, water_in_glass, tank_pixels, much_changed);
  ASSERT_GT(water_open, 2000);
  EXPECT_GE(water_in_glass, 0.97 * water_open) << "the glass hides water";
  EXPECT_GT(tank_pixels, 100) << "no tank drawn";
  EXPECT_LT(much_changed, 0.05 * water_open) << "the glass changes the water's colour too much";
}

// Where tests leave pictures to look at: $OUT, else the temporary directory.
std::filesystem::path picture_directory() {
  const char* out = std::getenv("OUT");
  return out && *out ? std::filesystem::path(out) : std::filesystem::temp_directory_path();
}

// The mean luminance over the (2 half + 1)^2 pixels around (x, y).
float patch_luminance(const Picture& picture, int x, int y, int half = 2) {
  float sum = 0;
  for (int dy = -half; dy <= half; ++dy)
    for (int dx = -half; dx <= half; ++dx) sum += picture.luminance(x + dx, y + dy);
  return sum / float((2 * half + 1) * (2 * half + 1));
}

// A slab of water 0.32 m square held 0.4 m over the floor (as a sheet of water thrown up would be), seen from
// above, lit at 45 degrees from +x and then from -x: its shadow falls on the floor 0.46 m to the other side,
// darker than the lit floor, and moves with the light; away from it the floor is as lit as without water; a
// frame without water has no shadow at all.
TEST_F(FluidSurfaceTest, TheWaterCastsASoftShadowThatFollowsTheLight) {
  camera_.pitch_deg = 89.0f;
  settings_.has_box = true;
  settings_.box_min = {-0.7f, -0.7f, -0.35f};
  settings_.box_max = {0.7f, 0.7f, 0.3f};
  settings_.show_tank = false;
  settings_.specular = 0.0f;
  // Centres from -0.14 to 0.14 m across, 0.05 to 0.17 m high: 0.46 m over the floor at its middle.
  const std::vector<Vec4f> water = lattice_box({-0.14f, -0.14f, 0.05f}, 8, 8, 4, kRadius);
  const float height = 0.11f - settings_.box_min.z;
  // Where the slab's middle throws its shadow with the light from +x (left of the slab) and from -x (right),
  // and a floor point lit either way, beside the slab.
  const auto [left_x, left_y] = pixel_of({-height, 0, settings_.box_min.z});
  const auto [right_x, right_y] = pixel_of({height, 0, settings_.box_min.z});
  const auto [beside_x, beside_y] = pixel_of({0, 0.4f, settings_.box_min.z});
  // The bare floor is lit alike from +x and -x: the light's height is the same.
  settings_.look.light_direction = {1, 0, 1};
  const Picture bare = render({});
  const Picture from_plus_x = render(water);
  settings_.look.light_direction = {-1, 0, 1};
  const Picture from_minus_x = render(water);
  const std::filesystem::path pictures = picture_directory();
  write_png(pictures / "surface_shadow_light_from_plus_x.png", kSize, kSize, from_plus_x.rgba);
  write_png(pictures / "surface_shadow_light_from_minus_x.png", kSize, kSize, from_minus_x.rgba);
  const float bare_left = patch_luminance(bare, left_x, left_y),
              bare_right = patch_luminance(bare, right_x, right_y);
  const float plus_left = patch_luminance(from_plus_x, left_x, left_y);
  const float plus_right = patch_luminance(from_plus_x, right_x, right_y);
  const float minus_left = patch_luminance(from_minus_x, left_x, left_y);
  const float minus_right = patch_luminance(from_minus_x, right_x, right_y);
  std::printf(
      "floor luminance, bare: left %.1f right %.1f; light from +x: left %.1f right %.1f; from -x: "
      "left %.1f right %.1f; beside: bare %.1f, with water %.1f\n",
      bare_left, bare_right, plus_left, plus_right, minus_left, minus_right,
      patch_luminance(bare, beside_x, beside_y), patch_luminance(from_plus_x, beside_x, beside_y));
  ASSERT_EQ(from_plus_x.depth(from_plus_x.raw_depth, left_x, left_y), 0.0f) << "water hides the shadow";
  ASSERT_EQ(from_plus_x.depth(from_plus_x.raw_depth, right_x, right_y), 0.0f) << "water hides the floor";
  EXPECT_LT(plus_left, 0.85f * bare_left) << "no shadow where the light from +x throws it";
  EXPECT_GT(plus_right, 0.98f * bare_right) << "a shadow on the lit side";
  EXPECT_LT(minus_right, 0.85f * bare_right) << "the shadow did not follow the light to -x";
  EXPECT_GT(minus_left, 0.98f * bare_left) << "the shadow stayed where the light no longer throws it";
  EXPECT_NEAR(patch_luminance(from_plus_x, beside_x, beside_y), patch_luminance(bare, beside_x, beside_y),
              1.0f)
      << "the floor away from the shadow is not as lit as without water";

  // Soft: across the shadow's edges along y (the slab's sides, 0.16 m either side of its middle) the floor's
  // light, as a share of the bare floor's, goes from the shadow's to all of it over several pixels, not in
  // one step (the lighting is a factor on the floor's colour, so the grid lines do not disturb the ratio).
  const float umbra = plus_left / bare_left;
  int penumbra_pixels = 0;
  for (int y = 0; y < kSize; ++y) {
    const float share = from_plus_x.luminance(left_x, y) / std::max(bare.luminance(left_x, y), 1.0f);
    penumbra_pixels += share > umbra + 0.2f * (1 - umbra) && share < 1 - 0.2f * (1 - umbra);
  }
  std::printf("pixels in the penumbra along the shadow's column (both edges): %d\n", penumbra_pixels);
  EXPECT_GE(penumbra_pixels, 4) << "a hard shadow edge";

  // No water, no shadow: shadows on or off, the frame is the same.
  settings_.look.shadows = false;
  const Picture bare_unshadowed = render({});
  EXPECT_EQ(bare.rgba, bare_unshadowed.rgba);
  settings_.look.shadows = true;
}

// The twelve triangles of a box of half-sides `half` about the origin, counter-clockwise seen from outside.
std::vector<Vec3f> box_triangles(Vec3f half) {
  std::vector<Vec3f> out;
  const Vec3f axes[3] = {{half.x, 0, 0}, {0, half.y, 0}, {0, 0, half.z}};
  for (int axis = 0; axis < 3; ++axis)
    for (float side : {-1.0f, 1.0f}) {
      // u x v is along the axis: the corners -u-v, +u-v, +u+v, -u+v turn counter-clockwise about it.
      const Vec3f n = side * axes[axis], u = axes[(axis + 1) % 3], v = axes[(axis + 2) % 3];
      Vec3f quad[4] = {n - u - v, n + u - v, n + u + v, n - u + v};
      if (side < 0) std::swap(quad[1], quad[3]);
      out.insert(out.end(), {quad[0], quad[1], quad[2], quad[0], quad[2], quad[3]});
    }
  return out;
}

Mat4 translation(Vec3f offset) {
  Mat4 out = Mat4::identity();
  out.at(0, 3) = offset.x, out.at(1, 3) = offset.y, out.at(2, 3) = offset.z;
  return out;
}

// A solid box of the water slab's footprint above (0.32 m square, 0.16 m deep, its middle 0.46 m over the
// floor), lit at 45 degrees from +x, seen from above. It is opaque: where its shadow falls the floor loses
// all of the sun's light and keeps the sky's (floor.frag: 0.45 of 0.45 + 0.55 x the sun's height), so it is
// darker than the open floor and than the water's partial shadow of the same footprint, and stays so with
// water above the box on the same line to the sun. With shadows off that floor is as lit as the open floor.
// Moved by its model matrix (as the app sets it each frame from the body's pose), its shadow moves with it
// and the floor it left is lit again. Its edges are soft.
TEST_F(FluidSurfaceTest, ASolidCastsAFullShadowThatFollowsItsPose) {
  camera_.pitch_deg = 89.0f;
  settings_.has_box = true;
  settings_.box_min = {-0.7f, -0.7f, -0.35f};
  settings_.box_max = {0.7f, 0.7f, 0.3f};
  settings_.show_tank = false;
  settings_.specular = 0.0f;
  settings_.look.light_direction = {1, 0, 1};
  const Vec3f center{0, 0, 0.11f}, moved_center{0, 0.3f, 0.11f};
  const std::vector<Vec3f> box = box_triangles({0.16f, 0.16f, 0.08f});
  // The same footprint in water: particle centres from -0.14 to 0.14 m across and 0.05 to 0.17 m high, their
  // spheres reaching 0.16 m and from 0.03 to 0.19 m.
  const std::vector<Vec4f> water = lattice_box({-0.14f, -0.14f, 0.05f}, 8, 8, 4, kRadius);
  // The same slab 0.2 m further towards the sun (light at 45 degrees from +x): its middle, (0.2, 0, 0.31) m,
  // throws its shadow where the box's middle does, and the box does not hide it from the eye.
  const std::vector<Vec4f> water_above = lattice_box({0.06f, -0.14f, 0.25f}, 8, 8, 4, kRadius);

  // Where a point's shadow falls: along the light, down to the floor.
  const Vec3f to_light = light_direction(settings_);
  const float floor_z = settings_.box_min.z;
  const auto shadow_on_floor = [&](Vec3f p) { return p - ((p.z - floor_z) / to_light.z) * to_light; };
  const auto [under_x, under_y] = pixel_of(shadow_on_floor(center));
  const auto [moved_x, moved_y] = pixel_of(shadow_on_floor(moved_center));
  const auto [beside_x, beside_y] = pixel_of({0.3f, -0.4f, floor_z});

  const Picture bare = render({});
  const Picture water_shadow = render(water);
  const Picture water_above_shadow = render(water_above);
  renderer_->solids().set_shapes({{box.data(), box.size()}});
  renderer_->solids().set_model(0, translation(center));
  const Picture solid_shadow = render({});
  settings_.look.shadows = false;
  const Picture unshadowed = render({});
  settings_.look.shadows = true;
  renderer_->solids().set_model(0, translation(moved_center));
  const Picture moved = render({});
  renderer_->solids().set_model(0, translation(center));
  const Picture box_under_water = render(water_above);
  const std::filesystem::path pictures = picture_directory();
  write_png(pictures / "surface_solid_shadow.png", kSize, kSize, solid_shadow.rgba);
  write_png(pictures / "surface_solid_shadow_moved.png", kSize, kSize, moved.rgba);

  const float bare_under = patch_luminance(bare, under_x, under_y);
  const float water_under = patch_luminance(water_shadow, under_x, under_y);
  const float solid_under = patch_luminance(solid_shadow, under_x, under_y);
  const float unshadowed_under = patch_luminance(unshadowed, under_x, under_y);
  const float moved_under = patch_luminance(moved, under_x, under_y);
  const float bare_moved = patch_luminance(bare, moved_x, moved_y);
  const float moved_moved = patch_luminance(moved, moved_x, moved_y);
  // The floor's light is a factor on its colour: sky alone over sky and sun.
  const float sun = 0.55f * to_light.z, full_shadow = 0.45f / (0.45f + sun);
  std::printf(
      "floor luminance where the box's shadow falls: open %.1f, under water %.1f (%.2f), under the box %.1f "
      "(%.2f; sky alone %.2f), shadows off %.1f, after the box moved %.1f; where the moved box's shadow "
      "falls: open %.1f, under it %.1f (%.2f)\n",
      bare_under, water_under, water_under / bare_under, solid_under, solid_under / bare_under, full_shadow,
      unshadowed_under, moved_under, bare_moved, moved_moved, moved_moved / bare_moved);
  EXPECT_LT(solid_under, 0.65f * bare_under) << "no shadow under the box";
  EXPECT_NEAR(solid_under / bare_under, full_shadow, 0.03f) << "a solid should take all of the sun's light";
  EXPECT_LT(solid_under, 0.85f * water_under) << "the box's shadow should be darker than water's";
  EXPECT_NEAR(unshadowed_under, bare_under, 1.0f)
      << "shadows off, yet the floor is darker (or the box hides it)";
  // Water above the box: alone it shades that floor partly; with the box below it the shadow stays full (one
  // shadow map for both would keep only the nearer blocker, the water, and lighten it to the water's).
  const float water_above_under = patch_luminance(water_above_shadow, under_x, under_y);
  const float box_under_water_under = patch_luminance(box_under_water, under_x, under_y);
  std::printf(
      "with the slab 0.2 m nearer the sun: the slab alone %.1f (%.2f), the slab and the box %.1f (%.2f)\n",
      water_above_under, water_above_under / bare_under, box_under_water_under,
      box_under_water_under / bare_under);
  EXPECT_LT(water_above_under, 0.85f * bare_under) << "the slab above the box casts no shadow there";
  EXPECT_NEAR(box_under_water_under / bare_under, full_shadow, 0.03f)
      << "water above lightens the box's shadow";
  EXPECT_NEAR(moved_under, bare_under, 1.0f) << "the shadow stayed where the box was";
  EXPECT_NEAR(moved_moved / bare_moved, full_shadow, 0.03f) << "the shadow did not follow the box";
  for (const Picture* picture : {&water_shadow, &solid_shadow, &moved})
    EXPECT_NEAR(patch_luminance(*picture, beside_x, beside_y), patch_luminance(bare, beside_x, beside_y),
                1.0f)
        << "the floor away from the shadows is not as lit as the open floor";

  // Soft: across the shadow's edges along y (the box's sides, 0.16 m either side of its middle) the floor's
  // light goes from the shadow's to all of it over several pixels, as under water.
  int penumbra_pixels = 0;
  for (int y = 0; y < kSize; ++y) {
    const float share = solid_shadow.luminance(under_x, y) / std::max(bare.luminance(under_x, y), 1.0f);
    penumbra_pixels += share > full_shadow + 0.2f * (1 - full_shadow) && share < 1 - 0.2f * (1 - full_shadow);
  }
  std::printf("pixels in the penumbra along the box shadow's column (both edges): %d\n", penumbra_pixels);
  EXPECT_GE(penumbra_pixels, 4) << "a hard shadow edge";
}

}  // namespace
}  // namespace surge::render
