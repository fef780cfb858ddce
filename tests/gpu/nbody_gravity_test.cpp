// The n-body GPU paths against the CPU reference: the tiled and naive all-pairs kernels compute the exact
// sum (as the double-precision CPU sum, to float rounding); Barnes-Hut on the GPU builds the same tree as
// the CPU and meets the force-error bound at theta = 0.5 on 65,536 random bodies; whole simulations follow
// the CPU and copy nothing over the bus while stepping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <variant>

#include "sim/backend/nbody_simulation.h"
#include "sim/backend/simulation.h"
#include "sim/nbody/all_pairs_gpu.h"
#include "sim/nbody/barnes_hut_cpu.h"
#include "sim/nbody/body_generators.h"
#include "sim/nbody/gravity_gpu_probe.h"

namespace surge {
namespace {

std::vector<Body<float>> to_float(const std::vector<Body<double>>& bodies) {
  std::vector<Body<float>> out(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i)
    out[i] = {Vec3f{float(bodies[i].x.x), float(bodies[i].x.y), float(bodies[i].x.z)}, float(bodies[i].m)};
  return out;
}
std::vector<Body<double>> to_double(const std::vector<Body<float>>& bodies) {
  std::vector<Body<double>> out(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i)
    out[i] = {Vec3d{bodies[i].x.x, bodies[i].x.y, bodies[i].x.z}, double(bodies[i].m)};
  return out;
}

std::vector<Body<float>> plummer_bodies(long n, std::uint64_t seed) {
  BodySystem system;
  system.scale_radius = 3.0 * M_PI / 16.0;
  system.truncation = 10.0;
  BodyList list;
  UniformRandom random(seed);
  add_plummer_sphere(system, n, 1.0, random, list);
  return to_float(list.bodies);
}

std::vector<Body<float>> random_cube(std::size_t n, std::uint64_t seed) {
  UniformRandom random(seed);
  std::vector<Body<float>> bodies(n);
  for (auto& b : bodies)
    b = {Vec3f{float(random.next()), float(random.next()), float(random.next())}, 1.0f / float(n)};
  return bodies;
}

struct Errors {
  double median = 0, rms = 0, p99 = 0, max = 0;
};

// |a - reference| / |reference| per body, summarised.
template <typename A, typename B>
Errors relative_errors(const std::vector<A>& a, const std::vector<B>& reference) {
  std::vector<double> e(a.size());
  double sum2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Vec3d d{double(a[i].x) - double(reference[i].x), double(a[i].y) - double(reference[i].y),
                  double(a[i].z) - double(reference[i].z)};
    const Vec3d r{double(reference[i].x), double(reference[i].y), double(reference[i].z)};
    e[i] = std::sqrt(dot(d, d) / dot(r, r));
    sum2 += e[i] * e[i];
  }
  std::sort(e.begin(), e.end());
  return {e[e.size() / 2], std::sqrt(sum2 / double(e.size())), e[std::size_t(0.99 * double(e.size() - 1))],
          e.back()};
}

NbodyParameters with_method(NbodyMethod method, double softening) {
  NbodyParameters p;
  p.method = method;
  p.softening = softening;
  return p;
}

// 10,000 bodies (not a multiple of the 256-body tile, so the padded last tile is exercised).
TEST(NbodyGpuAllPairs, TiledAndNaiveMatchTheDoublePrecisionCpuSum) {
  const std::vector<Body<float>> bodies = plummer_bodies(10000, 3);
  GravityField<double> cpu;
  all_pairs_gravity(to_double(bodies), 1.0, 0.01, true, cpu);
  const GpuGravityProbe tiled = gpu_gravity(bodies, with_method(NbodyMethod::all_pairs, 0.01), true);
  const GpuGravityProbe naive = gpu_gravity(bodies, with_method(NbodyMethod::all_pairs_naive, 0.01), true);
  const Errors tiled_error = relative_errors(tiled.field, cpu.acceleration);
  const Errors naive_error = relative_errors(naive.field, cpu.acceleration);
  const Errors between = relative_errors(tiled.field, naive.field);
  std::printf(
      "all-pairs vs CPU double: tiled median %.1e max %.1e; naive median %.1e max %.1e; "
      "tiled vs naive max %.1e\n",
      tiled_error.median, tiled_error.max, naive_error.median, naive_error.max, between.max);
  // A float sum of 10^4 terms carries relative rounding of order sqrt(N) * 6e-8 ~ 6e-6; bodies whose pulls
  // nearly cancel (the centre) can lose a few more digits, hence the looser bound on the worst body.
  EXPECT_LT(tiled_error.median, 1e-5);
  EXPECT_LT(tiled_error.max, 1e-3);
  EXPECT_LT(naive_error.median, 1e-5);
  EXPECT_LT(naive_error.max, 1e-3);
  EXPECT_LT(between.max, 1e-5) << "same sum, same order: only contraction choices differ";
  EXPECT_EQ(tiled.interactions, 10000ull * 10000ull);
  // Potentials: W = 1/2 sum m phi from both sides.
  double w_gpu = 0, w_cpu = 0;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    w_gpu += 0.5 * bodies[i].m * tiled.field[i].w;
    w_cpu += 0.5 * bodies[i].m * cpu.potential[i];
  }
  EXPECT_NEAR(w_gpu, w_cpu, 1e-5 * std::abs(w_cpu));
}

