// The piston wave flume (tests/sim/piston_flume.h) on the CPU at a coarse spacing: how much its side walls
// damp the wave. WCSPH's artificial viscosity against wall particles at rest brakes the water within a
// support of a no-slip wall; in a flume four particles wide that is all of it. Free-slip side walls
// ([domain] slip_walls) leave the viscous term out, so the wave should lose less height per metre.
#include "tests/sim/piston_flume.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/gauge.h"
#include "tests/sim/archimedes_check.h"

namespace surge {
namespace {

// The wave's height at two gauges, each fitted over the second and third periods after the wave train's
// front has passed it (the same stage of the train at both), and the decay rate beta of H(x) = H0 e^(-beta x)
// between them. (Fitted over the second period alone, the heights were not the train's: 0.49 of Biesel's at
// both 0.45 and 0.9 m with free-slip walls, 0.66 and 0.48 with no-slip ones.)
struct FlumeDecay {
  double near_ratio = 0;  // H / S at the near gauge over Biesel's
  double far_ratio = 0;   // the same at the far gauge
  double beta = 0;        // [1/m]
};

FlumeDecay measure_decay(const Flume& flume, double near_x, double far_x, double length) {
  const FlumeWave wave = flume_wave(flume);
  const std::vector<double> gauge_x = {near_x, far_x};
  const Scene scene = parse_scene(piston_flume_scene(flume, length, gauge_x), "flume.toml");
  const auto window_start = [&](double x) { return wave.front(x) + wave.period; };
  const double end = window_start(far_x) + 2 * wave.period;
  // The far wall's reflection must not reach the far gauge before the window closes.
  EXPECT_GT((2 * length - far_x) / wave.group, end);
  const auto started = std::chrono::steady_clock::now();
  auto sim = make_simulation(scene, ExecutionMode::cpu, {});
  EXPECT_TRUE(sim->set_gauges(gauge_probes(scene.gauges)));
  std::vector<std::vector<double>> times(2), levels(2);
  run_sampling(*sim, end, window_start(near_x), 0.005, [&](const std::vector<float>& values, double t) {
    for (std::size_t g = 0; g < 2; ++g) {
      if (t < window_start(gauge_x[g]) || t >= window_start(gauge_x[g]) + 2 * wave.period) continue;
      times[g].push_back(t);
      levels[g].push_back(values[g]);
    }
  });
  FlumeDecay decay;
  if (times[1].size() < 250) {  // 0.005 s apart over two periods of 0.79 s: about 316
    ADD_FAILURE() << "the far gauge took " << times[1].size() << " samples";
    return decay;
  }
  const double near = fitted_height(times[0], levels[0], wave.omega);
  const double far = fitted_height(times[1], levels[1], wave.omega);
  decay.near_ratio = near / wave.stroke / wave.biesel;
  decay.far_ratio = far / wave.stroke / wave.biesel;
  decay.beta = std::log(near / far) / (far_x - near_x);
  std::printf(
      "kh %.1f, %d across, %s side walls, %s: H/S over Biesel's %.3f at %.2f m, %.3f at %.2f m; "
      "beta %.3f /m (%.0f %% a metre); %zu particles, %ld steps, %.0f s\n",
      flume.kh, flume.width_particles, flume.slip_side_walls ? "free-slip" : "no-slip", flume.kernel,
      decay.near_ratio, near_x, decay.far_ratio, far_x, decay.beta, 100 * (1 - std::exp(-decay.beta)),
      sim->fluid_count(), sim->status().step,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return decay;
}

// Measured (cubic spline at 2 spacings, kd = 2, dp = 0.02 m, 4 across), H/S over Biesel's at 0.6 and 1.2 m
// and the decay rate between them:
//   before WCSPH's pair terms were rearranged (perf-forces): free-slip 0.835, 0.635, beta 0.46 /m; no-slip
//     0.762, 0.565, beta 0.50 /m;
//   after (CI, 2026-12-04): free-slip 0.754, 0.573, beta 0.457 /m; no-slip 0.781, 0.570, beta 0.524 /m.
// A change of rounding alone moved the free-slip height at 0.6 m by 10 %: one run's height at a gauge is not
// a measurement of the walls. The decay rate held (the free-slip flume 9-13 % below the no-slip one in both),
// so that is what is checked, with a margin of half the smaller difference. Either way the walls' friction is
// not what damps the wave along the flume (docs/scenes.md, "A piston wave-maker"); the width matters: 8
// across with free-slip side walls decayed at 0.20 /m (13.5 min). About 5 minutes a run on two cores.
TEST(PistonFlume, FreeSlipSideWallsDampTheWaveLessThanNoSlipOnes) {
  Flume flume{2.0, 4, 0.01, 0.1, "", "cubic_spline", 2};
  flume.spacing = 0.02;
  const FlumeDecay slip = measure_decay(flume, 0.6, 1.2, 2.4);
  flume.slip_side_walls = false;
  const FlumeDecay no_slip = measure_decay(flume, 0.6, 1.2, 2.4);
  for (const FlumeDecay& d : {slip, no_slip}) {  // a wave, and one that fell along the flume
    EXPECT_GT(d.far_ratio, 0.4);
    EXPECT_LT(d.far_ratio, d.near_ratio);
  }
  EXPECT_LT(slip.beta, no_slip.beta - 0.02);
}

}  // namespace
}  // namespace surge
