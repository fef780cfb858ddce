// Experimental reference data as shipped in assets/validation/*.csv: '#' lines naming the source, then one
// header row, then numbers. A curve is one pair of columns, optionally one value of a 'series' column.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace surge {

// Samples y(x), sorted by x.
struct Curve {
  std::vector<double> x;
  std::vector<double> y;
  std::size_t size() const { return x.size(); }
};

struct ReferenceTable {
  std::filesystem::path path;
  std::vector<std::string> comments;  // the '#' lines without the '#', the citation among them
  std::vector<std::string> columns;   // header row
  std::vector<std::vector<std::string>> rows;
  std::vector<int> row_lines;  // 1-based line of each row, for messages

  // The curve of columns x_column, y_column; with series_column given, only rows whose value there is
  // `series`. Throws std::runtime_error "FILE:LINE: ..." for a missing column or a cell that is no number.
  Curve curve(const std::string& x_column, const std::string& y_column, const std::string& series_column = "",
              const std::string& series = "") const;
  // Distinct values of a column, in order of first appearance.
  std::vector<std::string> distinct(const std::string& column) const;
};

// Throws std::runtime_error naming the file (and line) when it cannot be read or has no header row.
ReferenceTable read_reference_table(const std::filesystem::path& path);

}  // namespace surge
