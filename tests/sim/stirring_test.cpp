// The stirring hand a viewer drags through the fluid: its pull as a formula, and its effect in a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "sim/backend/simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/sph_setup.h"
#include "sim/sph/wcsph_physics.h"

namespace surge {
namespace {

TEST(Stirring, PullIsVelocityRelaxationWeightedByDistance) {
  Stirring hand;
  hand.center = {1.0f, 2.0f, 3.0f};
  hand.radius = 0.2f;
  hand.velocity = {1.0f, 0.0f, 0.0f};
  hand.response_time = 0.02f;
  // At the centre, a particle at rest: a = (u - v) / tau = 50 m/s^2 along x.
  Vec3f a = stirring_acceleration(hand, hand.center, {});
  EXPECT_FLOAT_EQ(a.x, 50.0f);
  EXPECT_FLOAT_EQ(a.y, 0.0f);
  // Half the radius away, weight (1 - 1/4)^2 = 0.5625; a particle moving with the hand feels nothing.
  a = stirring_acceleration(hand, {1.1f, 2.0f, 3.0f}, {});
  EXPECT_NEAR(a.x, 50.0f * 0.5625f, 1e-3f);
  a = stirring_acceleration(hand, {1.1f, 2.0f, 3.0f}, hand.velocity);
  EXPECT_FLOAT_EQ(a.x, 0.0f);
  // At and beyond the radius, and with the hand off: zero.
  EXPECT_FLOAT_EQ(stirring_acceleration(hand, {1.2f, 2.0f, 3.0f}, {}).x, 0.0f);
  EXPECT_FLOAT_EQ(stirring_acceleration(hand, {1.5f, 2.0f, 3.0f}, {}).x, 0.0f);
  hand.radius = 0.0f;
  EXPECT_FLOAT_EQ(stirring_acceleration(hand, hand.center, {}).x, 0.0f);
}

// A pool 30 x 6 cm, 10 cm deep (spacing 1 cm), open at the top, and a hand in it near the back wall moving
// along +x at 0.5 m/s.
Scene pool(const std::string& solver) {
  Scene scene;
  scene.name = "pool";
  scene.solver = *parse_solver_kind(solver);
  scene.domain_min = {0.0f, 0.0f, 0.0f};
  scene.domain_max = {0.3f, 0.06f, 0.15f};
  scene.walls = {true, true, true, true, true, false};
  scene.spacing = 0.01f;
  FluidBlock water;
  water.min = {0.0f, 0.0f, 0.0f};
  water.max = {0.3f, 0.06f, 0.1f};
  scene.blocks = {water};
  return scene;
}

Stirring hand_near_the_back_wall() {
  Stirring hand;
  hand.center = {0.05f, 0.03f, 0.05f};
  hand.radius = 0.04f;
  hand.velocity = {0.5f, 0.0f, 0.0f};
  return hand;
}

TEST(Stirring, HandMovesTheFluidNearItAndNotFarAway) {
  const Scene scene = pool("wcsph");
  const Stirring hand = hand_near_the_back_wall();
  // Mean x velocity near the hand and at the far end of the pool after 60 steps, with and without it:
  // the pool is not settled at the start, so the run without the hand is the baseline.
  auto mean_vx = [&](bool stirred) {
    auto simulation = make_cpu_simulation(build_setup(scene));
    if (stirred) {
      EXPECT_TRUE(simulation->set_stirring(hand));
    }
    for (int s = 0; s < 60; ++s) simulation->step();
    ParticleFrame frame;
    simulation->download(frame);
    double near_sum = 0, far_sum = 0;
    int near = 0, far = 0;
    for (std::size_t i = 0; i < frame.size(); ++i) {
      const Vec3f x = xyz(frame.position[i]);
      if (std::sqrt(length_squared(x - hand.center)) < 0.5f * hand.radius)
        near_sum += frame.velocity[i].x, ++near;
      if (x.x > 0.22f) far_sum += frame.velocity[i].x, ++far;
    }
    EXPECT_GT(near, 5);
    EXPECT_GT(far, 5);
    return std::make_pair(near_sum / std::max(near, 1), far_sum / std::max(far, 1));
  };
  const auto [near_stirred, far_stirred] = mean_vx(true);
  const auto [near_still, far_still] = mean_vx(false);
  std::printf("mean x velocity near the hand %.4f m/s (without it %.4f), far end %.4f (%.4f)\n", near_stirred,
              near_still, far_stirred, far_still);
  EXPECT_GT(near_stirred - near_still, 0.02) << "the fluid near the hand follows it";
  EXPECT_GT(near_stirred - near_still, 3.0 * std::abs(far_stirred - far_still))
      << "and far from it much less";
}

TEST(Stirring, PullsDfsphAndPbfFluidTowardsTheHand) {
  for (const char* solver : {"dfsph", "pbf"}) {
    SCOPED_TRACE(solver);
    const Scene scene = pool(solver);
    const Stirring hand = hand_near_the_back_wall();
    auto mean_vx_near_hand = [&](bool stirred) {
      auto simulation = make_simulation(scene, ExecutionMode::cpu);
      if (stirred) {
        EXPECT_TRUE(simulation->set_stirring(hand));
      }
      for (int s = 0; s < 40; ++s) simulation->step();
      EXPECT_EQ(simulation->status().instability, Instability::none) << simulation->status().diagnosis();
      ParticleFrame frame;
      simulation->download(frame);
      double sum = 0;
      int count = 0;
      for (std::size_t i = 0; i < frame.size(); ++i)
        if (std::sqrt(length_squared(xyz(frame.position[i]) - hand.center)) < 0.5f * hand.radius)
          sum += frame.velocity[i].x, ++count;
      EXPECT_GT(count, 5);
      return sum / std::max(count, 1);
    };
    const double stirred = mean_vx_near_hand(true), still = mean_vx_near_hand(false);
    std::printf("%s: mean x velocity near the hand %.4f m/s with it, %.4f without (hand: %.2f m/s)\n", solver,
                stirred, still, hand.velocity.x);
    EXPECT_GT(stirred - still, 0.05) << "the fluid near the hand follows it";
    EXPECT_LT(stirred, 1.05 * hand.velocity.x) << "and does not overtake it";
  }
}

}  // namespace
}  // namespace surge
