// The granular solver's CUDA backend computes what its CPU backend computes, and steps without copying.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/backend/dem_simulation.h"
#include "sim/dem/dem_setup.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "tests/sim/mindlin_bed_scene.h"

namespace surge {
namespace {

// Positions by creation id, so the two backends' cell orders do not matter.
std::vector<Vec4f> by_id(const ParticleFrame& frame) {
  std::vector<Vec4f> out(frame.size());
  for (std::size_t k = 0; k < frame.size(); ++k) out[frame.id[k]] = frame.position[k];
  return out;
}

// Contact stress (exported as pressure) by creation id.
std::vector<float> stress_by_id(const ParticleFrame& frame) {
  std::vector<float> out(frame.size());
  for (std::size_t k = 0; k < frame.size(); ++k) out[frame.id[k]] = frame.pressure[k];
  return out;
}

// One step from the same state: both backends see identical inputs, so every grain's contact forces must
// agree to rounding. The contact stress sum |F_n| / (4 pi r^2) of each grain exposes any contact one backend
// finds and the other misses (it changes by the whole contact's force, not by a rounding error).
void expect_same_first_step(const DemSetup& setup) {
  auto cpu = make_dem_cpu_simulation(setup);
  auto gpu = make_dem_cuda_simulation(setup);
  cpu->step();
  gpu->step();
  ParticleFrame cpu_frame, gpu_frame;
  cpu->download(cpu_frame);
  gpu->download(gpu_frame);
  ASSERT_EQ(cpu_frame.size(), gpu_frame.size());
  const auto a = stress_by_id(cpu_frame), b = stress_by_id(gpu_frame);
  const float largest_stress = *std::max_element(a.begin(), a.end());
  std::size_t touching = 0, differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    touching += a[i] > 0.0f ? 1 : 0;
    if (std::abs(a[i] - b[i]) > 1e-4f * a[i] + 1e-6f * largest_stress) ++differing;
  }
  std::printf("first step: %zu of %zu grains touch something; %zu differ in contact stress\n", touching,
              a.size(), differing);
  EXPECT_GT(touching, a.size() / 10) << "the scene has contacts at its first step";
  EXPECT_EQ(differing, 0u);
}

// Steps both backends, compares positions by id; returns {largest difference, largest travel} in metres.
std::pair<double, double> compare_after(const DemSetup& setup, int steps) {
  auto cpu = make_dem_cpu_simulation(setup);
  auto gpu = make_dem_cuda_simulation(setup);
  for (int s = 0; s < steps; ++s) {
    cpu->step();
    gpu->step();
  }
  const StepStatus cpu_status = cpu->status(), gpu_status = gpu->status();
  EXPECT_EQ(cpu_status.instability, Instability::none) << cpu_status.diagnosis();
  EXPECT_EQ(gpu_status.instability, Instability::none) << gpu_status.diagnosis();
  EXPECT_EQ(gpu_status.step, steps);
  EXPECT_NEAR(gpu_status.time_s, cpu_status.time_s, 1e-9 * cpu_status.time_s);
  ParticleFrame cpu_frame, gpu_frame;
  cpu->download(cpu_frame);
  gpu->download(gpu_frame);
  EXPECT_EQ(cpu_frame.size(), gpu_frame.size());
  const auto a = by_id(cpu_frame), b = by_id(gpu_frame);
  double largest = 0, travelled = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, std::sqrt(double(length_squared(xyz(a[i]) - xyz(b[i])))));
    travelled =
        std::max(travelled, std::sqrt(double(length_squared(xyz(a[i]) - xyz(setup.grains.position[i])))));
  }
  return {largest, travelled};
}

// Same float operations in the same neighbour order (stable sorts on both sides); only rounding differs
// (FMA contraction, sqrtf), ~1e-7 relative per operation. Stiff contacts amplify it, but over 100 steps
// (about five collision times) not to 1e-2 radius, while a missing or doubled contact moves a grain by
// roughly its overlap (~1e-2 radius and more) within one collision time.

