// The scene's solids drawn as shaded meshes (render/solid_meshes.h, app/graphics/solid_feed.h), through
// the real simulation on the CPU backend and real GL (Mesa, offscreen): a box appears where its projection
// says and nowhere else, its faces are lit as the shader's Lambert model says, and a moving solid is drawn
// at its new pose after steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "app/graphics/particle_feed.h"
#include "app/graphics/render_defaults.h"
#include "app/graphics/solid_feed.h"
#include "render/headless_gl_context.h"
#include "render/offscreen_target.h"
#include "render/particle_renderer.h"
#include "render/png_writer.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"

namespace surge {
namespace {

constexpr int kWidth = 320, kHeight = 240;

// A 0.4 m tank with a thin layer of water on its floor and a 0.12 m box above it, clear of the water, so
// that nothing but the box's own faces can cover the box. `motion` is the [[solid]]'s motion keys.
Scene box_scene(const std::string& motion = "") {
  const std::string text = R"(name = "solid_box"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.4]
walls = ["x-", "x+", "y-", "y+", "z-"]
[resolution]
spacing = 0.01
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.4, 0.4, 0.02]
[[solid]]
name = "block"
shape = "box"
center = [0.15, 0.2, 0.16]
size = [0.12, 0.12, 0.12]
)" + motion;
  return parse_scene(text, "solid_box.toml");
}

const Vec3f kBoxCenter{0.15f, 0.2f, 0.16f};
constexpr float kBoxHalf = 0.06f;

struct Pixel {
  float x, y;  // from the left and from the top of the image [px]
};

struct Frame {
  std::vector<std::uint8_t> rgba;
  std::uint8_t at(int x, int y, int channel) const {
    return rgba[(std::size_t(y) * kWidth + std::size_t(x)) * 4 + std::size_t(channel)];
  }
  bool differs_at(const Frame& other, int x, int y) const {
    for (int c = 0; c < 3; ++c)
      if (at(x, y, c) != other.at(x, y, c)) return true;
    return false;
  }
  bool darker_at(const Frame& other, int x, int y) const {
    for (int c = 0; c < 3; ++c)
      if (at(x, y, c) > other.at(x, y, c)) return false;
    return true;
  }
};

// Renders the simulation's current particles and solids, spheres or surface style, solids shown or not.
class SolidScene {
 public:
  explicit SolidScene(const Scene& scene)
      : simulation_(make_simulation(scene, ExecutionMode::cpu)),
        target_(kWidth, kHeight),
        feed_(*simulation_, renderer_.fluid(), false, messages_),
        solid_feed_(*simulation_, renderer_.solids()) {
    const app::SceneLook look = app::scene_look(*simulation_);
    camera_ =
        render::OrbitCamera::framing(look.domain_min, look.domain_max, render::CameraPreset::perspective);
    settings_.color_by = render::ColorBy::fixed;
    settings_.show_color_bar = false;
    settings_.particle_radius = look.particle_radius;
    app::apply_render_look(RenderLook{}, look, settings_);
  }

  Simulation& simulation() { return *simulation_; }
  void set_shadows(bool on) { settings_.look.shadows = on; }
  app::SolidFeed& solid_feed() { return solid_feed_; }
  render::ParticleRenderer& renderer() { return renderer_; }

  Frame draw(bool solids, RenderStyle style = RenderStyle::spheres) {
    feed_.update(settings_.color_by);
    settings_.show_solids = solids;
    settings_.look.style = style;
    target_.bind();
    renderer_.draw(camera_, kWidth, kHeight, settings_);
    return {target_.read_rgba()};
  }