// From 131,072 bodies the tiled kernel sums two bodies a thread (gravity_bodies_per_thread): 131,075 bodies
// leave the last block's second bodies partly past the end. The tiled field equals the naive kernel's (same
// sum, same order) and, on every 500th body, the double-precision sum over all of them.
TEST(NbodyGpuAllPairs, TwoBodiesAThreadSumWhatOneDoes) {
  const std::uint32_t n = 131075;
  ASSERT_EQ(gravity_bodies_per_thread(n), 2);
  const std::vector<Body<float>> bodies = plummer_bodies(n, 5);
  const GpuGravityProbe tiled = gpu_gravity(bodies, with_method(NbodyMethod::all_pairs, 0.01), false);
  const GpuGravityProbe naive = gpu_gravity(bodies, with_method(NbodyMethod::all_pairs_naive, 0.01), false);
  const Errors between = relative_errors(tiled.field, naive.field);
  double worst = 0;
  int checked = 0;
  const std::vector<Body<double>> all = to_double(bodies);
  for (std::uint32_t i = 0; i < n; i += 500) {
    Vec3d a{};
    for (const Body<double>& body : all) add_pair_acceleration(all[i].x, body, 1e-4, a);
    const Vec3d d{double(tiled.field[i].x) - a.x, double(tiled.field[i].y) - a.y,
                  double(tiled.field[i].z) - a.z};
    worst = std::max(worst, std::sqrt(dot(d, d) / dot(a, a)));
    ++checked;
  }
  std::printf("131,075 bodies, two a thread: tiled vs naive max %.1e; vs CPU double on %d bodies max %.1e\n",
              between.max, checked, worst);
  EXPECT_LT(between.max, 1e-5) << "same sum, same order: only contraction choices differ";
  // A float sum of 1.3e5 terms: rounding of order sqrt(N) * 6e-8 ~ 2e-5, more where pulls nearly cancel.
  EXPECT_LT(worst, 1e-3);
  EXPECT_EQ(tiled.interactions, std::uint64_t(n) * n);
}

// Point masses (softening 0) take the guarded kernels; no body may come out non-finite.
TEST(NbodyGpuAllPairs, PointMassesStayFinite) {
  const std::vector<Body<float>> bodies = plummer_bodies(1000, 4);
  GravityField<double> cpu;
  all_pairs_gravity(to_double(bodies), 1.0, 0.0, false, cpu);
  for (NbodyMethod method : {NbodyMethod::all_pairs, NbodyMethod::all_pairs_naive}) {
    const GpuGravityProbe gpu = gpu_gravity(bodies, with_method(method, 0.0), false);
    for (const Vec4f& a : gpu.field) ASSERT_TRUE(std::isfinite(a.x + a.y + a.z));
    EXPECT_LT(relative_errors(gpu.field, cpu.acceleration).median, 1e-5);
  }
}

