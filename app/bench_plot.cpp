#include "app/bench_plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "app/number_format.h"
#include "app/stage_report.h"

namespace surge::app {
namespace {

// One colour per stage, in kStageNames order (index, density, forces, integration, other, transfer).
constexpr std::array<const char*, kStageCount> kStageColours = {"#4e79a7", "#59a14f", "#e15759",
                                                                "#f28e2b", "#bab0ac", "#b07aa1"};
// One colour per mode line in the speedup panel.
const std::map<std::string, const char*> kModeColours = {
    {"cpu", "#555555"}, {"hybrid", "#e15759"}, {"hybrid-overlap", "#f28e2b"}, {"gpu", "#4e79a7"}};

constexpr double kPanelWidth = 230, kPanelHeight = 260, kMargin = 60, kTop = 60;
constexpr double kSpeedupWidth = 420;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

void text(std::ostream& out, double x, double y, const std::string& content, const char* anchor = "middle",
          int size = 11) {
  out << "<text x=\"" << number(x) << "\" y=\"" << number(y) << "\" font-size=\"" << size
      << "\" text-anchor=\"" << anchor << "\">" << escape(content) << "</text>\n";
}

void line(std::ostream& out, double x1, double y1, double x2, double y2, const char* colour,
          const char* extra = "") {
  out << "<line x1=\"" << number(x1) << "\" y1=\"" << number(y1) << "\" x2=\"" << number(x2) << "\" y2=\""
      << number(y2) << "\" stroke=\"" << colour << "\" " << extra << "/>\n";
}

// A "nice" axis maximum: 1, 2 or 5 times a power of ten, at least `value`.
double nice_ceiling(double value) {
  if (value <= 0) return 1.0;
  const double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (step * power >= value) return step * power;
  return 10.0 * power;
}

// The tallest bar of a panel: the largest ms per step of its runs.
double largest_step_ms(const std::vector<const BenchRun*>& runs) {
  double largest = 0;
  for (const BenchRun* run : runs) {
    double sum = 0;
    for (const StageShare& stage : stage_shares(run->stages)) sum += stage.ms_per_step;
    largest = std::max(largest, sum);
  }
  return largest;
}

// Stacked bars of one particle count: a bar per run, stacked by stage, against an axis up to `top` ms.
void stage_panel(std::ostream& out, double left, const std::vector<const BenchRun*>& runs, double top,
                 bool own_scale) {
  const double bottom_y = kTop + kPanelHeight;
  out << "<text font-size=\"11\" text-anchor=\"middle\" transform=\"translate(" << number(left - 40) << ","
      << number(kTop + kPanelHeight / 2) << ") rotate(-90)\">"
      << (own_scale ? "ms per step (this panel's scale)" : "ms per step") << "</text>\n";
  line(out, left, kTop, left, bottom_y, "#000");
  line(out, left, bottom_y, left + kPanelWidth - 20, bottom_y, "#000");
  for (int tick = 0; tick <= 4; ++tick) {
    const double y = bottom_y - kPanelHeight * tick / 4.0;
    line(out, left - 4, y, left, y, "#000");
    text(out, left - 6, y + 4, significant(top * tick / 4.0, 3), "end", 10);
  }
  text(out, left + (kPanelWidth - 20) / 2, kTop - 10,
       with_thousands(std::int64_t(runs.front()->fluid_particles)) + " particles", "middle", 12);
  const double slot = (kPanelWidth - 20) / double(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const double x = left + slot * double(r) + slot * 0.15, width = slot * 0.7;
    double y = bottom_y;
    const auto shares = stage_shares(runs[r]->stages);
    double sum = 0;
    for (const StageShare& stage : shares) sum += stage.ms_per_step;
    text(out, x + width / 2, bottom_y - kPanelHeight * sum / top - 4, significant(sum, 3), "middle", 9);
    for (std::size_t s = 0; s < shares.size(); ++s) {
      const double height = kPanelHeight * shares[s].ms_per_step / top;
      if (height <= 0) continue;
      y -= height;
      out << "<rect x=\"" << number(x) << "\" y=\"" << number(y) << "\" width=\"" << number(width)
          << "\" height=\"" << number(height) << "\" fill=\"" << kStageColours[s] << "\"><title>"
          << escape(runs[r]->backend) << " " << shares[s].name << ": " << fixed(shares[s].ms_per_step, 3)
          << " ms</title></rect>\n";
    }
    out << "<text font-size=\"10\" text-anchor=\"end\" transform=\"translate(" << number(x + width / 2 + 3)
        << "," << number(bottom_y + 8) << ") rotate(-45)\">" << escape(runs[r]->backend) << "</text>\n";
  }
}

void speedup_panel(std::ostream& out, double left, const BenchRecord& record) {
  // Speedup points per mode, in increasing particle count.
  std::map<std::string, std::vector<std::pair<double, double>>> curves;
  double n_min = 1e300, n_max = 0, s_min = 1.0, s_max = 1.0;
  for (const BenchRun& run : record.runs) {
    if (run.speedup_over_cpu <= 0 || run.backend == "cpu") continue;
    const double n = double(run.fluid_particles);
    curves[run.backend].emplace_back(n, run.speedup_over_cpu);
    n_min = std::min(n_min, n);
    n_max = std::max(n_max, n);
    s_min = std::min(s_min, run.speedup_over_cpu);
    s_max = std::max(s_max, run.speedup_over_cpu);
  }
  const double width = kSpeedupWidth, height = kPanelHeight, bottom_y = kTop + height;
  text(out, left + width / 2, kTop - 10, "speedup over cpu (log-log)", "middle", 12);
  line(out, left, kTop, left, bottom_y, "#000");
  line(out, left, bottom_y, left + width, bottom_y, "#000");
  if (curves.empty()) {
    // Say why: a CPU-only machine skipped the GPU modes, or only one mode was asked for.
    text(out, left + width / 2, kTop + height / 2, "no speedup to draw: needs the cpu mode and another mode",
         "middle", 11);
    if (!record.modes_skipped.empty())
      text(out, left + width / 2, kTop + height / 2 + 16, "skipped: " + record.modes_skipped, "middle", 10);
    return;
  }
  for (auto& [mode, points] : curves) std::sort(points.begin(), points.end());
  // Decades that hold every point, the speedup 1 line included.
  const double lx0 = std::floor(std::log10(n_min)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(n_max)));
  const double ly0 = std::floor(std::log10(s_min)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(s_max)));
  const auto px = [&](double n) { return left + width * (std::log10(n) - lx0) / (lx1 - lx0); };
  const auto py = [&](double s) { return bottom_y - height * (std::log10(s) - ly0) / (ly1 - ly0); };
  for (double d = lx0; d <= lx1; d += 1) {
    line(out, px(std::pow(10, d)), bottom_y, px(std::pow(10, d)), bottom_y + 4, "#000");
    text(out, px(std::pow(10, d)), bottom_y + 16, "1e" + std::to_string(int(d)), "middle", 10);
  }
  for (double d = ly0; d <= ly1; d += 1) {
    line(out, left - 4, py(std::pow(10, d)), left, py(std::pow(10, d)), "#000");
    text(out, left - 6, py(std::pow(10, d)) + 4, significant(std::pow(10, d), 3), "end", 10);
  }
  text(out, left + width / 2, bottom_y + 34, "fluid particles", "middle", 11);
  line(out, left, py(1.0), left + width, py(1.0), "#888", "stroke-dasharray=\"4 3\"");
  text(out, left + width - 2, py(1.0) - 4, "as fast as cpu", "end", 10);

