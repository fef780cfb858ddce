// The overlapped export of a GPU n-body run (SolverSimulation's device-side snapshot): the frame taken by
// begin_download / finish_download is, byte for byte, the one download() gives at that step, although the
// steps queued after it move the bodies (Barnes-Hut also reorders them) before its copy is collected.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sim/backend/nbody_simulation.h"
#include "sim/nbody/body_generators.h"

namespace surge {
namespace {

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(NbodyGpuExport, SnapshotIsTheStepItWasTakenAt) {
  for (NbodyMethod method : {NbodyMethod::all_pairs, NbodyMethod::barnes_hut}) {
    SCOPED_TRACE(std::string(nbody_method_name(method)));
    BodySystem system;
    system.scale_radius = 3.0 * M_PI / 16.0;
    system.truncation = 10.0;
    BodyList list;
    UniformRandom random(5);
    add_plummer_sphere(system, 4096, 1.0, random, list);
    NbodySetup setup;
    setup.params.method = method;
    setup.params.dt = 0.005;
    setup.bodies = list.bodies;
    setup.velocities = list.velocities;
    auto gpu = make_cuda_nbody_simulation(setup);
    for (int s = 0; s < 10; ++s) gpu->step();
    ParticleFrame at_step_10, snapshot, later;
    gpu->download(at_step_10);
    gpu->begin_download(0);
    for (int s = 0; s < 10; ++s) gpu->step();
    gpu->finish_download(0, snapshot);
    gpu->download(later);
    ASSERT_EQ(gpu->status().instability, Instability::none);
    ASSERT_EQ(snapshot.size(), setup.size());
    EXPECT_TRUE(same_bytes(snapshot.position, at_step_10.position));
    EXPECT_TRUE(same_bytes(snapshot.velocity, at_step_10.velocity));
    EXPECT_TRUE(same_bytes(snapshot.id, at_step_10.id));
    EXPECT_EQ(snapshot.density, std::vector<float>(setup.size(), 0.0f));
    EXPECT_EQ(snapshot.pressure, std::vector<float>(setup.size(), 0.0f));
    EXPECT_FALSE(same_bytes(later.position, at_step_10.position)) << "the later steps moved the bodies";
  }
}

}  // namespace
}  // namespace surge
