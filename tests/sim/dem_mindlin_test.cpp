// Mindlin friction (tangential spring with contact history), grain rotation and rolling resistance against
// analytic results: a sliding sphere starts to roll at t = 2 v0 / (7 mu g) with v = 5/7 v0; a rolling sphere
// with rolling resistance decelerates at 5/7 mu_r g; a grain that cannot roll stays put on an incline of
// tan(theta) < mu and slides at g (sin theta - mu cos theta) on a steeper one; both copies of a pair's
// spring stay equal and opposite; the history does not depend on the grains' order in memory; a heap
// comes to rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "sim/backend/dem_simulation.h"
#include "sim/dem/dem_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "tests/sim/mindlin_bed_scene.h"

namespace surge {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kG = 9.81;

// One grain of radius 1 cm and density 1000 kg/m^3 resting on the floor (face z-) at x = 0.02, launched
// along x at v0; `dem` holds the extra [dem] keys, `gravity` the gravity vector.
std::string one_grain_scene(const std::string& dem, double v0,
                            const std::string& gravity = "[0.0, 0.0, -9.81]",
                            const std::string& law = "stiffness = 20000.0") {
  return R"(solver = "dem"
[domain]
min = [0.0, 0.0, 0.0]
max = [1.0, 0.04, 0.04]
walls = ["z-"]
[dem]
)" + law +
         R"(
restitution = 0.3
friction_model = "mindlin"
gravity = )" +
         gravity + "\ncollision_time_fraction = 0.05\n" + dem + R"(
[[dem.block]]
shape = "box"
min = [0.01, 0.01, 0.0]
max = [0.03, 0.03, 0.02]
grain_radius = 0.01
density = 1000.0
velocity = [)" +
         std::to_string(v0) + R"(, 0.0, 0.0]
)";
}

struct GrainState {
  Vec3f x, v, w;
};

GrainState state_of_grain_zero(DemSimulation& simulation) {
  ParticleFrame frame;
  std::vector<Vec4f> spin;
  simulation.download(frame);
  simulation.download_angular_velocity(spin);
  return {xyz(frame.position[0]), xyz(frame.velocity[0]), xyz(spin[0])};
}

// Runs the sliding sphere with normal law `law` and checks the onset of rolling and the rolling speed.
void expect_rolling_without_slipping(const std::string& law) {
  // Friction mu m g slows the centre (v = v0 - mu g t) and spins the sphere up (I w' = mu m g r with
  // I = 2/5 m r^2) until the contact point stops slipping, v = w r: t = 2 v0 / (7 mu g), v = 5/7 v0.
  // From then on the spring holds the contact and the sphere rolls at 5/7 v0.
  const double v0 = 1.0, mu = 0.3, r = 0.01;
  const Scene scene =
      parse_scene(one_grain_scene("friction = 0.3\n", v0, "[0.0, 0.0, -9.81]", law), "roll.toml");
  const DemSetup setup = build_dem_setup(scene);
  ASSERT_TRUE(setup.params.rotation) << "rotation is the default with Mindlin friction";
  auto simulation = make_dem_cpu_simulation(setup);
  const double t_roll = 2 * v0 / (7 * mu * kG);
  const double dt = setup.params.dt;
  const long steps = long(2.0 * t_roll / dt);
  double rolling_from = -1, largest_slip_after = 0;
  GrainState s{};
  for (long step = 1; step <= steps; ++step) {
    simulation->step();
    s = state_of_grain_zero(*simulation);
    // The contact point's velocity: v - r w x n with n = +z, i.e. v_x - r w_y along x.
    const double slip = s.v.x - r * s.w.y;
    if (rolling_from < 0 && slip < 1e-3 * v0) rolling_from = step * dt;
    if (rolling_from > 0 && step * dt > 1.1 * t_roll)
      largest_slip_after = std::max(largest_slip_after, std::abs(slip));
  }
  ASSERT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
  std::printf(
      "%s: rolling from t = %.5f s (analytic %.5f), v = %.5f m/s (analytic %.5f), slip after %.2e m/s\n",
      law.c_str(), rolling_from, t_roll, s.v.x, 5.0 / 7.0 * v0, largest_slip_after);
  EXPECT_NEAR(rolling_from, t_roll, 0.01 * t_roll);
  EXPECT_NEAR(s.v.x, 5.0 / 7.0 * v0, 0.01 * 5.0 / 7.0 * v0);
  EXPECT_NEAR(s.w.y * r, s.v.x, 0.01 * s.v.x) << "rolling: w r = v";
  EXPECT_LT(largest_slip_after, 0.01 * v0) << "the spring holds the contact: no slipping once rolling";
}

