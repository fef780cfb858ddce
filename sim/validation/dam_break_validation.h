// The dam-break validation's acceptance criteria: how a run is sampled, how long it runs, and the
// requirements its front Z(T) and residual height eta(tau) must meet against Martin & Moyce (1952) and
// Koshizuka & Oka (1996) (docs/validation.md explains each choice). `surge validate dam-break` prints what
// evaluate_dam_break() decides, and tests/sim/dam_break_validation_test.cpp holds the same verdict.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/vec.h"
#include "sim/validation/dam_break_metrics.h"
#include "sim/validation/dam_break_slab.h"
#include "sim/validation/free_surface_probe.h"
#include "sim/validation/reference_data.h"

namespace surge {

// "T <= 3.3": every point of Martin & Moyce's Table 2, the last one (T = 3.33) included.
inline constexpr double kFrontCompareUntilT = 3.35;
inline constexpr double kFrontRunUntilT = 3.5;  // run at least this far for the front
inline constexpr double kLateSlopeFromT = 1.5, kLateSlopeToT = 3.3;
// The experiments' late slope as the validation states it; a least-squares fit of Table 2 over T in
// [1.5, 3.33] gives 1.34, over [1.4, 3.33] 1.32.
inline constexpr double kExperimentLateSlope = 1.32;
inline constexpr double kRitterSlope = 2.0;     // dZ/dT of the shallow-water front 2 sqrt(gH), H = 2a
inline constexpr double kSampleEveryT = 0.025;  // sampling interval of the front (half the 0.05 asked for)
inline constexpr double kSpeedWindowT = 0.5;    // front speed = least-squares slope over this window
// Two particles closer than 1.5 spacings are in one group: particles in the sheet sit about one spacing
// apart, so the link holds through a sheet stretched by half, but a drop with a gap of half a spacing to the
// sheet is spray. The height band is two particle columns wide at the back wall.
// A group with less than 2 % of the water is spray. The rule is a fraction of the water, not a particle
// count, so the same chunk of water is spray or not at every resolution (16 particles at 10 across a,
// 2,000 at 50); a torn-off piece of the surge sheet or the water left at the back wall holds more.
inline constexpr double kLinkSpacings = 1.5;
inline constexpr double kBandSpacings = 2.0;
inline constexpr double kMinBodyFraction = 0.02;

// ---- Experimental data

struct DamBreakReferences {
  Curve front_mm;                                       // Martin & Moyce Table 2: Z(T)
  Curve height_mm;                                      // Martin & Moyce Table 6: eta(tau)
  std::vector<std::pair<std::string, Curve>> front_ko;  // Koshizuka & Oka, one curve per digitisation
  std::vector<std::string> sources;                     // the files read
};

// The three CSVs of assets/validation in `directory`. Throws std::runtime_error naming a missing or bad file.
DamBreakReferences load_dam_break_references(const std::filesystem::path& directory);

// ---- The run

// The probe for a slab scene prepared by prepare_dam_break_slab: links, band and spray rule as above.
FreeSurfaceProbeSettings dam_break_probe_settings(const Scene& scene);

struct DamBreakSample {
  double time_s = 0;
  FreeSurfaceProbe probe;
  double front_all_m = 0;  // largest x of any particle (spray included) plus half a spacing
};

DamBreakSample sample_dam_break(double time_s, const std::vector<Vec4f>& positions,
                                const FreeSurfaceProbeSettings& settings);

// Where a run ends: far enough for the front compared at the largest shift allowed, and past the height
// table's last tau.
struct DamBreakRunEnd {
  double front_T = 0;
  double time_s = 0;
};
DamBreakRunEnd dam_break_run_end(const DamBreakReferences& refs, const DamBreakColumn& column,
                                 double max_shift);

// ---- Requirements

// The defaults are the requirements of the validation (docs/validation.md).
struct DamBreakTolerances {
  double z_tolerance = 0.10;      // max |relative error| of Z against Martin & Moyce after the fitted shift
  double max_shift = 0.2;         // |Delta T| allowed for that shift
  double slope_tolerance = 0.15;  // |dZ/dT - 1.32| over T in [1.5, 3.3]
  double eta_tolerance = 0.0;     // > 0: also require max |eta - eta_MM| <= this; 0: report only
};

struct DamBreakRequirement {
  std::string key;
  std::string description;
  double value = 0;
  std::string value_text;
  std::string allowed;   // the tolerance, as printed
  bool enforced = true;  // false: reported only
  bool pass = true;
};

// The result column of the requirements table: "pass", "FAIL", or "-" for one reported only.
const char* requirement_verdict(const DamBreakRequirement& requirement);

struct DamBreakMetrics {
  Curve front;   // Z(T)
  Curve height;  // eta(tau)
  CurveComparison raw_mm, fitted_mm;
  std::vector<std::pair<std::string, CurveComparison>> raw_ko, fitted_ko;  // KO at shift 0 and at MM's shift
  CurveComparison height_raw, height_shifted;
  double late_slope = 0;
  double max_speed = 0;
  double ritter_excess = 0;  // max of Z - (1 + 2T)
  // front_error, late_slope, ritter_speed, ritter_position, height_error, in that order.
  std::vector<DamBreakRequirement> requirements;
  bool pass() const;  // every enforced requirement holds
};

// The samples of a run (every kSampleEveryT from t = 0) against the experiments; `spacing` is the scene's.
DamBreakMetrics evaluate_dam_break(const std::vector<DamBreakSample>& samples, const DamBreakReferences& refs,
                                   const DamBreakColumn& column, double spacing,
                                   const DamBreakTolerances& tolerances);

}  // namespace surge
