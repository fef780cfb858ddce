// The slab decomposition and the distributed SPH driver in one process (SingleProcess transport, no MPI
// needed): cuts that balance, owners across cuts, the features refused by name, and the driver over one
// rank giving the ordinary solver's particles bit for bit, for WCSPH, DFSPH and PBF (it hands the solver back
// its own particles in its own order, so every sum runs as before, and DFSPH's and PBF's halo refreshes and
// averages over the ranks are those of one process), and the same for the DEM driver over the granular
// column. Several ranks: tests/distributed/mpi_ranks_test.cpp.
#include "sim/distributed/distributed_sph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/distributed/distributed_dem.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "sim/setup/build_fluid_setup.h"

namespace surge {
namespace {

TEST(SlabDecomposition, OwnersAcrossCutsAndUnboundedOuterSlabs) {
  SlabDecomposition slabs;
  slabs.cuts = {1.0f, 2.0f, 2.0f, 3.0f};  // rank 2's slab is empty
  EXPECT_EQ(slabs.ranks(), 5);
  EXPECT_EQ(slabs.owner(-100.0f), 0);
  EXPECT_EQ(slabs.owner(0.999f), 0);
  EXPECT_EQ(slabs.owner(1.0f), 1);  // a cut belongs to the slab above it
  EXPECT_EQ(slabs.owner(2.0f), 3);
  EXPECT_EQ(slabs.owner(2.5f), 3);
  EXPECT_EQ(slabs.owner(1e9f), 4);
  EXPECT_EQ(slabs.slab_min(0), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(slabs.slab_max(4), std::numeric_limits<float>::infinity());
  EXPECT_EQ(slabs.slab_min(3), 2.0f);
  EXPECT_EQ(slabs.slab_max(3), 3.0f);
}

TEST(SlabDecomposition, LongestAxis) {
  EXPECT_EQ(longest_axis({0, 0, 0}, {0.584f, 0.146f, 0.6f}), 2);
  EXPECT_EQ(longest_axis({0, 0, 0}, {3, 1, 2}), 0);
  EXPECT_EQ(longest_axis({0, -5, 0}, {3, 1, 2}), 1);
}

TEST(SlabDecomposition, BalancedCutsSplitTheCountsEvenly) {
  // 1000 particles crowded into the left fifth of [0, 10), 100 spread over the rest.
  std::vector<Vec4f> positions;
  for (int k = 0; k < 1000; ++k) positions.push_back({2.0f * (k + 0.5f) / 1000.0f, 0, 0, 0});
  for (int k = 0; k < 100; ++k) positions.push_back({2.0f + 8.0f * (k + 0.5f) / 100.0f, 0, 0, 0});
  const std::vector<long long> counts = axis_histogram(positions, 0, 0.0f, 10.0f, 1000);
  long long total = 0;
  for (long long c : counts) total += c;
  ASSERT_EQ(total, 1100);
  SlabDecomposition slabs;
  slabs.cuts = balanced_cuts(counts, 0.0f, 10.0f, 4);
  ASSERT_EQ(slabs.cuts.size(), 3u);
  std::vector<int> owned(4, 0);
  for (const Vec4f& x : positions) ++owned[std::size_t(slabs.owner(x.x))];
  // One bin (0.01) holds at most 5 particles here: each slab is within a bin's count of 275.
  for (int count : owned) EXPECT_NEAR(count, 275, 5);
  EXPECT_EQ(even_cuts(0.0f, 10.0f, 4), (std::vector<float>{2.5f, 5.0f, 7.5f}));
}

// `steps` steps of the ordinary solver and of one rank's driver around it: the same particles, bit for bit,
// in the same cell order, at the same time.
template <typename Plain, typename Ranks>
void step_both_and_expect_the_same_particles(Plain& plain, Ranks& ranks, int steps = 60) {
  for (int s = 0; s < steps; ++s) {
    plain.step();
    ranks.step();
  }
  ParticleFrame a;
  plain.download(a);
  const ParticleFrame b = ranks.owned_frame();
  ASSERT_EQ(ranks.status().instability, Instability::none) << ranks.status().diagnosis();
  EXPECT_EQ(ranks.status().step, steps);
  EXPECT_EQ(ranks.status().time_s, plain.status().time_s);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.id, b.id) << "the same cell order";
  EXPECT_EQ(std::memcmp(a.position.data(), b.position.data(), a.size() * sizeof(Vec4f)), 0);
  EXPECT_EQ(std::memcmp(a.velocity.data(), b.velocity.data(), a.size() * sizeof(Vec4f)), 0);
  EXPECT_EQ(std::memcmp(a.pressure.data(), b.pressure.data(), a.size() * sizeof(float)), 0);
}

// WCSPH in one process and on one rank, and the densities too: with continuity density they are state.
void expect_wcsph_one_rank_bit_for_bit(const Scene& scene) {
  const SphSetup setup = build_setup(scene, 2000);
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  WcsphSolver<CpuExecutor> plain(exec, setup);
  SingleProcess one;
  DistributedWcsph ranks(one, setup, {.rebalance_every = 10});
  step_both_and_expect_the_same_particles(plain, ranks);
  EXPECT_EQ(ranks.figures().total_halo_bytes, 0);
  EXPECT_EQ(ranks.figures().total_migrated, 0);
  ParticleFrame a;
  plain.download(a);
  const ParticleFrame b = ranks.owned_frame();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.density.data(), b.density.data(), a.size() * sizeof(float)), 0);
}

