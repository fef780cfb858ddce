#include "app/validate_command.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/backend_choice.h"
#include "app/data_files.h"
#include "app/exit_codes.h"
#include "app/progress.h"
#include "app/svg_plot.h"
#include "app/svg_rasterizer.h"
#include "sim/io/exporters.h"
#include "sim/scene/scene.h"
#include "sim/validation/dam_break_slab.h"
#include "sim/validation/dam_break_validation.h"

namespace surge::app {
namespace {

namespace fs = std::filesystem;

// ---- What can be validated (what is compared, and how: sim/validation/dam_break_validation.h)

const std::vector<std::string> kValidationSolvers = {"wcsph", "pbf", "dfsph"};
constexpr int kMinResolution = 4, kMaxResolution = 200;

// A file the user named, else the working directory's copy (a user may edit it), else the shipped one.
fs::path locate(const fs::path& given, const fs::path& relative) {
  return given.empty() ? data_file(relative) : given;
}

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string signed_fixed(double value, int decimals) {
  return (value >= 0 ? "+" : "") + fixed(value, decimals);
}

std::string percent(double fraction, int decimals = 1) {
  return fixed(100.0 * fraction, decimals) + " %";
}

// ---- The run

struct RunRecord {
  std::vector<DamBreakSample> samples;
  long steps = 0;
  double end_time_s = 0;
  double wall_s = 0;
  bool unstable = false;
};

RunRecord run_and_sample(Simulation& simulation, const FreeSurfaceProbeSettings& probe_settings,
                         double sample_every_s, double end_time_s, bool quiet) {
  RunRecord record;
  ProgressReporter progress(std::cerr, progress_style_for_stderr(quiet), RunEnd{.end_time_s = end_time_s},
                            simulation.fluid_count());
  ParticleFrame frame;
  const auto take_sample = [&](double time_s) {
    simulation.download(frame);
    record.samples.push_back(sample_dam_break(time_s, frame.position, probe_settings));
  };

  const auto start = std::chrono::steady_clock::now();
  StepStatus status = simulation.status();
  take_sample(status.time_s);
  double next_sample_s = sample_every_s;
  while (status.time_s < end_time_s) {
    simulation.step();
    status = simulation.status();
    if (status.instability != Instability::none) {
      progress.finish(status.step, status.time_s);
      std::cerr << "unstable: " << status.diagnosis() << "\nnothing was written\n";
      record.unstable = true;
      return record;
    }
    if (status.time_s >= next_sample_s) {
      take_sample(status.time_s);
      while (next_sample_s <= status.time_s) next_sample_s += sample_every_s;
    }
    progress.update(status.step, status.time_s);
  }
  progress.finish(status.step, status.time_s);
  record.steps = status.step;
  record.end_time_s = status.time_s;
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return record;
}

// ---- Outputs

void write_front_csv(const fs::path& path, const RunRecord& record, const DamBreakColumn& column) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "# Surge dam-break front. Z = x/a, T = t*sqrt(2g/a); Z_all counts spray too; a = "
        << column.width_m << " m\n";
    out << "T,Z,Z_all,t_s,x_m,body_particles,spray_particles,body_groups\n" << std::setprecision(7);
    for (const DamBreakSample& s : record.samples)
      out << s.time_s * column.front_time_scale << ',' << s.probe.front / column.width_m << ','
          << s.front_all_m / column.width_m << ',' << s.time_s << ',' << s.probe.front << ','
          << s.probe.body_particles << ',' << s.probe.spray_particles << ',' << s.probe.body_groups << '\n';
  });
}

void write_height_csv(const fs::path& path, const RunRecord& record, const DamBreakColumn& column) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "# Surge dam-break residual height at the back wall. eta = h/H, tau = t*sqrt(g/a); H = "
        << column.height_m << " m\n";
    out << "tau,eta,t_s,h_m\n" << std::setprecision(7);
    for (const DamBreakSample& s : record.samples)
      out << s.time_s * column.height_time_scale << ',' << s.probe.height / column.height_m << ',' << s.time_s
          << ',' << s.probe.height << '\n';
  });
}

