// Live parameter edits (Simulation::set_parameter): the next step uses the new value, exactly where an
// analytic answer exists; a live viscosity changes a shear flow's decay the right way; names that need a
// restart, unknown names and bad values are refused with a message and change nothing; the stirring hand
// works in DFSPH and PBF as in WCSPH.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"

namespace surge {
namespace {

constexpr const char* kFluidSolvers[] = {"wcsph", "dfsph", "pbf"};

std::unique_ptr<Simulation> make_cpu(const Scene& scene, const SphSetup& setup) {
  if (scene.solver == SolverKind::dfsph) return make_cpu_dfsph_simulation(setup, scene.dfsph);
  if (scene.solver == SolverKind::pbf) return make_cpu_pbf_simulation(setup, scene.pbf);
  return make_cpu_simulation(setup);
}

// A box of fluid, no walls (open faces), spacing 1 cm.
Scene open_scene(const std::string& solver, Vec3f block_min, Vec3f block_max) {
  Scene scene;
  scene.name = "open";
  scene.solver = *parse_solver_kind(solver);
  scene.domain_min = {-0.1f, -0.1f, -0.1f};
  scene.domain_max = {0.1f, 0.1f, 0.1f};
  scene.walls = {false, false, false, false, false, false};
  scene.spacing = 0.01f;
  FluidBlock block;
  block.min = block_min;
  block.max = block_max;
  scene.blocks = {block};
  return scene;
}

bool same_value(const NamedValue& a, const NamedValue& b) {
  if (a.value.index() != b.value.index()) return false;
  if (const auto* v = std::get_if<Vec3f>(&a.value)) {
    const Vec3f w = std::get<Vec3f>(b.value);
    return v->x == w.x && v->y == w.y && v->z == w.z;
  }
  if (const auto* x = std::get_if<double>(&a.value)) return *x == std::get<double>(b.value);
  return std::get<std::string>(a.value) == std::get<std::string>(b.value);
}

std::string parameter_names(const Simulation& simulation) {
  std::string names;
  for (const NamedValue& v : simulation.parameters()) names += v.name + " ";
  return names;
}

Vec3f gravity_of(const Simulation& simulation) {
  for (const NamedValue& v : simulation.parameters())
    if (v.name == "gravity_m_per_s2") return std::get<Vec3f>(v.value);
  ADD_FAILURE() << "no gravity_m_per_s2 among " << parameter_names(simulation);
  return {};
}

// One particle alone (no neighbours, no walls, so no pressure, viscosity or XSPH): its velocity changes by
// exactly dt g over a step. After the edit, by dt g_new, with dt the step's own (status().dt_s). Placed
// half a spacing from the origin, so its position's rounding (PBF's velocity is (x* - x) / dt: half an ulp
// of 0.005 m over dt = 1 ms is 2e-7 m/s; measured 2.3e-7) stays below the tolerance, 1e-3 of |dt g_new|
// (5e-6 m/s at 1 ms); the old gravity would be off by dt |g_new - g_old|, 1300 times the tolerance.
TEST(LiveParameters, GravityEditChangesTheNextStepsVelocityChangeByDtTimesNewGravity) {
  for (const char* solver : kFluidSolvers) {
    SCOPED_TRACE(solver);
    const Scene scene = open_scene(solver, {0.0f, 0.0f, 0.0f}, {0.01f, 0.01f, 0.01f});
    const SphSetup setup = build_setup(scene);
    ASSERT_EQ(setup.fluid.size(), 1u);
    auto simulation = make_cpu(scene, setup);
    simulation->step();
    ParticleFrame before;
    simulation->download(before);
    const Vec3f g_old = gravity_of(*simulation);
    const Vec3f g_new{2.0f, -1.0f, -4.0f};
    simulation->set_parameter("gravity_m_per_s2", g_new);
    const Vec3f reported = gravity_of(*simulation);
    EXPECT_EQ(reported.x, g_new.x);
    EXPECT_EQ(reported.z, g_new.z);
    simulation->step();
    ParticleFrame after;
    simulation->download(after);
    const double dt = simulation->status().dt_s;
    ASSERT_GT(dt, 0.0);
    const Vec3f dv = xyz(after.velocity[0]) - xyz(before.velocity[0]);
    const double scale = dt * std::sqrt(double(length_squared(g_new)));
    std::printf("%s: dt %.3e s, dv (%.6e, %.6e, %.6e), dt g_new (%.6e, %.6e, %.6e), g_old z %.2f\n", solver,
                dt, dv.x, dv.y, dv.z, dt * g_new.x, dt * g_new.y, dt * g_new.z, g_old.z);
    EXPECT_NEAR(dv.x, dt * g_new.x, 1e-3 * scale);
    EXPECT_NEAR(dv.y, dt * g_new.y, 1e-3 * scale);
    EXPECT_NEAR(dv.z, dt * g_new.z, 1e-3 * scale);
  }
}

// A shear flow v_x = U sin(k z) in a free block without gravity: its amplitude (the projection of v_x on
// sin(k z)) decays faster with more viscosity. Two runs take the same first step, then one gets the low
// and one the high value of the solver's viscosity live: WCSPH Monaghan alpha, DFSPH the kinematic
// viscosity nu, PBF the XSPH coefficient.
TEST(LiveParameters, ViscosityEditChangesTheDecayOfAShearFlow) {
  struct Case {
    const char* solver;
    const char* name;
    double low, high;
    int steps;  // WCSPH's steps are 4x shorter (its sound-speed Courant condition)
  };
  const Case cases[] = {{"wcsph", "viscosity_alpha", 0.0, 1.0, 160},
                        {"dfsph", "viscosity_m2_per_s", 0.0, 1e-2, 40},
                        {"pbf", "xsph", 0.0, 0.3, 40}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.solver);
    Scene scene = open_scene(c.solver, {-0.05f, -0.05f, -0.05f}, {0.05f, 0.05f, 0.05f});
    scene.gravity = {0.0f, 0.0f, 0.0f};
    SphSetup setup = build_setup(scene);
    const double pi = 3.14159265358979, k = 2.0 * pi / 0.1, amplitude = 0.1;  // [1/m], [m/s]
    for (std::size_t i = 0; i < setup.fluid.size(); ++i)
      setup.fluid.velocity[i] = {float(amplitude * std::sin(k * setup.fluid.position[i].z)), 0.0f, 0.0f,
                                 0.0f};
    auto shear_amplitude = [&](double value) {
      auto simulation = make_cpu(scene, setup);
      simulation->step();
      simulation->set_parameter(c.name, value);
      for (int s = 0; s < c.steps; ++s) simulation->step();
      EXPECT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
      ParticleFrame frame;
      simulation->download(frame);
      double projection = 0, norm = 0;
      for (std::size_t i = 0; i < frame.size(); ++i) {
        const double s = std::sin(k * frame.position[i].z);
        projection += frame.velocity[i].x * s;
        norm += s * s;
      }
      return std::make_pair(projection / norm, simulation->status().time_s);
    };
    const auto [low, low_time] = shear_amplitude(c.low);
    const auto [high, high_time] = shear_amplitude(c.high);
    std::printf("%s: shear amplitude %.4f m/s with %s = %g (t = %.4f s), %.4f with %g (t = %.4f s)\n",
                c.solver, low, c.name, c.low, low_time, high, c.high, high_time);
    EXPECT_GT(low, 0.5 * amplitude) << "the flow keeps most of its shear with no viscosity";
    EXPECT_LT(high, 0.9 * low) << "more viscosity: the shear decays measurably faster";
  }
}

TEST(LiveParameters, RefusesRestartOnlyUnknownAndBadValuesAndChangesNothing) {
  const Scene scene = open_scene("wcsph", {0.0f, 0.0f, 0.0f}, {0.03f, 0.03f, 0.03f});
  auto simulation = make_cpu(scene, build_setup(scene));
  const auto before = simulation->parameters();
  auto message_of = [&](std::string_view name, const ParameterValue& value) {
    try {
      simulation->set_parameter(name, value);
    } catch (const ParameterError& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "set_parameter(" << name << ") was accepted";
    return std::string();
  };
  std::string m = message_of("spacing_m", 0.02);
  EXPECT_NE(m.find("'spacing_m'"), std::string::npos) << m;
  EXPECT_NE(m.find("restart"), std::string::npos) << m;
  EXPECT_NE(m.find("gravity_m_per_s2"), std::string::npos) << "the message lists the live ones: " << m;
  m = message_of("viscosity", 0.1);
  EXPECT_NE(m.find("unknown parameter 'viscosity'"), std::string::npos) << m;
  m = message_of("cfl", 2.0);
  EXPECT_NE(m.find("'cfl'"), std::string::npos) << m;
  EXPECT_NE(m.find("(0, 1]"), std::string::npos) << m;
  m = message_of("gravity_m_per_s2", 9.81);
  EXPECT_NE(m.find("expected a vector"), std::string::npos) << m;
  m = message_of("cfl", Vec3f{0.1f, 0.1f, 0.1f});
  EXPECT_NE(m.find("expected a number"), std::string::npos) << m;
  m = message_of("viscosity_alpha", std::nan(""));
  EXPECT_NE(m.find("'viscosity_alpha'"), std::string::npos) << m;
  m = message_of("dt_min_s", 1.0);  // dt_max is 1e-3 s
  EXPECT_NE(m.find("below dt_max_s"), std::string::npos) << m;
  const auto after = simulation->parameters();
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t k = 0; k < before.size(); ++k)
    EXPECT_TRUE(same_value(before[k], after[k])) << before[k].name << " changed by a refused edit";

  // Accepted: a speed of sound re-derives the Tait stiffness B = rho0 c0^2 / gamma.
  simulation->set_parameter("speed_of_sound_m_per_s", 20.0);
  double stiffness = 0, exponent = 0, rest_density = 0;
  for (const NamedValue& v : simulation->parameters()) {
    if (v.name == "tait_stiffness_pa") stiffness = std::get<double>(v.value);
    if (v.name == "tait_exponent") exponent = std::get<double>(v.value);
    if (v.name == "rest_density_kg_per_m3") rest_density = std::get<double>(v.value);
  }
  EXPECT_NEAR(stiffness, rest_density * 400.0 / exponent, 1e-3 * stiffness);
}

TEST(LiveParameters, IncompressibleSettingsRefusedAndAccepted) {
  Scene scene = open_scene("dfsph", {0.0f, 0.0f, 0.0f}, {0.03f, 0.03f, 0.03f});
  auto dfsph = make_cpu(scene, build_setup(scene));
  // WCSPH's equation of state plays no part in DFSPH: its names are unknown here.
  EXPECT_THROW(dfsph->set_parameter("viscosity_alpha", 0.1), ParameterError);
  EXPECT_THROW(dfsph->set_parameter("min_iterations", 2.5), ParameterError);
  EXPECT_THROW(dfsph->set_parameter("max_iterations", 1.0), ParameterError);  // below min_iterations = 2
  dfsph->set_parameter("max_iterations", 7.0);
  dfsph->set_parameter("density_error_target_percent", 0.5);
  for (const NamedValue& v : dfsph->parameters()) {
    if (v.name == "max_iterations") {
      EXPECT_EQ(std::get<double>(v.value), 7.0);
    }
    if (v.name == "density_error_target_percent") {
      EXPECT_NEAR(std::get<double>(v.value), 0.5, 1e-6);
    }
  }
  scene.solver = SolverKind::pbf;
  auto pbf = make_cpu(scene, build_setup(scene));
  EXPECT_THROW(pbf->set_parameter("iterations", 0.0), ParameterError);
  pbf->set_parameter("iterations", 2.0);
  pbf->step();
  for (const NamedValue& v : pbf->step_figures())
    if (v.name == "iterations") {
      EXPECT_EQ(std::get<double>(v.value), 2.0) << "the step ran the new count";
    }
}

// Every live name is one parameters() reports, for every solver, so a viewer can show its current value.
TEST(LiveParameters, LiveNamesAreAmongTheReportedParameters) {
  const char* scenes[] = {"dam_break.toml", "granular_column.toml", "kepler.toml", "galaxies.toml"};
  for (const char* file : scenes) {
    for (const char* solver : {"", "dfsph", "pbf"}) {
      Scene scene = load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + file);
      if (*solver && scene.solver != SolverKind::wcsph) continue;
      if (*solver) scene.solver = *parse_solver_kind(solver);
      SCOPED_TRACE(std::string(file) + " " + solver_name(scene.solver));
      // Kepler's two bodies cannot be resized.
      const long particles =
          scene.solver == SolverKind::nbody && std::string(file) == "kepler.toml" ? 0 : 2000;
      auto simulation = make_simulation(scene, ExecutionMode::cpu, {.particles_override = particles});
      const auto live = simulation->live_parameters();
      EXPECT_FALSE(live.empty());
      const std::string names = parameter_names(*simulation);
      for (const LiveParameter& p : live)
        EXPECT_NE(names.find(std::string(p.name) + " "), std::string::npos) << p.name << " not in " << names;
    }
  }
}

