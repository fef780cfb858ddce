// The contact law against analytic results: the restitution of a head-on collision (linear spring-dashpot),
// and the distance a grain slides on the floor before Coulomb friction stops it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/backend/dem_simulation.h"
#include "sim/dem/dem_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"

namespace surge {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Two grains of radius 1 cm, 2 cm apart (gap), approaching head-on along x at +-v; no gravity, no walls.
// `law` gives the normal force law's keys (the linear law with k_n = 1000 N/m unless told).
std::string head_on_scene(const std::string& damping_line, double speed,
                          const std::string& law = "stiffness = 1000.0") {
  const std::string v = std::to_string(speed);
  return R"(solver = "dem"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.04, 0.04]
walls = []
[dem]
)" + law +
         "\n" + damping_line +
         R"(
gravity = [0.0, 0.0, 0.0]
collision_time_fraction = 0.002
[[dem.block]]
shape = "box"
min = [0.02, 0.01, 0.01]
max = [0.04, 0.03, 0.03]
grain_radius = 0.01
density = 1000.0
velocity = [)" +
         v + R"(, 0.0, 0.0]
[[dem.block]]
shape = "box"
min = [0.06, 0.01, 0.01]
max = [0.08, 0.03, 0.03]
grain_radius = 0.01
density = 1000.0
velocity = [-)" +
         v + R"(, 0.0, 0.0]
)";
}

// Runs the collision until the grains have separated and returns |v_after| / |v_before| of the relative
// velocity.
double measured_restitution(const Scene& scene, double speed) {
  const DemSetup setup = build_dem_setup(scene);
  EXPECT_EQ(setup.grains.size(), 2u);
  auto simulation = make_dem_cpu_simulation(setup);
  // Contact begins after gap / (2v) and lasts about t_c; run twice that.
  const double gap = 0.02;
  const long steps = long(std::ceil((gap / (2 * speed) + 2 * setup.params.collision_time) / setup.params.dt));
  for (long s = 0; s < steps; ++s) simulation->step();
  ParticleFrame frame;
  simulation->download(frame);
  EXPECT_EQ(simulation->status().instability, Instability::none);
  const std::size_t left = frame.id[0] == 0 ? 0 : 1, right = 1 - left;
  const double separation = frame.position[right].x - frame.position[left].x;
  EXPECT_GT(separation, 0.02) << "the grains have separated";
  return (frame.velocity[right].x - frame.velocity[left].x) / (2 * speed);
}

TEST(DemContact, HeadOnRestitutionMatchesTheDampingRatio) {
  // Equal grains: m* = m / 2. With a dashpot gamma_n, zeta = gamma_n / (2 sqrt(k m*)) and the linear
  // oscillator's restitution is e = exp(-pi zeta / sqrt(1 - zeta^2)) (sim/dem/normal_contact.h).
  const double speed = 0.1;
  const double mass = 1000.0 * 4.0 / 3.0 * kPi * 1e-6;
  const double m_eff = mass / 2, k = 1000.0;
  for (const double zeta : {0.05, 0.2, 0.5}) {
    const double gamma_n = 2 * zeta * std::sqrt(k * m_eff);
    const double expected = std::exp(-kPi * zeta / std::sqrt(1 - zeta * zeta));
    const Scene scene =
        parse_scene(head_on_scene("normal_damping = " + std::to_string(gamma_n), speed), "h.toml");
    const double e = measured_restitution(scene, speed);
    std::printf("zeta %.2f: restitution %.5f, analytic %.5f\n", zeta, e, expected);
    EXPECT_NEAR(e, expected, 0.01 * expected) << "zeta = " << zeta;
  }
}

TEST(DemContact, RestitutionKeyGivesThatRestitution) {
  const double speed = 0.1;
  for (const double e_wanted : {0.3, 0.9}) {
    const Scene scene =
        parse_scene(head_on_scene("restitution = " + std::to_string(e_wanted), speed), "h.toml");
    const double e = measured_restitution(scene, speed);
    std::printf("restitution asked %.3f, measured %.5f\n", e_wanted, e);
    EXPECT_NEAR(e, e_wanted, 0.01 * e_wanted);
  }
}