void write_comparison_csv(const fs::path& path, const DamBreakMetrics& m) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "# Each experimental point with the simulation read at the same time (shift 0) and at the fitted "
           "shift.\n";
    out << "quantity,reference,x,experiment,simulation_raw,simulation_shifted\n" << std::setprecision(6);
    const auto rows = [&](const std::string& quantity, const std::string& reference,
                          const CurveComparison& raw, const CurveComparison& shifted) {
      for (std::size_t k = 0; k < raw.x.size(); ++k)
        out << quantity << ',' << reference << ',' << raw.x[k] << ',' << raw.expected[k] << ','
            << raw.simulated[k] << ',' << shifted.simulated[k] << '\n';
    };
    rows("Z", "martin_moyce_1952", m.raw_mm, m.fitted_mm);
    for (std::size_t k = 0; k < m.raw_ko.size(); ++k)
      rows("Z", "koshizuka_oka_1996_" + m.raw_ko[k].first, m.raw_ko[k].second, m.fitted_ko[k].second);
    rows("eta", "martin_moyce_1952", m.height_raw, m.height_shifted);
  });
}

nlohmann::ordered_json comparison_json(const CurveComparison& c) {
  return {{"shift", c.shift},
          {"points", c.x.size()},
          {"max_relative_error", c.max_relative_error},
          {"max_signed_relative_error", c.max_signed_relative_error},
          {"rms_relative_error", c.rms_relative_error},
          {"max_absolute_error", c.max_absolute_error}};
}

std::string plot_note(const ValidateOptions& options, int depth, const Simulation& simulation) {
  return "surge validate dam-break --solver " + options.solver + " --resolution " +
         std::to_string(options.resolution) + " --depth " + std::to_string(depth) + "  |  " +
         std::to_string(simulation.fluid_count()) + " fluid particles, " + simulation.backend_name() +
         "  |  commit " + SURGE_GIT_COMMIT;
}

plot::Figure make_figure(const DamBreakMetrics& m, const DamBreakReferences& refs,
                         const ValidateOptions& options, int depth, const Simulation& simulation,
                         double end_T, double end_tau) {
  plot::Figure figure;
  figure.width = 1400;
  figure.height = 600;
  figure.title = "Dam break (H = 2a): Surge " + options.solver + ", " + std::to_string(options.resolution) +
                 " particles across a";
  figure.note = plot_note(options, depth, simulation);

  plot::Axes& front = figure.panels.emplace_back();
  front.title = "Surge front";
  front.x_label = "T = t sqrt(2g/a)";
  front.y_label = "Z = x / a";
  front.x_min = 0;
  front.x_max = end_T;
  front.y_min = 1;
  front.y_max = 4.5;
  front.legend = plot::LegendCorner::bottom_right;
  Curve ritter{{0.0, end_T}, {1.0, 1.0 + kRitterSlope * end_T}};
  front.series.push_back({.label = "Ritter bound dZ/dT = 2",
                          .x = ritter.x,
                          .y = ritter.y,
                          .colour = "#888888",
                          .line_width = 1.5,
                          .dashed = true});
  front.series.push_back({.label = "Surge", .x = m.front.x, .y = m.front.y, .colour = "#1f77b4"});
  std::vector<double> shifted_T;
  for (double T : m.front.x) shifted_T.push_back(T + m.fitted_mm.shift);
  front.series.push_back({.label = "Surge, shifted dT = " + signed_fixed(m.fitted_mm.shift, 3),
                          .x = shifted_T,
                          .y = m.front.y,
                          .colour = "#17becf",
                          .line_width = 1.5,
                          .dashed = true});
  front.series.push_back({.label = "Martin & Moyce 1952",
                          .x = refs.front_mm.x,
                          .y = refs.front_mm.y,
                          .kind = plot::SeriesKind::points,
                          .colour = "#d62728",
                          .marker = plot::Marker::circle});
  const std::vector<std::pair<plot::Marker, std::string>> ko_style = {{plot::Marker::square, "#2ca02c"},
                                                                      {plot::Marker::triangle, "#9467bd"}};
  for (std::size_t k = 0; k < refs.front_ko.size(); ++k) {
    const auto& [series, curve] = refs.front_ko[k];
    const auto& [marker, colour] = ko_style[k % ko_style.size()];
    front.series.push_back({.label = "Koshizuka & Oka 1996 (" + series + ")",
                            .x = curve.x,
                            .y = curve.y,
                            .kind = plot::SeriesKind::points,
                            .colour = colour,
                            .marker = marker});
  }

  plot::Axes& height = figure.panels.emplace_back();
  height.title = "Residual height at the back wall";
  height.x_label = "tau = t sqrt(g/a)";
  height.y_label = "eta = h / H";
  height.x_min = 0;
  height.x_max = end_tau;
  height.y_min = 0;
  height.y_max = 1.05;
  height.legend = plot::LegendCorner::top_right;
  height.series.push_back({.label = "Surge", .x = m.height.x, .y = m.height.y, .colour = "#1f77b4"});
  height.series.push_back({.label = "Martin & Moyce 1952",
                           .x = refs.height_mm.x,
                           .y = refs.height_mm.y,
                           .kind = plot::SeriesKind::points,
                           .colour = "#d62728",
                           .marker = plot::Marker::circle});
  return figure;
}

