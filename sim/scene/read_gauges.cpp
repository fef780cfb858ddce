// [[gauge]] blocks and the [gauges] table of the SPH solvers (docs/scenes.md, "Gauges"): probes of
// pressure, water level and velocity, sampled every `every_time` simulated seconds (sim/sph/gauges.h,
// sim/io/gauge_recorder.h).
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <string_view>

#include "sim/scene/family_readers.h"
#include "sim/scene/gauge_parameter_specs.h"

namespace surge {

namespace {

using GaugeSpec = ParameterSpec<GaugeOutput>;

constexpr std::array kGaugeParameters = {
    GaugeSpec{.key = "every_time",
              .member = &GaugeOutput::every_time,
              .unit = "s",
              .range = ValueRange::above(0),
              .description = "simulated time between samples: one CSV row at the first step that ends at or "
                             "after each multiple of it, stamped with that step's time",
              .default_note = "required with any `[[gauge]]`"},
    GaugeSpec{.key = "filter_time",
              .member = &GaugeOutput::filter_time,
              .unit = "s",
              .range = ValueRange::at_least(0),
              .description = "time constant τ of a first-order low-pass filter over the samples, y += (1 − "
                             "e^(−Δt/τ)) (x − y); each column gains a `_filtered` twin",
              .default_note = "0 (no filter)"},
};

constexpr std::array<std::string_view, 5> kKinds = {
    kGaugeKindNames[0], kGaugeKindNames[1], kGaugeKindNames[2], kGaugeKindNames[3], kGaugeKindNames[4]};

// A CSV column name: letters, digits, '_', '-', '.', so no quoting is ever needed.
bool is_column_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

void check_inside(const TableReader& table, std::string_view key, int axis, float value, const Scene& scene) {
  const float low = component(scene.domain_min, axis), high = component(scene.domain_max, axis);
  if (value < low || value > high) {
    table.fail(key, std::string("the gauge is outside the domain: its ") + kAxisNames[axis] + " = " +
                        format_number(value) + " m leaves the domain's [" + format_number(low) + ", " +
                        format_number(high) + "] m");
  }
}

GaugeDefinition read_gauge(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 8> kKeys = {"name", "type", "position", "x",
                                                            "y",    "z0",   "z1",       "solid"};
  table.reject_unknown_keys(kKeys);
  GaugeDefinition gauge;
  gauge.line = table.table_line();
  gauge.name = table.required(table.string("name"), "name", "a name, the gauge's CSV column");
  if (!is_column_name(gauge.name) || gauge.name == "time_s") {
    table.fail("name",
               "expected a name of letters, digits, '_', '-' or '.' other than \"time_s\" (it names a "
               "CSV column), got \"" +
                   gauge.name + "\"");
  }
  const std::string type = table.required(table.choice("type", kKinds), "type",
                                          "\"pressure\", \"level\", \"velocity\", \"force\" or \"body\"");
  gauge.kind = GaugeKind(std::find(kKinds.begin(), kKinds.end(), type) - kKinds.begin());

  // Force and body gauges read a [[solid]], named by `solid`, and no point.
  if (gauge.kind == GaugeKind::force || gauge.kind == GaugeKind::body) {
    for (std::string_view key : {"position", "x", "y", "z0", "z1"})
      if (table.has(key)) table.fail(key, "does not apply to a \"" + type + "\" gauge (it takes solid)");
    const std::string solid = table.required(table.string("solid"), "solid", "the name of a [[solid]] block");
    std::string names;
    for (std::size_t k = 0; k < scene.solids.size(); ++k) {
      if (scene.solids[k].name == solid) {
        gauge.solid = std::uint32_t(k);
        return gauge;
      }
      names += (names.empty() ? "\"" : ", \"") + scene.solids[k].name + "\"";
    }
    table.fail("solid",
               "no [[solid]] is named \"" + solid + "\"" +
                   (names.empty() ? std::string(" (the scene has none)") : " (the solids: " + names + ")"));
  }
  if (table.has("solid")) table.fail("solid", "applies to \"force\" and \"body\" gauges only");

  // A key of another type is a mistake the user should hear about, not a value silently ignored.
  const bool level = gauge.kind == GaugeKind::level;
  for (std::string_view key : level ? std::array<std::string_view, 4>{"position", "", "", ""}
                                    : std::array<std::string_view, 4>{"x", "y", "z0", "z1"}) {
    if (!key.empty() && table.has(key)) {
      table.fail(key, "does not apply to a \"" + type + "\" gauge (it takes " +
                          (level ? "x, y, z0, z1" : "position") + ")");
    }
  }
  if (!level) {
    gauge.position = table.required(table.vec3("position", "m"), "position", "an array of 3 numbers [m]");
    for (int axis = 0; axis < 3; ++axis)
      check_inside(table, "position", axis, component(gauge.position, axis), scene);
    return gauge;
  }
  const ValueRange any = ValueRange::any();
  gauge.position.x = table.required(table.number("x", "m", any), "x", "a number [m]");
  gauge.position.y = table.required(table.number("y", "m", any), "y", "a number [m]");
  gauge.position.z = table.required(table.number("z0", "m", any), "z0", "a number [m], the line's bottom");
  gauge.z_top = table.required(table.number("z1", "m", any), "z1", "a number [m], the line's top");
  check_inside(table, "x", 0, gauge.position.x, scene);
  check_inside(table, "y", 1, gauge.position.y, scene);
  check_inside(table, "z0", 2, gauge.position.z, scene);
  check_inside(table, "z1", 2, gauge.z_top, scene);
  if (!(gauge.z_top > gauge.position.z)) {
    table.fail("z1", "expected z1 above z0 = " + format_number(gauge.position.z) + " [m], got " +
                         format_number(gauge.z_top));
  }
  return gauge;
}

}  // namespace

std::span<const ParameterSpec<GaugeOutput>> gauge_parameter_specs() {
  return kGaugeParameters;
}

void read_gauges(const TableReader& top, Scene& scene) {
  if (!top.has("gauge") && !top.has("gauges")) return;
  if (!is_fluid_solver(scene.solver)) {
    top.fail(top.has("gauge") ? "gauge" : "gauges",
             "applies to the SPH solvers (wcsph, dfsph, pbf); this scene's solver is \"" +
                 std::string(solver_name(scene.solver)) + "\"");
  }
  const TableReader settings = top.table("gauges", false);
  if (!top.has("gauge"))
    settings.fail_table("[gauges] without any [[gauge]] block: there is nothing to sample");
  static constexpr std::array<std::string_view, 3> kKeys = {"every_time", "filter_time", "csv"};
  settings.reject_unknown_keys(kKeys);

  std::set<std::string> columns;
  top.for_each_table("gauge", "a probe", [&](const TableReader& table) {
    GaugeDefinition gauge = read_gauge(table, scene);
    for (const GaugeDefinition& earlier : scene.gauges) {
      if (earlier.name == gauge.name) {
        table.fail("name", "duplicate gauge name \"" + gauge.name + "\" (the first is at line " +
                               std::to_string(earlier.line) + "); names are CSV columns and must be unique");
      }
    }
    for (const std::string& column : gauge_columns(gauge.kind, gauge.name)) {
      if (!columns.insert(column).second)
        table.fail("name", "the gauge's CSV column \"" + column + "\" is already another gauge's");
    }
    scene.gauges.push_back(std::move(gauge));
  });

  GaugeOutput& output = scene.gauge_output;
  output.line = settings.table_line();
  if (!settings.has("every_time")) {
    throw SceneError(scene.path, top.has("gauges") ? settings.table_line() : scene.gauges.front().line,
                     "gauges.every_time",
                     "required key is missing: [[gauge]] blocks need [gauges] every_time (simulated seconds "
                     "between samples, e.g. 0.001)");
  }
  read_parameters(settings, gauge_parameter_specs(), output);
  if (auto csv = settings.string("csv")) {
    if (csv->empty()) settings.fail("csv", "expected a non-empty file path, got \"\"");
    output.csv = *csv;
  }
  check_gauges_for_solver(scene);
}

void check_gauges_for_solver(const Scene& scene) {
  if (scene.solver != SolverKind::pbf) return;
  for (std::size_t i = 0; i < scene.gauges.size(); ++i) {
    const GaugeDefinition& gauge = scene.gauges[i];
    if (gauge.kind != GaugeKind::pressure) continue;
    const std::string key = "gauge[" + std::to_string(i) + "].type";
    const int line = scene.line_of(key);
    throw SceneError(scene.path, line > 0 ? line : gauge.line, key,
                     "a pressure gauge (\"" + gauge.name +
                         "\") needs a solver with a physical pressure: wcsph or dfsph; pbf has none (its "
                         "exported pressure is its position corrections read as an impulse)");
  }
}

}  // namespace surge