TEST(GpuDem, GranularColumnMatchesTheCpu) {
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/granular_column.toml"));
  const auto [largest, travelled] = compare_after(setup, 100);
  std::printf(
      "granular_column, %zu grains, 100 steps: largest CPU-GPU difference %.3e m = %.3e radii; "
      "largest travel %.3e m\n",
      setup.grains.size(), largest, largest / setup.params.max_radius, travelled);
  EXPECT_LT(largest, 1e-2 * setup.params.max_radius);
  EXPECT_GT(travelled, 10 * largest) << "the grains moved, so the comparison means something";
}

TEST(GpuDem, FixedGrainsAndWallsMatchTheCpu) {
  // The hourglass: grains on a jittered lattice, touching, above a plate of fixed grains, between walls.
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/hourglass.toml"));
  ASSERT_GT(setup.fixed.size(), 0u);
  expect_same_first_step(setup);
  const auto [largest, travelled] = compare_after(setup, 100);
  std::printf(
      "hourglass, %zu grains + %zu fixed, 100 steps: largest CPU-GPU difference %.3e m; travel %.3e m\n",
      setup.grains.size(), setup.fixed.size(), largest, travelled);
  EXPECT_LT(largest, 1e-2 * setup.params.max_radius);
  EXPECT_GT(travelled, 10 * largest);
}

// NVIDIA's box starts its grains on a lattice one diameter apart: every neighbour pair sits at zero overlap,
// where float rounding decides whether a contact (and its dashpot) exists. On the H200 5 of 16,384 grains
// differed in the first step for that reason, and over 100 steps of this dense, colliding box such
// differences grow chaotically (3e-2 after a travel of 0.31). So the box is compared by what does not depend
// on single contacts: the contact count and the centre of mass, which gravity and the walls decide.
TEST(GpuDem, ParticlesBoxWithReflectingWallsMatchesTheCpuInTheMean) {
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/particles_box.toml"));
  auto cpu = make_dem_cpu_simulation(setup);
  auto gpu = make_dem_cuda_simulation(setup);
  for (int s = 0; s < 100; ++s) {
    cpu->step();
    gpu->step();
  }
  ParticleFrame a, b;
  cpu->download(a);
  gpu->download(b);
  ASSERT_EQ(a.size(), b.size());
  Vec3d center_a{}, center_b{}, start{};
  std::size_t touching_a = 0, touching_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    center_a += Vec3d{a.position[i].x, a.position[i].y, a.position[i].z};
    center_b += Vec3d{b.position[i].x, b.position[i].y, b.position[i].z};
    start += Vec3d{setup.grains.position[i].x, setup.grains.position[i].y, setup.grains.position[i].z};
    touching_a += a.pressure[i] > 0.0f ? 1 : 0;
    touching_b += b.pressure[i] > 0.0f ? 1 : 0;
  }
  const double n = double(a.size());
  const double difference = std::sqrt(length_squared((1.0 / n) * (center_a - center_b)));
  const double travel = std::sqrt(length_squared((1.0 / n) * (center_a - start)));
  std::printf(
      "particles_box, %zu grains, 100 steps: centre of mass moved %.4e, CPU-GPU difference %.3e; "
      "touching grains %zu (cpu) and %zu (gpu)\n",
      a.size(), travel, difference, touching_a, touching_b);
  EXPECT_GT(travel, 1e-3 * setup.params.max_radius) << "the box moved";
  EXPECT_LT(difference, 1e-2 * travel);
  EXPECT_NEAR(double(touching_b), double(touching_a), 0.01 * n);
}

double figure(const std::vector<NamedValue>& figures, const std::string& name) {
  for (const NamedValue& f : figures)
    if (f.name == name) return std::get<double>(f.value);
  ADD_FAILURE() << "no figure " << name;
  return -1;
}

