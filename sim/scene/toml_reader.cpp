// The generic half of the scene loader: one TOML table read with type and range checks (toml_reader.h).
#include "sim/scene/toml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace surge {

namespace {

// Shortest text that reads back as the same value, so a message quotes a number as the user wrote it.
// Plain decimals over the range scene values live in ("100000", "0.0001"); exponents only beyond it.
template <typename T>
std::string shortest_text(T value) {
  std::array<char, 64> buffer{};
  const bool plain = value == 0 || (std::abs(value) >= T(1e-7) && std::abs(value) < T(1e9));
  const auto result =
      plain ? std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed)
            : std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// "(did you mean 'spacing'?)" for a near miss; otherwise the whole list, which is short in every table.
std::string suggest(std::string_view unknown, std::span<const std::string_view> known) {
  std::string_view closest;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  for (std::string_view candidate : known) {
    const std::size_t distance = edit_distance(unknown, candidate);
    if (distance < best) {
      best = distance;
      closest = candidate;
    }
  }
  if (!closest.empty() && best <= std::max<std::size_t>(2, closest.size() / 3)) {
    return "did you mean '" + std::string(closest) + "'?";
  }
  std::string list;
  for (std::string_view candidate : known) list += (list.empty() ? "" : ", ") + std::string(candidate);
  return "known: " + list;
}

// TOML keeps 1 and 1.0 apart; a float parameter accepts both because "rest_density = 1000" is natural.
std::optional<double> as_number(const toml::node& node) {
  if (node.is_integer()) return static_cast<double>(*node.value_exact<int64_t>());
  return node.value_exact<double>();
}

}  // namespace

std::string format_number(double value) {
  return shortest_text(value);
}
std::string format_number(float value) {
  return shortest_text(value);
}
std::string format_derived(double value) {
  std::array<char, 64> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 6);
  return std::string(buffer.data(), result.ptr);
}

std::string precision_note(double value) {
  const float stored = static_cast<float>(value);
  const bool lost = std::isfinite(value) && (!std::isfinite(stored) || (value != 0 && stored == 0));
  return lost ? " (beyond single precision)" : "";
}

std::string describe_type(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string \"" + std::string(*node.value<std::string_view>()) + "\"";
    case toml::node_type::integer:
      return "an integer (" + std::to_string(*node.value_exact<int64_t>()) + ")";
    case toml::node_type::floating_point: {
      // "10.0", not "10": the decimal point is the whole difference from an integer.
      std::string text = format_number(*node.value_exact<double>());
      if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
      return "a float (" + text + ")";
    }
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array of " + std::to_string(node.as_array()->size()) + " elements";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

std::string quoted_list(std::span<const std::string_view> names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += ", ";
    // Appended piece by piece: `"\"" + std::string(...)` trips GCC 12's false -Wrestrict (GCC bug 105329).
    text += '"';
    text += names[i];
    text += '"';
  }
  return text;
}

std::string unit_suffix(std::string_view unit) {
  return unit.empty() ? "" : " [" + std::string(unit) + "]";
}

std::string describe_range(const ValueRange& range) {
  if (range.unbounded()) return "";
  if (std::isinf(range.max)) return std::string(range.min_open ? " > " : " >= ") + format_number(range.min);
  return " in " + std::string(range.min_open ? "(" : "[") + format_number(range.min) + ", " +
         format_number(range.max) + (range.max_open ? ")" : "]");
}

TableReader::TableReader(const toml::table& table, std::string prefix, int table_line,
                         const std::filesystem::path& file, Scene& scene)
    : table_(table), prefix_(std::move(prefix)), table_line_(table_line), file_(file), scene_(scene) {
  for (auto&& [key, node] : table_) {
    const int line = static_cast<int>(key.source().begin.line);
    key_lines_[std::string(key.str())] = line > 0 ? line : static_cast<int>(node.source().begin.line);
  }
  for (const auto& [key, line] : key_lines_) scene_.key_lines[prefix_ + key] = line;
}

int TableReader::line_of(std::string_view key) const {
  const auto it = key_lines_.find(std::string(key));
  return it == key_lines_.end() ? table_line_ : it->second;
}

void TableReader::fail(std::string_view key, const std::string& problem) const {
  throw SceneError(file_, line_of(key), full_key(key), problem);
}

void TableReader::fail_table(const std::string& problem) const {
  throw SceneError(file_, table_line_, path(), problem);
}

void TableReader::fail_at(const toml::node& node, std::string_view key, const std::string& problem) const {
  throw SceneError(file_, static_cast<int>(node.source().begin.line), full_key(key), problem);
}

void TableReader::reject_unknown_keys(std::span<const std::string_view> known) const {
  std::optional<std::pair<int, std::string>> first_unknown;
  for (const auto& [key, line] : key_lines_) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    if (!first_unknown || line < first_unknown->first) first_unknown = {line, key};
  }
  if (first_unknown) {
    const std::string& key = first_unknown->second;
    const bool is_table = table_.get(key)->is_table() || table_.get(key)->is_array_of_tables();
    fail(key, std::string(is_table ? "unknown table" : "unknown key") + " (" + suggest(key, known) + ")");
  }
}

