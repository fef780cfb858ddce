// A DFSPH tank at rest: kinetic energy and the fastest particle over time
// (docs/perf/2026-12-05-dfsph-wall-symmetry.md). Usage: tank_at_rest dfsph c|w SUPPORT STEPS [WIDTH];
// environment: VISC (DFSPH viscosity), HSTART (hydrostatic start), NODIV (no divergence solve), DTMAX,
// CFL. Build against a configured build/ (the libraries the surge target links):
//   g++ -std=c++20 -O2 -fopenmp -I. docs/perf/2026-12-05-dfsph-wall-symmetry/tank_at_rest.cpp \
//     build/sim/libsurge_sim.a -lopenvdb -lassimp -ltbb -lImath-3_1 -L/usr/local/cuda/lib64 \
//     -lcudart_static -ldl -lrt -lpthread -o /tmp/tank_at_rest
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/backend/cpu_executor.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/core/transfer_ledger.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_fluid_setup.h"
#include "sim/sph/dfsph_solver.h"
using namespace surge;
int main(int argc, char** argv) {
  const std::string solver = argv[1];
  const bool wendland = std::string(argv[2]) == "w";
  const float support = std::atof(argv[3]);
  const int steps = std::atoi(argv[4]);
  const float width = argc > 5 ? std::atof(argv[5]) : 0.1f;
  Scene scene;
  scene.name = "col";
  scene.solver = *parse_solver_kind(solver.c_str());
  scene.domain_min = {0, 0, 0};
  scene.domain_max = {width, width, 0.55f};
  scene.walls = {true, true, true, true, true, false};
  scene.wall_layers = int(std::ceil(support));
  scene.spacing = 0.02f;
  scene.support_ratio = support;
  scene.kernel = wendland ? KernelType::wendland_c2 : KernelType::cubic_spline;
  FluidBlock water;
  water.min = {0, 0, 0};
  water.max = {width, width, 0.45f};
  scene.blocks = {water};
  if (getenv("VISC")) scene.dfsph.viscosity = std::atof(getenv("VISC"));
  if (getenv("NODIV")) scene.dfsph.divergence_solve = false;
  if (getenv("NOWALLS")) {
    scene.walls = {false, false, false, false, false, false};
    scene.domain_min = {-0.5f, -0.5f, -0.5f};
    scene.domain_max = {1.0f, 1.0f, 1.0f};
    scene.gravity = {0.0f, 0.0f, 0.0f};
    scene.blocks[0].min = {0.0f, 0.0f, 0.0f};
  }
  if (getenv("HSTART")) scene.dfsph.hydrostatic_start = true;
  SphSetup setup = build_setup(scene);
  if (getenv("DTMAX")) setup.params.dt_max = std::atof(getenv("DTMAX"));
  if (getenv("CFL")) setup.params.cfl = std::atof(getenv("CFL"));
  TransferLedger ledger;
  CpuExecutor exec(ledger);
  auto sim = std::make_unique<DfsphSolver<CpuExecutor>>(exec, setup, scene.dfsph);
  double fastest = 0;
  for (int s = 1; s <= steps; ++s) {
    sim->step();
    const StepStatus st = sim->status();
    fastest = std::max(fastest, double(st.max_speed));
    if (st.instability != Instability::none) {
      std::printf("%s %c %.0f: step %d unstable: %s\n", solver.c_str(), argv[2][0], support, s,
                  st.diagnosis().c_str());
      return 1;
    }
    if (s % (steps / 8) == 0) {
      ParticleFrame f;
      sim->download(f);
      int fast = 0;
      double vmax = 0;
      Vec4f at{};
      double ke = 0;
      double zmax = 0;
      for (std::size_t i = 0; i < f.size(); ++i) {
        const double v = std::sqrt(length_squared(xyz(f.velocity[i])));
        ke += 0.5 * v * v;
        if (v > 0.3) ++fast;
        if (v > vmax) {
          vmax = v;
          at = f.position[i];
        }
        zmax = std::max(zmax, double(f.position[i].z));
      }
      std::printf(
          "%s %c %.0f w%.2f: step %d t %.3f max speed %.4f (fastest %.4f) n>0.3m/s %d of %zu, fastest at "
          "(%.3f %.3f %.3f), mean ke/m %.2e, top z %.3f\n",
          solver.c_str(), argv[2][0], support, width, s, st.time_s, st.max_speed, fastest, fast, f.size(),
          at.x, at.y, at.z, ke / f.size(), zmax);
    }
  }
  return 0;
}
