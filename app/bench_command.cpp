#include "app/bench_command.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "app/backend_choice.h"
#include "app/bench_plot.h"
#include "app/bench_report.h"
#include "app/cli_checks.h"
#include "app/exit_codes.h"
#include "app/figure_report.h"
#include "app/machine_info.h"
#include "app/ranks_command.h"
#include "app/svg_rasterizer.h"
#include "sim/core/gpu_info.h"
#include "sim/io/exporters.h"
#include "sim/scene/scene.h"
#if SURGE_HAVE_RENDER
#include "app/graphics/frame_bench.h"
#endif

namespace surge::app {
namespace {

// Stops the benchmark: a number measured on a run that blew up means nothing.
class UnstableBenchmark : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_stable(const StepStatus& status, std::size_t particles) {
  if (status.instability == Instability::none) return;
  throw UnstableBenchmark("unstable: " + status.diagnosis() + " (benchmark with " +
                          std::to_string(particles) + " fluid particles)");
}

BenchRun measure(Simulation& simulation, const std::string& backend, const std::string& solver,
                 const BenchOptions& options) {
  for (long i = 0; i < options.warmup; ++i) simulation.step();
  check_stable(simulation.status(), simulation.fluid_count());
  simulation.step_figures();  // waits for copies still in flight from the warm-up, so they are not counted
  simulation.reset_timers();
  simulation.ledger().clear();

  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < options.steps; ++i) simulation.step();
  // status() waits for the device, so the clock stops when the last step has really finished.
  const StepStatus status = simulation.status();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check_stable(status, simulation.fluid_count());

  BenchRun run;
  run.fluid_particles = simulation.fluid_count();
  run.boundary_particles = simulation.boundary_count();
  run.backend = backend;
  run.solver = solver;
  run.steps = options.steps;
  run.seconds = seconds;
  run.stages = simulation.stage_times();
  run.parameters = simulation.parameters();
  run.floor_bytes = simulation.stage_floor_bytes();
  // The bus traffic of the steps themselves: the benchmark's own status readback is not part of a step,
  // nor are the figures' reductions below.
  for (const auto& [key, entry] : simulation.ledger().entries()) {
    if (key.second == "step status") continue;
    run.bus_bytes += entry.bytes;
    run.bus_ms += entry.ms;
  }
  // Figures after the clock stopped: some (energies, the neighbour census) cost a pass of their own.
  run.figures = simulation.step_figures();
  for (NamedValue& value : simulation.neighbor_census()) run.figures.push_back(std::move(value));
  run.figures = with_neighbor_work(std::move(run.figures));
  return run;
}

// The memory bandwidth the stages of a run are measured against, measured once per bench where the run's
// arrays live: host memory for cpu, device memory for gpu. The hybrid modes split a step between both
// (the index on the CPU, the rest on the GPU): no single floor, 0.
struct MemoryBandwidths {
  std::optional<double> host, device;
};
double memory_bandwidth(const std::string& backend, MemoryBandwidths& measured) {
  if (backend == "cpu") {
    if (!measured.host) measured.host = measure_host_copy_bandwidth();
    return *measured.host;
  }
  if (backend == "gpu") {
    if (!measured.device) measured.device = measure_device_copy_bandwidth();
    return *measured.device;
  }
  return 0.0;
}

// The modes asked for, in the order of kExecutionModes (cpu first, so speedups are known as rows print).
std::vector<ExecutionMode> requested_modes(const std::vector<std::string>& names) {
  std::vector<ExecutionMode> modes;
  for (ExecutionMode mode : kExecutionModes)
    for (const std::string& name : names)
      if (name == mode_name(mode)) {
        modes.push_back(mode);
        break;
      }
  return modes;
}

SimulationOptions simulation_options(const BenchOptions& options, long count) {
  return SimulationOptions{
      .particles_override = count,
      .index_build = options.index_build == "counting" ? IndexBuild::counting_sort : IndexBuild::radix_sort,
      .reorder = !options.no_reorder,
      .force_pass = options.force_pass == "split" ? ForcePass::split : ForcePass::single,
      .skin_ratio = options.skin,
      .cuda_graphs = options.cuda_graphs == "on",
      .neighbor_lists = options.neighbor_lists == "on"};
}

}  // namespace