TEST(DemMindlin, SlidingSphereRollsWithoutSlippingAtFiveSevenths) {
  expect_rolling_without_slipping("stiffness = 20000.0");  // linear law, k_t = 2/7 k_n
}

TEST(DemMindlin, HertzMindlinSphereRollsWithoutSlippingAtFiveSevenths) {
  // The same with Hertz and Mindlin's k_t = 8 G* sqrt(R* delta): the analytic result does not depend on the
  // stiffnesses, so it checks the Hertz path of the spring (stiffness, damping, truncation).
  expect_rolling_without_slipping("normal_model = \"hertz\"\nyoungs_modulus = 1e7\npoisson_ratio = 0.3");
}

TEST(DemMindlin, RollingResistanceDeceleratesAtFiveSeventhsMuRG) {
  // A rolling sphere under the constant rolling torque mu_r r m g (and the static friction that keeps it
  // rolling) decelerates at a = mu_r g / (1 + I / (m r^2)) = 5/7 mu_r g, then stops and stays stopped.
  const double v0 = 0.5, mu_r = 0.05;
  const Scene scene =
      parse_scene(one_grain_scene("friction = 0.5\nrolling_friction = 0.05\n", v0), "rr.toml");
  const DemSetup setup = build_dem_setup(scene);
  auto simulation = make_dem_cpu_simulation(setup);
  const double dt = setup.params.dt;
  const double t_roll = 2 * v0 / (7 * 0.5 * kG);
  const double expected = 5.0 / 7.0 * mu_r * kG;
  // Rolling from t_roll at about 5/7 v0: it stops after about (5/7 v0) / a = 1.02 s.
  const double t1 = 3 * t_roll, t2 = t1 + 0.5;
  double v1 = 0, v2 = 0;
  const long steps = long((t2 + 1.0) / dt);
  GrainState s{};
  for (long step = 1; step <= steps; ++step) {
    simulation->step();
    if (step == long(t1 / dt) || step == long(t2 / dt) || step == steps) s = state_of_grain_zero(*simulation);
    if (step == long(t1 / dt)) v1 = s.v.x;
    if (step == long(t2 / dt)) v2 = s.v.x;
  }
  ASSERT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
  const double measured = (v1 - v2) / (long(t2 / dt) * dt - long(t1 / dt) * dt);
  std::printf(
      "deceleration %.5f m/s^2 (analytic 5/7 mu_r g = %.5f); at the end v = %.2e m/s, w = %.2e rad/s\n",
      measured, expected, s.v.x, s.w.y);
  EXPECT_NEAR(measured, expected, 0.02 * expected);
  EXPECT_LT(std::abs(s.v.x), 1e-3 * v0) << "stopped";
  EXPECT_LT(std::abs(s.w.y) * 0.01, 1e-3 * v0) << "and does not spin back (the guard)";
}

// A grain that cannot roll (rotation = false) on an incline: gravity tilted by theta in the x-z plane.
std::string incline_scene(double theta_degrees) {
  const double theta = theta_degrees * kPi / 180;
  char gravity[96];
  std::snprintf(gravity, sizeof gravity, "[%.9f, 0.0, %.9f]", kG * std::sin(theta), -kG * std::cos(theta));
  return one_grain_scene("friction = 0.5\nrotation = false\n", 0.0, gravity);
}