void print_results(std::ostream& out, const DamBreakMetrics& m) {
  out << "\nfront Z vs experiments (T <= 3.33):  max |rel. error|  rms\n";
  const auto row = [&](const std::string& name, const CurveComparison& c) {
    out << "  " << std::left << std::setw(44) << name << std::right << std::setw(8)
        << percent(c.max_relative_error) << "  " << std::setw(8) << percent(c.rms_relative_error) << '\n';
  };
  row("Martin & Moyce, raw (dT = 0)", m.raw_mm);
  row("Martin & Moyce, fitted dT = " + signed_fixed(m.fitted_mm.shift, 3) + " (minimax)", m.fitted_mm);
  for (std::size_t k = 0; k < m.raw_ko.size(); ++k) {
    row("Koshizuka & Oka (" + m.raw_ko[k].first + "), raw", m.raw_ko[k].second);
    row("Koshizuka & Oka (" + m.fitted_ko[k].first + "), same dT", m.fitted_ko[k].second);
  }
  out << "height eta vs Martin & Moyce table 6: max |error| " << fixed(m.height_raw.max_absolute_error, 3)
      << " raw, " << fixed(m.height_shifted.max_absolute_error, 3) << " with the same delay\n\n";
  out << std::left << std::setw(70) << "requirement" << std::setw(22) << "value" << std::setw(28) << "allowed"
      << "result\n";
  for (const DamBreakRequirement& r : m.requirements)
    out << std::left << std::setw(70) << r.description << std::setw(22) << r.value_text << std::setw(28)
        << r.allowed << requirement_verdict(r) << '\n';
  out << std::right;
}

}  // namespace