  double legend_y = kTop + 12;
  for (const auto& [mode, points] : curves) {
    const auto found = kModeColours.find(mode);
    const char* colour = found == kModeColours.end() ? "#000" : found->second;
    out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
    for (const auto& [n, s] : points) out << number(px(n)) << "," << number(py(s)) << " ";
    out << "\"/>\n";
    for (const auto& [n, s] : points)
      out << "<circle cx=\"" << number(px(n)) << "\" cy=\"" << number(py(s)) << "\" r=\"3\" fill=\"" << colour
          << "\"><title>" << escape(mode) << ": " << fixed(s, 2) << "x at " << with_thousands(std::int64_t(n))
          << "</title></circle>\n";
    std::string label = mode;
    if (const std::optional<double> crossover = crossover_particles(points)) {
      const double x = px(*crossover);
      out << "<circle cx=\"" << number(x) << "\" cy=\"" << number(py(1.0))
          << "\" r=\"6\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\"/>\n";
      label += ": crossover ~" + engineering(*crossover) + " particles";
    } else {
      label += points.size() < 2 ? ": one size only" : ": no crossover in this range";
    }
    line(out, left + 10, legend_y - 4, left + 28, legend_y - 4, colour, "stroke-width=\"2\"");
    text(out, left + 32, legend_y, label, "start", 10);
    legend_y += 14;
  }
}

}  // namespace