TEST(DemMindlin, StaticFrictionHoldsAGrainOnAnInclineBelowTheFrictionAngle) {
  // tan 20 deg = 0.36 < mu = 0.5: the spring stretches to carry m g sin(theta) and holds. The grain moves
  // by about F_t / k_t while it loads, and then not at all: no creep over 1 s (19,000 steps).
  const Scene scene = parse_scene(incline_scene(20.0), "hold.toml");
  const DemSetup setup = build_dem_setup(scene);
  auto simulation = make_dem_cpu_simulation(setup);
  const double mass = setup.grains.velocity[0].w;
  const double k_t = setup.params.tangential_stiffness_ratio * setup.params.stiffness;
  const double stretch = mass * kG * std::sin(20.0 * kPi / 180) / k_t;
  const double x0 = setup.grains.position[0].x;
  const long steps_0_2 = long(0.2 / setup.params.dt), steps_1_0 = long(1.0 / setup.params.dt);
  double x_early = 0;
  GrainState s{};
  for (long step = 1; step <= steps_1_0; ++step) {
    simulation->step();
    if (step == steps_0_2) x_early = state_of_grain_zero(*simulation).x.x;
  }
  s = state_of_grain_zero(*simulation);
  std::printf("held: moved %.3e m by 0.2 s, then %.3e m to 1 s; F_t / k_t = %.3e m\n", x_early - x0,
              s.x.x - x_early, stretch);
  EXPECT_LT(std::abs(x_early - x0), 2.0 * stretch) << "the displacement is the spring's stretch";
  EXPECT_LT(std::abs(s.x.x - x_early), 0.05 * stretch) << "no creep";
  EXPECT_LT(std::abs(s.v.x), 1e-6);
}

TEST(DemMindlin, AGrainSlidesAtTheCoulombAccelerationAboveTheFrictionAngle) {
  // tan 30 deg = 0.58 > mu = 0.5: it slides with a = g (sin theta - mu cos theta).
  const double theta = 30.0 * kPi / 180;
  const double expected = kG * (std::sin(theta) - 0.5 * std::cos(theta));
  const Scene scene = parse_scene(incline_scene(30.0), "slide.toml");
  const DemSetup setup = build_dem_setup(scene);
  auto simulation = make_dem_cpu_simulation(setup);
  const long steps_1 = long(0.1 / setup.params.dt), steps_2 = long(0.4 / setup.params.dt);
  double v1 = 0;
  for (long step = 1; step <= steps_2; ++step) {
    simulation->step();
    if (step == steps_1) v1 = state_of_grain_zero(*simulation).v.x;
  }
  const double v2 = state_of_grain_zero(*simulation).v.x;
  const double measured = (v2 - v1) / ((steps_2 - steps_1) * setup.params.dt);
  std::printf("sliding: a = %.5f m/s^2, analytic g (sin - mu cos) = %.5f\n", measured, expected);
  EXPECT_NEAR(measured, expected, 0.01 * expected);
}