CLI::App* add_validate_command(CLI::App& parent, ValidateOptions& options) {
  CLI::App* validate =
      parent.add_subcommand("validate", "Compare a solver with experiments (docs/validation.md)");
  validate->require_subcommand(1);
  CLI::App* dam = validate->add_subcommand(
      "dam-break", "Dam break vs Martin & Moyce (1952) and Koshizuka & Oka (1996): front and height");
  dam->add_option("--solver", options.solver, "Solver: wcsph, pbf or dfsph")
      ->check(CLI::IsMember(kValidationSolvers))
      ->capture_default_str();
  dam->add_option("--resolution", options.resolution, "Particles across the column width a")
      ->check(CLI::Range(kMinResolution, kMaxResolution))
      ->capture_default_str();
  dam->add_option("--depth", options.depth,
                  "Particles across the slab, walls front and back (default: 0.4 x resolution, at least 4)")
      ->check(CLI::Range(1, kMaxResolution));
  dam->add_option("--backend", options.backend,
                  "Where to step: cpu, gpu, or auto (the GPU when there is one)")
      ->check(CLI::IsMember(kBackendNames))
      ->capture_default_str();
  dam->add_option("--out", options.out_dir, "Output directory (default: out/validation/dam_break_SOLVER_rN)")
      ->type_name("DIR");
  dam->add_option("--scene", options.scene_path,
                  "Slab scene (default: scenes/validation/dam_break_slab.toml)")
      ->type_name("SCENE.toml");
  dam->add_option("--data", options.data_dir,
                  "Directory of the experimental CSVs (default: assets/validation)")
      ->type_name("DIR");
  dam->add_option("--z-tolerance", options.tolerances.z_tolerance,
                  "Max |relative error| of Z against Martin & Moyce after the shift")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  dam->add_option("--max-shift", options.tolerances.max_shift,
                  "Largest |dT| allowed for the fitted time shift")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  dam->add_option("--slope-tolerance", options.tolerances.slope_tolerance,
                  "Allowed |dZ/dT - 1.32| over T in [1.5, 3.3]")
      ->check(CLI::Range(0.0, 2.0))
      ->capture_default_str();
  dam->add_option("--eta-tolerance", options.tolerances.eta_tolerance,
                  "Also require max |eta - eta_MM| <= this (default 0: report only)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  dam->add_flag("--quiet", options.quiet, "No progress output");
  return dam;
}

fs::path validation_out_dir(const ValidateOptions& options) {
  if (!options.out_dir.empty()) return options.out_dir;
  return fs::path("out") / "validation" /
         ("dam_break_" + options.solver + "_r" + std::to_string(options.resolution));
}

int run_validate_dam_break(const ValidateOptions& options) {
  const fs::path scene_path =
      locate(options.scene_path, fs::path("scenes") / "validation" / "dam_break_slab.toml");
  const fs::path data_dir = locate(options.data_dir, fs::path("assets") / "validation");
  const fs::path out_dir = validation_out_dir(options);
  // Everything that can be bad input is checked before the run: scene, data, solver, backend.
  Scene scene = load_scene(scene_path);
  const int depth = options.depth > 0 ? options.depth : default_slab_depth(options.resolution);
  const DamBreakColumn column = prepare_dam_break_slab(scene, options.solver, options.resolution, depth);
  DamBreakReferences refs;
  try {
    refs = load_dam_break_references(data_dir);
  } catch (const std::runtime_error& e) {
    throw InputError(std::string(e.what()) + " (--data names the directory of the experimental CSVs)");
  }

  BackendChoice backend;
  try {
    backend = choose_backend(parse_backend_request(options.backend), scene, SimulationOptions{});
  } catch (const std::logic_error& e) {
    // make_simulation rejects a solver it has no backend for with a logic_error: here that is the user's
    // choice of --solver, so it is bad input with a clear message, not a crash.
    throw InputError("--solver " + options.solver + ": this build of Surge cannot run it (" + e.what() + ")");
  }
  Simulation& simulation = *backend.simulation;
  const double spacing = double(scene.spacing);
  std::cout << backend_line(backend) << '\n'
            << "dam break: solver " << options.solver << ", a = " << column.width_m << " m, "
            << options.resolution << " particles across a, " << depth << " deep: " << simulation.fluid_count()
            << " fluid + " << simulation.boundary_count() << " wall particles\n"
            << std::flush;

  const DamBreakRunEnd end = dam_break_run_end(refs, column, options.tolerances.max_shift);
  const RunRecord record = run_and_sample(simulation, dam_break_probe_settings(scene),
                                          kSampleEveryT / column.front_time_scale, end.time_s, options.quiet);
  if (record.unstable) return kExitUnstable;

  const DamBreakMetrics metrics =
      evaluate_dam_break(record.samples, refs, column, spacing, options.tolerances);
  std::cout << record.steps << " steps to t = " << fixed(record.end_time_s, 3)
            << " s (T = " << fixed(record.end_time_s * column.front_time_scale, 2)
            << ", tau = " << fixed(record.end_time_s * column.height_time_scale, 2) << ") in "
            << fixed(record.wall_s, 1) << " s, " << record.samples.size() << " samples\n";
  print_results(std::cout, metrics);

  fs::create_directories(out_dir);
  write_front_csv(out_dir / "front.csv", record, column);
  write_height_csv(out_dir / "height.csv", record, column);
  write_comparison_csv(out_dir / "comparison.csv", metrics);
  const plot::Figure figure = make_figure(metrics, refs, options, depth, simulation, end.front_T, 8.0);
  const std::string svg = plot::render_svg(figure);
  write_file_atomically(out_dir / "dam_break.svg", [&](std::ostream& out) { out << svg; });
  const RasterResult png = rasterize_svg(out_dir / "dam_break.svg", out_dir / "dam_break.png", figure.width);
  if (!png.written) std::cerr << "note: no dam_break.png: " << png.why_not << '\n';

  nlohmann::ordered_json summary;
  summary["case"] = "dam_break";
  summary["pass"] = metrics.pass();
  summary["solver"] = options.solver;
  summary["resolution"] = options.resolution;
  summary["depth_particles"] = depth;
  summary["column_width_m"] = column.width_m;
  summary["column_height_m"] = column.height_m;
  summary["spacing_m"] = spacing;
  summary["fluid_particles"] = simulation.fluid_count();
  summary["boundary_particles"] = simulation.boundary_count();
  summary["backend"] = backend.description;
  summary["steps"] = record.steps;
  summary["simulated_time_s"] = record.end_time_s;
  summary["wall_time_s"] = record.wall_s;
  summary["samples"] = record.samples.size();
  summary["commit"] = SURGE_GIT_COMMIT;
  summary["version"] = SURGE_VERSION;
  summary["command_line"] = options.command_line;
  summary["scene"] = scene_path.string();
  summary["reference_data"] = refs.sources;
  summary["method"] = {{"front", "largest x of the connected groups (link " + fixed(kLinkSpacings, 1) +
                                     " spacings) holding >= " + percent(kMinBodyFraction, 0) +
                                     " of the particles, plus half a spacing"},
                       {"height", "top of the same group within " + fixed(kBandSpacings, 0) +
                                      " spacings of the back wall, plus half a spacing"},
                       {"sample_every_T", kSampleEveryT},
                       {"shift",
                        "one dT in [-max, max] minimising the max relative error vs Martin & Moyce, "
                        "T <= 3.33; positive: the simulation is delayed"},
                       {"speed_window_T", kSpeedWindowT}};
  nlohmann::ordered_json requirements = nlohmann::ordered_json::array();
  for (const DamBreakRequirement& r : metrics.requirements)
    requirements.push_back({{"key", r.key},
                            {"description", r.description},
                            {"value", r.value},
                            {"allowed", r.allowed},
                            {"enforced", r.enforced},
                            {"pass", r.pass}});
  summary["requirements"] = requirements;
  nlohmann::ordered_json ko_raw, ko_fitted;
  for (std::size_t k = 0; k < metrics.raw_ko.size(); ++k) {
    ko_raw[metrics.raw_ko[k].first] = comparison_json(metrics.raw_ko[k].second);
    ko_fitted[metrics.fitted_ko[k].first] = comparison_json(metrics.fitted_ko[k].second);
  }
  summary["metrics"] = {{"front_vs_martin_moyce_raw", comparison_json(metrics.raw_mm)},
                        {"front_vs_martin_moyce_fitted", comparison_json(metrics.fitted_mm)},
                        {"front_vs_koshizuka_oka_raw", ko_raw},
                        {"front_vs_koshizuka_oka_at_fitted_shift", ko_fitted},
                        {"late_slope", metrics.late_slope},
                        {"max_front_speed", metrics.max_speed},
                        {"ritter_excess", metrics.ritter_excess},
                        {"height_vs_martin_moyce_raw", comparison_json(metrics.height_raw)},
                        {"height_vs_martin_moyce_shifted", comparison_json(metrics.height_shifted)}};
  summary["tolerances"] = {{"z_relative", options.tolerances.z_tolerance},
                           {"max_shift", options.tolerances.max_shift},
                           {"late_slope", {kExperimentLateSlope, options.tolerances.slope_tolerance}},
                           {"ritter_slope", kRitterSlope},
                           {"eta_absolute", options.tolerances.eta_tolerance}};
  summary["files"] = {"front.csv", "height.csv", "comparison.csv", "dam_break.svg"};
  if (png.written) summary["files"].push_back("dam_break.png");
  write_file_atomically(out_dir / "summary.json", [&](std::ostream& out) { out << summary.dump(2) << '\n'; });

  std::cout << "\nwrote " << (out_dir / "").string() << ": front.csv height.csv comparison.csv summary.json "
            << "dam_break.svg" << (png.written ? " dam_break.png" : "") << '\n';
  if (!metrics.pass()) {
    std::cout << "validation FAILED (exit code " << int(kExitValidationFailed) << ")\n";
    return kExitValidationFailed;
  }
  std::cout << "validation passed\n";
  return kExitSuccess;
}

}  // namespace surge::app
