// SPHERIC Test 2 (Kleefsman et al. 2005: a dam break onto a box obstacle, scenes/spheric2_dam_break.toml):
// what `surge validate spheric2` checks of a run's gauge series. No experimental series ships with Surge, so
// the checks are the ones physics requires of any run, whatever its resolution:
//   initial_level  H4 (inside the initial column) reads the column's depth at the first sample, within one
//                  spacing;
//   arrival_order  the water reaches H3, H2, H1 in that order (first sample above kArrivalLevel), the gauges
//                  downstream of the column's face; a gauge the run ended before reaching is reported, and
//                  required only when the run lasts kArrivalRequiredBy;
//   ritter_bound   no gauge is reached before the shallow-water (Ritter) front 2 sqrt(g d) could get there:
//                  t_arrival(x) > (x_face - x - spacing) / (2 sqrt(g d)); the spacing allows for the gauge's
//                  reach (it reads the kernel-interpolated fluid fraction);
//   finite         no gauge value is NaN or infinite, and there is at least one sample;
//   stable         the run ended without an instability.
// Per gauge the maximum and its time are reported (P1's impact peak, for instance), not judged.
// tests/sim/spheric2_validation_test.cpp holds the verdict on synthetic series.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace surge {

struct Scene;

inline constexpr double kArrivalLevel = 0.01;      // [m] "water has arrived": the level above this
inline constexpr double kArrivalRequiredBy = 1.5;  // [s] every gauge must be reached by then
inline const std::array<const char*, 4> kSpheric2Levels = {"H1", "H2", "H3", "H4"};
inline const std::array<const char*, 8> kSpheric2Pressures = {"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"};

// What the checks need of the scene: the column's face (its smallest x; the water runs towards -x), its
// depth, gravity, the spacing of the run and the level gauges' x.
struct Spheric2Geometry {
  double face_x = 1.992;                                         // [m]
  double depth = 0.55;                                           // [m]
  double gravity = 9.81;                                         // [m/s^2], magnitude
  double spacing = 0.02;                                         // [m], of the run
  std::array<double, 4> level_x = {0.496, 0.992, 1.488, 2.638};  // H1..H4 [m]
  double ritter_speed() const;                                   // 2 sqrt(g d) [m/s]
};

// The scene's geometry (spacing: the scene's; the caller sets the run's). Throws SceneError when the scene
// lacks one of H1-H4 (level) or P1-P8 (pressure) or has no fluid box.
Spheric2Geometry spheric2_geometry(const Scene& scene);

// The gauge CSV as GaugeRecorder writes it: time_s, then one column per gauge.
struct GaugeSeries {
  std::vector<double> time_s;
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;                           // values[column][sample]
  const std::vector<double>* column(const std::string& name) const;  // nullptr when absent
};

// Throws std::runtime_error naming the file (and line) when it cannot be read or a cell is no number
// ("nan" reads as NaN: the finite check reports it).
GaugeSeries read_gauge_csv(const std::filesystem::path& path);

struct GaugePeak {
  std::string name;
  double max = 0;     // NaN when the series is empty
  double time_s = 0;  // of the first sample at the maximum
};

struct Spheric2Check {
  std::string key;  // initial_level, arrival_order, ritter_bound, finite, stable
  std::string description;
  std::string value_text;
  std::string allowed;
  bool pass = true;
};

struct Spheric2Verdict {
  double ritter_speed = 0;
  std::array<double, 4> arrival_s{};   // H1..H4; NaN: never above kArrivalLevel (H4: it starts wet)
  std::array<double, 4> earliest_s{};  // H1..H4: the Ritter bound on the arrival
  double initial_h4 = 0;               // H4 at the first sample [m]
  long non_finite = 0;                 // values that are NaN or infinite
  std::vector<GaugePeak> peaks;        // every gauge of the series, in its order
  std::vector<Spheric2Check> checks;   // in the order of the header comment
  bool pass() const;
  std::vector<std::string> failed() const;  // the keys of the checks that failed
};

// `stable`: the run ended without an instability; `end_time_s`: where it ended.
Spheric2Verdict evaluate_spheric2(const GaugeSeries& series, const Spheric2Geometry& geometry, bool stable,
                                  double end_time_s);

}  // namespace surge
