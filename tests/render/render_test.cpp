// The renderer draws what it should: small images rendered offscreen (Mesa's EGL surfaceless platform
// in CI, no X server), checked pixel by pixel against where geometry says spheres must be.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "render/camera.h"
#include "render/color_map.h"
#include "render/headless_gl_context.h"
#include "render/offscreen_target.h"
#include "render/particle_renderer.h"
#include "render/png_writer.h"
#include "render/shader_program.h"

namespace surge::render {
namespace {

struct Pixel {
  int r, g, b;
};

class Image {
 public:
  Image(int width, int height, std::vector<std::uint8_t> rgba)
      : width(width), height(height), rgba(std::move(rgba)) {}
  Pixel at(int x, int y) const {  // y from the top
    const std::size_t k = (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4;
    return {rgba[k], rgba[k + 1], rgba[k + 2]};
  }
  int width, height;
  std::vector<std::uint8_t> rgba;
};

Pixel to_pixel(Rgb c) {
  return {int(std::lround(c.r * 255)), int(std::lround(c.g * 255)), int(std::lround(c.b * 255))};
}
bool near(Pixel a, Pixel b, int tolerance) {
  return std::abs(a.r - b.r) <= tolerance && std::abs(a.g - b.g) <= tolerance &&
         std::abs(a.b - b.b) <= tolerance;
}
::testing::AssertionResult is_color(Pixel actual, Pixel expected, int tolerance = 2) {
  if (near(actual, expected, tolerance)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "pixel (" << actual.r << ", " << actual.g << ", " << actual.b << "), expected (" << expected.r
         << ", " << expected.g << ", " << expected.b << ") within " << tolerance;
}

const Pixel kBackground = to_pixel(kBackgroundColor);

class RenderTest : public ::testing::Test {
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
    settings_.lighting = false;
    settings_.show_color_bar = false;
    settings_.color_min = 0.0f;
    settings_.color_max = 1.0f;
    settings_.particle_radius = 0.1f;
  }
  void TearDown() override { renderer_.reset(); }

  Image render(const std::vector<Vec4f>& positions, const std::vector<float>& values, int width = 64,
               int height = 64) {
    renderer_->fluid().upload({positions.size(), positions.data(), values.empty() ? nullptr : values.data()});
    OffscreenTarget target(width, height);
    target.bind();
    renderer_->draw(camera_, width, height, settings_);
    return Image(width, height, target.read_rgba());
  }
  // Pixels from the image centre to a sphere's edge: r * focal length / distance * half the height.
  float projected_radius_px(float radius, float distance, int height) const {
    return radius / std::tan(0.5f * camera_.fov_y_deg * 3.14159265f / 180.0f) / distance * 0.5f *
           float(height);
  }

  static std::unique_ptr<HeadlessGlContext> context_;
  std::unique_ptr<ParticleRenderer> renderer_;
  OrbitCamera camera_;
  RenderSettings settings_;
};
std::unique_ptr<HeadlessGlContext> RenderTest::context_;

TEST_F(RenderTest, EmptySceneIsBackgroundEverywhere) {
  const Image image = render({}, {});
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      ASSERT_TRUE(is_color(image.at(x, y), kBackground, 1)) << x << "," << y;
}

TEST_F(RenderTest, SphereCoversItsProjectedDiscAndNothingElse) {
  settings_.color_by = ColorBy::fixed;
  // A sphere at the centre and one 0.2 m to the right.
  const Image image = render({{0, 0, 0, 0}, {0.2f, 0, 0, 0}}, {});
  const float radius_px = projected_radius_px(0.1f, 1.0f, 64);  // 8.8 px
  const float right_px = projected_radius_px(0.2f, 1.0f, 64);   // 17.6 px
  ASSERT_GT(radius_px, 8.0f);
  ASSERT_LT(radius_px, 9.5f);
  const Pixel sphere = to_pixel(kFixedParticleColor);
  int inside = 0, outside = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      const float cx = float(x) + 0.5f - 32.0f, cy = float(y) + 0.5f - 32.0f;
      const float to_first = std::hypot(cx, cy), to_second = std::hypot(cx - right_px, cy);
      const float nearest = std::min(to_first, to_second);
      // One pixel of slack at the rim for rasterisation.
      if (nearest < radius_px - 1.0f) {
        ++inside;
        EXPECT_TRUE(is_color(image.at(x, y), sphere)) << "inside a sphere at " << x << "," << y;
      } else if (nearest > radius_px + 1.0f) {
        ++outside;
        EXPECT_TRUE(is_color(image.at(x, y), kBackground)) << "outside the spheres at " << x << "," << y;
      }
    }
  EXPECT_GT(inside, 300);  // two discs of ~8 px radius
  EXPECT_GT(outside, 3000);
}

TEST_F(RenderTest, NearerSphereHidesFartherOneWhateverTheDrawOrder) {
  // The eye is at y = -1: the sphere at y = -0.2 is nearer. Colours: value 1 (near) and 0 (far).
  const Pixel near_color = to_pixel(sea_color_map(1.0f)), far_color = to_pixel(sea_color_map(0.0f));
  const std::vector<Vec4f> near_first = {{0.06f, -0.2f, 0, 0}, {-0.06f, 0.2f, 0, 0}};
  const std::vector<Vec4f> far_first = {near_first[1], near_first[0]};
  for (const bool near_drawn_first : {true, false}) {
    const Image image = near_drawn_first ? render(near_first, {1.0f, 0.0f}) : render(far_first, {0.0f, 1.0f});
    // On screen the far disc spans x = -11.7..2.9 px from the centre, the near one -4.4..17.6 px.
    // Where both overlap (the centre) the near one shows; at -7.5 px only the far one is there.
    EXPECT_TRUE(is_color(image.at(32, 32), near_color)) << "near drawn first: " << near_drawn_first;
    EXPECT_TRUE(is_color(image.at(33, 30), near_color)) << "near drawn first: " << near_drawn_first;
    EXPECT_TRUE(is_color(image.at(24, 32), far_color)) << "near drawn first: " << near_drawn_first;
  }
}

// With --boundary the walls are see-through: a fluid sphere behind a wall sphere shows through it, tinted by
// the wall's opacity (one layer: alpha wall + (1 - alpha) fluid), a wall sphere alone tints the background,
// and a wall behind the fluid is hidden by it.
TEST_F(RenderTest, WallsInFrontTintTheFluidAndWallsBehindItAreHidden) {
  settings_.color_by = ColorBy::fixed;
  settings_.show_boundary = true;
  const float alpha = settings_.boundary_opacity;
  ASSERT_GT(alpha, 0.0f);
  ASSERT_LT(alpha, 0.5f);
  // The eye is at y = -1. A wall sphere at y = -0.3 in front of the fluid sphere at the centre, and one at
  // x = 0.25 on its own; another wall sphere at y = +0.3 behind the fluid, 0.06 m up.
  const std::vector<Vec4f> walls = {{0, -0.3f, 0, 0}, {0.25f, 0, 0, 0}, {0, 0.3f, 0.06f, 0}};
  renderer_->boundary().upload({walls.size(), walls.data(), nullptr});
  const Image image = render({{0, 0, 0, 0}}, {});
  const Rgb fluid = kFixedParticleColor, wall = kBoundaryParticleColor, background = kBackgroundColor;
  const auto mix = [&](Rgb front, Rgb back) {
    return to_pixel({alpha * front.r + (1 - alpha) * back.r, alpha * front.g + (1 - alpha) * back.g,
                     alpha * front.b + (1 - alpha) * back.b});
  };
  EXPECT_TRUE(is_color(image.at(32, 32), mix(wall, fluid), 3)) << "the fluid through the wall in front";
  const int right = 32 + int(std::lround(projected_radius_px(0.25f, 1.0f, 64)));
  EXPECT_TRUE(is_color(image.at(right, 32), mix(wall, background), 3)) << "a wall sphere on its own";
  // 0.03 m above the centre: inside the fluid disc, and inside the far wall sphere's too; the fluid hides it.
  const int up = 32 - int(std::lround(projected_radius_px(0.03f, 1.0f, 64)));
  EXPECT_TRUE(is_color(image.at(32, up), mix(wall, fluid), 3)) << "only the near wall tints the fluid";
}

// Grains are drawn at their own radii (position.w) when the settings say so: a grain of 0.05 m and one of
// 0.1 m cover discs of their projected radii; without the flag both take particle_radius.
TEST_F(RenderTest, GrainsAreDrawnAtTheirOwnRadii) {
  settings_.color_by = ColorBy::fixed;
  settings_.radius_from_w = true;
  const Image image = render({{-0.15f, 0, 0, 0.05f}, {0.15f, 0, 0, 0.1f}}, {});
  const Pixel grain = to_pixel(kFixedParticleColor);
  // The covered run of the row y = 32 through a disc's centre.
  const auto disc_width = [&](const Image& picture, int centre_x) {
    int from = centre_x, to = centre_x;
    while (from > 0 && is_color(picture.at(from - 1, 32), grain)) --from;
    while (to < 63 && is_color(picture.at(to + 1, 32), grain)) ++to;
    return is_color(picture.at(centre_x, 32), grain) ? to - from + 1 : 0;
  };
  const int left = 32 - int(std::lround(projected_radius_px(0.15f, 1.0f, 64)));
  const int right = 32 + int(std::lround(projected_radius_px(0.15f, 1.0f, 64)));
  const int small = disc_width(image, left), large = disc_width(image, right);
  EXPECT_NEAR(small, 2 * projected_radius_px(0.05f, 1.0f, 64), 2.0);
  EXPECT_NEAR(large, 2 * projected_radius_px(0.1f, 1.0f, 64), 2.0);
  settings_.radius_from_w = false;  // both at particle_radius = 0.1 m
  const Image uniform = render({{-0.15f, 0, 0, 0.05f}, {0.15f, 0, 0, 0.1f}}, {});
  EXPECT_NEAR(disc_width(uniform, left), disc_width(uniform, right), 1.0);
}

// The glow style (n-body's default): bodies' light adds up. Two bodies whose sprites overlap: every pixel is
// the sum of the two drawn alone (where it does not saturate), so between them it is brighter than either.
TEST_F(RenderTest, GlowingBodiesAddTheirLight) {
  settings_.look.style = RenderStyle::glow;
  settings_.color_by = ColorBy::fixed;
  settings_.particle_radius = 0.05f;  // sprites of 0.1 m: the two below overlap by half
  settings_.reference_mass = 1.0f;
  const Vec4f left{-0.05f, 0, 0, 1.0f}, right{0.05f, 0, 0, 1.0f};
  const Image a = render({left}, {}), b = render({right}, {}), both = render({left, right}, {});
  int compared = 0, off = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      const Pixel pa = a.at(x, y), pb = b.at(x, y), sum = both.at(x, y);
      if (pa.r + pb.r >= 250) continue;  // saturated: the sum is clipped to white
      ++compared;
      off += !near(sum, Pixel{pa.r + pb.r, pa.g + pb.g, pa.b + pb.b}, 2);
    }
  const Pixel middle_a = a.at(32, 32), middle_both = both.at(32, 32);
  std::printf("glow: %d pixels compared, %d not the sum; between the bodies red %d alone, %d together\n",
              compared, off, middle_a.r, middle_both.r);
  EXPECT_GT(compared, 200);
  EXPECT_EQ(off, 0) << "the glow is not additive";
  EXPECT_GT(middle_both.r, middle_a.r + 20) << "overlapping bodies are not brighter";
  EXPECT_TRUE(is_color(both.at(2, 2), Pixel{0, 0, 0})) << "the glow style's night sky is not black";
}

// A body eight times the reference mass glows with a sprite twice as wide and eight times the light.
TEST_F(RenderTest, GlowFollowsTheBodiesMass) {
  settings_.look.style = RenderStyle::glow;
  settings_.color_by = ColorBy::fixed;
  settings_.particle_radius = 0.03f;
  settings_.reference_mass = 2.0f;
  settings_.glow_peak = 0.25f;  // the heavy body's centre stays below white, so its light can be summed
  const auto light = [](const Image& image, int x0, int x1, int& lit) {
    double sum = 0;
    lit = 0;
    for (int y = 0; y < 64; ++y)
      for (int x = x0; x < x1; ++x) sum += image.at(x, y).r, lit += image.at(x, y).r > 0;
    return sum;
  };
  const Image image = render({{-0.18f, 0, 0, 2.0f}, {0.18f, 0, 0, 16.0f}}, {});
  int light_px = 0, heavy_px = 0;
  const double light_sum = light(image, 0, 32, light_px), heavy_sum = light(image, 32, 64, heavy_px);
  std::printf("glow: reference body %d px, light %.0f; 8x the mass %d px, light %.0f\n", light_px, light_sum,
              heavy_px, heavy_sum);
  ASSERT_GT(light_px, 10);
  EXPECT_NEAR(double(heavy_px) / light_px, 4.0, 1.0) << "area: the radius goes as the cube root of the mass";
  EXPECT_NEAR(heavy_sum / light_sum, 8.0, 1.2) << "light: in proportion to the mass";
}

TEST_F(RenderTest, DepthIsTheSpheresSurfaceNotItsCentre) {
  // Two equal spheres side by side at the same distance, overlapping on screen. Their surfaces meet
  // on the plane between them: left of the middle the left sphere is nearer, right of it the right one.
  // Sprites drawn at their centres' depth would show whichever was drawn first on both sides.
  const Pixel left_color = to_pixel(sea_color_map(0.0f)), right_color = to_pixel(sea_color_map(1.0f));
  const std::vector<Vec4f> left_first = {{-0.05f, 0, 0, 0}, {0.05f, 0, 0, 0}};
  const std::vector<Vec4f> right_first = {left_first[1], left_first[0]};
  for (const bool left_drawn_first : {true, false}) {
    const Image image =
        left_drawn_first ? render(left_first, {0.0f, 1.0f}) : render(right_first, {1.0f, 0.0f});
    // Pixels 2.5 px (about 0.03 m) either side of the middle, inside both discs.
    EXPECT_TRUE(is_color(image.at(29, 32), left_color)) << "left drawn first: " << left_drawn_first;
    EXPECT_TRUE(is_color(image.at(34, 32), right_color)) << "left drawn first: " << left_drawn_first;
  }
}

TEST_F(RenderTest, ColourMapEndsAndClampingBeyondTheRange) {
  settings_.color_min = 10.0f;
  settings_.color_max = 20.0f;
  // Left: at the low end; centre: above the range (clamped to the top); right: at the top.
  const Image image = render({{-0.25f, 0, 0, 0}, {0, 0, 0, 0}, {0.25f, 0, 0, 0}}, {10.0f, 35.0f, 20.0f});
  const float offset = projected_radius_px(0.25f, 1.0f, 64);
  EXPECT_TRUE(is_color(image.at(int(32 - offset), 32), to_pixel(sea_color_map(0.0f))));
  EXPECT_TRUE(is_color(image.at(32, 32), to_pixel(sea_color_map(1.0f))));
  EXPECT_TRUE(is_color(image.at(int(32 + offset), 32), to_pixel(sea_color_map(1.0f))));
  EXPECT_FALSE(near(to_pixel(sea_color_map(0.0f)), to_pixel(sea_color_map(1.0f)), 50));
}

TEST_F(RenderTest, ColourBarShowsTheMapBottomToTop) {
  settings_.show_color_bar = true;
  const int size = 256;
  const Image image = render({}, {}, size, size);
  // The bar: 12 px wide starting 70 px from the right edge, from 1/4 to 3/4 of the height, the colour
  // map's t = 1 at its top edge and t = 0 at its bottom edge.
  const int x = size - 70 + 6;
  const float top = size / 4, height = size / 2;
  auto t_at_row = [&](int y) { return 1.0f - (float(y) + 0.5f - top) / height; };
  for (int y : {size / 4, size / 2, 3 * size / 4 - 1}) {
    EXPECT_TRUE(is_color(image.at(x, y), to_pixel(sea_color_map(t_at_row(y))), 3)) << "row " << y;
  }
  EXPECT_TRUE(is_color(image.at(x, size / 4), to_pixel(sea_color_map(1.0f)), 8)) << "top: the last colour";
  EXPECT_TRUE(is_color(image.at(x, 3 * size / 4 - 1), to_pixel(sea_color_map(0.0f)), 8))
      << "bottom: the first";
  EXPECT_TRUE(is_color(image.at(x, 10), kBackground, 1)) << "above the bar and its title";
}

TEST_F(RenderTest, LitSphereIsBrightestTowardsTheLight) {
  settings_.lighting = true;
  settings_.color_by = ColorBy::fixed;
  const Image image = render({{0, 0, 0, 0}}, {});
  // The light comes from the upper left: a pixel up-left of the centre is brighter than down-right.
  const Pixel upper_left = image.at(28, 28), lower_right = image.at(36, 36);
  EXPECT_GT(upper_left.r + upper_left.g + upper_left.b, lower_right.r + lower_right.g + lower_right.b + 30);
}

TEST_F(RenderTest, ScreenshotIsAValidPngOfTheRequestedSize) {
  settings_.lighting = true;
  settings_.show_color_bar = true;
  const int width = 320, height = 200;
  const Image image = render({{0, 0, 0, 0}, {0.1f, 0.1f, 0.05f, 0}}, {0.2f, 0.8f}, width, height);
  const auto file = std::filesystem::temp_directory_path() / "surge_render_test.png";
  write_png(file, width, height, image.rgba);
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
  std::ifstream in(file, std::ios::binary);
  unsigned char header[24] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_EQ(0, std::memcmp(header, signature, 8));
  EXPECT_EQ(0, std::memcmp(header + 12, "IHDR", 4));
  auto big_endian = [&](int at) {
    return (header[at] << 24) | (header[at + 1] << 16) | (header[at + 2] << 8) | header[at + 3];
  };
  EXPECT_EQ(big_endian(16), width);
  EXPECT_EQ(big_endian(20), height);
  int w = 0, h = 0, channels = 0;
  unsigned char* decoded = stbi_load(file.string().c_str(), &w, &h, &channels, 4);
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(w, width);
  EXPECT_EQ(h, height);
  EXPECT_EQ(0, std::memcmp(decoded, image.rgba.data(), image.rgba.size()))
      << "PNG decodes to the pixels drawn";
  stbi_image_free(decoded);
  std::filesystem::remove(file);
}

TEST_F(RenderTest, ShaderCompileErrorNamesFileAndLine) {
  const auto dir = std::filesystem::temp_directory_path() / "surge_bad_shaders";
  std::filesystem::create_directories(dir);
  for (const char* name : {"particle_sphere.vert", "overlay.vert", "overlay.frag"}) {
    std::filesystem::copy_file(shader_directory() / name, dir / name,
                               std::filesystem::copy_options::overwrite_existing);
  }
  std::ofstream(dir / "particle_sphere.frag")
      << "#version 450 core\nout vec4 c;\nvoid main() {\n  c = vec4(1.0) +;\n}\n";
  try {
    ParticleRenderer broken(dir);
    FAIL() << "a broken shader compiled";
  } catch (const ShaderError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find((dir / "particle_sphere.frag").string() + ":4:"), std::string::npos) << message;
  }
  std::filesystem::remove_all(dir);
}

