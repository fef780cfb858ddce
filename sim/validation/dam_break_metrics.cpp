#include "sim/validation/dam_break_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace surge {

double interpolate(const Curve& curve, double x) {
  if (curve.x.empty()) throw std::invalid_argument("interpolate: empty curve");
  if (x <= curve.x.front()) return curve.y.front();
  if (x >= curve.x.back()) return curve.y.back();
  const auto upper = std::upper_bound(curve.x.begin(), curve.x.end(), x);
  const std::size_t j = std::size_t(upper - curve.x.begin()), i = j - 1;
  const double span = curve.x[j] - curve.x[i];
  if (span <= 0) return curve.y[j];
  const double w = (x - curve.x[i]) / span;
  return (1 - w) * curve.y[i] + w * curve.y[j];
}

CurveComparison compare_curves(const Curve& simulated, const Curve& experiment, double shift, double x_max) {
  CurveComparison c;
  c.shift = shift;
  double sum_squares = 0;
  for (std::size_t k = 0; k < experiment.size(); ++k) {
    const double x = experiment.x[k];
    if (x > x_max) continue;
    const double expected = experiment.y[k], sim = interpolate(simulated, x - shift);
    const double relative = (sim - expected) / std::abs(expected);
    c.x.push_back(x);
    c.expected.push_back(expected);
    c.simulated.push_back(sim);
    if (std::abs(relative) > c.max_relative_error) {
      c.max_relative_error = std::abs(relative);
      c.max_signed_relative_error = relative;
    }
    c.max_absolute_error = std::max(c.max_absolute_error, std::abs(sim - expected));
    sum_squares += relative * relative;
  }
  if (!c.x.empty()) c.rms_relative_error = std::sqrt(sum_squares / double(c.x.size()));
  return c;
}

CurveComparison fit_shift(const Curve& simulated, const Curve& experiment, double max_shift, double x_max,
                          double resolution) {
  const long steps = std::lround(max_shift / resolution);
  CurveComparison best = compare_curves(simulated, experiment, 0.0, x_max);
  // Scan outwards from zero, +k then -k, so that of equal errors the smaller shift wins.
  for (long k = 1; k <= steps; ++k) {
    for (double sign : {1.0, -1.0}) {
      const double shift = std::min(max_shift, double(k) * resolution) * sign;
      CurveComparison candidate = compare_curves(simulated, experiment, shift, x_max);
      if (candidate.max_relative_error < best.max_relative_error - 1e-12) best = std::move(candidate);
    }
  }
  return best;
}

double least_squares_slope(const Curve& curve, double x_lo, double x_hi) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < curve.size(); ++k) {
    const double x = curve.x[k], y = curve.y[k];
    if (x < x_lo || x > x_hi) continue;
    n += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double denominator = n * sxx - sx * sx;
  if (n < 2 || denominator <= 0) return std::numeric_limits<double>::quiet_NaN();
  return (n * sxy - sx * sy) / denominator;
}

double max_windowed_slope(const Curve& curve, double window) {
  double fastest = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < curve.size(); ++k) {
    const double x0 = curve.x[k];
    if (x0 + window > curve.x.back() + 1e-12) break;
    std::size_t samples = 0;
    for (std::size_t j = k; j < curve.size() && curve.x[j] <= x0 + window + 1e-12; ++j) ++samples;
    if (samples < 3) continue;
    const double slope = least_squares_slope(curve, x0, x0 + window + 1e-12);
    if (std::isfinite(slope)) fastest = std::max(fastest, slope);
  }
  return fastest;
}

double max_excess_over_line(const Curve& curve, double intercept, double slope) {
  double excess = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < curve.size(); ++k)
    excess = std::max(excess, curve.y[k] - (intercept + slope * curve.x[k]));
  return excess;
}

}  // namespace surge
