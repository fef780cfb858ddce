// `surge`: the command line. Subcommands live in their own files (run_command, bench_command);
// this file wires them up and turns every failure into a message and an exit code (exit_codes.h).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "app/bench_command.h"
#include "app/cpu_threads.h"
#include "app/data_files.h"
#include "app/exit_codes.h"
#include "app/modes_command.h"
#include "app/params_command.h"
#include "app/run_command.h"
#include "app/validate_command.h"
#include "app/validate_spheric2.h"
#include "app/view_command.h"
#include "sim/scene/scene.h"

namespace {

using namespace surge::app;

// The scene `surge` runs with no subcommand: the working directory's copy first, so a user can edit it.
std::filesystem::path default_scene() {
  return data_file(std::filesystem::path("scenes") / "dam_break.toml");
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0) line += ' ';
    line += arg.find_first_of(" \t'\"") == std::string::npos ? arg : "'" + arg + "'";
  }
  return line;
}

int dispatch(const CLI::App& app, const CLI::App& run, const CLI::App& bench, const CLI::App& view,
             const CLI::App& dam_break, const CLI::App& spheric2, const CLI::App& params,
             RunOptions& run_options, const BenchOptions& bench_options, ViewOptions view_options,
             const ValidateOptions& validate_options, const Spheric2Options& spheric2_options,
             const ParamsOptions& params_options) {
  if (bench.parsed()) return run_bench(bench_options);
  if (params.parsed()) return run_params(params_options);
  if (dam_break.parsed()) return run_validate_dam_break(validate_options);
  if (spheric2.parsed()) return run_validate_spheric2(spheric2_options);
  if (view.parsed()) {
    if (view_options.scene_path.empty()) view_options.scene_path = default_scene();
    return run_view(view_options);
  }
  if (!run.parsed()) {
    // The main job: the default scene in a window where there is a display and a viewer, headless otherwise.
    if (viewer_can_open()) {
      view_options.scene_path = default_scene();
      std::cout << "surge: opening " << view_options.scene_path.string() << " in a window (`"
                << app.get_name() << " run` runs it headless; see `" << app.get_name() << " --help`)"
                << std::endl;
      return run_view(view_options);
    }
    run_options.scene_path = default_scene();
    std::cout << "surge: running " << run_options.scene_path.string() << " headless (no display";
    std::cout << (SURGE_HAVE_VIEWER ? "" : ", or no viewer in this build") << "; `" << app.get_name()
              << " view` opens a window; see `" << app.get_name() << " --help`)\n";
  }
  return run_scene(run_options);
}

}  // namespace

int main(int argc, char** argv) {
  ensure_passive_omp_waits(argv);  // may execute surge again, before anything else has happened
  CLI::App app("Surge: GPU particle and fluid simulation", "surge");
  // The data line says which scenes/, shaders/ and docs/ this binary reads: an install's, or its source
  // tree's.
  const std::filesystem::path installed = installed_data_directory();
  app.set_version_flag("--version", std::string("surge ") + SURGE_VERSION + " (commit " + SURGE_GIT_COMMIT +
                                        ")\ndata: " +
                                        (installed.empty() ? std::string(SURGE_SOURCE_DIR) + " (source tree)"
                                                           : installed.string() + " (installed)"));
  app.require_subcommand(0, 1);
  // --threads belongs to the whole program: `surge run scene.toml --threads 2` passes it up to here.
  app.fallthrough();
  std::optional<int> threads;
  app.add_option("--threads", threads,
                 "OpenMP threads of the CPU backend and the CPU index (default: OMP_NUM_THREADS, else the "
                 "CPUs this process may use, cgroup quota included)")
      ->check(CLI::Range(1, 4096));

  RunOptions run_options;
  BenchOptions bench_options;
  bench_options.command_line = command_line(argc, argv);
  ValidateOptions validate_options;
  validate_options.command_line = bench_options.command_line;
  const CLI::App* run = add_run_command(app, run_options);
  const CLI::App* bench = add_bench_command(app, bench_options);
  ViewOptions view_options;
  const CLI::App* view = add_view_command(app, view_options);
  const CLI::App* dam_break = add_validate_command(app, validate_options);
  Spheric2Options spheric2_options;
  spheric2_options.command_line = bench_options.command_line;
  const CLI::App* spheric2 = add_validate_spheric2_command(app, spheric2_options);
  const CLI::App* modes = add_modes_command(app);
  ParamsOptions params_options;
  const CLI::App* params = add_params_command(app, params_options);
  // Set after the subcommands exist, which would otherwise inherit it.
  app.footer(
      "With no command, opens scenes/dam_break.toml in a window when there is a display, else runs it "
      "headless.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    return app.exit(e) == 0 ? kExitSuccess : kExitBadInput;
  }

  try {
    apply_cpu_threads(threads);
    if (modes->parsed()) return run_modes(std::cout);
    return dispatch(app, *run, *bench, *view, *dam_break, *spheric2, *params, run_options, bench_options,
                    view_options, validate_options, spheric2_options, params_options);
  } catch (const ErrorAlreadySaid& said) {
    return said.code;
  } catch (const surge::SceneError& e) {
    print_error_line(e.what());
    return kExitBadInput;
  } catch (const InputError& e) {
    print_error_line(std::string("error: ") + e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    print_error_line(std::string("error: ") + e.what());
    return kExitRuntimeError;
  }
}