TEST(DistributedWcsph, OneRankIsTheOrdinarySolverBitForBit) {
  expect_wcsph_one_rank_bit_for_bit(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"));
}

// Continuity density: the density and the Verlet scheme's previous step leave the solver after each step
// and come back before the next through the driver (its records and its table by creation id); 60 steps
// hold leapfrog steps, which read the previous step, and every tenth an Euler step.
TEST(DistributedWcsph, ContinuityDensityOneRankIsTheOrdinarySolverBitForBit) {
  Scene scene = load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml");
  scene.continuity_density = true;
  scene.density_diffusion = 0.1f;
  expect_wcsph_one_rank_bit_for_bit(scene);
}

// DFSPH and PBF with their rank hooks set: the averages go through the driver, the refreshes find no halo.
template <typename Solver, typename Settings>
void expect_one_rank_bit_for_bit(const Settings& settings) {
  const SphSetup setup = build_setup(load_scene(SURGE_SOURCE_DIR "/scenes/dam_break.toml"), 2000);
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  Solver plain(exec, setup, settings);
  SingleProcess one;
  DistributedSph<Solver> ranks(one, setup, {.rebalance_every = 10}, settings);
  step_both_and_expect_the_same_particles(plain, ranks);
  EXPECT_GT(ranks.figures().total_refreshes, 0) << "the iterations asked for halo refreshes";
  EXPECT_EQ(ranks.figures().total_refresh_bytes, 0) << "one rank has no halo";
}

TEST(DistributedDfsph, OneRankIsTheOrdinarySolverBitForBit) {
  DfsphParameters dfsph;
  dfsph.hydrostatic_start = true;  // the warm-start sums travel with the particles from the first step
  expect_one_rank_bit_for_bit<DfsphSolver<CpuExecutor>>(dfsph);
}

TEST(DistributedPbf, OneRankIsTheOrdinarySolverBitForBit) {
  PbfParameters pbf;
  pbf.density_error = 1e-4f;  // the early stop reads the average through the driver
  pbf.vorticity = 1e-4f;
  expect_one_rank_bit_for_bit<PbfSolver<CpuExecutor>>(pbf);
}

// 2000 steps: the grains fall into contact (about 400 steps), so the springs of the contact history and the
// spin are in play; the driver loads and reads back the grains and the history stays in the solver.
TEST(DistributedDem, OneRankIsTheOrdinarySolverBitForBit) {
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/granular_column.toml"), 500);
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  DemSolver<CpuExecutor> plain(exec, setup);
  SingleProcess one;
  DistributedDem ranks(one, setup, {.rebalance_every = 10});
  step_both_and_expect_the_same_particles(plain, ranks, 2000);
  std::vector<Vec4f> spin;
  plain.download_angular_velocity(spin);
  ASSERT_EQ(ranks.owned_grains().size(), spin.size());
  for (std::size_t k = 0; k < spin.size(); ++k)
    ASSERT_EQ(std::memcmp(&ranks.owned_grains()[k].angular_velocity, &spin[k], sizeof(Vec4f)), 0) << k;
  float fastest = 0;
  for (std::size_t k = 0; k < spin.size(); ++k)
    fastest = std::max(fastest, std::sqrt(length_squared(xyz(spin[k]))));
  EXPECT_GT(fastest, 1.0f) << "the grains spin: the contacts' tangential forces were in play";
  EXPECT_EQ(ranks.figures().total_halo_bytes, 0);
}

// A rank whose slab holds no grains steps an empty solver: its clock must still advance with the others'.
TEST(DistributedDem, AnEmptySolverStillAdvancesTheClock) {
  const DemSetup setup = build_dem_setup(load_scene(SURGE_SOURCE_DIR "/scenes/granular_column.toml"), 200);
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  DemSolver<CpuExecutor> solver(exec, setup);
  solver.set_grain_count(0);
  for (int s = 0; s < 3; ++s) solver.step();
  EXPECT_EQ(solver.status().step, 3);
  EXPECT_DOUBLE_EQ(solver.status().time_s, 3.0 * double(setup.params.dt));
  EXPECT_EQ(solver.status().instability, Instability::none);
}

// Emitters and floating solids were refused on ranks until they ran there
// (tests/distributed/mpi_ranks_test.cpp compares them with one process on 1-3 ranks); on one rank they now
// build and step.
TEST(DistributedWcsph, AcceptsEmittersAndFloatingSolids) {
  for (const char* scene : {"fountain.toml", "floating_box.toml"}) {
    SingleProcess one;
    DistributedWcsph ranks(one,
                           build_setup(load_scene(std::string(SURGE_SOURCE_DIR "/scenes/") + scene), 1500));
    for (int s = 0; s < 5; ++s) ranks.step();
    EXPECT_EQ(ranks.status().step, 5) << scene;
    EXPECT_EQ(ranks.status().instability, Instability::none) << scene << ": " << ranks.status().diagnosis();
  }
}

}  // namespace
}  // namespace surge
