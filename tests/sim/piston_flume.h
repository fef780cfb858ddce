// The piston wave flume, shared by the CPU test of its side walls (tests/sim/piston_flume_test.cpp) and the
// GPU test of Biesel's transfer function (tests/gpu/moving_solids_gpu_test.cpp): water d = 0.3 m deep in a
// quasi-2-D flume a few particles wide, a piston at x = 0 with the stroke that makes a wave of the asked
// height by linear wave-maker theory, ramped in over one period, and level gauges along the flume.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace surge {

// Linear wave-maker theory for a piston of stroke S in water of depth d: far from the piston the wave
// height is H = S 2 (cosh 2kh - 1) / (sinh 2kh + 2kh) (Biesel 1951; Dean & Dalrymple, eq. 6.16).
inline double biesel_piston(double kh) {
  return 2.0 * (std::cosh(2 * kh) - 1.0) / (std::sinh(2 * kh) + 2 * kh);
}

// The wave number of frequency omega in depth d: omega^2 = g k tanh(k d), by fixed-point iteration.
inline double wave_number(double omega, double depth) {
  double k = omega * omega / 9.81;
  for (int i = 0; i < 200; ++i) k = omega * omega / (9.81 * std::tanh(k * depth));
  return k;
}

// The height of the wave at frequency omega in a series: twice the amplitude of its least-squares fit
// eta = a cos(omega t) + b sin(omega t) + c.
inline double fitted_height(const std::vector<double>& t, const std::vector<double>& eta, double omega) {
  double m[3][4] = {};
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double row[3] = {std::cos(omega * t[i]), std::sin(omega * t[i]), 1.0};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) m[r][c] += row[r] * row[c];
      m[r][3] += row[r] * eta[i];
    }
  }
  for (int p = 0; p < 3; ++p)  // Gauss-Jordan on the 3x3 normal equations
    for (int r = 0; r < 3; ++r) {
      if (r == p) continue;
      const double f = m[r][p] / m[p][p];
      for (int c = 0; c < 4; ++c) m[r][c] -= f * m[p][c];
    }
  const double a = m[0][3] / m[0][0], b = m[1][3] / m[1][1];
  return 2.0 * std::sqrt(a * a + b * b);
}

// One flume: the wave's kh, the flume's width in particles, the fluid's alpha and delta, a name for the
// test's variant, the kernel and its support in spacings (the wall as many layers deep, at least 2), which
// walls are free-slip ([domain] slip_walls), the particle spacing and the wave's height.
struct Flume {
  double kh;
  int width_particles = 4;
  double alpha = 0.01, delta = 0.1;
  const char* name = "";
  const char* kernel = "wendland_c2";
  int support = 3;
  bool slip_floor = false;
  bool slip_side_walls = true;
  double spacing = 0.005;     // [m]
  double wave_height = 0.03;  // [m]
};

// The wave a flume's piston makes, by linear theory.
struct FlumeWave {
  double depth = 0.3;  // [m]
  double k = 0;        // [1/m]
  double omega = 0;    // [rad/s]
  double period = 0;   // [s]
  double biesel = 0;   // H / S
  double stroke = 0;   // S [m]
  double group = 0;    // group velocity [m/s]
  double width = 0;    // [m]
  // When the ramped wave train's front passes x: the ramp's period, then its travel at the group velocity.
  double front(double x) const { return period + x / group; }
};

inline FlumeWave flume_wave(const Flume& flume) {
  FlumeWave wave;
  wave.k = flume.kh / wave.depth;
  wave.omega = std::sqrt(9.81 * wave.k * std::tanh(flume.kh));
  wave.period = 2 * 3.14159265358979323846 / wave.omega;
  wave.biesel = biesel_piston(flume.kh);
  wave.stroke = flume.wave_height / wave.biesel;
  wave.group = 0.5 * wave.omega / wave.k * (1 + 2 * flume.kh / std::sinh(2 * flume.kh));
  wave.width = flume.width_particles * flume.spacing;
  return wave;
}

// The scene: a flume `length` long, continuity density with delta-SPH, c0 = 15 m/s, level gauges sampled
// every 5 ms at gauge_x (named eta_<x>) across the middle of the flume.
inline std::string piston_flume_scene(const Flume& flume, double length, const std::vector<double>& gauge_x) {
  const FlumeWave wave = flume_wave(flume);
  std::string slip;
  if (flume.slip_side_walls) slip += "\"y-\", \"y+\"";
  if (flume.slip_floor) slip += std::string(slip.empty() ? "" : ", ") + "\"z-\"";
  char text[2048];
  std::snprintf(text, sizeof text, R"(name = "flume"
[domain]
min = [0.0, 0.0, 0.0]
max = [%.3f, %.4f, 0.55]
walls = ["x-", "x+", "y-", "y+", "z-"]
wall_layers = %d
slip_walls = [%s]
[resolution]
spacing = %.4f
kernel = "%s"
support_ratio = %d.0
[fluid]
viscosity_alpha = %.3f
speed_of_sound = 15.0
continuity_density = true
density_diffusion = %.3f
[[fluid.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [%.3f, %.4f, %.3f]
[[solid]]
name = "piston"
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.05, %.4f, 0.5]
motion = "oscillate"
amplitude = [%.5f, 0.0, 0.0]
frequency = %.6f
ramp = %.5f
[gauges]
every_time = 0.005
)",
                length, wave.width, std::max(2, flume.support), slip.c_str(), flume.spacing, flume.kernel,
                flume.support, flume.alpha, flume.delta, length, wave.width, wave.depth, wave.width,
                0.5 * wave.stroke, wave.omega / (2 * 3.14159265358979323846), wave.period);
  std::string scene_text = text;
  for (const double x : gauge_x) {
    std::snprintf(text, sizeof text,
                  "[[gauge]]\nname = \"eta_%.1f\"\ntype = \"level\"\nx = %.3f\ny = %.4f\n"
                  "z0 = 0.1\nz1 = 0.54\n",
                  x, x, 0.5 * wave.width);
    scene_text += text;
  }
  return scene_text;
}

}  // namespace surge