CLI::App* add_bench_command(CLI::App& parent, BenchOptions& options) {
  CLI::App* bench = parent.add_subcommand("bench", "Measure steps per second and per-stage times of a scene");
  bench->add_option("scene", options.scene_path, "Scene file (TOML)")->required()->type_name("SCENE.toml");
  bench
      ->add_option("--backend", options.backend,
                   "Where to step: cpu, gpu, or auto (the GPU when there is one)")
      ->check(CLI::IsMember(kBackendNames))
      ->capture_default_str();
  bench
      ->add_option("--solver", options.solvers,
                   "Replace the scene's solver: wcsph, dfsph or pbf; several, comma-separated, bench each in "
                   "turn at every count into one record (wcsph,dfsph: a DFSPH density iteration against the "
                   "WCSPH force pass)")
      ->delimiter(',')
      ->check(CLI::IsMember(kSolverNames));
  bench
      ->add_option("--particles", options.particles,
                   "Fluid particle counts, comma-separated, e.g. 262144,1048576 (default: the scene's)")
      ->delimiter(',')
      ->transform(particle_count());
  bench->add_option("--steps", options.steps, "Timed steps per particle count")
      ->transform(whole_at_least(1))
      ->capture_default_str();
  bench->add_option("--warmup", options.warmup, "Untimed steps before timing (caches, clocks, allocations)")
      ->transform(whole_at_least(0))
      ->capture_default_str();
  bench
      ->add_option("--index-build", options.index_build,
                   "GPU cell index build: radix (CUB radix sort, stable) or counting (atomics + scan)")
      ->check(CLI::IsMember({"radix", "counting"}))
      ->capture_default_str();
  bench
      ->add_option("--cells-per-support", options.cells_per_support,
                   "Replace the scene's [resolution] cells_per_support: 1 (cells one support wide, 27 "
                   "searched) or 2 (cells of half a support, the search trimmed to the support)")
      ->check(CLI::Range(1, 2));
  bench
      ->add_option(
          "--density", options.density,
          "WCSPH: replace the scene's density, summation (two neighbour passes a step) or continuity "
          "(the continuity equation with delta-SPH, one pass); other solvers' runs keep theirs")
      ->check(CLI::IsMember(kDensityNames));
  bench->add_flag("--render", options.render,
                  "Also time frames: one step plus drawing every particle as a sphere offscreen (EGL), as "
                  "a viewer shows them; --steps frames per particle count");
  add_render_look_options(*bench, options.look, false);
  bench->add_option("--json", options.json_path, "Also write the results as JSON to FILE")->type_name("FILE");
  bench
      ->add_option("--modes,--mode", options.modes,
                   "Compare execution modes, comma-separated: cpu, hybrid, hybrid-overlap, gpu (instead of "
                   "--backend; modes that need a GPU are skipped with a note where there is none)")
      ->delimiter(',')
      ->check(CLI::IsMember(mode_names()))
      ->excludes("--backend");
  bench->add_flag("--no-reorder", options.no_reorder,
                  "gpu mode: keep particles in creation order instead of sorting them by cell (lesson 3)");
  bench
      ->add_option("--force-pass", options.force_pass,
                   "gpu mode: single (one branchy kernel for fluid and wall neighbours) or split (separate "
                   "fluid and wall passes) (lesson 4)")
      ->check(CLI::IsMember({"single", "split"}))
      ->capture_default_str();
  bench
      ->add_option("--cuda-graphs", options.cuda_graphs,
                   "gpu mode, WCSPH: on captures each step once as a CUDA graph and replays it with one "
                   "launch (the stage times then show the whole step as 'other')")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  bench
      ->add_option("--neighbor-lists", options.neighbor_lists,
                   "gpu mode, DFSPH and PBF: on builds each particle's neighbour list once a step and every "
                   "pass reads it; off walks the cells in every pass")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  bench
      ->add_option(
          "--skin", options.skin,
          "hybrid-overlap: index skin as a fraction of the kernel support (cells of 1 + SKIN supports)")
      ->check(CLI::Range(0.01, 2.0))
      ->capture_default_str();
  bench
      ->add_option("--plot", options.plot_path,
                   "Also draw FILE.svg or FILE.png: stacked stage bars per mode and size, speedup over cpu "
                   "versus particle count with the crossover marked (PNG through rsvg-convert)")
      ->type_name("FILE.svg|FILE.png")
      ->check([](const std::string& path) {
        const auto extension = std::filesystem::path(path).extension();
        return extension == ".svg" || extension == ".png"
                   ? std::string()
                   : std::string("--plot draws FILE.svg or FILE.png, got '" + path + "'");
      });
  return bench;
}

