#include "sim/scene/parameter_docs.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "sim/dem/dem_parameter_specs.h"
#include "sim/nbody/nbody_parameter_specs.h"
#include "sim/scene/gauge_parameter_specs.h"
#include "sim/scene/render_look.h"
#include "sim/scene/toml_reader.h"
#include "sim/sph/fluid_parameter_specs.h"
#include "sim/sph/solver_parameter_specs.h"

namespace surge {

namespace {

constexpr std::string_view kRowsMarker = "<!-- parameters: ";
constexpr std::string_view kMarkerEnd = " -->";
constexpr std::string_view kLiveMarker = "<!-- live parameters -->";

// "kg/m^3" as a reader expects it on the page: "kg/m³".
std::string pretty_unit(std::string_view unit) {
  if (unit.empty()) return "—";
  std::string text;
  for (std::size_t i = 0; i < unit.size(); ++i) {
    if (unit[i] == '^' && i + 1 < unit.size() && (unit[i + 1] == '2' || unit[i + 1] == '3')) {
      text += unit[++i] == '2' ? "²" : "³";
    } else {
      text += unit[i];
    }
  }
  return text;
}

// As the loader's messages quote numbers, but small ones as a reader writes them: "1e-6", not "0.000001".
template <typename T>
std::string page_number(T value) {
  if (value == 0 || std::abs(value) >= T(1e-4)) return format_number(value);
  std::array<char, 32> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::scientific);
  std::string text(buffer.data(), result.ptr);
  const std::size_t exponent = text.find("e-");
  while (text.size() > exponent + 3 && text[exponent + 2] == '0') text.erase(exponent + 2, 1);
  return text;
}

std::string interval(const ValueRange& range) {
  if (range.unbounded()) return "finite";
  if (std::isinf(range.max)) return (range.min_open ? "> " : "≥ ") + page_number(range.min);
  return std::string(range.min_open ? "(" : "[") + page_number(range.min) + ", " + page_number(range.max) +
         (range.max_open ? ")" : "]");
}

std::string solver_list(SolverSet solvers) {
  std::string text;
  for (SolverKind solver : kSolverKinds)
    if (solvers.contains(solver)) text += (text.empty() ? "" : ", ") + std::string(solver_name(solver));
  return text;
}

template <typename Owner, typename Runtime>
std::string row(const ParameterSpec<Owner, Runtime>& spec, const Owner& defaults) {
  std::string type, default_text, allowed;
  std::visit(
      [&](auto member) {
        const auto& value = defaults.*member;
        using Value = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<Value, bool>) {
          type = "boolean";
          default_text = value ? "true" : "false";
        } else if constexpr (std::is_same_v<Value, Vec3f>) {
          type = "3 numbers";
          default_text =
              "[" + page_number(value.x) + ", " + page_number(value.y) + ", " + page_number(value.z) + "]";
          allowed = spec.range.unbounded() ? "finite" : "each component in " + interval(spec.range);
        } else if constexpr (std::is_integral_v<Value>) {
          type = "integer";
          default_text = std::to_string(value);
          allowed =
              std::to_string(int64_t(spec.range.min)) + " to " + std::to_string(int64_t(spec.range.max));
        } else {
          type = "number";
          default_text = page_number(Value(value * spec.file_scale));
          allowed = interval(spec.range);
        }
      },
      spec.member);
  if (!spec.default_note.empty()) default_text = spec.default_note;
  std::string live = "on restart";
  if (spec.live()) live = "live: `" + std::string(spec.name()) + "` (" + solver_list(spec.live_for) + ")";
  return "| `" + std::string(spec.key) + "` | " + type + " | " + pretty_unit(spec.unit) + " | " +
         default_text + " | " + allowed + std::string(spec.allowed_note) + " | " + live + " | " +
         std::string(spec.description) + " |\n";
}

template <typename Owner, typename Runtime>
std::string rows(std::span<const ParameterSpec<Owner, Runtime>> specs) {
  // Static: the struct's own member initialisers, built once (g++ 13 also reads a local's members as possibly
  // uninitialised through the variant visit and warns).
  static const Owner defaults{};
  std::string text;
  for (const auto& spec : specs) text += row(spec, defaults);
  return text;
}

std::string rows_of(std::string_view table) {
  if (table == "resolution") return rows(resolution_parameter_specs());
  if (table == "fluid") return rows(fluid_parameter_specs());
  if (table == "time") return rows(time_parameter_specs());
  if (table == "dfsph") return rows(dfsph_parameter_specs());
  if (table == "pbf") return rows(pbf_parameter_specs());
  if (table == "dem") return rows(dem_parameter_specs());
  if (table == "nbody") return rows(nbody_parameter_specs());
  if (table == "gauges") return rows(gauge_parameter_specs());
  if (table == "render") return rows(render_parameter_specs());
  throw std::invalid_argument("unknown parameter table '" + std::string(table) + "' in the docs template");
}

template <typename Owner, typename Runtime>
void add_live_names(std::span<const ParameterSpec<Owner, Runtime>> specs, SolverKind solver,
                    std::string& names) {
  for (const auto& spec : specs) {
    if (!spec.live_for.contains(solver)) continue;
    names += (names.empty() ? "`" : ", `") + std::string(spec.name()) + "`";
    if (!spec.allowed_note.empty() && spec.available)
      names += " (" + std::string(spec.allowed_note.substr(2)) + ")";
  }
}

std::string live_table() {
  std::string text =
      "| solver | live | why the others apply on restart |\n"
      "| --- | --- | --- |\n";
  for (SolverKind solver : kSolverKinds) {
    std::string names;
    std::string_view why;
    if (is_fluid_solver(solver)) {
      add_live_names(fluid_parameter_specs(), solver, names);
      add_live_names(time_parameter_specs(), solver, names);
    }
    switch (solver) {
      case SolverKind::wcsph:
        why = kWcsphRestartReason;
        break;
      case SolverKind::dfsph:
        add_live_names(dfsph_parameter_specs(), solver, names);
        why = kDfsphRestartReason;
        break;
      case SolverKind::pbf:
        add_live_names(pbf_parameter_specs(), solver, names);
        why = kPbfRestartReason;
        break;
      case SolverKind::nbody:
        add_live_names(nbody_parameter_specs(), solver, names);
        why = kNbodyRestartReason;
        break;
      case SolverKind::dem:
        add_live_names(dem_parameter_specs(), solver, names);
        why = kDemRestartReason;
        break;
    }
    text += "| `" + std::string(solver_name(solver)) + "` | " + names + " | " + std::string(why) + " |\n";
  }
  return text;
}

}  // namespace

std::string fill_parameter_docs(std::string_view template_text) {
  std::string out;
  std::size_t start = 0;
  while (start < template_text.size()) {
    std::size_t end = template_text.find('\n', start);
    if (end == std::string_view::npos) end = template_text.size();
    const std::string_view line = template_text.substr(start, end - start);
    if (line == kLiveMarker) {
      out += live_table();
    } else if (line.starts_with(kRowsMarker) && line.ends_with(kMarkerEnd)) {
      out += rows_of(line.substr(kRowsMarker.size(), line.size() - kRowsMarker.size() - kMarkerEnd.size()));
    } else {
      out += line;
      if (end < template_text.size()) out += '\n';
    }
    start = end + 1;
  }
  return out;
}

}  // namespace surge