TEST(DemMindlin, BothCopiesOfAPairsSpringStayEqualAndOpposite) {
  // Each grain integrates its own copy of the spring from the same relative velocity (negated), so after
  // any number of steps the copy of grain a for partner b is exactly minus the copy of b for a.
  const DemSetup setup = build_dem_setup(parse_scene(mindlin_bed_scene(), "bed.toml"));
  auto simulation = make_dem_cpu_simulation(setup);
  for (int s = 0; s < 1500; ++s) simulation->step();
  std::vector<ContactSlot> slots;
  simulation->download_contact_history(slots);
  const std::size_t per_grain = setup.params.contact_slots, n = setup.grains.size();
  ASSERT_EQ(slots.size(), n * per_grain);
  std::map<std::pair<std::uint32_t, std::uint32_t>, Vec3f> springs;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::size_t k = 0; k < per_grain && slots[a * per_grain + k].partner != kNoPartner; ++k)
      springs[{a, slots[a * per_grain + k].partner}] = slots[a * per_grain + k].spring;
  std::size_t pairs = 0, stretched = 0, unmatched = 0, asymmetric = 0;
  for (const auto& [key, spring] : springs) {
    const auto [a, b] = key;
    if (b >= n || b < a) continue;  // walls; each pair once
    const auto other = springs.find({b, a});
    if (other == springs.end()) {
      ++unmatched;
      continue;
    }
    ++pairs;
    stretched += length_squared(spring) > 0.0f ? 1 : 0;
    const Vec3f o = other->second;
    if (o.x != -spring.x || o.y != -spring.y || o.z != -spring.z) ++asymmetric;
  }
  const auto figures = simulation->step_figures();
  std::printf("%zu grain pairs in contact (%zu with a stretched spring), %zu unmatched, %zu asymmetric\n",
              pairs, stretched, unmatched, asymmetric);
  EXPECT_GT(stretched, n / 2) << "a bed with many loaded contacts";
  EXPECT_EQ(unmatched, 0u) << "both grains of a contact keep it";
  EXPECT_EQ(asymmetric, 0u) << "xi_b = -xi_a to the last bit";
  ASSERT_FALSE(figures.empty());
}

double figure(const std::vector<NamedValue>& figures, const std::string& name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no step figure " << name;
  return -1;
}

TEST(DemMindlin, ContactsBeyondTheSlotsAreCountedNotLost) {
  // The bed with 2 history slots per grain: grains with more contacts keep the first two and count the rest
  // as overflow (they act with a spring that restarts from zero); with the default 16 nothing overflows.
  const DemSetup few = build_dem_setup(parse_scene(mindlin_bed_scene("contact_slots = 2\n"), "bed.toml"));
  const DemSetup enough = build_dem_setup(parse_scene(mindlin_bed_scene(), "bed.toml"));
  ASSERT_EQ(few.params.contact_slots, 2u);
  auto cramped = make_dem_cpu_simulation(few);
  auto roomy = make_dem_cpu_simulation(enough);
  double cramped_total = 0;
  for (int s = 0; s < 1500; ++s) {
    cramped->step();
    roomy->step();
    if (s == 1499) cramped_total = figure(cramped->step_figures(), "contact_overflow_total");
  }
  ASSERT_EQ(cramped->status().instability, Instability::none) << cramped->status().diagnosis();
  const auto cramped_figures = cramped->step_figures(), roomy_figures = roomy->step_figures();
  const double most = figure(roomy_figures, "most_contacts_of_a_grain");
  std::printf(
      "2 slots: overflow %.0f in the last step, %.0f in all; 16 slots: most contacts of a grain %.0f, "
      "overflow %.0f\n",
      figure(cramped_figures, "contact_overflow_last_step"), cramped_total, most,
      figure(roomy_figures, "contact_overflow_total"));
  EXPECT_GT(most, 2.0) << "some grain has more contacts than 2 slots";
  EXPECT_GT(figure(cramped_figures, "contact_overflow_last_step"), 0.0);
  EXPECT_GE(cramped_total, figure(cramped_figures, "contact_overflow_last_step"));
  EXPECT_EQ(figure(roomy_figures, "contact_overflow_total"), 0.0);
  std::vector<ContactSlot> slots;
  cramped->download_contact_history(slots);
  EXPECT_EQ(slots.size(), 2u * few.grains.size()) << "the history holds only the slots it has";
}

std::vector<Vec4f> positions_by_id(DemSimulation& simulation) {
  ParticleFrame frame;
  simulation.download(frame);
  std::vector<Vec4f> out(frame.size());
  for (std::size_t k = 0; k < frame.size(); ++k) out[frame.id[k]] = frame.position[k];
  return out;
}