std::optional<double> crossover_particles(const std::vector<std::pair<double, double>>& speedup_by_count) {
  for (std::size_t k = 1; k < speedup_by_count.size(); ++k) {
    const auto [n0, s0] = speedup_by_count[k - 1];
    const auto [n1, s1] = speedup_by_count[k];
    if (n0 <= 0 || n1 <= 0 || s0 <= 0 || s1 <= 0) continue;
    if ((s0 < 1.0) == (s1 < 1.0)) continue;
    // Straight line in log-log: log s = log s0 + t (log s1 - log s0), at log s = 0.
    const double t = -std::log(s0) / (std::log(s1) - std::log(s0));
    return std::exp(std::log(n0) + t * (std::log(n1) - std::log(n0)));
  }
  return std::nullopt;
}

void write_bench_plot(std::ostream& out, const BenchRecord& record) {
  // Runs grouped by particle count, in the order they ran.
  std::vector<std::vector<const BenchRun*>> groups;
  for (const BenchRun& run : record.runs) {
    if (groups.empty() || groups.back().front()->fluid_particles != run.fluid_particles)
      groups.emplace_back();
    groups.back().push_back(&run);
  }
  const double stage_width = kMargin + double(groups.size()) * (kPanelWidth + kMargin);
  const double total_width = stage_width + kSpeedupWidth + kMargin;
  const double total_height = kTop + kPanelHeight + 110;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(total_width) << "\" height=\""
      << number(total_height) << "\" font-family=\"sans-serif\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  text(out, 10, 20,
       "surge bench " + record.scene_name + ": ms per step by stage (left), speedup over cpu (right)",
       "start", 14);
  // One scale for every panel while the bars stay readable on it (the tallest within 5x of the shortest
  // panel's tallest); past that, each panel has its own and says so, or the small sizes' bars would vanish.
  double smallest = 1e300, largest = 0;
  for (const auto& group : groups) {
    smallest = std::min(smallest, largest_step_ms(group));
    largest = std::max(largest, largest_step_ms(group));
  }
  const bool shared_scale = largest <= 5 * smallest;
  for (std::size_t g = 0; g < groups.size(); ++g)
    stage_panel(out, kMargin + double(g) * (kPanelWidth + kMargin), groups[g],
                nice_ceiling(shared_scale ? largest : largest_step_ms(groups[g])), !shared_scale);
  // Stage legend under the bars.
  double x = kMargin;
  const double legend_y = kTop + kPanelHeight + 90;
  for (std::size_t s = 0; s < kStageNames.size(); ++s) {
    out << "<rect x=\"" << number(x) << "\" y=\"" << number(legend_y - 10)
        << "\" width=\"12\" height=\"12\" fill=\"" << kStageColours[s] << "\"/>\n";
    text(out, x + 16, legend_y, kStageNames[s], "start", 11);
    x += 95;
  }
  speedup_panel(out, stage_width, record);
  out << "</svg>\n";
}

}  // namespace surge::app