  Pixel project(Vec3f world) const {
    const render::Mat4 transform = camera_.projection(float(kWidth) / float(kHeight)) * camera_.view();
    const render::Vec4 clip = transform * render::Vec4{world.x, world.y, world.z, 1.0f};
    return {(0.5f * clip.x / clip.w + 0.5f) * kWidth, (0.5f - 0.5f * clip.y / clip.w) * kHeight};
  }
  Vec3f eye() const { return camera_.eye(); }
  // The surface style's thickness blur and spray ring reach this far around what changed the thickness:
  // 3 particle radii (fluid_thickness_blur.frag, fluid_particle.vert), projected at `distance` from the eye.
  float surface_filter_reach_px(float distance) const {
    const render::Mat4 projection = camera_.projection(float(kWidth) / float(kHeight));
    return std::ceil(3.0f * settings_.particle_radius * projection.at(1, 1) * 0.5f * kHeight / distance);
  }

 private:
  render::HeadlessGlContext context_;
  std::unique_ptr<Simulation> simulation_;
  render::ParticleRenderer renderer_;
  render::OffscreenTarget target_;
  std::ostringstream messages_;
  app::ParticleFeed feed_;
  app::SolidFeed solid_feed_;
  render::OrbitCamera camera_;
  render::RenderSettings settings_;
};

struct Rect {
  float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
  void grow(Pixel p) {
    x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
  }
  bool contains(float x, float y, float margin) const {
    return x >= x0 - margin && x <= x1 + margin && y >= y0 - margin && y <= y1 + margin;
  }
};

Rect projected_box(const SolidScene& view, Vec3f center) {
  Rect rect;
  for (int k = 0; k < 8; ++k)
    rect.grow(view.project(center + Vec3f{k & 1 ? kBoxHalf : -kBoxHalf, k & 2 ? kBoxHalf : -kBoxHalf,
                                          k & 4 ? kBoxHalf : -kBoxHalf}));
  return rect;
}

// The pixels where the solid changed the picture, and where they lie.
struct SolidPixels {
  std::size_t inside = 0, outside = 0;  // of the projected box's rectangle widened by a margin
  double mean_x = 0, mean_y = 0;
};
// Rasterisation puts an edge's pixel centres within a pixel of the projected outline.
constexpr float kEdgeMarginPx = 2.0f;
SolidPixels solid_pixels(const Frame& with, const Frame& without, const Rect& rect,
                         float margin = kEdgeMarginPx) {
  SolidPixels out;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      if (!with.differs_at(without, x, y)) continue;
      if (rect.contains(x + 0.5f, y + 0.5f, margin)) {
        ++out.inside;
        out.mean_x += x + 0.5;
        out.mean_y += y + 0.5;
      } else {
        ++out.outside;
      }
    }
  if (out.inside > 0) out.mean_x /= double(out.inside), out.mean_y /= double(out.inside);
  return out;
}

std::filesystem::path picture_directory() {
  const char* out = std::getenv("OUT");
  return out && *out ? std::filesystem::path(out) : std::filesystem::temp_directory_path();
}

TEST(SolidRender, SolidSurfacesArePublishedInTheirBodyFrame) {
  const Scene scene = box_scene();
  auto simulation = make_simulation(scene, ExecutionMode::cpu);
  ASSERT_EQ(simulation->solid_surfaces().size(), 1u);
  const SolidSurface& box = simulation->solid_surfaces()[0];
  EXPECT_EQ(box.name, "block");
  ASSERT_EQ(box.triangles.size(), 36u) << "a box is 12 triangles";
  for (Vec3f corner : box.triangles) {
    EXPECT_FLOAT_EQ(std::abs(corner.x), kBoxHalf);
    EXPECT_FLOAT_EQ(std::abs(corner.y), kBoxHalf);
    EXPECT_FLOAT_EQ(std::abs(corner.z), kBoxHalf);
  }
  EXPECT_FLOAT_EQ(box.rest.center.x, kBoxCenter.x);
  EXPECT_FLOAT_EQ(box.rest.center.z, kBoxCenter.z);
  std::vector<BodyPose> poses;
  EXPECT_FALSE(simulation->download_solid_poses(poses)) << "a fixed solid has no poses to read";
}