// Each grain's contacts as a map partner -> spring, from the history slots (by creation id).
std::vector<std::map<std::uint32_t, Vec3f>> contacts_by_grain(DemSimulation& simulation, std::size_t grains,
                                                              std::size_t per_grain) {
  std::vector<ContactSlot> slots;
  simulation.download_contact_history(slots);
  std::vector<std::map<std::uint32_t, Vec3f>> out(grains);
  for (std::size_t a = 0; a < grains; ++a)
    for (std::size_t k = 0; k < per_grain && slots[a * per_grain + k].partner != kNoPartner; ++k)
      out[a][slots[a * per_grain + k].partner] = slots[a * per_grain + k].spring;
  return out;
}

TEST(DemMindlin, HistorySurvivesTheReorderingByCell) {
  // The same bed stepped with the grains sorted by cell every step, and kept in creation order (neighbours
  // read through the sorted order). The history is by creation id, so both must keep the same contacts with
  // the same springs: a history attached to a memory position instead of a grain would hand springs to the
  // wrong contacts after the first reorder. Within a cell the two orders differ, so sums round differently
  // and the runs drift apart slowly (this bed is chaotic): compared after 400 steps (~20 collision times).
  const DemSetup setup = build_dem_setup(parse_scene(mindlin_bed_scene(), "bed.toml"));
  auto sorted = make_dem_cpu_simulation(setup, DemCpuOptions{true});
  auto unsorted = make_dem_cpu_simulation(setup, DemCpuOptions{false});
  for (int s = 0; s < 400; ++s) {
    sorted->step();
    unsorted->step();
  }
  const auto a = positions_by_id(*sorted), b = positions_by_id(*unsorted);
  double largest = 0, travelled = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, std::sqrt(double(length_squared(xyz(a[i]) - xyz(b[i])))));
    travelled =
        std::max(travelled, std::sqrt(double(length_squared(xyz(a[i]) - xyz(setup.grains.position[i])))));
  }
  const std::size_t n = setup.grains.size();
  const auto contacts_a = contacts_by_grain(*sorted, n, setup.params.contact_slots);
  const auto contacts_b = contacts_by_grain(*unsorted, n, setup.params.contact_slots);
  std::size_t contacts = 0, same_partners = 0;
  double largest_spring = 0, spring_difference = 0;
  for (std::size_t i = 0; i < n; ++i) {
    contacts += contacts_a[i].size();
    for (const auto& [partner, spring] : contacts_a[i]) {
      const auto other = contacts_b[i].find(partner);
      if (other == contacts_b[i].end()) continue;
      ++same_partners;
      largest_spring = std::max(largest_spring, std::sqrt(double(length_squared(spring))));
      spring_difference =
          std::max(spring_difference, std::sqrt(double(length_squared(spring - other->second))));
    }
  }
  std::printf(
      "reorder vs creation order, 400 steps: largest difference %.3e m, largest travel %.3e m; %zu of %zu "
      "contacts in both, springs up to %.3e m differing by %.3e m\n",
      largest, travelled, same_partners, contacts, largest_spring, spring_difference);
  EXPECT_LT(largest, 1e-3 * setup.params.max_radius);
  EXPECT_GT(travelled, 100 * largest) << "the grains moved, so the comparison means something";
  EXPECT_GT(contacts, n / 2) << "a bed with many contacts";
  EXPECT_EQ(same_partners, contacts) << "the same contacts in both runs";
  EXPECT_LT(spring_difference, 1e-2 * largest_spring) << "with the same springs";
}

double kinetic_energy(const ParticleFrame& frame, const std::vector<Vec4f>& spin) {
  double energy = 0;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    const double m = frame.velocity[i].w, r = frame.position[i].w;
    energy += 0.5 * m * double(length_squared(xyz(frame.velocity[i])));
    energy += 0.5 * 0.4 * m * r * r * double(length_squared(xyz(spin[i])));
  }
  return energy;
}

// A quasi-two-dimensional column of 4 x 1 x 12 grains (radii 4 - 5 mm) against the wall x = 0 of a channel
// one grain deep, collapsed for 2.5 s; `tangential` holds the friction keys.
struct HeapRun {
  double peak_energy, final_energy, creep, height, run_out, max_radius;
};

