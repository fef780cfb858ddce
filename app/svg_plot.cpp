#include "app/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace surge::app::plot {

namespace {

constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";

// Panel margins around the plotting area [px]: room for tick labels and axis labels.
constexpr double kMarginLeft = 70, kMarginRight = 20, kMarginTop = 40, kMarginBottom = 55;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// A tick label without trailing zeros: 0.5, 2, 1.25, 1e+06.
std::string tick_label(double value, double step) {
  if (std::abs(value) < step * 1e-9) value = 0;
  const int decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
  char text[32];
  if (std::abs(value) >= 1e6 || (value != 0 && std::abs(value) < 1e-4)) {
    std::snprintf(text, sizeof text, "%g", value);
  } else {
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void include(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
};

// Limits of one axis: the given ones, else the data's widened to the outer ticks.
std::pair<double, double> axis_limits(const Range& data, std::optional<double> lo, std::optional<double> hi) {
  double a = lo.value_or(data.empty() ? 0.0 : data.lo), b = hi.value_or(data.empty() ? 1.0 : data.hi);
  if (!(b > a)) {
    const double pad = a == 0 ? 1.0 : std::abs(a) * 0.1;
    if (!lo) a -= pad;
    if (!hi) b += pad;
    if (!(b > a)) b = a + 1;
  }
  const std::vector<double> ticks = nice_ticks(a, b);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : (b - a);
  if (!lo) a = std::floor(a / step + 1e-9) * step;
  if (!hi) b = std::ceil(b / step - 1e-9) * step;
  return {a, b};
}

void draw_marker(std::ostringstream& svg, Marker marker, double x, double y, double r,
                 const std::string& colour) {
  switch (marker) {
    case Marker::circle:
      svg << "<circle cx=\"" << number(x) << "\" cy=\"" << number(y) << "\" r=\"" << number(r) << "\"";
      break;
    case Marker::square:
      svg << "<rect x=\"" << number(x - r) << "\" y=\"" << number(y - r) << "\" width=\"" << number(2 * r)
          << "\" height=\"" << number(2 * r) << "\"";
      break;
    case Marker::triangle:
      svg << "<polygon points=\"" << number(x) << "," << number(y - 1.15 * r) << " " << number(x - r) << ","
          << number(y + 0.85 * r) << " " << number(x + r) << "," << number(y + 0.85 * r) << "\"";
      break;
    case Marker::diamond:
      svg << "<polygon points=\"" << number(x) << "," << number(y - 1.3 * r) << " " << number(x + r) << ","
          << number(y) << " " << number(x) << "," << number(y + 1.3 * r) << " " << number(x - r) << ","
          << number(y) << "\"";
      break;
  }
  svg << " fill=\"none\" stroke=\"" << escape_xml(colour) << "\" stroke-width=\"1.6\"/>\n";
}

void draw_panel(std::ostringstream& svg, const Axes& axes, double left, double top, double width,
                double height, int panel_index) {
  Range xr, yr;
  for (const Series& s : axes.series) {
    for (double v : s.x) xr.include(v);
    for (double v : s.y) yr.include(v);
  }
  const auto [x0, x1] = axis_limits(xr, axes.x_min, axes.x_max);
  const auto [y0, y1] = axis_limits(yr, axes.y_min, axes.y_max);
  const double px0 = left + kMarginLeft, px1 = left + width - kMarginRight;
  const double py0 = top + height - kMarginBottom, py1 = top + kMarginTop;  // py0: bottom (y0)
  const auto to_x = [&](double v) { return px0 + (v - x0) / (x1 - x0) * (px1 - px0); };
  const auto to_y = [&](double v) { return py0 + (v - y0) / (y1 - y0) * (py1 - py0); };

  const std::string clip = "plot-area-" + std::to_string(panel_index);
  svg << "<defs><clipPath id=\"" << clip << "\"><rect x=\"" << number(px0) << "\" y=\"" << number(py1)
      << "\" width=\"" << number(px1 - px0) << "\" height=\"" << number(py0 - py1)
      << "\"/></clipPath></defs>\n";

  // Grid and ticks.
  svg << "<g font-family=\"" << kFont << "\" font-size=\"13\" fill=\"#333\">\n";
  const std::vector<double> xt = nice_ticks(x0, x1), yt = nice_ticks(y0, y1);
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double v : xt) {
    if (v < x0 - 1e-9 * xstep || v > x1 + 1e-9 * xstep) continue;
    const double x = to_x(v);
    svg << "<line x1=\"" << number(x) << "\" y1=\"" << number(py0) << "\" x2=\"" << number(x) << "\" y2=\""
        << number(py1) << "\" stroke=\"#e3e3e3\" stroke-width=\"1\"/>\n";
    svg << "<text x=\"" << number(x) << "\" y=\"" << number(py0 + 18) << "\" text-anchor=\"middle\">"
        << tick_label(v, xstep) << "</text>\n";
  }
  for (double v : yt) {
    if (v < y0 - 1e-9 * ystep || v > y1 + 1e-9 * ystep) continue;
    const double y = to_y(v);
    svg << "<line x1=\"" << number(px0) << "\" y1=\"" << number(y) << "\" x2=\"" << number(px1) << "\" y2=\""
        << number(y) << "\" stroke=\"#e3e3e3\" stroke-width=\"1\"/>\n";
    svg << "<text x=\"" << number(px0 - 8) << "\" y=\"" << number(y + 4.5) << "\" text-anchor=\"end\">"
        << tick_label(v, ystep) << "</text>\n";
  }
  svg << "<rect x=\"" << number(px0) << "\" y=\"" << number(py1) << "\" width=\"" << number(px1 - px0)
      << "\" height=\"" << number(py0 - py1) << "\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.2\"/>\n";
  // Axis labels and title.
  svg << "<text x=\"" << number((px0 + px1) / 2) << "\" y=\"" << number(py0 + 42)
      << "\" text-anchor=\"middle\" font-size=\"15\">" << escape_xml(axes.x_label) << "</text>\n";
  const double ly = (py0 + py1) / 2, lx = left + 20;
  svg << "<text x=\"" << number(lx) << "\" y=\"" << number(ly)
      << "\" text-anchor=\"middle\" font-size=\"15\" "
      << "transform=\"rotate(-90 " << number(lx) << " " << number(ly) << ")\">" << escape_xml(axes.y_label)
      << "</text>\n";
  if (!axes.title.empty())
    svg << "<text x=\"" << number((px0 + px1) / 2) << "\" y=\"" << number(py1 - 12)
        << "\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" << escape_xml(axes.title)
        << "</text>\n";
  svg << "</g>\n";

  // Series, clipped to the plotting area.
  svg << "<g clip-path=\"url(#" << clip << ")\">\n";
  for (const Series& s : axes.series) {
    const std::size_t n = std::min(s.x.size(), s.y.size());
    if (s.kind == SeriesKind::line) {
      svg << "<polyline fill=\"none\" stroke=\"" << escape_xml(s.colour) << "\" stroke-width=\""
          << number(s.line_width) << "\" stroke-linejoin=\"round\""
          << (s.dashed ? " stroke-dasharray=\"7,5\"" : "") << " points=\"";
      for (std::size_t k = 0; k < n; ++k)
        if (std::isfinite(s.x[k]) && std::isfinite(s.y[k]))
          svg << number(to_x(s.x[k])) << "," << number(to_y(s.y[k])) << " ";
      svg << "\"/>\n";
    } else {
      for (std::size_t k = 0; k < n; ++k)
        if (std::isfinite(s.x[k]) && std::isfinite(s.y[k]))
          draw_marker(svg, s.marker, to_x(s.x[k]), to_y(s.y[k]), s.marker_size, s.colour);
    }
  }
  svg << "</g>\n";

  // Legend: a white box in the chosen corner, one row per labelled series.
  std::vector<const Series*> listed;
  std::size_t longest = 0;
  for (const Series& s : axes.series)
    if (!s.label.empty()) {
      listed.push_back(&s);
      longest = std::max(longest, s.label.size());
    }
  if (listed.empty()) return;
  const double row = 20, box_w = 44 + 7.2 * double(longest), box_h = row * double(listed.size()) + 10;
  const bool right = axes.legend == LegendCorner::top_right || axes.legend == LegendCorner::bottom_right;
  const bool bottom = axes.legend == LegendCorner::bottom_left || axes.legend == LegendCorner::bottom_right;
  const double bx = right ? px1 - box_w - 10 : px0 + 10, by = bottom ? py0 - box_h - 10 : py1 + 10;
  svg << "<g font-family=\"" << kFont << "\" font-size=\"13\" fill=\"#222\">\n";
  svg << "<rect x=\"" << number(bx) << "\" y=\"" << number(by) << "\" width=\"" << number(box_w)
      << "\" height=\"" << number(box_h)
      << "\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#999\" stroke-width=\"1\"/>\n";
  for (std::size_t k = 0; k < listed.size(); ++k) {
    const Series& s = *listed[k];
    const double cy = by + 5 + row * (double(k) + 0.5);
    if (s.kind == SeriesKind::line) {
      svg << "<line x1=\"" << number(bx + 8) << "\" y1=\"" << number(cy) << "\" x2=\"" << number(bx + 32)
          << "\" y2=\"" << number(cy) << "\" stroke=\"" << escape_xml(s.colour) << "\" stroke-width=\""
          << number(s.line_width) << "\"" << (s.dashed ? " stroke-dasharray=\"7,5\"" : "") << "/>\n";
    } else {
      draw_marker(svg, s.marker, bx + 20, cy, s.marker_size, s.colour);
    }
    svg << "<text x=\"" << number(bx + 38) << "\" y=\"" << number(cy + 4.5) << "\">" << escape_xml(s.label)
        << "</text>\n";
  }
  svg << "</g>\n";
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return ticks;
  const double raw = (hi - lo) / double(target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_svg(const Figure& figure) {
  std::ostringstream svg;
  const double title_h = figure.title.empty() ? 0 : 34, note_h = figure.note.empty() ? 0 : 22;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << figure.width
      << "\" height=\"" << figure.height << "\" viewBox=\"0 0 " << figure.width << " " << figure.height
      << "\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!figure.title.empty())
    svg << "<text x=\"" << number(figure.width / 2.0) << "\" y=\"24\" text-anchor=\"middle\" font-family=\""
        << kFont << "\" font-size=\"18\" font-weight=\"bold\" fill=\"#111\">" << escape_xml(figure.title)
        << "</text>\n";
  const std::size_t panels = std::max<std::size_t>(1, figure.panels.size());
  const double panel_w = double(figure.width) / double(panels);
  for (std::size_t k = 0; k < figure.panels.size(); ++k)
    draw_panel(svg, figure.panels[k], panel_w * double(k), title_h, panel_w,
               double(figure.height) - title_h - note_h, int(k));
  if (!figure.note.empty())
    svg << "<text x=\"10\" y=\"" << number(figure.height - 7.0) << "\" font-family=\"" << kFont
        << "\" font-size=\"11\" fill=\"#666\">" << escape_xml(figure.note) << "</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace surge::app::plot
