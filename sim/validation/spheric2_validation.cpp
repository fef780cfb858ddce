#include "sim/validation/spheric2_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sim/scene/scene.h"

namespace surge {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string seconds(double t) {
  return std::isnan(t) ? std::string("never") : fixed(t, 3) + " s";
}

const GaugeDefinition* find_gauge(const Scene& scene, const std::string& name) {
  for (const GaugeDefinition& g : scene.gauges)
    if (g.name == name) return &g;
  return nullptr;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream fields(line);
  while (std::getline(fields, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

double Spheric2Geometry::ritter_speed() const {
  return 2.0 * std::sqrt(gravity * depth);
}

Spheric2Geometry spheric2_geometry(const Scene& scene) {
  Spheric2Geometry geometry;
  for (std::size_t k = 0; k < kSpheric2Levels.size(); ++k) {
    const GaugeDefinition* g = find_gauge(scene, kSpheric2Levels[k]);
    if (g == nullptr || g->kind != GaugeKind::level)
      throw SceneError(
          scene.path, g ? g->line : 0, "gauge",
          std::string("expected a level gauge named ") + kSpheric2Levels[k] + " (SPHERIC Test 2's H1-H4)");
    geometry.level_x[k] = g->position.x;
  }
  for (const char* name : kSpheric2Pressures) {
    const GaugeDefinition* g = find_gauge(scene, name);
    if (g == nullptr || g->kind != GaugeKind::pressure)
      throw SceneError(scene.path, g ? g->line : 0, "gauge",
                       std::string("expected a pressure gauge named ") + name + " (SPHERIC Test 2's P1-P8)");
  }
  const FluidBlock* column = nullptr;
  for (const FluidBlock& b : scene.blocks)
    if (b.shape == FluidBlock::Shape::box) {
      column = &b;
      break;
    }
  if (column == nullptr)
    throw SceneError(scene.path, 0, "fluid.block", "expected a box of water (the column)");
  geometry.face_x = column->min.x;
  geometry.depth = column->max.z - column->min.z;
  geometry.gravity =
      std::sqrt(double(scene.gravity.x) * scene.gravity.x + double(scene.gravity.y) * scene.gravity.y +
                double(scene.gravity.z) * scene.gravity.z);
  geometry.spacing = scene.spacing;
  return geometry;
}

const std::vector<double>* GaugeSeries::column(const std::string& name) const {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return &values[k];
  return nullptr;
}

GaugeSeries read_gauge_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  GaugeSeries series;
  std::string line;
  int line_number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split(line);
    if (!header) {
      if (cells.empty() || cells[0] != "time_s")
        throw std::runtime_error(path.string() + ":" + std::to_string(line_number) +
                                 ": expected a header starting with time_s");
      series.names.assign(cells.begin() + 1, cells.end());
      series.values.resize(series.names.size());
      header = true;
      continue;
    }
    if (cells.size() != series.names.size() + 1)
      throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": expected " +
                               std::to_string(series.names.size() + 1) + " cells, got " +
                               std::to_string(cells.size()));
    for (std::size_t k = 0; k < cells.size(); ++k) {
      char* end = nullptr;
      const double value = std::strtod(cells[k].c_str(), &end);
      if (cells[k].empty() || *end != '\0')
        throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": '" + cells[k] +
                                 "' is not a number");
      (k == 0 ? series.time_s : series.values[k - 1]).push_back(value);
    }
  }
  if (!header) throw std::runtime_error(path.string() + ": no header row");
  return series;
}

bool Spheric2Verdict::pass() const {
  return std::all_of(checks.begin(), checks.end(), [](const Spheric2Check& c) { return c.pass; });
}

std::vector<std::string> Spheric2Verdict::failed() const {
  std::vector<std::string> keys;
  for (const Spheric2Check& c : checks)
    if (!c.pass) keys.push_back(c.key);
  return keys;
}

