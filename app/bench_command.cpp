#include "app/bench_command.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/backend_choice.h"
#include "app/bench_report.h"
#include "app/exit_codes.h"
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

BenchRun measure(Simulation& simulation, const std::string& backend, const BenchOptions& options) {
  for (long i = 0; i < options.warmup; ++i) simulation.step();
  check_stable(simulation.status(), simulation.fluid_count());
  simulation.reset_timers();

  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < options.steps; ++i) simulation.step();
  // status() waits for the device, so the clock stops when the last step has really finished.
  const StepStatus status = simulation.status();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check_stable(status, simulation.fluid_count());

  return {simulation.fluid_count(), simulation.boundary_count(), backend,     options.steps, seconds,
          simulation.stage_times(), simulation.parameters(),     std::nullopt};
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
      ->add_option("--particles", options.particles,
                   "Fluid particle counts, comma-separated, e.g. 262144,1048576 (default: the scene's)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  bench->add_option("--steps", options.steps, "Timed steps per particle count")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench->add_option("--warmup", options.warmup, "Untimed steps before timing (caches, clocks, allocations)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  bench
      ->add_option("--index-build", options.index_build,
                   "GPU cell index build: radix (CUB radix sort, stable) or counting (atomics + scan)")
      ->check(CLI::IsMember({"radix", "counting"}))
      ->capture_default_str();
  bench->add_flag("--render", options.render,
                  "Also time frames: one step plus drawing every particle as a sphere offscreen (EGL), as "
                  "a viewer shows them; --steps frames per particle count");
  add_render_look_options(*bench, options.look, false);
  bench->add_option("--json", options.json_path, "Also write the results as JSON to FILE")->type_name("FILE");
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

int run_bench(const BenchOptions& options) {
  const Scene scene = load_scene(options.scene_path);
  RenderOptions look = options.look;
  if (options.render) {
    look.validate();
    if (!renderer_built()) throw InputError(kNoRendererMessage);
  }
  const BackendRequest request = parse_backend_request(options.backend);
  // A particle count of 0 asks build_setup for the scene's own resolution.
  const std::vector<long> counts = options.particles.empty() ? std::vector<long>{0} : options.particles;

  BenchRecord record{options.scene_path, scene.name, options.command_line, options.warmup, {}};
  for (const long count : counts) {
    const IndexBuild index_build =
        options.index_build == "counting" ? IndexBuild::counting_sort : IndexBuild::radix_sort;
    BackendChoice backend = choose_backend(
        request, scene, SimulationOptions{.particles_override = count, .index_build = index_build});
    if (record.runs.empty()) {
      std::cout << backend_line(backend) << '\n';
      print_bench_header(std::cout);
    }
    try {
      record.runs.push_back(measure(*backend.simulation, backend.kind, options));
    } catch (const UnstableBenchmark& e) {
      std::cerr << e.what() << '\n';
      return kExitUnstable;
    }
    print_bench_row(std::cout, record.runs.back());
#if SURGE_HAVE_RENDER
    if (options.render) {
      std::cout << std::flush;
      record.runs.back().frames =
          print_frame_bench(measure_frames(*backend.simulation, scene, count, look, options.steps,
                                           backend.gpu ? backend.gpu->device : -1, std::cerr),
                            look);
      std::fflush(stdout);
    }
#endif
  }

  if (!options.json_path.empty()) {
    const std::string text = bench_json(record).dump(2) + "\n";
    write_file_atomically(options.json_path, [&](std::ostream& out) { out << text; });
    std::cout << "results written to " << options.json_path.string() << '\n';
  }
  return kExitSuccess;
}

}  // namespace surge::app
