// Small SVG charts: one or more panels side by side, each with axes, ticks, labels, a legend and series
// drawn as lines or as point markers. Plain SVG 1.1 (no scripts, no external fonts) so browsers, Inkscape
// and rsvg-convert (app/svg_rasterizer.h) all render it the same way.
//
//   plot::Figure figure{.title = "Dam break"};
//   plot::Axes& front = figure.panels.emplace_back();
//   front.x_label = "T";
//   front.series.push_back({.label = "simulation", .x = t, .y = z});
//   front.series.push_back({.label = "experiment", .x = te, .y = ze, .kind = plot::SeriesKind::points});
//   std::string svg = plot::render_svg(figure);
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace surge::app::plot {

enum class SeriesKind { line, points };
enum class Marker { circle, square, triangle, diamond };
enum class LegendCorner { top_left, top_right, bottom_left, bottom_right };

struct Series {
  std::string label;  // legend text; empty: not in the legend
  std::vector<double> x;
  std::vector<double> y;
  SeriesKind kind = SeriesKind::line;
  std::string colour = "#1f77b4";  // any SVG colour
  double line_width = 2.0;         // [px], lines
  bool dashed = false;             // lines
  Marker marker = Marker::circle;  // points
  double marker_size = 4.5;        // [px] half-width of a marker
};

struct Axes {
  std::string title;
  std::string x_label;
  std::string y_label;
  // Limits; unset ones follow the data (with a little margin), then widen to whole ticks.
  std::optional<double> x_min, x_max, y_min, y_max;
  std::vector<Series> series;
  LegendCorner legend = LegendCorner::top_left;
};

struct Figure {
  int width = 1200;   // [px]
  int height = 520;   // [px]
  std::string title;  // above every panel; empty: none
  std::string note;   // one line of small text at the bottom (e.g. the command that made it); empty: none
  std::vector<Axes> panels;  // drawn side by side, equal widths
};

std::string render_svg(const Figure& figure);

// About `target` round tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

// Text made safe for SVG: &, <, >, " escaped.
std::string escape_xml(const std::string& text);

}  // namespace surge::app::plot
