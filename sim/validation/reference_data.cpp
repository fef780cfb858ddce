#include "sim/validation/reference_data.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

namespace surge {

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(
        trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

std::size_t column_index(const ReferenceTable& table, const std::string& column) {
  const auto it = std::find(table.columns.begin(), table.columns.end(), column);
  if (it == table.columns.end())
    throw std::runtime_error(table.path.string() + ": no column '" + column + "' in the header row");
  return std::size_t(it - table.columns.begin());
}

}  // namespace

ReferenceTable read_reference_table(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the reference data file");
  ReferenceTable table;
  table.path = path;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trim(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      table.comments.push_back(trim(text.substr(1)));
      continue;
    }
    std::vector<std::string> fields = split_fields(text);
    if (table.columns.empty()) {
      table.columns = std::move(fields);
      continue;
    }
    if (fields.size() != table.columns.size())
      throw std::runtime_error(path.string() + ":" + std::to_string(number) + ": expected " +
                               std::to_string(table.columns.size()) + " fields, got " +
                               std::to_string(fields.size()));
    table.rows.push_back(std::move(fields));
    table.row_lines.push_back(number);
  }
  if (table.columns.empty()) throw std::runtime_error(path.string() + ": no header row");
  return table;
}

Curve ReferenceTable::curve(const std::string& x_column, const std::string& y_column,
                            const std::string& series_column, const std::string& series) const {
  const std::size_t ix = column_index(*this, x_column), iy = column_index(*this, y_column);
  const std::size_t is = series_column.empty() ? 0 : column_index(*this, series_column);
  std::vector<std::pair<double, double>> points;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!series_column.empty() && rows[r][is] != series) continue;
    const auto number = [&](std::size_t column) {
      try {
        std::size_t used = 0;
        const double value = std::stod(rows[r][column], &used);
        if (used == rows[r][column].size() && std::isfinite(value)) return value;
      } catch (const std::logic_error&) {
      }
      throw std::runtime_error(path.string() + ":" + std::to_string(row_lines[r]) + ": column '" +
                               columns[column] + "': expected a number, got '" + rows[r][column] + "'");
    };
    points.emplace_back(number(ix), number(iy));
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Curve curve;
  for (const auto& [x, y] : points) {
    curve.x.push_back(x);
    curve.y.push_back(y);
  }
  return curve;
}

std::vector<std::string> ReferenceTable::distinct(const std::string& column) const {
  const std::size_t index = column_index(*this, column);
  std::vector<std::string> values;
  for (const auto& row : rows)
    if (std::find(values.begin(), values.end(), row[index]) == values.end()) values.push_back(row[index]);
  return values;
}

}  // namespace surge