TEST(SolidRender, ModelMatrixPlacesBodyPointsAsTheBodyDoes) {
  const BodyPose pose{{1.0f, 2.0f, 3.0f}, quat_from_axis_angle({0.0f, 0.0f, 1.0f}, 0.5f * 3.14159265f)};
  const render::Mat4 model = app::model_matrix(pose);
  const Vec3f r{0.2f, -0.1f, 0.3f};
  const render::Vec4 x = model * render::Vec4{r.x, r.y, r.z, 1.0f};
  const Vec3f expected = pose.center + rotate(pose.orientation, r);  // x_k = c + R(q) r_k
  EXPECT_NEAR(x.x, expected.x, 1e-6f);
  EXPECT_NEAR(x.y, expected.y, 1e-6f);
  EXPECT_NEAR(x.z, expected.z, 1e-6f);
  EXPECT_NEAR(x.x, 1.1f, 1e-6f) << "a quarter turn about z takes (0.2, -0.1) to (0.1, 0.2)";
}

TEST(SolidRender, SphereAndCylinderNormalsAreSmoothAndBoxNormalsFlat) {
  const Scene scene = box_scene(R"([[solid]]
name = "ball"
shape = "sphere"
center = [0.3, 0.3, 0.2]
radius = 0.04
[[solid]]
name = "post"
shape = "cylinder"
center = [0.3, 0.1, 0.2]
radius = 0.03
height = 0.1
)");
  auto simulation = make_simulation(scene, ExecutionMode::cpu);
  ASSERT_EQ(simulation->solid_surfaces().size(), 3u);
  for (const SolidSurface& surface : simulation->solid_surfaces()) {
    SCOPED_TRACE(surface.name);
    const std::vector<Vec3f> normals =
        render::corner_normals({surface.triangles.data(), surface.triangles.size()});
    // The largest angle between a corner's normal and the true surface's, and between a triangle's own
    // (flat) normal and the true surface's at its corners [deg].
    double worst = 0, worst_flat = 0;
    const auto angle = [](Vec3f a, Vec3f b) {
      return std::acos(std::clamp(double(dot(a, b)), -1.0, 1.0)) * 180.0 / 3.14159265;
    };
    for (std::size_t k = 0; k < normals.size(); ++k) {
      const Vec3f r = surface.triangles[k];
      const Vec3f* c = &surface.triangles[k - k % 3];
      const Vec3f face = render::normalized(render::cross(c[1] - c[0], c[2] - c[0]));
      Vec3f truth = face;
      if (surface.name == "ball") truth = render::normalized(r);
      // A cylinder's side faces out from the axis, its caps along it.
      if (surface.name == "post" && std::abs(face.z) < 0.9f)
        truth = render::normalized(Vec3f{r.x, r.y, 0.0f});
      worst = std::max(worst, angle(normals[k], truth));
      worst_flat = std::max(worst_flat, angle(face, truth));
    }
    std::printf(
        "%s: %zu triangles, corner normals within %.3f deg of the true surface's (the facets' own: %.3f)\n",
        surface.name.c_str(), surface.triangles.size() / 3, worst, worst_flat);
    if (surface.name == "block") {
      EXPECT_LT(worst, 0.1) << "a box's faces are flat: each corner takes its own face's normal";
    } else {
      // Smooth: the corners' normals are much nearer the true surface's than the facets' (half a segment's
      // angle, 3.75 deg); and the rims stay sharp, or the caps' corners would lean by 45 deg.
      EXPECT_LT(worst, 2.0);
      EXPECT_LT(worst, 0.5 * worst_flat);
    }
  }
}