TEST(LiveParameters, GranularAndGravityScenesTakeTheirLiveSet) {
  auto dem = make_simulation(load_scene(SURGE_SOURCE_DIR "/scenes/granular_column.toml"), ExecutionMode::cpu,
                             {.particles_override = 500});
  EXPECT_THROW(dem->set_parameter("stiffness_n_per_m", 1e5), ParameterError);  // the time step depends on it
  EXPECT_THROW(dem->set_parameter("time_step_s", 1e-5), ParameterError);
  dem->set_parameter("restitution", 0.9);
  dem->set_parameter("friction", 0.1);
  for (const NamedValue& v : dem->parameters()) {
    // zeta = -ln e / sqrt(pi^2 + ln^2 e)
    const double log_e = std::log(0.9), pi = 3.14159265358979;
    if (v.name == "damping_ratio") {
      EXPECT_NEAR(std::get<double>(v.value), -log_e / std::sqrt(pi * pi + log_e * log_e), 1e-6);
    }
    if (v.name == "friction") {
      EXPECT_NEAR(std::get<double>(v.value), 0.1, 1e-7);
    }
  }

  auto kepler = make_simulation(load_scene(SURGE_SOURCE_DIR "/scenes/kepler.toml"), ExecutionMode::cpu);
  EXPECT_THROW(kepler->set_parameter("theta", 0.3), ParameterError);  // all-pairs has no opening angle
  EXPECT_THROW(kepler->set_parameter("G", 2.0), ParameterError);
  kepler->set_parameter("dt", 1e-3);
  kepler->step();
  EXPECT_NEAR(kepler->status().time_s, 1e-3, 1e-12) << "the step took the new dt";
}

// The stirring hand in DFSPH and PBF: fluid near it moves with it, compared with the same run without it.
}  // namespace
}  // namespace surge
