#include "app/figure_report.h"

#include <iomanip>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include "app/number_format.h"

namespace surge::app {

std::string format_figure(const NamedValue& figure) {
  return std::visit(
      [](const auto& value) -> std::string {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, double>) {
          return significant(value, 6);
        } else if constexpr (std::is_same_v<T, Vec3f>) {
          // Appended piece by piece: chained `"[" + std::string` trips GCC 12's false -Wrestrict.
          std::string text = "[";
          text += significant(value.x, 6);
          text += ", ";
          text += significant(value.y, 6);
          text += ", ";
          text += significant(value.z, 6);
          text += "]";
          return text;
        } else {
          return value;
        }
      },
      figure.value);
}

std::vector<NamedValue> rates_of(const std::vector<NamedValue>& figures, long steps, double seconds) {
  static constexpr std::string_view kSuffix = "_per_step";
  std::vector<NamedValue> rates;
  if (steps <= 0 || seconds <= 0) return rates;
  for (const NamedValue& figure : figures) {
    const double* per_step = std::get_if<double>(&figure.value);
    if (!per_step || !figure.name.ends_with(kSuffix)) continue;
    const std::string stem = figure.name.substr(0, figure.name.size() - kSuffix.size());
    rates.push_back({stem + "_per_s", *per_step * double(steps) / seconds});
  }
  return rates;
}

std::optional<double> figure_value(const std::vector<NamedValue>& figures, std::string_view name) {
  for (const NamedValue& figure : figures)
    if (figure.name == name)
      if (const double* value = std::get_if<double>(&figure.value)) return *value;
  return std::nullopt;
}

std::vector<NamedValue> with_neighbor_work(std::vector<NamedValue> figures) {
  auto value_of = [&](std::string_view name) { return figure_value(figures, name); };
  const std::optional<double> pairs = value_of("neighbor_pairs_per_pass");
  std::optional<double> passes = value_of("neighbor_passes_mean");
  if (!passes) passes = value_of("neighbor_passes");
  if (pairs && passes) figures.push_back({"neighbor_pairs_per_step", *pairs * *passes});
  return figures;
}

void print_figures(std::ostream& out, const std::vector<NamedValue>& figures, int name_width) {
  for (const NamedValue& figure : figures) {
    out << "  " << std::left << std::setw(name_width) << figure.name << std::right << ' '
        << format_figure(figure) << '\n';
  }
}

}  // namespace surge::app