// The bound: theta = 0.5, 65,536 bodies uniform in a unit cube (the hard case for relative error:
// interior pulls nearly cancel). Metric: |a_bh - a_exact| / |a_exact| per body; the median must be under
// 1e-3, and the 99th percentile under 1e-2. The exact field is the GPU's tiled all-pairs sum, itself
// checked against the CPU in double above.
TEST(NbodyGpuBarnesHut, ForceErrorAtThetaHalfOn64KRandomBodies) {
  const std::size_t n = 65536;
  const std::vector<Body<float>> bodies = random_cube(n, 11);
  NbodyParameters params = with_method(NbodyMethod::barnes_hut, 1e-3);
  params.theta = 0.5;
  const GpuGravityProbe tree = gpu_gravity(bodies, params, false);
  const GpuGravityProbe exact = gpu_gravity(bodies, with_method(NbodyMethod::all_pairs, 1e-3), false);
  const Errors e = relative_errors(tree.field, exact.field);
  std::printf(
      "Barnes-Hut theta 0.5, %zu random bodies: relative force error median %.2e, rms %.2e, "
      "99th percentile %.2e, max %.2e; %.0f pulls per body\n",
      n, e.median, e.rms, e.p99, e.max, double(tree.interactions) / double(n));
  EXPECT_LT(e.median, 1e-3);
  EXPECT_LT(e.p99, 1e-2);
  for (const Vec4f& a : tree.field) ASSERT_TRUE(std::isfinite(a.x + a.y + a.z));

  // The CPU tree in float over the same bodies: same Morton codes, same tree, so the same forces up to
  // rounding (rsqrtf, contractions) and the same work up to opening decisions on the edge.
  CpuBarnesHut<float> cpu_tree;
  GravityField<float> cpu;
  cpu_tree.compute(bodies, 1.0f, 1e-3f, 0.5f, std::uint32_t(params.leaf_size), false, cpu);
  const Errors gpu_vs_cpu = relative_errors(tree.field, cpu.acceleration);
  std::printf("GPU tree vs CPU tree (float): median %.1e, max %.1e; pulls %llu vs %llu\n", gpu_vs_cpu.median,
              gpu_vs_cpu.max, (unsigned long long)tree.interactions, (unsigned long long)cpu.interactions);
  EXPECT_LT(gpu_vs_cpu.median, 1e-5);
  EXPECT_NEAR(double(tree.interactions), double(cpu.interactions), 1e-3 * double(cpu.interactions));
}

double figure(const std::vector<NamedValue>& figures, const std::string& name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return std::nan("");
}

NbodySetup plummer_setup(long n, NbodyMethod method) {
  BodySystem system;
  system.scale_radius = 3.0 * M_PI / 16.0;
  system.truncation = 10.0;
  BodyList list;
  UniformRandom random(21);
  add_plummer_sphere(system, n, 1.0, random, list);
  NbodySetup setup;
  setup.params.method = method;
  setup.params.softening = 0.01;
  setup.params.dt = 0.005;
  setup.bodies = list.bodies;
  setup.velocities = list.velocities;
  return setup;
}

