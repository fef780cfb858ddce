// Comparing a simulated dam-break front Z(T) and residual height eta(tau) with experiments, in the
// dimensionless variables of Martin & Moyce (1952): Z = x/a, T = t sqrt(2g/a) for the front;
// eta = h/H, tau = t sqrt(g/a) for the height (H = 2a). In these units the shallow-water (Ritter) front moves
// at dZ/dT = 2 (x - a = 2 sqrt(gH) t), an upper bound for any physical front.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/validation/reference_data.h"

namespace surge {

// Linear interpolation in a curve sorted by x; constant beyond either end.
double interpolate(const Curve& curve, double x);

// A simulated curve against experimental points with x <= x_max, the simulation delayed by `shift`:
// it is read at x - shift (a positive shift accounts for the experiment's gate opening later than t = 0).
struct CurveComparison {
  double shift = 0;
  std::vector<double> x;          // experimental abscissae used
  std::vector<double> expected;   // experimental values
  std::vector<double> simulated;  // the simulation at x - shift
  double max_relative_error = 0;  // max |sim - exp| / |exp|
  double rms_relative_error = 0;  // root mean square of the same
  double max_absolute_error = 0;  // max |sim - exp|
  double max_signed_relative_error =
      0;  // the relative error of largest magnitude, with its sign (+: sim ahead)
};
CurveComparison compare_curves(const Curve& simulated, const Curve& experiment, double shift, double x_max);

// The one shift in [-max_shift, max_shift] that minimises the max relative error (minimax) over x <= x_max,
// found by scanning in steps of `resolution` (the error is piecewise linear in the shift, so a fine scan
// finds the minimum to within the step). Ties go to the shift nearest zero.
CurveComparison fit_shift(const Curve& simulated, const Curve& experiment, double max_shift, double x_max,
                          double resolution = 1e-3);

// Least-squares slope of the samples with x in [x_lo, x_hi]; NaN with fewer than two.
double least_squares_slope(const Curve& curve, double x_lo, double x_hi);

// Largest least-squares slope over every window [x, x + window] that holds at least three samples: the
// front speed, smoothed over `window` so that a new particle taking the lead (a jump of one spacing) does not
// read as a burst of speed.
double max_windowed_slope(const Curve& curve, double window);

// max over samples of y - (intercept + slope x): > 0 where the curve is ahead of that line.
double max_excess_over_line(const Curve& curve, double intercept, double slope);

}  // namespace surge