// Spin and contact history of a CPU and a GPU run after `steps` steps, grain by grain (by creation id) and
// contact by contact (by partner: the slot order follows the neighbour order).
struct SpinAndSprings {
  double largest_spin = 0;
  std::vector<double> spin_differences;  // sorted
  double largest_spring = 0;
  std::vector<double> spring_differences;  // sorted, over contacts both runs keep
  std::size_t in_use = 0, same_partner = 0;
  double contacts_cpu = 0, contacts_gpu = 0, overflow_cpu = 0, overflow_gpu = 0;
  double percentile(const std::vector<double>& v, double q) const {
    return v[std::size_t(q * double(v.size() - 1))];
  }
};

SpinAndSprings compare_spin_and_springs(const DemSetup& setup, int steps) {
  auto cpu = make_dem_cpu_simulation(setup);
  auto gpu = make_dem_cuda_simulation(setup);
  for (int s = 0; s < steps; ++s) {
    cpu->step();
    gpu->step();
  }
  ParticleFrame cpu_frame, gpu_frame;
  std::vector<Vec4f> cpu_spin, gpu_spin;
  cpu->download(cpu_frame);
  gpu->download(gpu_frame);
  cpu->download_angular_velocity(cpu_spin);
  gpu->download_angular_velocity(gpu_spin);
  const std::size_t n = setup.grains.size();
  std::vector<Vec3f> spin_a(n), spin_b(n);
  for (std::size_t k = 0; k < n; ++k) {
    spin_a[cpu_frame.id[k]] = xyz(cpu_spin[k]);
    spin_b[gpu_frame.id[k]] = xyz(gpu_spin[k]);
  }
  SpinAndSprings r;
  for (std::size_t i = 0; i < n; ++i) {
    r.largest_spin = std::max(r.largest_spin, std::sqrt(double(length_squared(spin_a[i]))));
    r.spin_differences.push_back(std::sqrt(double(length_squared(spin_a[i] - spin_b[i]))));
  }
  std::vector<ContactSlot> cpu_slots, gpu_slots;
  cpu->download_contact_history(cpu_slots);
  gpu->download_contact_history(gpu_slots);
  const std::size_t per_grain = setup.params.contact_slots;
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t k = 0; k < per_grain && cpu_slots[a * per_grain + k].partner != kNoPartner; ++k) {
      const ContactSlot& mine = cpu_slots[a * per_grain + k];
      ++r.in_use;
      r.largest_spring = std::max(r.largest_spring, std::sqrt(double(length_squared(mine.spring))));
      for (std::size_t l = 0; l < per_grain && gpu_slots[a * per_grain + l].partner != kNoPartner; ++l) {
        if (gpu_slots[a * per_grain + l].partner != mine.partner) continue;
        ++r.same_partner;
        r.spring_differences.push_back(
            std::sqrt(double(length_squared(mine.spring - gpu_slots[a * per_grain + l].spring))));
      }
    }
  }
  std::sort(r.spin_differences.begin(), r.spin_differences.end());
  std::sort(r.spring_differences.begin(), r.spring_differences.end());
  const auto cpu_figures = cpu->step_figures(), gpu_figures = gpu->step_figures();
  r.contacts_cpu = figure(cpu_figures, "contacts");
  r.contacts_gpu = figure(gpu_figures, "contacts");
  r.overflow_cpu = figure(cpu_figures, "contact_overflow_total");
  r.overflow_gpu = figure(gpu_figures, "contact_overflow_total");
  std::printf(
      "%d steps: spin largest %.3e rad/s, CPU-GPU difference median %.2e, 99th percentile %.2e, largest "
      "%.2e; "
      "springs largest %.3e m, difference median %.2e, 99th percentile %.2e, largest %.2e; slots in use %zu, "
      "same partner %zu; contacts cpu %.0f gpu %.0f, overflow %.0f / %.0f\n",
      steps, r.largest_spin, r.percentile(r.spin_differences, 0.5), r.percentile(r.spin_differences, 0.99),
      r.spin_differences.back(), r.largest_spring, r.percentile(r.spring_differences, 0.5),
      r.percentile(r.spring_differences, 0.99), r.spring_differences.back(), r.in_use, r.same_partner,
      r.contacts_cpu, r.contacts_gpu, r.overflow_cpu, r.overflow_gpu);
  return r;
}

