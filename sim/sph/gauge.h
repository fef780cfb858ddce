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

// What a gauge measures. `force` on a solid is the planned fourth kind: when solids exist, it gets a kind
// here, a value count in gauge_value_count (3: Fx, Fy, Fz), a case in sample_gauge (gauges.h) summing the
// fluid's pressure and viscous forces on the solid's particles, and a name in kGaugeKindNames.
enum class GaugeKind : std::int32_t { pressure, level, velocity };
inline constexpr std::string_view kGaugeKindNames[] = {"pressure", "level", "velocity"};

// Values a gauge writes per sample (CSV columns): one, or three for a vector.
constexpr std::uint32_t gauge_value_count(GaugeKind kind) {
  return kind == GaugeKind::velocity ? 3u : 1u;
}

// [[gauge]] as the scene gives it, in SI units, checked.
struct GaugeDefinition {
  std::string name;  // unique: the CSV column (a velocity gauge's are NAME_x, NAME_y, NAME_z)
  GaugeKind kind = GaugeKind::pressure;
  Vec3f position{};  // pressure, velocity: the point [m]; level: (x, y, z0) of the vertical line
  float z_top = 0;   // level: z1 > z0 [m]
  int line = 0;      // of the [[gauge]] table in the scene file
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
};

inline std::vector<GaugeProbe> gauge_probes(const std::vector<GaugeDefinition>& gauges) {
  std::vector<GaugeProbe> probes;
  std::uint32_t next = 0;
  for (const GaugeDefinition& g : gauges) {
    probes.push_back({g.kind, g.position, g.z_top, next});
    next += gauge_value_count(g.kind);
  }
  return probes;
}

inline std::uint32_t gauge_value_total(const std::vector<GaugeProbe>& probes) {
  return probes.empty() ? 0u : probes.back().first_value + gauge_value_count(probes.back().kind);
}

}  // namespace surge