TEST(ShaderLog, MesaAndNvidiaLinesBecomeFileAndLine) {
  EXPECT_EQ(format_shader_log("0:12(5): error: syntax error\n", "a.frag"),
            "a.frag:12: error: syntax error\n");
  EXPECT_EQ(format_shader_log("0(7) : error C1008: undefined variable \"x\"\n", "b.vert"),
            "b.vert:7: error C1008: undefined variable \"x\"\n");
  EXPECT_EQ(format_shader_log("something else\n", "c.frag"), "c.frag: something else\n");
}

TEST(Camera, FramingKeepsTheWholeBoxInView) {
  const Vec3f lo{0, 0, 0}, hi{1.6f, 0.6f, 0.8f};
  for (const auto& name : kCameraPresetNames) {
    const OrbitCamera camera = OrbitCamera::framing(lo, hi, *parse_camera_preset(name));
    const Mat4 clip_from_world = camera.projection(16.0f / 9.0f) * camera.view();
    for (int corner = 0; corner < 8; ++corner) {
      const Vec4 p{corner & 1 ? hi.x : lo.x, corner & 2 ? hi.y : lo.y, corner & 4 ? hi.z : lo.z, 1.0f};
      const Vec4 clip = clip_from_world * p;
      EXPECT_LT(std::abs(clip.x / clip.w), 1.0f) << name << " corner " << corner;
      EXPECT_LT(std::abs(clip.y / clip.w), 1.0f) << name << " corner " << corner;
      EXPECT_GT(clip.w, 0.0f);
    }
  }
  EXPECT_FALSE(parse_camera_preset("diagonal").has_value());
}

TEST(Camera, PointUnderThePointerProjectsBackToIt) {
  const OrbitCamera camera = OrbitCamera::framing({0, 0, 0}, {1, 0.5f, 0.6f}, CameraPreset::perspective);
  const float aspect = 1.5f;
  const Mat4 clip_from_world = camera.projection(aspect) * camera.view();
  for (const auto& [x, y] : {std::pair{0.0f, 0.0f}, std::pair{0.5f, -0.25f}, std::pair{-0.9f, 0.8f}}) {
    const Vec3f p = camera.point_on_target_plane(x, y, aspect);
    const Vec4 clip = clip_from_world * Vec4{p.x, p.y, p.z, 1.0f};
    EXPECT_NEAR(clip.x / clip.w, x, 1e-4f);
    EXPECT_NEAR(clip.y / clip.w, y, 1e-4f);
    EXPECT_NEAR(clip.w, camera.distance, 1e-4f) << "on the plane through the target";
  }
}

}  // namespace
}  // namespace surge::render