TEST(GpuDem, MindlinFrictionAndSpinMatchTheCpu) {
  // The hourglass (scenes/hourglass.toml): Mindlin friction, rotation and rolling resistance; grains on a
  // lattice one diameter apart, jittered, so about half their neighbours overlap from the first step (46,550
  // contacts after 100 steps on the CPU): the history is full of pair, fixed-grain and wall slots.
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/hourglass.toml"));
  ASSERT_EQ(setup.params.friction_model, FrictionModel::mindlin);
  ASSERT_TRUE(setup.params.rotation);
  expect_same_first_step(setup);
  // 100 steps, as the other comparisons: positions to 1e-2 radius.
  const auto [largest, travelled] = compare_after(setup, 100);
  std::printf("mindlin hourglass, %zu grains, 100 steps: largest CPU-GPU difference %.3e m; travel %.3e m\n",
              setup.grains.size(), largest, travelled);
  EXPECT_LT(largest, 1e-2 * setup.params.max_radius);
  EXPECT_GT(travelled, 10 * largest);

  // Spin and springs are far more sensitive than positions: a grain's moment of inertia is 2/5 m r^2, and a
  // contact at the edge of touching exists on one side only (on the H200 two of 44,000 after 10 steps), which
  // gives its grains a spin of its own; a contact at the Coulomb limit resets its spring along the force.
  // So the comparison is in distribution: after 10 steps, where a wrong sign or a lost torque would show in
  // every spinning grain and rounding has not grown, the 99th percentiles (measured there: 5e-6 of the
  // largest spin, 7e-6 of the largest spring) and the share of grains off by more than 1 % of the largest
  // spin; after 100 steps, medians and 99th percentiles with the room rounding has grown into (measured:
  // spin 5e-4 and 2.3e-2, springs 7e-4 and 4.3e-2).
  const SpinAndSprings early = compare_spin_and_springs(setup, 10);
  EXPECT_GT(early.largest_spin, 0.0) << "the grains spin";
  EXPECT_LT(early.percentile(early.spin_differences, 0.99), 1e-3 * early.largest_spin);
  EXPECT_LT(early.percentile(early.spring_differences, 0.99), 1e-3 * early.largest_spring);
  const auto off = std::size_t(early.spin_differences.end() - std::upper_bound(early.spin_differences.begin(),
                                                                               early.spin_differences.end(),
                                                                               1e-2 * early.largest_spin));
  std::printf("after 10 steps %zu of %zu grains differ in spin by more than 1 %% of the largest\n", off,
              setup.grains.size());
  EXPECT_LT(off, setup.grains.size() / 100);
  EXPECT_GE(double(early.same_partner), 0.999 * double(early.in_use));

  const SpinAndSprings late = compare_spin_and_springs(setup, 100);
  EXPECT_GT(late.in_use, setup.grains.size());
  EXPECT_LT(late.percentile(late.spin_differences, 0.5), 1e-3 * late.largest_spin);
  EXPECT_LT(late.percentile(late.spin_differences, 0.99), 5e-2 * late.largest_spin);
  EXPECT_LT(late.percentile(late.spring_differences, 0.5), 1e-2 * late.largest_spring);
  EXPECT_LT(late.percentile(late.spring_differences, 0.99), 1e-1 * late.largest_spring);
  EXPECT_GE(double(late.same_partner), 0.99 * double(late.in_use));
  EXPECT_NEAR(late.contacts_gpu, late.contacts_cpu, 0.01 * late.contacts_cpu);
  EXPECT_EQ(late.overflow_gpu, late.overflow_cpu);
}

TEST(GpuDem, MindlinSteppingCopiesNothingOverTheBus) {
  auto gpu = make_dem_cuda_simulation(
      build_dem_setup(parse_scene(mindlin_bed_scene("rolling_friction = 0.05\n"), "bed.toml")));
  gpu->ledger().clear();
  for (int s = 0; s < 50; ++s) gpu->step();
  EXPECT_EQ(gpu->ledger().total_bytes(), 0u) << "spin and history stay on the device";
  EXPECT_EQ(gpu->status().instability, Instability::none);
}