#if SURGE_HAVE_RENDER
BenchFrames print_frame_bench(const FrameBenchResult& result, const RenderOptions& look) {
  std::printf(
      "  frames at %dx%d: %.3f ms/frame (%.1f fps), of which feeding and drawing %.3f ms; "
      "bus bytes per frame %.0f\n  (%s)\n",
      look.width, look.height, result.frame_ms, 1e3 / result.frame_ms, result.draw_ms,
      result.bus_bytes_per_frame, result.path.c_str());
  return {look.width, look.height, result.frames, result.frame_ms, result.draw_ms, result.bus_bytes_per_frame,
          result.path};
}
#endif

namespace {

// One solver's runs at every count (and mode), into `record`; returns the exit code.
int bench_solver(const BenchOptions& options, const std::string& solver, bool name_solver,
                 BenchRecord& record, MemoryBandwidths& bandwidths) {
  Scene scene = load_scene(options.scene_path);
  apply_solver_override(scene, solver);
  if (options.cells_per_support > 0) scene.cells_per_support = options.cells_per_support;
  // With several solvers (--solver wcsph,dfsph) --density is WCSPH's; a single other solver is an error.
  if (scene.solver == SolverKind::wcsph || options.solvers.size() <= 1)
    apply_density_override(scene, options.density);
  RenderOptions look = options.look;
  look.scene_look = scene.render;
  if (options.render) {
    look.validate();
    if (!renderer_built()) throw InputError(kNoRendererMessage);
  }
  // A particle count of 0 asks build_setup for the scene's own resolution.
  const std::vector<long> counts = options.particles.empty() ? std::vector<long>{0} : options.particles;
  record.scene_name = scene.name;

  // Without --modes: one backend, as --backend says. With them: every mode at every size.
  std::vector<ExecutionMode> modes = requested_modes(options.modes);
  for (ExecutionMode mode : modes) {
    if (const std::string why = why_solver_lacks_mode(scene.solver, mode); !why.empty())
      throw InputError(std::string("--modes ") + mode_name(mode) + ": " + why);
  }
  if (!modes.empty()) {
    std::string why_no_gpu;
    if (!query_gpu(&why_no_gpu)) {
      std::vector<std::string> skipped;
      for (ExecutionMode mode : modes)
        if (mode_needs_gpu(mode)) skipped.emplace_back(mode_name(mode));
      if (skipped.size() == modes.size())
        throw InputError("--modes " + skipped.front() + ": no CUDA GPU: " + why_no_gpu);
      if (!skipped.empty()) {
        std::string names;
        for (const std::string& name : skipped) names += (names.empty() ? "" : ", ") + name;
        std::cout << "note: skipping " << names << " (no CUDA GPU: " << why_no_gpu << ")\n";
        record.modes_skipped = names + " (no CUDA GPU: " + why_no_gpu + ")";
      }
      std::erase_if(modes, mode_needs_gpu);
    }
  }

  if (name_solver) std::cout << "solver " << solver_name(scene.solver) << '\n';
  if (!modes.empty()) {
    for (ExecutionMode mode : modes)
      std::cout << "mode " << mode_name(mode) << ": " << describe_mode(mode) << '\n';
    print_bench_header(std::cout);
  }
  bool header_printed = false;
  for (const long count : counts) {
    double cpu_ms_per_step = 0.0;
    const std::size_t runs = modes.empty() ? 1 : modes.size();
    for (std::size_t m = 0; m < runs; ++m) {
      BackendChoice backend = modes.empty()
                                  ? choose_backend(parse_backend_request(options.backend), scene,
                                                   simulation_options(options, count))
                                  : choose_mode(modes[m], scene, simulation_options(options, count));
      if (modes.empty() && !header_printed) {
        std::cout << backend_line(backend) << '\n';
        print_bench_header(std::cout);
        header_printed = true;
      }
      try {
        record.runs.push_back(
            measure(*backend.simulation, mode_name(backend.mode), solver_name(scene.solver), options));
      } catch (const UnstableBenchmark& e) {
        std::cerr << e.what() << '\n';
        return kExitUnstable;
      }
      BenchRun& run = record.runs.back();
      run.memory_bandwidth = memory_bandwidth(run.backend, bandwidths);
      if (run.backend == "cpu") cpu_ms_per_step = run.ms_per_step();
      if (!modes.empty() && cpu_ms_per_step > 0 && run.ms_per_step() > 0)
        run.speedup_over_cpu = cpu_ms_per_step / run.ms_per_step();
      print_bench_row(std::cout, run);
#if SURGE_HAVE_RENDER
      if (options.render) {
        std::cout << std::flush;
        run.frames = print_frame_bench(measure_frames(*backend.simulation, look, options.steps,
                                                      backend.gpu ? backend.gpu->device : -1, std::cerr),
                                       look);
        std::fflush(stdout);
      }
#endif
    }
  }
  return kExitSuccess;
}

}  // namespace