std::optional<float> TableReader::number(std::string_view key, std::string_view unit,
                                         ValueRange range) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const std::string expected = "expected a number" + describe_range(range) + unit_suffix(unit);
  const std::optional<double> value = as_number(*node);
  if (!value) fail(key, expected + ", got " + describe_type(*node));
  if (!range.contains(static_cast<float>(*value))) {
    fail(key, expected + ", got " + format_number(*value) + precision_note(*value));
  }
  return static_cast<float>(*value);
}

std::optional<int64_t> TableReader::integer(std::string_view key, IntegerRange range) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const std::string expected = "expected an integer" + range.describe();
  const std::optional<int64_t> value = node->value_exact<int64_t>();
  if (!value) fail(key, expected + ", got " + describe_type(*node));
  if (!range.contains(*value)) fail(key, expected + ", got " + std::to_string(*value));
  return value;
}

std::optional<Vec3f> TableReader::vec3(std::string_view key, std::string_view unit, ValueRange each) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const std::string expected = "expected an array of 3 numbers" +
                               (each.unbounded() ? "" : " each" + describe_range(each)) + unit_suffix(unit);
  const toml::array* array = node->as_array();
  if (!array || array->size() != 3) fail(key, expected + ", got " + describe_type(*node));
  std::array<float, 3> xyz{};
  for (int axis = 0; axis < 3; ++axis) {
    const toml::node& element = *array->get(static_cast<std::size_t>(axis));
    const std::optional<double> value = as_number(element);
    if (!value)
      fail_at(element, key, expected + ", got " + describe_type(element) + " for " + kAxisNames[axis]);
    xyz[axis] = static_cast<float>(*value);
    if (!each.contains(xyz[axis])) {
      fail_at(
          element, key,
          expected + ", got " + kAxisNames[axis] + " = " + format_number(*value) + precision_note(*value));
    }
  }
  return Vec3f{xyz[0], xyz[1], xyz[2]};
}

std::optional<bool> TableReader::boolean(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const std::optional<bool> value = node->value_exact<bool>();
  if (!value) fail(key, "expected true or false, got " + describe_type(*node));
  return value;
}

std::optional<std::string> TableReader::string(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const std::optional<std::string> value = node->value_exact<std::string>();
  if (!value) fail(key, "expected a string, got " + describe_type(*node));
  return value;
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               std::span<const std::string_view> accepted) const {
  const std::optional<std::string> value = string(key);
  if (value && std::find(accepted.begin(), accepted.end(), *value) == accepted.end()) {
    fail(key, "expected one of " + quoted_list(accepted) + ", got \"" + *value + "\"");
  }
  return value;
}

std::optional<std::vector<std::string>> TableReader::distinct_names(
    std::string_view key, std::span<const std::string_view> accepted) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const std::string expected = "expected an array of distinct names from " + quoted_list(accepted);
  const toml::array* array = node->as_array();
  if (!array) fail(key, expected + ", got " + describe_type(*node));
  std::vector<std::string> names;
  for (const toml::node& element : *array) {
    const std::optional<std::string> name = element.value_exact<std::string>();
    if (!name) fail_at(element, key, expected + ", got " + describe_type(element));
    if (std::find(accepted.begin(), accepted.end(), *name) == accepted.end()) {
      fail_at(element, key, expected + ", got \"" + *name + "\"");
    }
    if (std::find(names.begin(), names.end(), *name) != names.end()) {
      fail_at(element, key, "\"" + *name + "\" is listed twice");
    }
    names.push_back(*name);
  }
  return names;
}

TableReader TableReader::table(std::string_view key, bool required) const {
  static const toml::table empty;
  const toml::node* node = table_.get(key);
  if (!node) {
    if (required) fail(key, "required table [" + full_key(key) + "] is missing");
    return TableReader(empty, full_key(key) + ".", line_of(key), file_, scene_);
  }
  if (!node->is_table()) fail(key, "expected a table [" + full_key(key) + "], got " + describe_type(*node));
  return TableReader(*node->as_table(), full_key(key) + ".", line_of(key), file_, scene_);
}

const toml::array& TableReader::array_of_tables(std::string_view key, std::string_view purpose) const {
  const std::string header = "[[" + full_key(key) + "]]";
  const toml::node* node = table_.get(key);
  if (!node) fail(key, "at least one " + header + " is required (" + std::string(purpose) + ")");
  if (!node->is_array_of_tables()) {
    fail(key, "expected one or more " + header + " tables, got " + describe_type(*node));
  }
  return *node->as_array();
}

TableReader TableReader::element_table(const toml::array& array, std::string_view key,
                                       std::size_t index) const {
  const toml::node& element = *array.get(index);
  const std::string prefix = full_key(key) + "[" + std::to_string(index) + "]";
  const int line = static_cast<int>(element.source().begin.line);
  scene_.key_lines[prefix] = line;
  return TableReader(*element.as_table(), prefix + ".", line, file_, scene_);
}

}  // namespace surge
