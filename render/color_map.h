// How particles get their colour: a quantity, its range, and the colour map that turns a value in that
// range into a colour. The same map feeds the shader (as a texture) and the colour bar.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace surge::render {

struct Rgb {
  float r = 0, g = 0, b = 0;  // in [0, 1]
};

enum class ColorBy { speed, density, pressure, fixed };
inline const std::vector<std::string> kColorByNames = {"speed", "density", "pressure", "fixed"};
std::optional<ColorBy> parse_color_by(const std::string& name);
// "speed [m/s]", for the colour bar's title.
std::string color_by_label(ColorBy color_by);

// Surge's colour map, "sea": deep blue (slow, light, low pressure) through cyan to foam white.
// t is clamped to [0, 1].
Rgb sea_color_map(float t);

// The map sampled at `samples` evenly spaced points from t = 0 to t = 1, as RGB bytes (texture data).
std::vector<unsigned char> sample_color_map(int samples);

inline constexpr Rgb kFixedParticleColor{0.16f, 0.45f, 0.86f};
inline constexpr Rgb kBoundaryParticleColor{0.55f, 0.55f, 0.58f};
inline constexpr Rgb kBackgroundColor{0.20f, 0.21f, 0.24f};
// The glow style's colour by `--color-by fixed`: the warm white of a star field.
inline constexpr Rgb kGlowColor{1.00f, 0.86f, 0.66f};

}  // namespace surge::render