HeapRun collapse_column(const std::string& tangential) {
  const std::string text = R"(solver = "dem"
[domain]
min = [0.0, 0.0, 0.0]
max = [0.3, 0.01, 0.15]
walls = ["x-", "x+", "y-", "y+", "z-"]
[dem]
stiffness = 1000.0
restitution = 0.3
friction = 0.5
gravity = [0.0, 0.0, -9.81]
collision_time_fraction = 0.05
)" + tangential + R"(
[[dem.block]]
shape = "box"
min = [0.0, 0.0, 0.0]
max = [0.04, 0.01, 0.12]
grain_radius = 0.004
grain_radius_max = 0.005
density = 2500.0
jitter = 0.1
)";
  const DemSetup setup = build_dem_setup(parse_scene(text, "heap.toml"));
  EXPECT_EQ(setup.grains.size(), 48u);
  auto simulation = make_dem_cpu_simulation(setup);
  double mass = 0;
  for (const Vec4f& v : setup.grains.velocity) mass += v.w;
  const double reference = mass * kG * 0.005;  // the heap lifted by one grain radius
  const long steps_per_sample = long(0.05 / setup.params.dt);
  HeapRun run{};
  run.max_radius = setup.params.max_radius;
  ParticleFrame frame;
  std::vector<Vec4f> spin, at_1_5s;
  for (int sample = 1; sample <= 50; ++sample) {  // 2.5 s
    for (long s = 0; s < steps_per_sample; ++s) simulation->step();
    EXPECT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
    simulation->download(frame);
    simulation->download_angular_velocity(spin);
    run.final_energy = kinetic_energy(frame, spin) / reference;
    run.peak_energy = std::max(run.peak_energy, run.final_energy);
    if (sample == 30) at_1_5s = positions_by_id(*simulation);
  }
  const auto at_end = positions_by_id(*simulation);
  for (std::size_t i = 0; i < at_end.size(); ++i) {
    run.creep = std::max(run.creep, std::sqrt(double(length_squared(xyz(at_end[i]) - xyz(at_1_5s[i])))));
    run.run_out = std::max(run.run_out, double(at_end[i].x + at_end[i].w));
    run.height = std::max(run.height, double(at_end[i].z + at_end[i].w));
  }
  return run;
}

TEST(DemMindlin, ACollapsedColumnComesToRestAsAHeap) {
  // The column collapses and spreads. With Mindlin friction and rolling resistance the heap then stands:
  // its kinetic energy (with spin) falls by more than six orders of magnitude, and over the last second its
  // grains move by a hundredth of the distance they move with the history-free friction (coulomb, no
  // rotation), whose heap creeps. The mean slope of the heap (height / run-out) is printed.
  const HeapRun mindlin = collapse_column("friction_model = \"mindlin\"\nrolling_friction = 0.1\n");
  const HeapRun coulomb = collapse_column("friction_model = \"coulomb\"\n");
  for (const auto& [name, run] : {std::pair{"mindlin", mindlin}, std::pair{"coulomb", coulomb}}) {
    std::printf(
        "%s heap: kinetic energy / (M g r) peak %.3e, at 2.5 s %.3e; largest move over the last second %.3e "
        "m; "
        "height %.4f m, run-out %.4f m, mean slope %.1f deg\n",
        name, run.peak_energy, run.final_energy, run.creep, run.height, run.run_out,
        std::atan2(run.height, run.run_out) * 180 / kPi);
  }
  EXPECT_GT(mindlin.peak_energy, 0.1) << "the column did collapse";
  EXPECT_GT(mindlin.run_out, 0.06) << "and spread beyond its 4 cm base";
  EXPECT_LT(mindlin.final_energy, 1e-6 * mindlin.peak_energy) << "at rest";
  EXPECT_LT(mindlin.creep, 0.05 * mindlin.max_radius) << "no grain moves by a twentieth of a radius in 1 s";
  EXPECT_LT(mindlin.creep, 0.01 * coulomb.creep) << "where the history-free heap creeps";
}

}  // namespace
}  // namespace surge
