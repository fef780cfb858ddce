#include "app/ranks_command.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "app/backend_choice.h"
#include "app/exit_codes.h"
#include "app/run_checkpoints.h"
#include "sim/backend/dem_simulation.h"
#include "sim/backend/incompressible_simulation.h"
#include "sim/backend/simulation_factory.h"
#include "sim/dem/dem_solver.h"
#include "sim/distributed/communicator.h"
#include "sim/distributed/distributed_dem.h"
#include "sim/distributed/distributed_sph.h"
#include "sim/distributed/parallel_vtk.h"
#include "sim/distributed/rank_agreement.h"
#include "sim/io/exporters.h"
#include "sim/io/gauge_recorder.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/setup/build_dem_setup.h"
#include "sim/setup/build_fluid_setup.h"

namespace surge::app {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void refuse(const std::string& feature) {
  throw InputError(feature +
                   " cannot run over several ranks yet (docs/multi-rank.md): run it as one process");
}

// What every command on ranks refuses, from the scene and the backend asked for.
void refuse_scene_for_ranks(const Scene& scene, const std::string& backend, const std::string& mode) {
  if (scene.solver == SolverKind::nbody)
    refuse(std::string("solver ") + solver_name(scene.solver) +
           " (wcsph, dfsph, pbf and dem run on several ranks)");
  if (backend == "gpu")
    refuse("--backend gpu (one GPU per rank through NCCL is not built; use --backend cpu)");
  if (!mode.empty() && mode != "cpu") refuse("--mode " + mode);
}

std::unique_ptr<Communicator> open_world() {
  try {
    return world_communicator();
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
}

// The scene's particles, which every rank builds whole: a fluid's, or a granular scene's grains.
using RanksSetup = std::variant<SphSetup, DemSetup>;

RanksSetup build_ranks_setup(const Scene& scene, long particles) {
  if (scene.solver == SolverKind::dem) return build_dem_setup(scene, particles);
  return build_setup(scene, particles);
}

// What the reports call the moving particles, and the static ones that every rank keeps.
struct ParticleWords {
  const char* moving;   // "N fluid, M wall"
  const char* counted;  // "N fluid particles"
  std::size_t static_count;
  const char* static_kind;
  const char* position_w;  // what the exports name the positions' w, or empty
};
ParticleWords particle_words(const RanksSetup& setup) {
  if (const DemSetup* grains = std::get_if<DemSetup>(&setup))
    return {"grains", "grains", grains->fixed.size(), "fixed grains (every rank keeps them all)",
            DemSolver<CpuExecutor>::kPositionW};
  return {"fluid", "fluid particles", std::get<SphSetup>(setup).boundary.size(),
          "wall (every rank keeps all walls)", ""};
}

// The scene's solver on the ranks (refuse_scene_for_ranks has refused the others).
std::unique_ptr<DistributedFluid> start_ranks(Communicator& world, const Scene& scene,
                                              const RanksSetup& ranks_setup, int rebalance_every) {
  const DistributedOptions options{.rebalance_every = rebalance_every};
  if (const DemSetup* grains = std::get_if<DemSetup>(&ranks_setup))
    return std::make_unique<DistributedDem>(world, *grains, options);
  const SphSetup& setup = std::get<SphSetup>(ranks_setup);
  try {
    if (scene.solver == SolverKind::dfsph)
      return std::make_unique<DistributedDfsph>(world, setup, options, scene.dfsph);
    if (scene.solver == SolverKind::pbf)
      return std::make_unique<DistributedPbf>(world, setup, options, scene.pbf);
    return std::make_unique<DistributedWcsph>(world, setup, options);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

// The same solver in one process on the same setup, for the bench's parallel efficiency.
std::unique_ptr<Simulation> one_process(const Scene& scene, const RanksSetup& ranks_setup) {
  if (const DemSetup* grains = std::get_if<DemSetup>(&ranks_setup)) return make_dem_cpu_simulation(*grains);
  const SphSetup& setup = std::get<SphSetup>(ranks_setup);
  if (scene.solver == SolverKind::dfsph) return make_cpu_dfsph_simulation(setup, scene.dfsph);
  if (scene.solver == SolverKind::pbf) return make_cpu_pbf_simulation(setup, scene.pbf);
  return make_wcsph_simulation(setup, ExecutionMode::cpu);
}

// Runs `attempt` (which calls no collective) on this rank, then agrees with every rank on how it went
// (sim/distributed/rank_agreement.h): if it failed anywhere, every rank says the lowest failing rank's error
// and they leave together (ErrorAlreadySaid: exit 2 for bad input, 1 for anything else); none waits on a rank
// that stopped. Together, because mpirun stops the other ranks as soon as one exits with an error: a rank
// that had not yet written its line said nothing (CI, 2026-12-04: one of two ranks named the missing file).
template <typename Attempt>
void on_every_rank(Communicator& world, Attempt&& attempt) {
  constexpr int kBadInput = 1, kFailed = 2;
  RankOutcome mine;
  try {
    attempt();
  } catch (const InputError& e) {
    mine = {kBadInput, e.what()};
  } catch (const std::exception& e) {
    mine = {kFailed, e.what()};
  }
  const RankOutcome first = first_failure_over_ranks(world, mine);
  if (!first.failed()) return;
  print_error_line("error: " + first.message);
  world.barrier();
  throw ErrorAlreadySaid{first.kind == kBadInput ? kExitBadInput : kExitRuntimeError};
}

// A non-negative double's bits order like the double: its maximum over the ranks through the integer one.
double max_over_ranks(Communicator& world, double value) {
  unsigned long long bits;
  std::memcpy(&bits, &value, sizeof bits);
  world.max(std::span<unsigned long long>(&bits, 1));
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
double sum_over_ranks(Communicator& world, double value) {
  world.sum(std::span<double>(&value, 1));
  return value;
}

// Owned counts: total, and the imbalance max / mean (1 is perfect balance).
struct Balance {
  double total = 0, imbalance = 1;
};
Balance balance(Communicator& world, const DistributedFluid& ranks) {
  const double owned = double(ranks.owned_count());
  Balance b;
  b.total = sum_over_ranks(world, owned);
  const double mean = b.total / world.size();
  b.imbalance = mean > 0 ? max_over_ranks(world, owned) / mean : 1.0;
  return b;
}

std::string cuts_text(const SlabDecomposition& slabs) {
  std::ostringstream text;
  text << "xyz"[slabs.axis] << " =";
  for (float cut : slabs.cuts) text << ' ' << std::setprecision(4) << cut;
  return text.str();
}

// The exchange's figures over `steps` steps, from the figures' totals at the start and at the end.
struct ExchangeReport {
  double halo_bytes_per_step = 0;     // sent by all ranks together
  double refresh_bytes_per_step = 0;  // the iterations' halo refreshes, sent by all ranks together
  double refreshes_per_step = 0;      // the same on every rank
  double exchange_ms_per_step = 0;    // the slowest rank's halo, migration and collectives
  double compute_ms_per_step = 0;     // the slowest rank's solver work
  double migrated = 0;                // particles, all ranks
  long long cut_moves = 0;
};
ExchangeReport exchange_report(Communicator& world, const DistributedFigures& start,
                               const DistributedFigures& end, long steps) {
  ExchangeReport r;
  const double per_step = steps > 0 ? 1.0 / double(steps) : 0.0;
  r.halo_bytes_per_step =
      sum_over_ranks(world, double(end.total_halo_bytes - start.total_halo_bytes)) * per_step;
  r.refresh_bytes_per_step =
      sum_over_ranks(world, double(end.total_refresh_bytes - start.total_refresh_bytes)) * per_step;
  r.refreshes_per_step = double(end.total_refreshes - start.total_refreshes) * per_step;
  r.exchange_ms_per_step =
      max_over_ranks(world, end.total_exchange_seconds - start.total_exchange_seconds) * per_step * 1e3;
  r.compute_ms_per_step =
      max_over_ranks(world, end.total_step_seconds - start.total_step_seconds) * per_step * 1e3;
  r.migrated = sum_over_ranks(world, double(end.total_migrated - start.total_migrated));
  r.cut_moves = end.rebalances - start.rebalances;  // the same on every rank
  return r;
}

void print_exchange(std::ostream& out, const ExchangeReport& r, const Balance& b) {
  out << "  halo:           " << std::fixed << std::setprecision(1) << r.halo_bytes_per_step / 1e3
      << " kB/step sent (all ranks)\n";
  if (r.refreshes_per_step > 0)
    out << "  refresh:        " << r.refresh_bytes_per_step / 1e3 << " kB/step sent in "
        << r.refreshes_per_step << " halo refreshes/step (the iterations' values, all ranks)\n";
  out << "  exchange:       " << std::setprecision(3) << r.exchange_ms_per_step
      << " ms/step (slowest rank: halo, migration, collectives)\n"
      << "  compute:        " << r.compute_ms_per_step << " ms/step (slowest rank's solver)\n"
      << "  migration:      " << std::setprecision(0) << r.migrated << " particles, " << r.cut_moves
      << " load balances moved the cuts\n"
      << "  imbalance:      " << std::setprecision(3) << b.imbalance << " (max / mean owned particles)\n";
  out.unsetf(std::ios::floatfield);
}

// The solver's figures of the last step (DFSPH's and PBF's iterations), the same on every rank; none for
// WCSPH and DEM.
void print_solver_figures(std::ostream& out, const DistributedFluid& ranks) {
  const std::vector<NamedValue> figures = ranks.solver_figures();
  if (figures.empty()) return;
  out << "  last step:     ";
  for (const NamedValue& figure : figures)
    if (const double* value = std::get_if<double>(&figure.value)) out << ' ' << figure.name << ' ' << *value;
  out << '\n';
}

}  // namespace

bool launched_on_several_ranks() {
  return launcher_rank_count() > 1;
}

int run_scene_on_ranks(const RunOptions& options) {
  if (!mpi_built()) open_world();  // says that this build has no MPI, before any other complaint
  Scene scene = load_scene(options.scene_path);
  apply_solver_override(scene, options.solver);
  apply_density_override(scene, options.density);
  refuse_scene_for_ranks(scene, options.backend, options.mode);
  // Checkpoints (app/run_checkpoints.h; docs/checkpoints.md, "On ranks"): as one process's, the ranks'
  // owned particles gathered on rank 0, which writes the file.
  CheckpointPlan checkpoint_plan{.path = options.checkpoint_path,
                                 .every_steps = options.checkpoint_every,
                                 .every_time_s = options.checkpoint_every_time_s};
  const bool checkpoints_asked = checkpoint_plan.enabled() || !options.checkpoint_path.empty();
  const bool resuming = !options.resume_path.empty();
  if (options.render.writes_frames()) refuse("--render and --video");
  const std::vector<std::string> formats = options.formats.empty() ? scene.formats : options.formats;
  for (const std::string& format : formats)
    if (format != "vtk") refuse("the '" + format + "' export (only vtk, as a .pvtp series)");
  const FrameCadence cadence = frame_cadence(options, scene.every, scene.every_time);
  // As one process's frames (app/frame_writer.h): the initial frame, then every K steps or at the first
  // step at or after each multiple of T; the time is the same on every rank, and so is the decision.
  TimeSchedule frame_times(cadence.every_time_s, 0);
  const auto frame_due = [&](const StepStatus& s) {
    return frame_times.enabled() ? frame_times.take(s.time_s) : s.step % cadence.every == 0;
  };
  const std::filesystem::path out_dir = options.out_dir.empty() ? scene.output_dir : options.out_dir;
  if (checkpoint_plan.path.empty()) checkpoint_plan.path = out_dir / (scene.name + ".checkpoint");

  const RanksSetup setup = build_ranks_setup(scene, options.particles);
  const ParticleWords words = particle_words(setup);
  std::unique_ptr<Communicator> world = open_world();
  std::unique_ptr<DistributedFluid> ranks = start_ranks(*world, scene, setup, 50);
  const bool root = world->rank() == 0;
  // Every rank reads the checkpoint (the ranks share the output directory's file system, as the frames'
  // pieces do) and takes its part of the particles; a bad file stops every rank with the same error.
  const Checkpoint identity =
      checkpoint_identity(scene, options.particles, options.density, "cpu", world->name());
  std::optional<Checkpoint> resumed;
  bool new_series = false;  // resumed from one process's checkpoint
  if (resuming) {
    on_every_rank(*world, [&] {
      resumed = read_checkpoint_for(options.resume_path, identity);
      // One process's checkpoint (no ranks' layout): its frames are a .vtp series, which the ranks do not
      // continue; theirs starts anew.
      if (std::none_of(resumed->state.sections.begin(), resumed->state.sections.end(),
                       [](const StateSection& section) { return is_rank_layout_section(section.name); })) {
        resumed->frames.frames_written = 0;
        resumed->frames.series.clear();
        new_series = true;
      }
      try {
        ranks->restore_state(resumed->state);
      } catch (const StateMismatch& error) {
        throw InputError("--resume " + options.resume_path.string() + ": " + error.what());
      }
      resumed->state = {};  // restored: its memory goes
      expect_same_gauges(options.resume_path, *resumed, scene);
    });
  }
  RunCheckpoints checkpoints(checkpoint_plan, identity, resumed ? &*resumed : nullptr);
  const bool frames = (cadence.every > 0 || frame_times.enabled()) && !formats.empty();
  std::ostream& out = std::cout;
  // Gauges (sim/io/gauge_recorder.h): every rank samples (a sample adds the ranks' sums), rank 0 writes the
  // CSV, where one process would; a resumed run's recorders go on from the checkpoint's.
  std::optional<GaugeRecorder> gauges;
  const std::filesystem::path gauge_csv =
      out_dir / (scene.gauge_output.csv.empty() ? "gauges.csv" : scene.gauge_output.csv);
  if (!scene.gauges.empty()) {
    on_every_rank(*world, [&] {
      try {
        gauges.emplace(*ranks, scene.gauges, scene.gauge_output, root ? gauge_csv : std::filesystem::path(),
                       resumed ? resumed->time_s : 0.0, resumed ? &resumed->gauges : nullptr);
      } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
      }
    });
  }

  if (root) {
    out << "backend: cpu, " << solver_name(scene.solver) << ", " << world->name() << ", slabs along "
        << cuts_text(ranks->slabs()) << '\n';
    if (frames) {
      out << "output: " << (out_dir / (scene.name + ".pvd")).string() << " (a .pvtp every ";
      if (frame_times.enabled())
        out << frame_times.every_s() << " s of simulated time";
      else
        out << cadence.every << " steps";
      out << ", one piece per rank)\n";
    }
    if (gauges) out << "gauges: " << gauge_csv.string() << '\n';
    if (checkpoints_asked) out << "checkpoints: " << checkpoints.plan(false) << " (written by rank 0)\n";
    if (resumed)
      out << "resumed: " << options.resume_path.string() << " at step " << resumed->step
          << ", t = " << resumed->time_s << " s\n";
    if (new_series)
      out << "note: " << options.resume_path.string()
          << " was written by one process: the ranks' frames start a new series\n";
    out << std::flush;
  }
  // A resumed run's series goes on from the frames its checkpoint listed.
  std::vector<std::pair<double, std::string>> series;
  if (resumed) {
    series = resumed->frames.series;
    if (frame_times.enabled())
      frame_times = TimeSchedule(cadence.every_time_s, resumed->frames.next_time_event);
  }
  if (frames && root) {
    std::filesystem::create_directories(out_dir);
    // The frames the interrupted run wrote past its checkpoint go, and the .pvd lists the kept ones.
    remove_parallel_series(out_dir, scene.name, int(series.size()));
    if (!series.empty()) write_parallel_pvd(out_dir / (scene.name + ".pvd"), series);
  }
  world->barrier();  // the directory exists and is clean before any rank writes into it

  const auto write_frame = [&] {
    const int frame = int(series.size());
    write_vtp(out_dir / piece_file_name(scene.name, frame, world->rank()), ranks->owned_frame(),
              words.position_w);
    world->barrier();  // every piece is on disk before the .pvtp names it
    series.emplace_back(ranks->status().time_s, parallel_frame_file_name(scene.name, frame));
    if (!root) return;
    std::vector<std::string> pieces;
    for (int r = 0; r < world->size(); ++r) pieces.push_back(piece_file_name(scene.name, frame, r));
    write_pvtp(out_dir / series.back().second, pieces, words.position_w);
    write_parallel_pvd(out_dir / (scene.name + ".pvd"), series);
  };

  const long max_steps = options.steps;
  const double end_time = options.time_s > 0 ? options.time_s : double(scene.end_time);
  const auto reached = [&](const StepStatus& s) {
    return max_steps > 0 ? s.step >= max_steps : s.time_s >= end_time;
  };
  // Gathered on rank 0 (a collective), written there atomically; every rank learns whether it was.
  const auto write_checkpoint_now = [&](const StepStatus& status) {
    if (checkpoints.written_at(status)) return;
    Checkpoint checkpoint = checkpoints.header(
        status,
        {.frames_written = int(series.size()), .series = series, .next_time_event = frame_times.next_event()},
        gauges ? &*gauges : nullptr);
    if (!ranks->gather_state(checkpoint.state))
      throw std::logic_error("this solver keeps no checkpoints on ranks");
    on_every_rank(*world, [&] {
      if (root) write_checkpoint(checkpoints.path(), checkpoint);
    });
    checkpoints.count_written(status);
  };

  const Clock::time_point start = Clock::now();
  StepStatus status = ranks->status();
  const long first_step = status.step;
  // A resumed run's frame at its checkpoint step was written before the checkpoint was.
  if (frames && !resumed && frame_due(status)) write_frame();
  while (!reached(status)) {
    ranks->step();
    status = ranks->status();
    if (status.instability != Instability::none) {
      if (gauges) gauges->finish();  // the samples before the instability are complete on disk
      if (root) std::cerr << "unstable: " << status.diagnosis() << '\n';
      return kExitUnstable;
    }
    if (frames && frame_due(status)) write_frame();
    if (gauges) gauges->sample_if_due(status);
    if (checkpoints.due(status)) write_checkpoint_now(status);
  }
  // At the end, so that a later run can go on from here (a later --time).
  if (checkpoints_asked) write_checkpoint_now(status);
  if (gauges) gauges->finish();
  const double wall_s = max_over_ranks(*world, seconds_since(start));
  const Balance b = balance(*world, *ranks);
  const ExchangeReport report =
      exchange_report(*world, DistributedFigures{}, ranks->figures(), status.step - first_step);
  if (root) {
    out << "summary: " << scene.name << " on " << world->name() << '\n'
        << "  particles:      " << std::setprecision(0) << std::fixed << b.total << ' ' << words.moving
        << ", " << words.static_count << ' ' << words.static_kind << '\n';
    out.unsetf(std::ios::floatfield);
    out << "  steps:          " << status.step << ", simulated " << status.time_s << " s in " << wall_s
        << " s";
    if (resumed) out << " (resumed at step " << first_step << ')';
    out << '\n';
    print_exchange(out, report, b);
    print_solver_figures(out, *ranks);
    out << "  cuts at end:    " << cuts_text(ranks->slabs()) << '\n';
    if (frames)
      out << "  frames:         " << series.size() << ": " << (out_dir / (scene.name + ".pvd")).string()
          << '\n';
    if (gauges)
      out << "  gauges:         " << gauges->rows_written() << " samples of " << scene.gauges.size()
          << " gauges every " << scene.gauge_output.every_time << " s: " << gauge_csv.string() << '\n';
    if (checkpoints.written() > 0)
      out << "  checkpoint:     " << checkpoints.path().string() << " (step " << checkpoints.last_step()
          << ", " << checkpoints.written() << " written)\n";
    out << std::flush;
  }
  return kExitSuccess;
}

int run_bench_on_ranks(const BenchOptions& options) {
  if (!mpi_built()) open_world();
  Scene scene = load_scene(options.scene_path);
  if (options.solvers.size() > 1) refuse("several --solver names in one bench");
  apply_solver_override(scene, options.solvers.empty() ? "" : options.solvers.front());
  if (options.cells_per_support > 0) scene.cells_per_support = options.cells_per_support;
  apply_density_override(scene, options.density);
  refuse_scene_for_ranks(scene, options.backend, options.modes.empty() ? "" : options.modes.front());
  if (options.particles.size() > 1) refuse("several --particles counts in one bench");
  if (!options.json_path.empty() || !options.plot_path.empty()) refuse("--json and --plot");
  if (options.render) refuse("--render");
  const RanksSetup setup =
      build_ranks_setup(scene, options.particles.empty() ? 0 : options.particles.front());
  std::unique_ptr<Communicator> world = open_world();
  const bool root = world->rank() == 0;

  // The one-process time on rank 0 alone (the others wait), for the parallel efficiency: the same steps,
  // the same threads per process.
  double one_process_s = 0;
  if (root) {
    const std::unique_ptr<Simulation> one = one_process(scene, setup);
    for (long s = 0; s < options.warmup; ++s) one->step();
    const Clock::time_point start = Clock::now();
    for (long s = 0; s < options.steps; ++s) one->step();
    one_process_s = seconds_since(start);
    if (one->status().instability != Instability::none)
      throw std::runtime_error("unstable: " + one->status().diagnosis());
  }
  world->barrier();

  std::unique_ptr<DistributedFluid> ranks = start_ranks(*world, scene, setup, 50);
  for (long s = 0; s < options.warmup; ++s) ranks->step();
  const DistributedFigures before = ranks->figures();
  world->barrier();
  const Clock::time_point start = Clock::now();
  for (long s = 0; s < options.steps; ++s) ranks->step();
  world->barrier();
  const double ranks_s = seconds_since(start);
  const StepStatus status = ranks->status();
  if (status.instability != Instability::none) {
    if (root) std::cerr << "unstable: " << status.diagnosis() << '\n';
    return kExitUnstable;
  }
  const Balance b = balance(*world, *ranks);
  const ExchangeReport report = exchange_report(*world, before, ranks->figures(), options.steps);
  if (root) {
    const double efficiency = one_process_s / (double(world->size()) * ranks_s);
    std::cout << "bench: " << scene.name << " (" << solver_name(scene.solver) << "), " << std::fixed
              << std::setprecision(0) << b.total << ' ' << particle_words(setup).counted << ", cpu, "
              << world->name() << ", " << options.steps << " steps after " << options.warmup << " warm-up\n"
              << std::setprecision(3) << "  one process:    " << one_process_s / double(options.steps) * 1e3
              << " ms/step\n"
              << "  " << world->size() << " ranks:        " << ranks_s / double(options.steps) * 1e3
              << " ms/step, " << std::setprecision(3) << b.total * double(options.steps) / ranks_s / 1e6
              << " M particle-steps/s\n";
    print_exchange(std::cout, report, b);
    print_solver_figures(std::cout, *ranks);
    std::cout << std::fixed << std::setprecision(2) << "  efficiency:     " << efficiency
              << " (one-process time / (ranks x time on ranks); threads per rank: OMP_NUM_THREADS)\n";
    std::cout.unsetf(std::ios::floatfield);
    std::cout << std::flush;
  }
  return kExitSuccess;
}

}  // namespace surge::app
