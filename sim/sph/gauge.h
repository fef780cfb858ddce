// Gauges: probes an engineer reads an SPH run through, sampled every `every_time` simulated seconds into a
// CSV (sim/io/gauge_recorder.h). This header holds what the scene says of them (GaugeDefinition,
// GaugeOutput, read by sim/scene/read_gauges.cpp) and what a solver is handed (GaugeProbe); the sums
// themselves are in gauges.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/vec.h"

namespace surge {

// What a gauge measures: a point's pressure or velocity, a water level, the fluid's force and moment on a
// [[solid]] (force), or a solid's motion (body: pose, velocities, the last step's force and torque). The
// first three are sums over fluid particles near a point (gauges.h); force and body are the solid's
// (sim/sph/solid_bodies.h).
enum class GaugeKind : std::int32_t { pressure, level, velocity, force, body };
inline constexpr std::string_view kGaugeKindNames[] = {"pressure", "level", "velocity", "force", "body"};

// Values a gauge writes per sample (CSV columns): one, three for a vector, six for a force and moment,
// nineteen for a body (gauge_columns names them).
constexpr std::uint32_t gauge_value_count(GaugeKind kind) {
  switch (kind) {
    case GaugeKind::velocity:
      return 3u;
    case GaugeKind::force:
      return 6u;
    case GaugeKind::body:
      return 19u;
    default:
      return 1u;
  }
}

// The CSV columns of a gauge named `name`: NAME; NAME_x, _y, _z; NAME_fx ... NAME_mz; or the body's
// NAME_x, _y, _z (its reference point), _qw, _qx, _qy, _qz (orientation), _vx ... _wz (velocities) and
// _fx ... _tz (force and torque).
inline std::vector<std::string> gauge_columns(GaugeKind kind, const std::string& name) {
  std::vector<std::string> suffixes;
  switch (kind) {
    case GaugeKind::velocity:
      suffixes = {"_x", "_y", "_z"};
      break;
    case GaugeKind::force:
      suffixes = {"_fx", "_fy", "_fz", "_mx", "_my", "_mz"};
      break;
    case GaugeKind::body:
      suffixes = {"_x",  "_y",  "_z",  "_qw", "_qx", "_qy", "_qz", "_vx", "_vy", "_vz",
                  "_wx", "_wy", "_wz", "_fx", "_fy", "_fz", "_tx", "_ty", "_tz"};
      break;
    default:
      return {name};
  }
  std::vector<std::string> columns;
  for (const std::string& suffix : suffixes) columns.push_back(name + suffix);
  return columns;
}

// [[gauge]] as the scene gives it, in SI units, checked.
struct GaugeDefinition {
  std::string name;  // unique: the CSV column (a velocity gauge's are NAME_x, NAME_y, NAME_z)
  GaugeKind kind = GaugeKind::pressure;
  Vec3f position{};         // pressure, velocity: the point [m]; level: (x, y, z0) of the vertical line
  float z_top = 0;          // level: z1 > z0 [m]
  std::uint32_t solid = 0;  // force, body: the [[solid]]'s index
  int line = 0;             // of the [[gauge]] table in the scene file
};

// [gauges]: when and where the gauges are written.
struct GaugeOutput {
  float every_time = 0;   // simulated seconds between samples [s]; required with any [[gauge]]
  float filter_time = 0;  // time constant of the first-order low-pass filter [s]; 0 = no filtered columns
  std::string csv;        // path of the CSV, relative to the output directory; empty: gauges.csv
  int line = 0;           // of the [gauges] table
};

// One gauge as a solver samples it: plain data, copied to the device once.
struct GaugeProbe {
  GaugeKind kind = GaugeKind::pressure;
  Vec3f point{};                  // as GaugeDefinition::position
  float z_top = 0;                // level only [m]
  std::uint32_t first_value = 0;  // index of its first value in the sample's value array
  std::uint32_t solid = 0;        // force, body: the solid (the solver's body index)
};

inline std::vector<GaugeProbe> gauge_probes(const std::vector<GaugeDefinition>& gauges) {
  std::vector<GaugeProbe> probes;
  std::uint32_t next = 0;
  for (const GaugeDefinition& g : gauges) {
    probes.push_back({g.kind, g.position, g.z_top, next, g.solid});
    next += gauge_value_count(g.kind);
  }
  return probes;
}

// What a gauge recorder (sim/io/gauge_recorder.h) samples: a simulation in one process
// (sim/backend/simulation.h), or a run over several ranks (sim/distributed/distributed_fluid.h), where
// every rank takes part in each sample and every rank gets the values.
class GaugeSource {
 public:
  virtual ~GaugeSource() = default;
  // Hands the probes over once: false for a solver without gauges; std::invalid_argument for a kind the
  // solver cannot measure.
  virtual bool set_gauges(const std::vector<GaugeProbe>& probes) = 0;
  // Valid after the first step: the values in GaugeProbe::first_value order.
  virtual void sample_gauges(std::vector<float>& values) = 0;
};

inline std::uint32_t gauge_value_total(const std::vector<GaugeProbe>& probes) {
  return probes.empty() ? 0u : probes.back().first_value + gauge_value_count(probes.back().kind);
}

}  // namespace surge