Spheric2Verdict evaluate_spheric2(const GaugeSeries& series, const Spheric2Geometry& geometry, bool stable,
                                  double end_time_s) {
  Spheric2Verdict v;
  v.ritter_speed = geometry.ritter_speed();
  const std::size_t samples = series.time_s.size();

  // Peaks and non-finite values, every column.
  for (std::size_t c = 0; c < series.names.size(); ++c) {
    GaugePeak peak{series.names[c], kNaN, kNaN};
    for (std::size_t k = 0; k < series.values[c].size(); ++k) {
      const double value = series.values[c][k];
      if (!std::isfinite(value)) {
        ++v.non_finite;
        continue;
      }
      if (std::isnan(peak.max) || value > peak.max) {
        peak.max = value;
        peak.time_s = series.time_s[k];
      }
    }
    v.peaks.push_back(peak);
  }
  for (double t : series.time_s)
    if (!std::isfinite(t)) ++v.non_finite;

  // Arrivals at H1..H4 and the Ritter bound on each.
  std::array<const std::vector<double>*, 4> level{};
  for (std::size_t k = 0; k < 4; ++k) {
    level[k] = series.column(kSpheric2Levels[k]);
    v.arrival_s[k] = kNaN;
    if (level[k] != nullptr)
      for (std::size_t i = 0; i < level[k]->size(); ++i)
        if ((*level[k])[i] > kArrivalLevel) {
          v.arrival_s[k] = series.time_s[i];
          break;
        }
    v.earliest_s[k] =
        std::max(0.0, (geometry.face_x - geometry.level_x[k] - geometry.spacing) / v.ritter_speed);
  }

  // initial_level
  const bool have_h4 = level[3] != nullptr && !level[3]->empty();
  v.initial_h4 = have_h4 ? level[3]->front() : kNaN;
  v.checks.push_back({"initial_level", "H4 at the first sample (inside the column) = its depth",
                      have_h4 ? fixed(v.initial_h4, 3) + " m" : std::string("no H4 sample"),
                      fixed(geometry.depth, 3) + " +- " + fixed(geometry.spacing, 3) + " m (one spacing)",
                      have_h4 && std::abs(v.initial_h4 - geometry.depth) <= geometry.spacing});

  // arrival_order: H3, H2, H1 (indices 2, 1, 0), each after the one upstream; one not reached is allowed only
  // when every gauge downstream of it is unreached too and the run ended before kArrivalRequiredBy.
  const bool required = end_time_s >= kArrivalRequiredBy;
  bool order_ok = true;
  std::string order_text;
  double previous = 0;
  bool upstream_reached = true;
  for (int k = 2; k >= 0; --k) {
    const double t = v.arrival_s[k];
    const bool reached = !std::isnan(t);
    if (!order_text.empty()) order_text += ", ";
    order_text += std::string(kSpheric2Levels[k]) + " " + seconds(t);
    if (reached) {
      if (!upstream_reached || t <= previous) order_ok = false;
      previous = t;
    } else {
      if (required) order_ok = false;
      upstream_reached = false;
    }
  }
  v.checks.push_back({"arrival_order", "first arrival (level > 1 cm) at H3, then H2, then H1", order_text,
                      required ? "in order, all by " + fixed(kArrivalRequiredBy, 1) + " s"
                               : "in order (the run ends before " + fixed(kArrivalRequiredBy, 1) +
                                     " s: one not reached is allowed)",
                      order_ok});

  // ritter_bound
  bool ritter_ok = true;
  std::string ritter_text, ritter_allowed;
  for (int k = 2; k >= 0; --k) {
    if (!ritter_text.empty()) {
      ritter_text += ", ";
      ritter_allowed += ", ";
    }
    ritter_text += std::string(kSpheric2Levels[k]) + " " + seconds(v.arrival_s[k]);
    ritter_allowed += std::string("> ") + fixed(v.earliest_s[k], 3);
    if (!std::isnan(v.arrival_s[k]) && v.arrival_s[k] <= v.earliest_s[k]) ritter_ok = false;
  }
  v.checks.push_back(
      {"ritter_bound",
       "arrivals no earlier than the Ritter front 2 sqrt(g d) = " + fixed(v.ritter_speed, 2) + " m/s allows",
       ritter_text, ritter_allowed + " s", ritter_ok});

  // finite, stable
  v.checks.push_back({"finite", "every gauge value finite, at least one sample",
                      std::to_string(v.non_finite) + " non-finite of " + std::to_string(samples) + " samples",
                      "0, > 0 samples", v.non_finite == 0 && samples > 0});
  v.checks.push_back(
      {"stable", "the run ends without an instability", stable ? "stable" : "unstable", "stable", stable});
  return v;
}

}  // namespace surge