TEST(GpuDem, SteppingCopiesNothingOverTheBus) {
  auto gpu = make_dem_cuda_simulation(
      build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/particles_box.toml"), 262144));
  gpu->ledger().clear();
  for (int s = 0; s < 50; ++s) gpu->step();
  EXPECT_EQ(gpu->ledger().total_bytes(), 0u) << "the step is device-resident";
  const StepStatus status = gpu->status();
  EXPECT_EQ(status.step, 50);
  EXPECT_EQ(status.instability, Instability::none) << status.diagnosis();
  EXPECT_GT(gpu->ledger().total_bytes(), 0u) << "the status readback is recorded";
}

// The classroom's hybrid mode for grains: the index from the CPU's stable counting sort orders the grains
// as the GPU's stable sort does, so the run is the gpu mode's to rounding; each step moves the positions
// down (16 B a grain) and the sorted order (4 B a grain) and the cell starts (4 B a cell) up, and the time
// of those copies shows as the transfer stage.
TEST(GpuDem, HybridModeBuildsTheIndexOnTheCpuWithTheSamePhysics) {
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/hourglass.toml"));
  auto gpu = make_dem_cuda_simulation(setup);
  auto hybrid = make_dem_hybrid_simulation(setup);
  hybrid->status();
  hybrid->ledger().clear();
  hybrid->reset_timers();
  constexpr int kSteps = 50;
  for (int s = 0; s < kSteps; ++s) {
    gpu->step();
    hybrid->step();
  }
  const std::size_t n = setup.grains.size(), cells = std::size_t(setup.grid.cell_count()) + 1;
  const std::size_t per_step = n * sizeof(Vec4f) + n * sizeof(std::uint32_t) + cells * sizeof(std::uint32_t);
  EXPECT_EQ(hybrid->ledger().total_bytes(), kSteps * per_step);
  const StageTimes times = hybrid->stage_times();
  std::printf(
      "dem hybrid, %zu grains, %zu cells: %zu bytes a step; ms a step: index %.3f, transfer %.3f, "
      "forces %.3f, integration %.3f\n",
      n, cells, per_step, times.ms[int(Stage::index)] / kSteps, times.ms[int(Stage::transfer)] / kSteps,
      times.ms[int(Stage::forces)] / kSteps, times.ms[int(Stage::integration)] / kSteps);
  EXPECT_EQ(times.steps, kSteps);
  EXPECT_GT(times.ms[int(Stage::transfer)], 0.0);
  EXPECT_GT(times.ms[int(Stage::index)], 0.0);
  EXPECT_EQ(hybrid->status().step, kSteps);
  ParticleFrame a, b;
  gpu->download(a);
  hybrid->download(b);
  std::vector<Vec4f> pa(n), pb(n);
  for (std::size_t k = 0; k < n; ++k) {
    pa[a.id[k]] = a.position[k];
    pb[b.id[k]] = b.position[k];
  }
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i)
    largest = std::max(largest, double(std::sqrt(length_squared(xyz(pa[i]) - xyz(pb[i])))));
  std::printf("dem hybrid against gpu after %d steps: largest difference %.3e m\n", kSteps, largest);
  EXPECT_LT(largest, 1e-4 * setup.params.max_radius);
}

TEST(GpuDem, StageTimesCoverTheStep) {
  auto gpu =
      make_dem_cuda_simulation(build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/particles_box.toml")));
  for (int s = 0; s < 10; ++s) gpu->step();
  const StageTimes times = gpu->stage_times();
  EXPECT_EQ(times.steps, 10);
  EXPECT_GT(times.ms[int(Stage::index)], 0.0);
  EXPECT_GT(times.ms[int(Stage::forces)], 0.0);
  EXPECT_GT(times.ms[int(Stage::integration)], 0.0);
}

}  // namespace
}  // namespace surge
