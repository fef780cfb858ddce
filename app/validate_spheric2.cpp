#include "app/validate_spheric2.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "app/backend_choice.h"
#include "app/cli_checks.h"
#include "app/data_files.h"
#include "app/exit_codes.h"
#include "app/progress.h"
#include "app/svg_plot.h"
#include "app/svg_rasterizer.h"
#include "sim/io/exporters.h"
#include "sim/io/gauge_recorder.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#include "sim/validation/spheric2_validation.h"

namespace surge::app {
namespace {

namespace fs = std::filesystem;

// PBF has no physical pressure, so P1-P8 cannot be read from it (check_gauges_for_solver says so).
const std::vector<std::string> kSpheric2Solvers = {"wcsph", "dfsph"};

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string time_text(double t) {
  return std::isnan(t) ? std::string("-") : fixed(t, 3) + " s";
}

// JSON has no NaN: null instead.
nlohmann::ordered_json number_or_null(double value) {
  return std::isnan(value) ? nlohmann::ordered_json() : nlohmann::ordered_json(value);
}

double run_spacing(const Simulation& simulation, double fallback) {
  for (const NamedValue& v : simulation.parameters())
    if (v.name == "spacing_m" && std::holds_alternative<double>(v.value)) return std::get<double>(v.value);
  return fallback;
}

struct Spheric2Run {
  long steps = 0;
  double end_time_s = 0;
  double wall_s = 0;
  bool stable = true;
  std::string diagnosis;
  int rows = 0;
};

Spheric2Run run_with_gauges(Simulation& simulation, const Scene& scene, const fs::path& csv,
                            double end_time_s, bool quiet) {
  Spheric2Run run;
  GaugeOutput output = scene.gauge_output;
  output.filter_time = 0;  // exactly time_s, H1..H4, P1..P8
  GaugeRecorder gauges(simulation, scene.gauges, output, csv);
  const RunEnd end{.end_time_s = end_time_s};
  ProgressReporter progress(std::cerr, progress_style_for_stderr(quiet), end, simulation.fluid_count());
  const auto start = std::chrono::steady_clock::now();
  StepStatus status = simulation.status();
  while (!end.reached(status.step, status.time_s)) {
    simulation.step();
    status = simulation.status();
    if (status.instability != Instability::none) {
      run.stable = false;
      run.diagnosis = status.diagnosis();
      break;
    }
    gauges.sample_if_due(status);
    progress.update(status.step, status.time_s);
  }
  gauges.finish();
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish(status.step, status.time_s);
  if (!run.stable) std::cerr << "unstable: " << run.diagnosis << "\nthe samples before it are kept\n";
  run.steps = status.step;
  run.end_time_s = status.time_s;
  run.rows = gauges.rows_written();
  return run;
}

const std::vector<std::string> kColours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

plot::Figure heights_figure(const GaugeSeries& series, const Spheric2Geometry& geometry, double end_time_s,
                            const std::string& note) {
  plot::Figure figure;
  figure.width = 1600;
  figure.height = 480;
  figure.title = "SPHERIC Test 2: water heights H1-H4 (Surge)";
  figure.note = note;
  for (std::size_t k = 0; k < kSpheric2Levels.size(); ++k) {
    plot::Axes& axes = figure.panels.emplace_back();
    axes.title = std::string(kSpheric2Levels[k]) + " (x = " + fixed(geometry.level_x[k], 3) + " m)";
    axes.x_label = "t [s]";
    axes.y_label = "h [m]";
    axes.x_min = 0;
    axes.x_max = end_time_s;
    axes.y_min = 0;
    axes.y_max = 0.6;
    axes.legend = plot::LegendCorner::top_right;
    if (const std::vector<double>* h = series.column(kSpheric2Levels[k]))
      axes.series.push_back({.label = "Surge", .x = series.time_s, .y = *h, .colour = kColours[k]});
  }
  return figure;
}

plot::Figure pressures_figure(const GaugeSeries& series, double end_time_s, const std::string& note) {
  plot::Figure figure;
  figure.width = 1200;
  figure.height = 560;
  figure.title = "SPHERIC Test 2: pressures P1-P4 on the box's face (Surge)";
  figure.note = note;
  plot::Axes& axes = figure.panels.emplace_back();
  axes.x_label = "t [s]";
  axes.y_label = "p [kPa]";
  axes.x_min = 0;
  axes.x_max = end_time_s;
  axes.legend = plot::LegendCorner::top_right;
  for (std::size_t k = 0; k < 4; ++k)
    if (const std::vector<double>* p = series.column(kSpheric2Pressures[k])) {
      std::vector<double> kpa;
      for (double value : *p) kpa.push_back(value / 1e3);
      axes.series.push_back({.label = kSpheric2Pressures[k],
                             .x = series.time_s,
                             .y = kpa,
                             .colour = kColours[k],
                             .line_width = 1.5});
    }
  return figure;
}

// The SVG, and the PNG beside it when rsvg-convert is there; returns the files written.
std::vector<std::string> write_figure(const fs::path& dir, const std::string& stem,
                                      const plot::Figure& figure) {
  const std::string svg = plot::render_svg(figure);
  write_file_atomically(dir / (stem + ".svg"), [&](std::ostream& out) { out << svg; });
  std::vector<std::string> files{stem + ".svg"};
  const RasterResult png = rasterize_svg(dir / (stem + ".svg"), dir / (stem + ".png"), figure.width);
  if (png.written)
    files.push_back(stem + ".png");
  else
    std::cerr << "note: no " << stem << ".png: " << png.why_not << '\n';
  return files;
}

}  // namespace

CLI::App* add_validate_spheric2_command(CLI::App& parent, Spheric2Options& options) {
  CLI::App* validate = parent.get_subcommand("validate");
  CLI::App* s2 = validate->add_subcommand(
      "spheric2", "SPHERIC Test 2 (Kleefsman et al. 2005): dam break onto a box, gauges H1-H4 and P1-P8");
  s2->add_option("--solver", options.solver, "Replace the scene's solver (wcsph): wcsph or dfsph")
      ->check(CLI::IsMember(kSpheric2Solvers));
  CLI::Option* backend = s2->add_option("--backend", options.backend,
                                        "Where to step: cpu, gpu, or auto (the GPU when there is one)")
                             ->check(CLI::IsMember(kBackendNames))
                             ->capture_default_str();
  s2->add_option("--mode", options.mode, "Execution mode: cpu, hybrid, hybrid-overlap or gpu")
      ->check(CLI::IsMember(mode_names()))
      ->excludes(backend);
  CLI::Option* particles = s2->add_option("--particles", options.particles,
                                          "Target fluid particle count (default: the scene's "
                                          "spacing, 0.02 m: about 84k)")
                               ->transform(particle_count());
  s2->add_option("--spacing", options.spacing, "Particle spacing [m], replacing the scene's")
      ->check(CLI::Range(0.004, 0.2))
      ->excludes(particles);
  s2->add_option("--time", options.time_s, "Simulated time [s] (default: the scene's, 6 s)")
      ->check(CLI::Range(0.001, 60.0));
  s2->add_option("--out", options.out_dir, "Output directory (default: out/validate/spheric2)")
      ->type_name("DIR");
  s2->add_option("--scene", options.scene_path, "Scene (default: scenes/spheric2_dam_break.toml)")
      ->type_name("SCENE.toml");
  s2->add_flag("--quiet", options.quiet, "No progress output");
  return s2;
}

int run_validate_spheric2(const Spheric2Options& options) {
  fs::path scene_path = options.scene_path;
  if (scene_path.empty()) {
    scene_path = data_file(fs::path("scenes") / "spheric2_dam_break.toml");
  }
  const fs::path out_dir =
      options.out_dir.empty() ? fs::path("out") / "validate" / "spheric2" : options.out_dir;

  // Bad input is found before anything is written: scene, gauges, solver, backend, particle count.
  Scene scene = load_scene(scene_path);
  apply_solver_override(scene, options.solver);
  if (options.spacing > 0) {
    scene.spacing = float(options.spacing);
    scene.target_particles = 0;
  }
  Spheric2Geometry geometry = spheric2_geometry(scene);
  const double end_time_s = options.time_s > 0 ? options.time_s : as_written(scene.end_time);
  const SimulationOptions simulation_options{.particles_override = options.particles};
  BackendChoice backend =
      options.mode.empty() ? choose_backend(parse_backend_request(options.backend), scene, simulation_options)
                           : choose_mode(*parse_mode(options.mode), scene, simulation_options);
  Simulation& simulation = *backend.simulation;
  geometry.spacing = run_spacing(simulation, scene.spacing);
  const std::string solver = options.solver.empty() ? std::string("wcsph") : options.solver;
  std::cout << backend_line(backend) << '\n'
            << "spheric2: solver " << solver << ", " << simulation.fluid_count() << " fluid + "
            << simulation.boundary_count() << " wall particles, spacing " << fixed(geometry.spacing, 4)
            << " m, to t = " << fixed(end_time_s, 3) << " s\n"
            << std::flush;

  fs::create_directories(out_dir);
  const Spheric2Run run =
      run_with_gauges(simulation, scene, out_dir / "gauges.csv", end_time_s, options.quiet);
  const GaugeSeries series = read_gauge_csv(out_dir / "gauges.csv");
  const Spheric2Verdict verdict = evaluate_spheric2(series, geometry, run.stable, run.end_time_s);

  std::cout << run.steps << " steps to t = " << fixed(run.end_time_s, 3) << " s in " << fixed(run.wall_s, 1)
            << " s wall; " << run.rows << " gauge samples every " << scene.gauge_output.every_time
            << " s\n\n";
  std::cout << std::left << std::setw(7) << "gauge" << std::setw(14) << "max" << std::setw(12) << "at"
            << std::setw(18) << "arrival (>1 cm)"
            << "Ritter earliest\n";
  for (const GaugePeak& peak : verdict.peaks) {
    const bool level = peak.name.size() == 2 && peak.name[0] == 'H';
    std::string max_text = "-";
    if (!std::isnan(peak.max))
      max_text = level ? fixed(peak.max, 3) + " m" : fixed(peak.max / 1e3, 2) + " kPa";
    std::cout << std::setw(7) << peak.name << std::setw(14) << max_text << std::setw(12)
              << time_text(peak.time_s);
    for (std::size_t k = 0; k < kSpheric2Levels.size(); ++k)
      if (peak.name == kSpheric2Levels[k]) {
        if (k == 3)
          std::cout << std::setw(18) << "(starts wet)";
        else
          std::cout << std::setw(18)
                    << (std::isnan(verdict.arrival_s[k]) ? "not reached" : time_text(verdict.arrival_s[k]))
                    << time_text(verdict.earliest_s[k]);
      }
    std::cout << '\n';
  }
  std::cout << std::right
            << "\nchecks (what physics requires of any run; no experimental series compared):\n";
  for (const Spheric2Check& c : verdict.checks)
    std::cout << "  " << (c.pass ? "pass" : "FAIL") << "  " << std::left << std::setw(14) << c.key
              << c.description << "\n"
              << std::setw(22) << "" << c.value_text << "  (allowed: " << c.allowed << ")\n"
              << std::right;

  const std::string note = "surge validate spheric2  |  " + std::to_string(simulation.fluid_count()) +
                           " fluid particles, spacing " + fixed(geometry.spacing, 4) + " m, " + solver +
                           ", " + simulation.backend_name() + "  |  commit " + SURGE_GIT_COMMIT;
  const double plot_end = std::max(run.end_time_s, 1e-3);
  std::vector<std::string> files{"gauges.csv"};
  for (const std::string& f :
       write_figure(out_dir, "heights", heights_figure(series, geometry, plot_end, note)))
    files.push_back(f);
  for (const std::string& f : write_figure(out_dir, "pressures", pressures_figure(series, plot_end, note)))
    files.push_back(f);
  files.push_back("summary.json");

  nlohmann::ordered_json summary;
  summary["case"] = "spheric2";
  summary["pass"] = verdict.pass();
  summary["solver"] = solver;
  summary["fluid_particles"] = simulation.fluid_count();
  summary["boundary_particles"] = simulation.boundary_count();
  summary["spacing_m"] = geometry.spacing;
  summary["backend"] = backend.description;
  summary["steps"] = run.steps;
  summary["simulated_time_s"] = run.end_time_s;
  summary["wall_time_s"] = run.wall_s;
  summary["samples"] = run.rows;
  summary["stable"] = run.stable;
  if (!run.stable) summary["instability"] = run.diagnosis;
  summary["ritter_speed_m_per_s"] = verdict.ritter_speed;
  nlohmann::ordered_json gauges;
  for (const GaugePeak& peak : verdict.peaks) {
    nlohmann::ordered_json g = {{"max", number_or_null(peak.max)},
                                {"time_of_max_s", number_or_null(peak.time_s)}};
    for (std::size_t k = 0; k < kSpheric2Levels.size(); ++k)
      if (peak.name == kSpheric2Levels[k]) {
        g["x_m"] = geometry.level_x[k];
        g["arrival_s"] = number_or_null(verdict.arrival_s[k]);
        g["ritter_earliest_s"] = verdict.earliest_s[k];
      }
    gauges[peak.name] = g;
  }
  summary["gauges"] = gauges;
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const Spheric2Check& c : verdict.checks)
    checks.push_back({{"key", c.key},
                      {"description", c.description},
                      {"value", c.value_text},
                      {"allowed", c.allowed},
                      {"pass", c.pass}});
  summary["checks"] = checks;
  summary["commit"] = SURGE_GIT_COMMIT;
  summary["version"] = SURGE_VERSION;
  summary["command_line"] = options.command_line;
  summary["scene"] = scene_path.string();
  summary["files"] = files;
  write_file_atomically(out_dir / "summary.json", [&](std::ostream& out) { out << summary.dump(2) << '\n'; });

  std::cout << "\nwrote " << (out_dir / "").string() << ":";
  for (const std::string& f : files) std::cout << ' ' << f;
  std::cout << '\n';
  if (!run.stable) {
    std::cout << "validation FAILED: the run went unstable (exit code " << int(kExitUnstable) << ")\n";
    return kExitUnstable;
  }
  if (!verdict.pass()) {
    std::cout << "validation FAILED:";
    for (const std::string& key : verdict.failed()) std::cout << ' ' << key;
    std::cout << " (exit code " << int(kExitValidationFailed) << ")\n";
    return kExitValidationFailed;
  }
  std::cout << "validation passed\n";
  return kExitSuccess;
}

}  // namespace surge::app