TEST(DemContact, HertzContactLastsJohnsonsCollisionTime) {
  // Nearly elastic Hertz contact: its duration is 2.87 (m*^2 / (R* E*^2 v))^(1/5) at impact speed v
  // (Johnson 1985), and with Tsuji's damping the restitution comes out near the e asked for.
  const double speed = 0.1;  // each grain: the impact speed is 0.2 m/s
  const double youngs = 1e7, poisson = 0.3;
  const double e_star = youngs / (2 * (1 - poisson * poisson));
  const double mass = 1000.0 * 4.0 / 3.0 * kPi * 1e-6;
  const std::string law = "normal_model = \"hertz\"\nyoungs_modulus = 1e7\npoisson_ratio = 0.3";
  for (const double e_wanted : {0.99, 0.5}) {
    // Steps of t_c / 200 (at the setup's impact-speed estimate) resolve the duration to 0.6 %.
    std::string text = head_on_scene("restitution = " + std::to_string(e_wanted), speed, law);
    text.replace(text.find("collision_time_fraction = 0.002"), 31, "collision_time_fraction = 0.005");
    const Scene scene = parse_scene(text, "hertz.toml");
    const DemSetup setup = build_dem_setup(scene);
    auto simulation = make_dem_cpu_simulation(setup);
    ParticleFrame frame;
    long contact_steps = 0;
    const long steps = long(std::ceil((0.02 / (2 * speed) + 0.02) / setup.params.dt));
    for (long s = 0; s < steps; ++s) {
      simulation->step();
      simulation->download(frame);
      if (std::abs(frame.position[1].x - frame.position[0].x) < 0.02f) ++contact_steps;
    }
    const std::size_t left = frame.id[0] == 0 ? 0 : 1, right = 1 - left;
    const double e = (frame.velocity[right].x - frame.velocity[left].x) / (2 * speed);
    const double duration = contact_steps * double(setup.params.dt);
    const double johnson = hertz_collision_time(e_star, 0.005, mass / 2, 2 * speed);
    std::printf("hertz, e asked %.2f: measured %.4f; contact %.4e s, Johnson (undamped) %.4e s\n", e_wanted,
                e, duration, johnson);
    EXPECT_NEAR(e, e_wanted, 0.05 * e_wanted) << "Tsuji's damping gives e within a few per cent";
    if (e_wanted > 0.9) {
      EXPECT_NEAR(duration, johnson, 0.02 * johnson);
    }
  }
}

TEST(DemContact, FrictionStopsASlidingGrainAtTheCoulombDistance) {
  // A grain resting on the floor, launched along x at v0, decelerates at mu g: it stops after
  // v0^2 / (2 mu g). Grains do not rotate, so this is the analytic value (a rolling sphere would not stop).
  const double v0 = 0.5, mu = 0.3, g = 9.81;
  const std::string text = R"(solver = "dem"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.04, 0.04]
walls = ["z-"]
[dem]
stiffness = 100000.0
restitution = 0.3
friction = 0.3
gravity = [0.0, 0.0, -9.81]
collision_time_fraction = 0.05
[[dem.block]]
shape = "box"
min = [0.0, 0.01, 0.0]
max = [0.02, 0.03, 0.02]
grain_radius = 0.01
density = 1000.0
velocity = [0.5, 0.0, 0.0]
)";
  const Scene scene = parse_scene(text, "slide.toml");
  const DemSetup setup = build_dem_setup(scene);
  ASSERT_EQ(setup.grains.size(), 1u);
  auto simulation = make_dem_cpu_simulation(setup);
  const double stop_time = v0 / (mu * g);
  const long steps = long(1.3 * stop_time / setup.params.dt);
  for (long s = 0; s < steps; ++s) simulation->step();
  ASSERT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
  ParticleFrame frame;
  simulation->download(frame);
  const double distance = frame.position[0].x - 0.01;
  const double expected = v0 * v0 / (2 * mu * g);
  std::printf("slid %.6f m in %ld steps of %.3g s; Coulomb %.6f m\n", distance, steps, setup.params.dt,
              expected);
  // What separates the two: the viscous tail below mu F_n / gamma_t (~1e-8 m here), the grain settling
  // onto the floor (overlap mg/k ~ 4e-7 m), one step of travel (~5e-6 m) and float32 positions. 0.5 %
  // covers them with room; a friction force off by 1 % moves the grain 1 % further or shorter.
  EXPECT_NEAR(distance, expected, 0.005 * expected);
  EXPECT_LT(std::abs(frame.velocity[0].x), 1e-4 * v0) << "the grain has stopped";
  EXPECT_NEAR(frame.position[0].z, 0.01, 1e-5) << "and rests on the floor";
}

TEST(DemContact, CollisionTimesFollowTheirFormulas) {
  // Linear: half a period of sqrt(k / m*). Hertz: Johnson's 2.87 (m*^2 / (R* E*^2 v))^(1/5).
  EXPECT_NEAR(linear_collision_time(1.0, 0.5), kPi * std::sqrt(0.5), 1e-12);
  const double t = hertz_collision_time(1e9, 1e-3, 1e-5, 1.0);
  EXPECT_NEAR(t, 2.87 * std::pow(1e-10 / (1e-3 * 1e18 * 1.0), 0.2), 1e-12);
  EXPECT_GT(hertz_collision_time(1e9, 1e-3, 1e-5, 0.1), t) << "slower impacts last longer";
}

}  // namespace
}  // namespace surge