TEST(SolidRender, BoxIsDrawnWhereItsProjectionSaysWithLitFacesInBothStyles) {
  SolidScene view(box_scene());
  const Rect rect = projected_box(view, kBoxCenter);
  std::printf("projected box: x %.0f..%.0f, y %.0f..%.0f px of %dx%d\n", rect.x0, rect.x1, rect.y0, rect.y1,
              kWidth, kHeight);
  ASSERT_GT(rect.x1 - rect.x0, 20.0f) << "the box should be well resolved in the picture";
  // In the surface style the box also hides the water behind it from the thickness, whose blur spreads that
  // change a few pixels around the box's outline: as far as at the box's nearest corner, at most.
  float nearest = 1e9f;
  for (int k = 0; k < 8; ++k)
    nearest = std::min(
        nearest, std::sqrt(length_squared(kBoxCenter +
                                          Vec3f{k & 1 ? kBoxHalf : -kBoxHalf, k & 2 ? kBoxHalf : -kBoxHalf,
                                                k & 4 ? kBoxHalf : -kBoxHalf} -
                                          view.eye())));
  for (RenderStyle style : {RenderStyle::spheres, RenderStyle::surface}) {
    SCOPED_TRACE(style == RenderStyle::spheres ? "spheres" : "surface");
    const float margin =
        kEdgeMarginPx + (style == RenderStyle::surface ? view.surface_filter_reach_px(nearest) : 0.0f);
    if (style == RenderStyle::surface) {
      // The surface style's floor takes the box's shadow beyond its outline (fluid_surface_test.cpp,
      // ASolidCastsAFullShadowThatFollowsItsPose, measures it): there the box may only darken the picture.
      const Frame with = view.draw(true, style), without = view.draw(false, style);
      render::write_png(picture_directory() / "solid_box_surface_shadow.png", kWidth, kHeight, with.rgba);
      std::size_t darkened = 0, lightened = 0;
      for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x)
          if (!rect.contains(x + 0.5f, y + 0.5f, margin) && with.differs_at(without, x, y))
            ++(with.darker_at(without, x, y) ? darkened : lightened);
      std::printf(
          "surface style, beyond the box's outline: %zu pixels darkened (its shadow), %zu lightened\n",
          darkened, lightened);
      EXPECT_GT(darkened, 100u) << "the box casts no shadow on the floor";
      EXPECT_EQ(lightened, 0u) << "the box lightened pixels away from where it projects";
      // Below, the box's own pixels, without its shadow.
      view.set_shadows(false);
    }
    const Frame with = view.draw(true, style), without = view.draw(false, style);
    render::write_png(
        picture_directory() /
            (std::string("solid_box_") + (style == RenderStyle::spheres ? "spheres" : "surface") + ".png"),
        kWidth, kHeight, with.rgba);
    const SolidPixels pixels = solid_pixels(with, without, rect, margin);
    const double area = (rect.x1 - rect.x0) * (rect.y1 - rect.y0);
    std::printf(
        "pixels changed by the box: %zu inside its projected rectangle + %.0f px (%.0f%% of it), %zu "
        "outside\n",
        pixels.inside, margin, 100.0 * double(pixels.inside) / area, pixels.outside);
    EXPECT_EQ(pixels.outside, 0u) << "the box changed pixels away from where it projects";
    // A cube's outline covers well over half of its bounding rectangle from any direction.
    EXPECT_GT(double(pixels.inside), 0.5 * area);
    const Pixel centre = view.project(kBoxCenter);
    EXPECT_TRUE(with.differs_at(without, int(centre.x), int(centre.y)));
  }

  // The faces the eye sees, each shaded as solid_mesh.frag's Lambert model says for its normal (spheres
  // style: nothing is drawn over the box there).
  const Frame with = view.draw(true);
  const Vec3f to_light = render::sun_direction();
  std::vector<float> shades;
  for (int axis = 0; axis < 3; ++axis)
    for (float side : {-1.0f, 1.0f}) {
      const Vec3f normal{axis == 0 ? side : 0.0f, axis == 1 ? side : 0.0f, axis == 2 ? side : 0.0f};
      const Vec3f face_centre = kBoxCenter + kBoxHalf * normal;
      if (dot(normal, view.eye() - face_centre) <= 0.0f) continue;
      const Pixel p = view.project(face_centre);
      const float ambient = 0.22f + (0.42f - 0.22f) * (0.5f + 0.5f * normal.z);
      const float shade = ambient + 0.62f * std::max(dot(normal, to_light), 0.0f);
      const int expected_red = int(std::lround(255.0f * std::min(1.0f, render::kSolidColor.r * shade)));
      const int red = with.at(int(p.x), int(p.y), 0);
      std::printf("face %c%c: red %d, Lambert + ambient %d\n", side < 0 ? '-' : '+', "xyz"[axis], red,
                  expected_red);
      EXPECT_NEAR(red, expected_red, 2);
      shades.push_back(float(red));
    }
  ASSERT_GE(shades.size(), 2u) << "the default camera sees at least two faces of the box";
  EXPECT_GT(*std::max_element(shades.begin(), shades.end()) - *std::min_element(shades.begin(), shades.end()),
            20.0f)
      << "the faces the eye sees should differ in shade";
}