// Each method for 40 steps on 4,096 bodies: the GPU run follows the CPU run (double) body by body, its
// energies agree, and stepping moves no bytes over the bus.
TEST(NbodyGpuSimulation, EveryMethodFollowsTheCpuAndStepsWithoutBusTraffic) {
  for (NbodyMethod method : {NbodyMethod::all_pairs, NbodyMethod::all_pairs_naive, NbodyMethod::barnes_hut}) {
    SCOPED_TRACE(std::string(nbody_method_name(method)));
    const NbodySetup setup = plummer_setup(4096, method);
    auto cpu = make_cpu_nbody_simulation(setup);
    auto gpu = make_cuda_nbody_simulation(setup);
    gpu->status();
    const std::size_t bytes_before = gpu->ledger().total_bytes();
    for (int s = 0; s < 40; ++s) {
      cpu->step();
      gpu->step();
    }
    EXPECT_EQ(gpu->ledger().total_bytes(), bytes_before) << "stepping must not cross the bus";
    const StepStatus status = gpu->status();
    ASSERT_EQ(status.instability, Instability::none) << status.diagnosis();
    EXPECT_EQ(status.step, 40);
    EXPECT_NEAR(status.time_s, 40 * setup.params.dt, 1e-9);

    ParticleFrame a, b;
    cpu->download(a);
    gpu->download(b);
    std::vector<Vec4f> gpu_by_id(b.size());
    for (std::size_t k = 0; k < b.size(); ++k) gpu_by_id[b.id[k]] = b.position[k];
    double largest = 0, travelled = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      largest = std::max(largest, std::sqrt(double(length_squared(xyz(a.position[i]) - xyz(gpu_by_id[i])))));
      const Vec3d x0 = setup.bodies[i].x;
      const Vec3f start{float(x0.x), float(x0.y), float(x0.z)};
      travelled = std::max(travelled, std::sqrt(double(length_squared(xyz(a.position[i]) - start))));
    }
    std::printf("%s: largest CPU-GPU position difference after 40 steps %.2e (largest move %.2e)\n",
                std::string(nbody_method_name(method)).c_str(), largest, travelled);
    // Float forces (all-pairs: 1e-5 relative) or the tree's (1e-3) over 40 steps of 0.005 move a body by
    // far less than 1e-3 in these units; a wrong force or a lost body moves it by more than the travel.
    EXPECT_LT(largest, method == NbodyMethod::barnes_hut ? 1e-3 : 1e-4);
    EXPECT_GT(travelled, 10 * largest);

    const auto cpu_figures = cpu->step_figures(), gpu_figures = gpu->step_figures();
    EXPECT_NEAR(figure(gpu_figures, "total_energy"), figure(cpu_figures, "total_energy"),
                1e-4 * std::abs(figure(cpu_figures, "total_energy")));
    EXPECT_NEAR(figure(gpu_figures, "virial_ratio"), figure(cpu_figures, "virial_ratio"), 1e-3);
    EXPECT_GT(figure(gpu_figures, "pair_interactions_per_step"), 0.0);
  }
}

// Point masses on the GPU: one Kepler orbit (e = 0.5, 20,000 steps) in float keeps the energy to 1e-4 and
// returns near the start.
TEST(NbodyGpuSimulation, KeplerOrbitInFloat) {
  BodySystem system;
  system.model = BodySystem::Model::two_body;
  system.masses[0] = 1.0;
  system.masses[1] = 0.001;
  system.eccentricity = 0.5;
  BodyList list;
  add_two_body(system, 1.0, list);
  NbodySetup setup;
  setup.params.softening = 0.0;
  setup.params.dt = kepler_period(system, 1.0) / 20000;
  setup.bodies = list.bodies;
  setup.velocities = list.velocities;
  auto gpu = make_cuda_nbody_simulation(setup);
  for (int s = 0; s < 20000; ++s) gpu->step();
  const auto figures = gpu->step_figures();
  std::printf("GPU Kepler orbit: energy change %.2e\n", figure(figures, "energy_change_relative"));
  EXPECT_LT(std::abs(figure(figures, "energy_change_relative")), 1e-4);
  ParticleFrame frame;
  gpu->download(frame);
  std::vector<Vec4f> by_id(2);
  for (std::size_t k = 0; k < 2; ++k) by_id[frame.id[k]] = frame.position[k];
  const Vec3f separation = xyz(by_id[1]) - xyz(by_id[0]);
  EXPECT_NEAR(separation.x, 1.5f, 1e-2f);
  EXPECT_NEAR(separation.y, 0.0f, 1e-2f);
}

}  // namespace
}  // namespace surge