int run_bench(const BenchOptions& options) {
  // Under mpirun with several ranks: the slabs' benchmark (halo, exchange, imbalance, efficiency).
  if (launched_on_several_ranks()) return run_bench_on_ranks(options);
  BenchRecord record{options.scene_path, "", options.command_line, options.warmup, {}, {}};
  // No --solver: the scene's own (the empty override).
  const std::vector<std::string> solvers =
      options.solvers.empty() ? std::vector<std::string>{""} : options.solvers;
  MemoryBandwidths bandwidths;
  for (const std::string& solver : solvers) {
    if (const int code = bench_solver(options, solver, solvers.size() > 1, record, bandwidths);
        code != kExitSuccess)
      return code;
  }
  print_density_iteration_costs(std::cout, record);

  if (!options.json_path.empty()) {
    const std::string text = bench_json(record).dump(2) + "\n";
    write_file_atomically(options.json_path, [&](std::ostream& out) { out << text; });
    std::cout << "results written to " << options.json_path.string() << '\n';
  }
  if (!options.plot_path.empty()) {
    // A PNG is the SVG drawn by rsvg-convert; the SVG stays beside it (FILE.png -> FILE.svg).
    const bool png = options.plot_path.extension() == ".png";
    const std::filesystem::path svg =
        png ? std::filesystem::path(options.plot_path).replace_extension(".svg") : options.plot_path;
    write_file_atomically(svg, [&](std::ostream& out) { write_bench_plot(out, record); });
    if (png) {
      const RasterResult raster = rasterize_svg(svg, options.plot_path, 1400);
      if (!raster.written) {
        std::cerr << "error: --plot " << options.plot_path.string() << ": " << raster.why_not
                  << " (the SVG is written: " << svg.string() << ")\n";
        return kExitRuntimeError;
      }
    }
    std::cout << "plot written to " << options.plot_path.string() << '\n';
  }
  return kExitSuccess;
}

}  // namespace surge::app
