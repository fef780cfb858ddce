#include "render/color_map.h"

#include <algorithm>
#include <cmath>

namespace surge::render {
namespace {

struct ColorStop {
  float t;
  Rgb color;
};
// Lightness rises monotonically from stop to stop, so a greyscale print still orders the values.
constexpr std::array<ColorStop, 5> kSeaStops = {{{0.00f, {0.03f, 0.09f, 0.32f}},
                                                 {0.30f, {0.05f, 0.33f, 0.72f}},
                                                 {0.60f, {0.20f, 0.67f, 0.88f}},
                                                 {0.85f, {0.68f, 0.90f, 0.96f}},
                                                 {1.00f, {1.00f, 0.98f, 0.92f}}}};

}  // namespace

std::optional<ColorBy> parse_color_by(const std::string& name) {
  for (std::size_t i = 0; i < kColorByNames.size(); ++i) {
    if (kColorByNames[i] == name) return ColorBy(i);
  }
  return std::nullopt;
}

std::string color_by_label(ColorBy color_by) {
  switch (color_by) {
    case ColorBy::speed:
      return "speed [m/s]";
    case ColorBy::density:
      return "density [kg/m^3]";
    case ColorBy::pressure:
      return "pressure [Pa]";
    case ColorBy::fixed:
      return "";
  }
  return "";
}

Rgb sea_color_map(float t) {
  t = std::clamp(std::isnan(t) ? 0.0f : t, 0.0f, 1.0f);
  for (std::size_t k = 1; k < kSeaStops.size(); ++k) {
    if (t <= kSeaStops[k].t) {
      const ColorStop &a = kSeaStops[k - 1], &b = kSeaStops[k];
      const float s = (t - a.t) / (b.t - a.t);
      return {a.color.r + s * (b.color.r - a.color.r), a.color.g + s * (b.color.g - a.color.g),
              a.color.b + s * (b.color.b - a.color.b)};
    }
  }
  return kSeaStops.back().color;
}

std::vector<unsigned char> sample_color_map(int samples) {
  std::vector<unsigned char> bytes;
  bytes.reserve(std::size_t(samples) * 3);
  for (int i = 0; i < samples; ++i) {
    const Rgb c = sea_color_map(samples > 1 ? float(i) / float(samples - 1) : 0.0f);
    for (float channel : {c.r, c.g, c.b}) bytes.push_back((unsigned char)std::lround(channel * 255.0f));
  }
  return bytes;
}

}  // namespace surge::render