// A prescribed motion through the real simulation: after steps, the box is drawn at the pose the
// simulation reports, and its pixels have moved with it.
TEST(SolidRender, MovingSolidIsDrawnAtItsNewPoseAfterSteps) {
  SolidScene view(box_scene("motion = \"linear\"\nvelocity = [1.0, 0.0, 0.0]\n"));
  const Frame before_with = view.draw(true), before_without = view.draw(false);
  const SolidPixels before = solid_pixels(before_with, before_without, projected_box(view, kBoxCenter));

  double time = 0;
  while (time < 0.08) {
    view.simulation().step();
    time = view.simulation().status().time_s;
  }
  view.solid_feed().update();
  std::vector<BodyPose> poses;
  ASSERT_TRUE(view.simulation().download_solid_poses(poses));
  ASSERT_EQ(poses.size(), 1u);
  const Vec3f moved = poses[0].center;
  std::printf("after %.4f s the box's centre is at x = %.4f m (from %.4f)\n", time, moved.x, kBoxCenter.x);
  EXPECT_NEAR(moved.x - kBoxCenter.x, time, 1e-3) << "linear motion at 1 m/s, no ramp";
  const render::Mat4& model = view.renderer().solids().model(0);
  EXPECT_FLOAT_EQ(model.at(0, 3), moved.x) << "the renderer places the box where the simulation has it";

  const Frame after_with = view.draw(true), after_without = view.draw(false);
  render::write_png(picture_directory() / "solid_box_moved.png", kWidth, kHeight, after_with.rgba);
  const Rect moved_rect = projected_box(view, moved);
  const SolidPixels after = solid_pixels(after_with, after_without, moved_rect);
  EXPECT_EQ(after.outside, 0u) << "pixels changed away from the box's new place";
  EXPECT_GT(double(after.inside), 0.5 * (moved_rect.x1 - moved_rect.x0) * (moved_rect.y1 - moved_rect.y0));
  // The solid's pixels moved as the projection of its centre did.
  const Pixel from = view.project(kBoxCenter), to = view.project(moved);
  std::printf("solid pixels' centroid moved by (%.1f, %.1f) px; the centre's projection by (%.1f, %.1f)\n",
              after.mean_x - before.mean_x, after.mean_y - before.mean_y, to.x - from.x, to.y - from.y);
  ASSERT_GT(std::hypot(to.x - from.x, to.y - from.y), 10.0f) << "move the box further for a clear test";
  EXPECT_NEAR(after.mean_x - before.mean_x, to.x - from.x, 3.0);
  EXPECT_NEAR(after.mean_y - before.mean_y, to.y - from.y, 3.0);
}

}  // namespace
}  // namespace surge
