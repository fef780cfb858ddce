// Scene files (format: docs/scenes.md) read with toml++. Every value is type- and range-checked here, so
// the engine never sees a bad parameter and the user sees the file, line and key of each mistake.
//
// Sections: formatting helpers, ranges, TableReader (one TOML table, with key lines and error reporting),
// the parameter tables, one reader per scene table, load_scene/parse_scene.
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string_view>

#include "sim/scene/scene.h"

namespace surge {

SceneError::SceneError(std::filesystem::path file, int line, std::string key, const std::string& problem)
    : std::runtime_error(file.string() + ":" + std::to_string(line) + ": key '" + key + "': " + problem),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// ---- Formatting helpers

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
std::string format_number(double value) {
  return shortest_text(value);
}
// Values the scene stores as float, printed as the float they became ("0.001", not "0.0010000000474974513").
std::string format_number(float value) {
  return shortest_text(value);
}
// A value the user never wrote (centre + radius), to 6 significant digits so rounding noise does not show.
std::string format_derived(double value) {
  std::array<char, 64> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 6);
  return std::string(buffer.data(), result.ptr);
}

// Explains a rejection of a value that only the conversion to the engine's float broke (1e300, 1e-50).
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

// ---- Ranges, written into messages the way docs/scenes.md writes them

struct Range {
  double min = -kInfinity;
  double max = kInfinity;
  bool min_open = false;
  bool max_open = false;

  static constexpr Range above(double low) { return {low, kInfinity, true, false}; }
  static constexpr Range at_least(double low) { return {low, kInfinity, false, false}; }
  static constexpr Range closed(double low, double high) { return {low, high, false, false}; }
  static constexpr Range left_open(double low, double high) { return {low, high, true, false}; }
  static constexpr Range any() { return {}; }

  // Checked on the float the engine will store, so an overflow to inf or an underflow to 0 is caught.
  bool contains(float value) const {
    if (!std::isfinite(value)) return false;
    const bool above_min = min_open ? value > min : value >= min;
    const bool below_max = max_open ? value < max : value <= max;
    return above_min && below_max;
  }

  std::string describe() const {
    if (min == -kInfinity && max == kInfinity) return "";
    if (max == kInfinity) return std::string(min_open ? " > " : " >= ") + format_number(min);
    return " in " + std::string(min_open ? "(" : "[") + format_number(min) + ", " + format_number(max) +
           (max_open ? ")" : "]");
  }
};

struct IntegerRange {
  int64_t min = 0;
  int64_t max = 0;
  bool contains(int64_t value) const { return value >= min && value <= max; }
  std::string describe() const { return " in [" + std::to_string(min) + ", " + std::to_string(max) + "]"; }
};

float component(Vec3f v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}
constexpr std::array<const char*, 3> kAxisNames = {"x", "y", "z"};

// ---- One TOML table: typed reads with range checks, errors with the key's line

class TableReader {
 public:
  // `prefix` is the table's path with a trailing dot ("domain.", "fluid.block[0].", "" for the root).
  TableReader(const toml::table& table, std::string prefix, int table_line, const std::filesystem::path& file,
              Scene& scene)
      : table_(table), prefix_(std::move(prefix)), table_line_(table_line), file_(file), scene_(scene) {
    for (auto&& [key, node] : table_) {
      const int line = static_cast<int>(key.source().begin.line);
      key_lines_[std::string(key.str())] = line > 0 ? line : static_cast<int>(node.source().begin.line);
    }
    for (const auto& [key, line] : key_lines_) scene_.key_lines[prefix_ + key] = line;
  }

  const std::filesystem::path& file() const { return file_; }
  Scene& scene() const { return scene_; }
  int table_line() const { return table_line_; }
  std::string full_key(std::string_view key) const { return prefix_ + std::string(key); }
  std::string path() const { return prefix_.empty() ? "" : prefix_.substr(0, prefix_.size() - 1); }
  bool has(std::string_view key) const { return table_.contains(key); }

  // The key's own line when it is in the file, else the table's (where a missing key belongs).
  int line_of(std::string_view key) const {
    const auto it = key_lines_.find(std::string(key));
    return it == key_lines_.end() ? table_line_ : it->second;
  }

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const {
    throw SceneError(file_, line_of(key), full_key(key), problem);
  }
  // A problem of the table as a whole ("needs one of ..."), reported at its header.
  [[noreturn]] void fail_table(const std::string& problem) const {
    throw SceneError(file_, table_line_, path(), problem);
  }
  [[noreturn]] void fail_at(const toml::node& node, std::string_view key, const std::string& problem) const {
    throw SceneError(file_, static_cast<int>(node.source().begin.line), full_key(key), problem);
  }

  // Reports the unknown key nearest the top of the file, so fixing errors in order works.
  void reject_unknown_keys(std::span<const std::string_view> known) const {
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

  std::optional<float> number(std::string_view key, std::string_view unit, Range range) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    const std::string expected = "expected a number" + range.describe() + unit_suffix(unit);
    const std::optional<double> value = as_number(*node);
    if (!value) fail(key, expected + ", got " + describe_type(*node));
    if (!range.contains(static_cast<float>(*value))) {
      fail(key, expected + ", got " + format_number(*value) + precision_note(*value));
    }
    return static_cast<float>(*value);
  }

  std::optional<int64_t> integer(std::string_view key, IntegerRange range) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    const std::string expected = "expected an integer" + range.describe();
    const std::optional<int64_t> value = node->value_exact<int64_t>();
    if (!value) fail(key, expected + ", got " + describe_type(*node));
    if (!range.contains(*value)) fail(key, expected + ", got " + std::to_string(*value));
    return value;
  }

  std::optional<Vec3f> vec3(std::string_view key, std::string_view unit, Range each = Range::any()) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    const std::string expected = "expected an array of 3 numbers" +
                                 (each.describe().empty() ? "" : " each" + each.describe()) +
                                 unit_suffix(unit);
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

  std::optional<bool> boolean(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    const std::optional<bool> value = node->value_exact<bool>();
    if (!value) fail(key, "expected true or false, got " + describe_type(*node));
    return value;
  }

  std::optional<std::string> string(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    const std::optional<std::string> value = node->value_exact<std::string>();
    if (!value) fail(key, "expected a string, got " + describe_type(*node));
    return value;
  }

  std::optional<std::string> choice(std::string_view key, std::span<const std::string_view> accepted) const {
    const std::optional<std::string> value = string(key);
    if (value && std::find(accepted.begin(), accepted.end(), *value) == accepted.end()) {
      fail(key, "expected one of " + quoted_list(accepted) + ", got \"" + *value + "\"");
    }
    return value;
  }

  // An array of distinct names from `accepted`; errors point at the offending element's line.
  std::optional<std::vector<std::string>> distinct_names(std::string_view key,
                                                         std::span<const std::string_view> accepted) const {
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

  template <typename T>
  T required(std::optional<T> value, std::string_view key, std::string_view expected) const {
    if (!value) fail(key, "required key is missing (expected " + std::string(expected) + ")");
    return *value;
  }

  // A sub-table; an absent optional table reads as empty, so its keys take their defaults.
  TableReader table(std::string_view key, bool required) const {
    static const toml::table empty;
    const toml::node* node = table_.get(key);
    if (!node) {
      if (required) fail(key, "required table [" + full_key(key) + "] is missing");
      return TableReader(empty, full_key(key) + ".", line_of(key), file_, scene_);
    }
    if (!node->is_table()) fail(key, "expected a table [" + full_key(key) + "], got " + describe_type(*node));
    return TableReader(*node->as_table(), full_key(key) + ".", line_of(key), file_, scene_);
  }

  const toml::node* get(std::string_view key) const { return table_.get(key); }

  // Calls visit(reader) for each table of the required array of tables [[PATH.key]], in file order; `purpose`
  // completes "at least one [[PATH.key]] is required (...)". Each table's line is recorded for later errors.
  template <typename Visit>
  void for_each_table(std::string_view key, std::string_view purpose, Visit&& visit) const {
    const std::string header = "[[" + full_key(key) + "]]";
    const toml::node* node = table_.get(key);
    if (!node) fail(key, "at least one " + header + " is required (" + std::string(purpose) + ")");
    if (!node->is_array_of_tables()) {
      fail(key, "expected one or more " + header + " tables, got " + describe_type(*node));
    }
    const toml::array& array = *node->as_array();
    for (std::size_t i = 0; i < array.size(); ++i) {
      const toml::node& element = *array.get(i);
      const std::string prefix = full_key(key) + "[" + std::to_string(i) + "]";
      const int line = static_cast<int>(element.source().begin.line);
      scene_.key_lines[prefix] = line;
      visit(TableReader(*element.as_table(), prefix + ".", line, file_, scene_));
    }
  }

 private:
  // TOML keeps 1 and 1.0 apart; a float parameter accepts both because "rest_density = 1000" is natural.
  static std::optional<double> as_number(const toml::node& node) {
    if (node.is_integer()) return static_cast<double>(*node.value_exact<int64_t>());
    return node.value_exact<double>();
  }

  const toml::table& table_;
  std::string prefix_;
  int table_line_;
  const std::filesystem::path& file_;
  Scene& scene_;
  std::map<std::string, int> key_lines_;
};

// ---- Parameters declared once: key, unit, range (docs/scenes.md mirrors these tables)

struct NumberKey {
  std::string_view key;
  float Scene::*member;
  std::string_view unit;  // empty for dimensionless
  Range range;
};

constexpr std::array kFluidNumbers = {
    NumberKey{"rest_density", &Scene::rest_density, "kg/m^3", Range::left_open(0, 1e5)},
    NumberKey{"speed_of_sound", &Scene::speed_of_sound, "m/s", Range::at_least(0)},
    NumberKey{"tait_exponent", &Scene::tait_exponent, "", Range::closed(1, 10)},
    NumberKey{"viscosity_alpha", &Scene::viscosity_alpha, "", Range::closed(0, 1)},
    NumberKey{"xsph_epsilon", &Scene::xsph_epsilon, "", Range::closed(0, 1)},
};

constexpr std::array kTimeNumbers = {
    NumberKey{"end", &Scene::end_time, "s", Range::above(0)},
    NumberKey{"cfl", &Scene::cfl, "", Range::left_open(0, 1)},
    NumberKey{"dt_max", &Scene::dt_max, "s", Range::above(0)},
    NumberKey{"dt_min", &Scene::dt_min, "s", Range::above(0)},
};

void read_numbers(const TableReader& table, std::span<const NumberKey> keys) {
  for (const NumberKey& key : keys) {
    if (auto value = table.number(key.key, key.unit, key.range)) table.scene().*key.member = *value;
  }
}

std::vector<std::string_view> keys_of(std::span<const NumberKey> numbers,
                                      std::initializer_list<std::string_view> others) {
  std::vector<std::string_view> keys(others);
  for (const NumberKey& number : numbers) keys.push_back(number.key);
  return keys;
}

constexpr std::array<std::string_view, 5> kSolvers = {"wcsph", "dfsph", "pbf", "nbody", "dem"};
constexpr std::array<std::string_view, 2> kKernels = {"cubic_spline", "wendland_c2"};
constexpr std::array<std::string_view, 2> kShapes = {"box", "sphere"};
constexpr std::array<std::string_view, 2> kFormats = {"vtk", "ply"};
constexpr std::array<std::string_view, 6> kFaces = {kFaceNames[0], kFaceNames[1], kFaceNames[2],
                                                    kFaceNames[3], kFaceNames[4], kFaceNames[5]};
// A wall layer must be at least one particle thick; beyond 4 the extra layers sit outside any kernel support.
constexpr IntegerRange kWallLayers{1, 4};
constexpr IntegerRange kParticles{1, 2'000'000'000};
constexpr IntegerRange kEvery{0, std::numeric_limits<int>::max()};

// ---- One reader per scene table

void read_identity(const TableReader& root, Scene& scene) {
  if (auto name = root.string("name")) {
    // The name becomes part of output file names (NAME_000000.vtp).
    if (name->empty() || name->find_first_of("/\\") != std::string::npos) {
      root.fail("name", "expected a non-empty name without '/' or '\\' (it names output files), got \"" +
                            *name + "\"");
    }
    scene.name = *name;
  } else {
    scene.name = scene.path.stem().string();
    if (scene.name.empty()) scene.name = "scene";
  }
  if (auto solver = root.choice("solver", kSolvers)) scene.solver = *solver;
}

void read_domain(const TableReader& domain, Scene& scene) {
  static constexpr std::array<std::string_view, 4> kKeys = {"min", "max", "walls", "wall_layers"};
  domain.reject_unknown_keys(kKeys);
  scene.domain_min = domain.required(domain.vec3("min", "m"), "min", "an array of 3 numbers [m]");
  scene.domain_max = domain.required(domain.vec3("max", "m"), "max", "an array of 3 numbers [m]");
  for (int axis = 0; axis < 3; ++axis) {
    if (!(component(scene.domain_max, axis) > component(scene.domain_min, axis))) {
      domain.fail("max", std::string("expected each component greater than min's, got ") + kAxisNames[axis] +
                             ": max " + format_number(component(scene.domain_max, axis)) + " <= min " +
                             format_number(component(scene.domain_min, axis)));
    }
  }

  // An open top is the usual tank: a lid would only matter for splashes that reach it.
  scene.walls = {true, true, true, true, true, false};
  if (auto walls = domain.distinct_names("walls", kFaces)) {
    scene.walls.fill(false);
    for (const std::string& wall : *walls) {
      scene.walls[static_cast<std::size_t>(std::find(kFaces.begin(), kFaces.end(), wall) - kFaces.begin())] =
          true;
    }
  }
  if (scene.solver == "dem" && domain.has("wall_layers")) {
    domain.fail("wall_layers",
                "does not apply to solver \"dem\" (its walls are the planes of the domain "
                "faces; build thicker walls from fixed grains, [[dem.block]] fixed = true)");
  }
  if (auto layers = domain.integer("wall_layers", kWallLayers)) scene.wall_layers = static_cast<int>(*layers);
}

void read_resolution(const TableReader& resolution, Scene& scene) {
  static constexpr std::array<std::string_view, 4> kKeys = {"spacing", "particles", "support_ratio",
                                                            "kernel"};
  resolution.reject_unknown_keys(kKeys);
  const bool has_spacing = resolution.has("spacing");
  const bool has_particles = resolution.has("particles");
  if (has_spacing && has_particles) {
    const bool particles_later = resolution.line_of("particles") > resolution.line_of("spacing");
    resolution.fail(particles_later ? "particles" : "spacing",
                    "give exactly one of 'spacing' [m] and 'particles', not both");
  }
  if (!has_spacing && !has_particles) {
    resolution.fail_table(
        "needs exactly one of 'spacing' [m] and 'particles' (target fluid particle count), found neither");
  }

  if (auto spacing = resolution.number("spacing", "m", Range::above(0))) {
    const Vec3f extent = scene.domain_max - scene.domain_min;
    const float smallest = std::min({extent.x, extent.y, extent.z});
    if (!(*spacing < smallest)) {
      resolution.fail("spacing", "expected a spacing below the smallest domain extent " +
                                     format_number(smallest) + " [m], got " + format_number(*spacing));
    }
    scene.spacing = *spacing;
  }
  if (auto particles = resolution.integer("particles", kParticles)) scene.target_particles = *particles;
  if (auto ratio = resolution.number("support_ratio", "", Range::closed(1.5, 3.0)))
    scene.support_ratio = *ratio;
  if (auto kernel = resolution.choice("kernel", kKernels)) {
    scene.kernel = *kernel == "wendland_c2" ? KernelType::wendland_c2 : KernelType::cubic_spline;
  }
}

void check_inside_domain(const TableReader& block_table, const FluidBlock& block, const Scene& scene) {
  const bool sphere = block.shape == FluidBlock::Shape::sphere;
  const Vec3f extent = scene.domain_max - scene.domain_min;
  // A sphere written to touch a wall (centre 0.99, radius 0.01, wall 1) overshoots it by a rounding error;
  // a micron per metre of tank forgives that and nothing a user could mean.
  const double tolerance = 1e-6 * std::max({extent.x, extent.y, extent.z});
  for (int axis = 0; axis < 3; ++axis) {
    const double low =
        sphere ? double(component(block.center, axis)) - block.radius : component(block.min, axis);
    const double high =
        sphere ? double(component(block.center, axis)) + block.radius : component(block.max, axis);
    const float domain_low = component(scene.domain_min, axis);
    const float domain_high = component(scene.domain_max, axis);
    if (low < domain_low - tolerance || high > domain_high + tolerance) {
      block_table.fail_table(std::string("block is not inside the domain: its ") + kAxisNames[axis] +
                             " extent " + (sphere ? "(centre +- radius) " : "") + "[" + format_derived(low) +
                             ", " + format_derived(high) + "] m leaves the domain's [" +
                             format_number(domain_low) + ", " + format_number(domain_high) + "] m");
    }
  }
}

FluidBlock read_block(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 6> kKeys = {"shape",  "min",    "max",
                                                            "center", "radius", "velocity"};
  table.reject_unknown_keys(kKeys);
  FluidBlock block;
  block.line = table.table_line();
  const std::string shape = table.required(table.choice("shape", kShapes), "shape", "\"box\" or \"sphere\"");
  block.shape = shape == "sphere" ? FluidBlock::Shape::sphere : FluidBlock::Shape::box;

  // A key of the other shape is a mistake the user should hear about, not a value silently ignored.
  const std::array<std::string_view, 2> foreign = block.shape == FluidBlock::Shape::box
                                                      ? std::array<std::string_view, 2>{"center", "radius"}
                                                      : std::array<std::string_view, 2>{"min", "max"};
  for (std::string_view key : foreign) {
    if (table.has(key)) {
      table.fail(key, "does not apply to a \"" + shape + "\" block (it takes " +
                          (block.shape == FluidBlock::Shape::box ? "min, max" : "center, radius") +
                          ", velocity)");
    }
  }

  if (block.shape == FluidBlock::Shape::box) {
    block.min = table.required(table.vec3("min", "m"), "min", "an array of 3 numbers [m]");
    block.max = table.required(table.vec3("max", "m"), "max", "an array of 3 numbers [m]");
    for (int axis = 0; axis < 3; ++axis) {
      if (!(component(block.max, axis) > component(block.min, axis))) {
        table.fail("max", std::string("expected each component greater than min's, got ") + kAxisNames[axis] +
                              ": max " + format_number(component(block.max, axis)) + " <= min " +
                              format_number(component(block.min, axis)));
      }
    }
  } else {
    block.center = table.required(table.vec3("center", "m"), "center", "an array of 3 numbers [m]");
    block.radius = table.required(table.number("radius", "m", Range::above(0)), "radius", "a number > 0 [m]");
  }
  if (auto velocity = table.vec3("velocity", "m/s")) block.velocity = *velocity;
  check_inside_domain(table, block, scene);
  return block;
}

void read_fluid(const TableReader& fluid, Scene& scene) {
  fluid.reject_unknown_keys(keys_of(kFluidNumbers, {"gravity", "block"}));
  read_numbers(fluid, kFluidNumbers);
  if (auto gravity = fluid.vec3("gravity", "m/s^2", Range::closed(-1000, 1000))) scene.gravity = *gravity;

  fluid.for_each_table("block", "the fluid to simulate",
                       [&](const TableReader& block) { scene.blocks.push_back(read_block(block, scene)); });
}

// ---- [[emitter]]: a nozzle adding fluid while the simulation runs (sim/sph/emitter.h)

constexpr std::array<std::string_view, 2> kNozzleShapes = {"circle", "square"};
// The emitter's capacity joins the initial particles under the 32-bit creation ids.
constexpr IntegerRange kEmitterParticles{1, 1'000'000'000};

EmitterSettings read_emitter(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 8> kKeys = {"shape", "center", "direction", "radius",
                                                            "speed", "start",  "end",       "max_particles"};
  table.reject_unknown_keys(kKeys);
  EmitterSettings emitter;
  emitter.line = table.table_line();
  if (auto shape = table.choice("shape", kNozzleShapes))
    emitter.shape = *shape == "square" ? EmitterSettings::Shape::square : EmitterSettings::Shape::circle;
  emitter.center = table.required(table.vec3("center", "m"), "center", "an array of 3 numbers [m]");
  const Vec3f direction =
      table.required(table.vec3("direction", ""), "direction", "an array of 3 numbers, not all zero");
  const float length = std::sqrt(length_squared(direction));
  if (!(length > 1e-6f))
    table.fail("direction", "expected a non-zero vector (the jet's direction), got (0, 0, 0)");
  emitter.direction = (1.0f / length) * direction;
  emitter.radius = table.required(table.number("radius", "m", Range::above(0)), "radius", "a number > 0 [m]");
  emitter.speed =
      table.required(table.number("speed", "m/s", Range::above(0)), "speed", "a number > 0 [m/s]");
  if (auto start = table.number("start", "s", Range::at_least(0))) emitter.start = *start;
  if (auto end = table.number("end", "s", Range::above(0))) {
    if (*end <= emitter.start)
      table.fail("end", "expected a time after start = " + format_number(emitter.start) + " [s], got " +
                            format_number(*end));
    emitter.end = *end;
  }
  emitter.max_particles = table.required(table.integer("max_particles", kEmitterParticles), "max_particles",
                                         "an integer >= 1 (particles allocated for the emitter)");

  // The outlet, rim included, must lie inside the domain: particles born outside would end the run at once.
  // The rim's extent along each axis is radius * |a x d| for the axis a (a circle), and the square's corners
  // reach no further than radius * (|u_a| + |v_a|), bounded here by radius * sqrt(2) for both.
  const float rim =
      emitter.shape == EmitterSettings::Shape::square ? emitter.radius * std::sqrt(2.0f) : emitter.radius;
  for (int axis = 0; axis < 3; ++axis) {
    const float d = component(emitter.direction, axis);
    const float reach = rim * std::sqrt(std::max(0.0f, 1.0f - d * d));
    const float c = component(emitter.center, axis);
    const float low = component(scene.domain_min, axis), high = component(scene.domain_max, axis);
    if (c - reach < low || c + reach > high) {
      table.fail("center", std::string("the nozzle is not inside the domain: its ") + kAxisNames[axis] +
                               " extent [" + format_derived(c - reach) + ", " + format_derived(c + reach) +
                               "] m leaves the domain's [" + format_number(low) + ", " + format_number(high) +
                               "] m");
    }
  }
  return emitter;
}

void read_emitters(const TableReader& top, Scene& scene) {
  if (!top.has("emitter")) return;
  if (scene.solver != "wcsph" && scene.solver != "dfsph" && scene.solver != "pbf")
    top.fail("emitter", "applies to the SPH solvers (wcsph, dfsph, pbf); this scene's solver is \"" +
                            scene.solver + "\"");
  top.for_each_table("emitter", "a nozzle", [&](const TableReader& table) {
    if (!scene.emitters.empty())
      table.fail_table("one [[emitter]] per scene is supported; this is the second (the first is at line " +
                       std::to_string(scene.emitters.front().line) + ")");
    scene.emitters.push_back(read_emitter(table, scene));
  });
}

// ---- [dem] and [[dem.block]]: the granular solver

struct DemNumberKey {
  std::string_view key;
  float DemScene::*member;
  std::string_view unit;  // empty for dimensionless
  Range range;
};

constexpr std::array kDemNumbers = {
    DemNumberKey{"stiffness", &DemScene::stiffness, "N/m", Range::above(0)},
    DemNumberKey{"youngs_modulus", &DemScene::youngs_modulus, "Pa", Range::above(0)},
    DemNumberKey{"poisson_ratio", &DemScene::poisson_ratio, "", Range{0, 0.5, false, true}},
    DemNumberKey{"restitution", &DemScene::restitution, "", Range::left_open(0, 1)},
    DemNumberKey{"normal_damping", &DemScene::normal_damping, "N s/m", Range::at_least(0)},
    DemNumberKey{"friction", &DemScene::friction, "", Range::closed(0, 10)},
    DemNumberKey{"tangential_damping", &DemScene::tangential_damping, "N s/m", Range::at_least(0)},
    DemNumberKey{"cohesion", &DemScene::cohesion, "N/m", Range::at_least(0)},
    DemNumberKey{"tangential_stiffness_ratio", &DemScene::tangential_stiffness_ratio, "",
                 Range::left_open(0, 10)},
    DemNumberKey{"rolling_friction", &DemScene::rolling_friction, "", Range::closed(0, 1)},
    DemNumberKey{"wall_restitution", &DemScene::wall_restitution, "", Range::closed(0, 1)},
    DemNumberKey{"time_step", &DemScene::time_step, "s", Range::above(0)},
    DemNumberKey{"collision_time_fraction", &DemScene::collision_time_fraction, "", Range::left_open(0, 0.5)},
};
constexpr std::array<std::string_view, 2> kNormalModels = {"linear", "hertz"};
constexpr std::array<std::string_view, 3> kFrictionModels = {"coulomb", "viscous", "mindlin"};
// 1 slot is enough for a grain on a floor; 64 covers a grain 3x larger than its neighbours.
constexpr IntegerRange kContactSlots{1, 64};
constexpr std::array<std::string_view, 2> kWallModels = {"contact", "reflect"};
constexpr std::array<std::string_view, 3> kGrainShapes = {"box", "sphere", "lattice"};
constexpr std::array<std::string_view, 2> kOverflows = {"shrink", "clamp"};
constexpr IntegerRange kGrainCount{1, 2'000'000'000};

// A key that only one choice of a model takes, given with another: an error, not a value ignored.
void reject_for(const TableReader& table, std::string_view key, const std::string& why) {
  if (table.has(key)) table.fail(key, "does not apply " + why);
}

void check_grains_inside_domain(const TableReader& table, const GrainBlock& block, const Scene& scene) {
  const Vec3f extent = scene.domain_max - scene.domain_min;
  const double tolerance = 1e-6 * std::max({extent.x, extent.y, extent.z});
  for (int axis = 0; axis < 3; ++axis) {
    double low = component(block.min, axis), high = component(block.max, axis);
    if (block.shape == GrainBlock::Shape::sphere) {
      low = double(component(block.center, axis)) - block.radius;
      high = double(component(block.center, axis)) + block.radius;
    } else if (block.shape == GrainBlock::Shape::lattice) {
      high = low;  // the lattice's far side depends on the grain count; build_dem_setup checks it
    }
    const float domain_low = component(scene.domain_min, axis);
    const float domain_high = component(scene.domain_max, axis);
    if (low < domain_low - tolerance || high > domain_high + tolerance) {
      table.fail_table(std::string("block is not inside the domain: its ") + kAxisNames[axis] + " extent [" +
                       format_derived(low) + ", " + format_derived(high) + "] m leaves the domain's [" +
                       format_number(domain_low) + ", " + format_number(domain_high) + "] m");
    }
  }
}

GrainBlock read_grain_block(const TableReader& table, const Scene& scene) {
  static constexpr std::array<std::string_view, 14> kKeys = {
      "shape",   "min",  "max",    "center",   "radius", "count",   "grain_radius", "grain_radius_max",
      "density", "mass", "jitter", "velocity", "fixed",  "overflow"};
  table.reject_unknown_keys(kKeys);
  GrainBlock block;
  block.line = table.table_line();
  const std::string shape =
      table.required(table.choice("shape", kGrainShapes), "shape", "\"box\", \"sphere\" or \"lattice\"");
  block.shape = shape == "sphere"    ? GrainBlock::Shape::sphere
                : shape == "lattice" ? GrainBlock::Shape::lattice
                                     : GrainBlock::Shape::box;
  const std::string takes = block.shape == GrainBlock::Shape::box      ? "min, max"
                            : block.shape == GrainBlock::Shape::sphere ? "center, radius"
                                                                       : "min, count, overflow";
  for (std::string_view key : {"min", "max", "center", "radius", "count", "overflow"}) {
    if (takes.find(key) == std::string::npos)
      reject_for(table, key, "to a \"" + shape + "\" block (it takes " + takes + ")");
  }
  if (block.shape != GrainBlock::Shape::sphere) {
    block.min = table.required(table.vec3("min", "m"), "min", "an array of 3 numbers [m]");
  }
  if (block.shape == GrainBlock::Shape::box) {
    block.max = table.required(table.vec3("max", "m"), "max", "an array of 3 numbers [m]");
    for (int axis = 0; axis < 3; ++axis) {
      if (!(component(block.max, axis) > component(block.min, axis))) {
        table.fail("max", std::string("expected each component greater than min's, got ") + kAxisNames[axis] +
                              ": max " + format_number(component(block.max, axis)) + " <= min " +
                              format_number(component(block.min, axis)));
      }
    }
  } else if (block.shape == GrainBlock::Shape::sphere) {
    block.center = table.required(table.vec3("center", "m"), "center", "an array of 3 numbers [m]");
    block.radius = table.required(table.number("radius", "m", Range::above(0)), "radius", "a number > 0 [m]");
  } else {
    block.count = table.required(table.integer("count", kGrainCount), "count", "an integer >= 1");
  }

  block.grain_radius =
      table.required(table.number("grain_radius", "m", Range::above(0)), "grain_radius", "a number > 0 [m]");
  block.grain_radius_max = block.grain_radius;
  if (auto largest = table.number("grain_radius_max", "m", Range::above(0))) {
    if (*largest < block.grain_radius) {
      table.fail("grain_radius_max", "expected a radius >= grain_radius " +
                                         format_number(block.grain_radius) + " [m], got " +
                                         format_number(*largest));
    }
    block.grain_radius_max = *largest;
  }
  if (auto fixed = table.boolean("fixed")) block.fixed = *fixed;
  if (block.fixed) {
    for (std::string_view key : {"density", "mass", "velocity"})
      reject_for(table, key, "to fixed grains (they do not move: infinite mass, zero velocity)");
  } else {
    if (table.has("density") && table.has("mass")) {
      const bool mass_later = table.line_of("mass") > table.line_of("density");
      table.fail(mass_later ? "mass" : "density", "give exactly one of 'density' [kg/m^3] and 'mass' [kg]");
    }
    if (auto density = table.number("density", "kg/m^3", Range::above(0))) block.density = *density;
    if (auto mass = table.number("mass", "kg", Range::above(0))) block.mass = *mass;
    if (block.density == 0.0f && block.mass == 0.0f) {
      table.fail_table("needs one of 'density' [kg/m^3] and 'mass' [kg] (per grain), found neither");
    }
    if (auto velocity = table.vec3("velocity", "m/s")) block.velocity = *velocity;
  }
  if (auto jitter = table.number("jitter", "", Range::closed(0, 0.5))) block.jitter = *jitter;
  if (auto overflow = table.choice("overflow", kOverflows)) {
    block.clamp_overflow = *overflow == "clamp";
    if (block.clamp_overflow && scene.dem.wall_model != WallModel::reflect) {
      table.fail("overflow",
                 "\"clamp\" needs [dem] wall_model = \"reflect\" (the walls clamp the grains that "
                 "start outside the domain into it)");
    }
  }
  if (block.shape == GrainBlock::Shape::lattice) {
    for (int axis = 0; axis < 3; ++axis) {
      if (component(block.min, axis) + block.grain_radius_max > component(scene.domain_max, axis)) {
        table.fail("min",
                   std::string("a lattice starting here does not fit one grain inside the domain along ") +
                       kAxisNames[axis]);
      }
    }
  }
  check_grains_inside_domain(table, block, scene);
  return block;
}

void read_dem(const TableReader& dem, Scene& scene) {
  std::vector<std::string_view> keys = {"normal_model", "friction_model", "wall_model", "gravity",
                                        "rotation",     "contact_slots",  "block"};
  for (const DemNumberKey& number : kDemNumbers) keys.push_back(number.key);
  dem.reject_unknown_keys(keys);
  DemScene& d = scene.dem;
  for (const DemNumberKey& key : kDemNumbers) {
    if (auto value = dem.number(key.key, key.unit, key.range)) d.*key.member = *value;
  }

  if (auto model = dem.choice("normal_model", kNormalModels))
    d.normal_model = *model == "hertz" ? NormalModel::hertz : NormalModel::linear;
  if (d.normal_model == NormalModel::linear) {
    for (std::string_view key : {"youngs_modulus", "poisson_ratio"})
      reject_for(dem, key, "to normal_model \"linear\" (it takes stiffness [N/m])");
    dem.required(dem.number("stiffness", "N/m", Range::above(0)), "stiffness",
                 "a number > 0 [N/m], the spring constant k_n of the linear law");
  } else {
    reject_for(dem, "stiffness", "to normal_model \"hertz\" (it takes youngs_modulus [Pa], poisson_ratio)");
    dem.required(dem.number("youngs_modulus", "Pa", Range::above(0)), "youngs_modulus",
                 "a number > 0 [Pa], the grains' Young's modulus E");
  }
  if (dem.has("restitution") && dem.has("normal_damping")) {
    const bool damping_later = dem.line_of("normal_damping") > dem.line_of("restitution");
    dem.fail(damping_later ? "normal_damping" : "restitution",
             "give at most one of 'restitution' and 'normal_damping' [N s/m]: each sets the normal damping");
  }

  if (auto model = dem.choice("friction_model", kFrictionModels))
    d.friction_model = *model == "viscous"   ? FrictionModel::viscous
                       : *model == "mindlin" ? FrictionModel::mindlin
                                             : FrictionModel::coulomb;
  if (d.friction_model == FrictionModel::viscous) {
    reject_for(dem, "friction", "to friction_model \"viscous\" (it has no Coulomb limit)");
    dem.required(dem.number("tangential_damping", "N s/m", Range::above(0)), "tangential_damping",
                 "a number > 0 [N s/m]: the viscous model's shear coefficient gamma_t");
  }
  if (d.friction_model == FrictionModel::mindlin) {
    if (d.normal_model == NormalModel::hertz)
      reject_for(dem, "tangential_stiffness_ratio",
                 "to normal_model \"hertz\" (Mindlin's k_t = 8 G* sqrt(R* delta) follows from youngs_modulus "
                 "and poisson_ratio)");
    if (auto slots = dem.integer("contact_slots", kContactSlots)) d.contact_slots = long(*slots);
    d.rotation = true;  // the default with a tangential spring: a grain rolls rather than slides
  } else {
    for (std::string_view key : {"tangential_stiffness_ratio", "contact_slots"})
      reject_for(dem, key, "to this friction_model (only \"mindlin\" keeps a tangential spring per contact)");
  }
  if (auto rotation = dem.boolean("rotation")) d.rotation = *rotation;
  if (!d.rotation && d.rolling_friction > 0.0f)
    dem.fail("rolling_friction", "needs rotation = true (the rolling torque acts on the grains' spin)");

  if (auto model = dem.choice("wall_model", kWallModels))
    d.wall_model = *model == "reflect" ? WallModel::reflect : WallModel::contact;
  if (d.wall_model == WallModel::contact)
    reject_for(dem, "wall_restitution", "to wall_model \"contact\" (its walls use the grains' contact law)");

  if (dem.has("time_step") && dem.has("collision_time_fraction")) {
    const bool fraction_later = dem.line_of("collision_time_fraction") > dem.line_of("time_step");
    dem.fail(fraction_later ? "collision_time_fraction" : "time_step",
             "give at most one of 'time_step' [s] and 'collision_time_fraction'");
  }
  if (auto gravity = dem.vec3("gravity", "m/s^2", Range::closed(-1000, 1000))) scene.gravity = *gravity;

  bool any_moving = false;
  dem.for_each_table("block", "the grains to simulate", [&](const TableReader& block) {
    d.blocks.push_back(read_grain_block(block, scene));
    any_moving = any_moving || !d.blocks.back().fixed;
  });
  if (!any_moving)
    dem.fail("block", "every [[dem.block]] is fixed: expected at least one block of moving grains");
}

void read_time(const TableReader& time, Scene& scene) {
  time.reject_unknown_keys(keys_of(kTimeNumbers, {}));
  if (scene.solver == "nbody") {
    for (std::string_view key : {"cfl", "dt_max", "dt_min"})
      if (time.has(key)) time.fail(key, "does not apply to solver \"nbody\" (its fixed step is nbody.dt)");
  }
  if (scene.solver == "dem") {
    for (std::string_view key : {"cfl", "dt_max", "dt_min"}) {
      if (time.has(key)) {
        time.fail(key,
                  "does not apply to solver \"dem\" (its time step is fixed: [dem] time_step, or "
                  "collision_time_fraction x the contact's collision time)");
      }
    }
  }
  read_numbers(time, kTimeNumbers);
  if (!(scene.dt_min < scene.dt_max)) {
    // Blame the key the user wrote; if both are written, dt_min (the one a typo most often breaks).
    const std::string_view key = time.has("dt_min") || !time.has("dt_max") ? "dt_min" : "dt_max";
    time.fail(key, "expected dt_min < dt_max, got dt_min " + format_number(scene.dt_min) + " [s] >= dt_max " +
                       format_number(scene.dt_max) + " [s]");
  }
}

// [dfsph]: Bender & Koschier 2017. Targets are written in percent, as the paper and SPlisHSPlasH give them.
void read_dfsph(const TableReader& table, Scene& scene) {
  static constexpr std::array<std::string_view, 7> kKeys = {
      "density_error",    "divergence_error", "min_iterations",        "max_iterations",
      "divergence_solve", "viscosity",        "surface_neighbor_count"};
  table.reject_unknown_keys(kKeys);
  DfsphParameters& d = scene.dfsph;
  if (auto v = table.number("density_error", "%", Range::closed(1e-4, 10))) d.density_error = *v / 100.0f;
  if (auto v = table.number("divergence_error", "%", Range::closed(1e-4, 100)))
    d.divergence_error = *v / 100.0f;
  if (auto v = table.integer("min_iterations", IntegerRange{0, 1000})) d.min_iterations = int(*v);
  if (auto v = table.integer("max_iterations", IntegerRange{1, 10000})) d.max_iterations = int(*v);
  if (d.min_iterations > d.max_iterations) {
    table.fail(table.has("min_iterations") ? "min_iterations" : "max_iterations",
               "expected min_iterations <= max_iterations, got " + std::to_string(d.min_iterations) + " > " +
                   std::to_string(d.max_iterations));
  }
  if (auto v = table.boolean("divergence_solve")) d.divergence_solve = *v;
  if (auto v = table.number("viscosity", "m^2/s", Range::closed(0, 1))) d.viscosity = *v;
  if (auto v = table.number("surface_neighbor_count", "", Range::closed(0, 200)))
    d.surface_neighbor_count = *v;
}

// [pbf]: Macklin & Mueller 2013.
void read_pbf(const TableReader& table, Scene& scene) {
  static constexpr std::array<std::string_view, 8> kKeys = {
      "iterations", "density_error", "relaxation", "scorr_k", "scorr_n", "scorr_dq", "xsph", "vorticity"};
  table.reject_unknown_keys(kKeys);
  PbfParameters& p = scene.pbf;
  if (auto v = table.integer("iterations", IntegerRange{1, 1000})) p.iterations = int(*v);
  if (auto v = table.number("density_error", "%", Range::closed(0, 10))) p.density_error = *v / 100.0f;
  if (auto v = table.number("relaxation", "", Range::closed(0, 10))) p.relaxation = *v;
  if (auto v = table.number("scorr_k", "", Range::closed(0, 1))) p.scorr_k = *v;
  if (auto v = table.number("scorr_n", "", Range::closed(1, 8))) p.scorr_n = *v;
  if (auto v = table.number("scorr_dq", "", Range::left_open(0, 1))) p.scorr_dq = *v;
  if (auto v = table.number("xsph", "", Range::closed(0, 1))) p.xsph = *v;
  if (auto v = table.number("vorticity", "", Range::at_least(0))) p.vorticity = *v;
}

// A WCSPH-only key in a scene of another solver would be silently ignored: say so instead. ([dfsph] and [pbf]
// may stand in any SPH scene: they apply when that solver runs, from the scene or from --solver.)
void reject_other_solvers_settings(const TableReader& top, const Scene& scene) {
  for (std::string_view solver : {"dfsph", "pbf"}) {
    if (scene.solver == "nbody" && top.has(solver)) {
      top.fail(solver,
               "table [" + std::string(solver) + "] applies to SPH scenes; this scene's solver is \"nbody\"");
    }
  }
  if (scene.solver == "wcsph") return;
  for (std::string_view key : {"speed_of_sound", "tait_exponent", "viscosity_alpha", "xsph_epsilon"}) {
    const std::string full = "fluid." + std::string(key);
    if (scene.key_lines.count(full)) {
      throw SceneError(
          scene.path, scene.line_of(full), full,
          "applies to solver = \"wcsph\" only; this scene's solver is \"" + scene.solver + "\"" +
              (scene.solver == "dfsph" ? " (its viscosity is dfsph.viscosity)" : " (see [pbf])"));
    }
  }
}

// ---- [nbody]: gravity between bodies (solver = "nbody")

constexpr std::array<std::string_view, 3> kNbodyMethods = {"all_pairs", "all_pairs_naive", "barnes_hut"};
constexpr std::array<std::string_view, 3> kBodyModels = {"plummer", "disc_galaxy", "two_body"};
// Body counts a generator accepts; the whole scene is limited by what the device holds.
constexpr IntegerRange kSystemBodies{1, 1'000'000'000};
constexpr IntegerRange kSeed{0, std::numeric_limits<int64_t>::max()};

Vec3d to_double(Vec3f v) {
  return {double(v.x), double(v.y), double(v.z)};
}

// The keys each model takes besides model, center and velocity; any other model's key is an error.
std::vector<std::string_view> model_keys(BodySystem::Model model) {
  switch (model) {
    case BodySystem::Model::plummer:
      return {"bodies", "mass", "scale_radius", "truncation"};
    case BodySystem::Model::disc_galaxy:
      return {"bodies", "mass", "central_mass", "scale_radius", "scale_height", "truncation", "normal"};
    case BodySystem::Model::two_body:
      return {"masses", "semi_major_axis", "eccentricity"};
  }
  return {};
}

BodySystem read_system(const TableReader& table) {
  static constexpr std::array<std::string_view, 13> kKeys = {
      "model",  "bodies", "mass",   "central_mass", "scale_radius",    "scale_height", "truncation",
      "normal", "masses", "center", "velocity",     "semi_major_axis", "eccentricity"};
  table.reject_unknown_keys(kKeys);
  BodySystem system;
  system.line = table.table_line();
  const std::string model = table.required(table.choice("model", kBodyModels), "model",
                                           "\"plummer\", \"disc_galaxy\" or \"two_body\"");
  system.model = model == "plummer"       ? BodySystem::Model::plummer
                 : model == "disc_galaxy" ? BodySystem::Model::disc_galaxy
                                          : BodySystem::Model::two_body;
  const std::vector<std::string_view> own = model_keys(system.model);
  for (std::string_view key : kKeys) {
    const bool general = key == "model" || key == "center" || key == "velocity";
    if (!general && table.has(key) && std::find(own.begin(), own.end(), key) == own.end()) {
      std::string takes;
      for (std::string_view k : own) takes += std::string(takes.empty() ? "" : ", ") + std::string(k);
      table.fail(key,
                 "does not apply to a \"" + model + "\" system (it takes " + takes + ", center, velocity)");
    }
  }
  if (auto center = table.vec3("center", "length")) system.center = to_double(*center);
  if (auto velocity = table.vec3("velocity", "length/time")) system.velocity = to_double(*velocity);

  if (system.model == BodySystem::Model::two_body) {
    if (const toml::node* node = table.get("masses")) {
      const toml::array* array = node->as_array();
      const std::string expected = "expected an array of 2 numbers > 0 [mass]";
      if (!array || array->size() != 2) table.fail("masses", expected + ", got " + describe_type(*node));
      for (std::size_t k = 0; k < 2; ++k) {
        const toml::node& element = *array->get(k);
        const std::optional<double> value =
            element.is_integer() ? std::optional<double>(double(*element.value_exact<int64_t>()))
                                 : element.value_exact<double>();
        if (!value) table.fail_at(element, "masses", expected + ", got " + describe_type(element));
        if (!Range::above(0).contains(float(*value))) {
          table.fail_at(element, "masses",
                        expected + ", got " + format_number(*value) + precision_note(*value));
        }
        system.masses[k] = double(float(*value));
      }
    }
    if (auto a = table.number("semi_major_axis", "length", Range::above(0))) system.semi_major_axis = *a;
    // e = 1 is a parabola: no orbit, no period to measure against.
    if (auto e = table.number("eccentricity", "", Range{0, 1, false, true})) system.eccentricity = *e;
    return system;
  }

  system.bodies = table.required(table.integer("bodies", kSystemBodies), "bodies", "an integer >= 1");
  const bool plummer = system.model == BodySystem::Model::plummer;
  if (auto mass = table.number("mass", "mass", Range::above(0))) system.mass = *mass;
  // Plummer: 3 pi / 16 puts the virial radius at 1 for G = M = 1 (Henon units). Disc: R_d = 1.
  system.scale_radius = plummer ? 3.0 * 3.141592653589793 / 16.0 : 1.0;
  if (auto radius = table.number("scale_radius", "length", Range::above(0))) system.scale_radius = *radius;
  // Plummer beyond 10 a holds under 0.15 % of the mass (M(<r) = r^3 / (r^2 + a^2)^(3/2)).
  system.truncation = plummer ? 10.0 : 5.0;
  if (auto truncation = table.number("truncation", "scale radii", Range::closed(0.5, 1000)))
    system.truncation = *truncation;
  if (system.model == BodySystem::Model::disc_galaxy) {
    if (auto central = table.number("central_mass", "mass", Range::at_least(0)))
      system.central_mass = *central;
    system.scale_height = 0.1 * system.scale_radius;
    if (auto height = table.number("scale_height", "length", Range::at_least(0)))
      system.scale_height = *height;
    if (auto normal = table.vec3("normal", "")) {
      const Vec3d n = to_double(*normal);
      const double length = std::sqrt(dot(n, n));
      if (!(length > 0)) table.fail("normal", "expected a non-zero direction, got [0, 0, 0]");
      system.normal = n * (1.0 / length);
    }
    if (system.central_mass > 0 && system.bodies < 2) {
      table.fail("bodies", "expected at least 2 (the central mass and one disc body), got 1");
    }
  }
  return system;
}

void read_nbody(const TableReader& nbody, Scene& scene) {
  static constexpr std::array<std::string_view, 7> kKeys = {"method", "G",    "softening", "theta",
                                                            "dt",     "seed", "system"};
  nbody.reject_unknown_keys(kKeys);
  NbodySceneSettings& settings = scene.nbody;
  NbodyParameters& p = settings.parameters;
  if (auto method = nbody.choice("method", kNbodyMethods)) {
    p.method = *method == "barnes_hut"        ? NbodyMethod::barnes_hut
               : *method == "all_pairs_naive" ? NbodyMethod::all_pairs_naive
                                              : NbodyMethod::all_pairs;
  }
  if (auto g = nbody.number("G", "length^3/(mass time^2)", Range::above(0))) p.gravitational_constant = *g;
  if (auto eps = nbody.number("softening", "length", Range::at_least(0))) p.softening = *eps;
  // Past about 1 the centre-of-mass criterion accepts nodes that contain the body itself.
  if (auto theta = nbody.number("theta", "", Range::left_open(0, 1))) p.theta = *theta;
  p.dt = nbody.required(nbody.number("dt", "time", Range::above(0)), "dt", "a number > 0 [time]");
  if (auto seed = nbody.integer("seed", kSeed)) settings.seed = std::uint64_t(*seed);

  nbody.for_each_table("system", "the bodies to simulate",
                       [&](const TableReader& system) { settings.systems.push_back(read_system(system)); });
}

void read_output(const TableReader& output, Scene& scene) {
  static constexpr std::array<std::string_view, 3> kKeys = {"dir", "formats", "every"};
  output.reject_unknown_keys(kKeys);
  scene.output_dir = "out/" + scene.name;
  if (auto dir = output.string("dir")) {
    if (dir->empty()) output.fail("dir", "expected a non-empty directory path, got \"\"");
    scene.output_dir = *dir;
  }
  if (auto formats = output.distinct_names("formats", kFormats)) scene.formats = *formats;
  if (auto every = output.integer("every", kEvery)) scene.every = static_cast<int>(*every);
}

}  // namespace

Scene parse_scene(const std::string& text, const std::filesystem::path& file) {
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(file.string()));
  } catch (const toml::parse_error& error) {
    throw SceneError(file, static_cast<int>(error.source().begin.line), "", std::string(error.description()));
  }

  Scene scene;
  scene.path = file;
  const TableReader top(root, "", 0, file, scene);
  static constexpr std::array<std::string_view, 12> kTopKeys = {"name",  "solver", "domain", "resolution",
                                                                "fluid", "nbody",  "time",   "output",
                                                                "dfsph", "pbf",    "dem",    "emitter"};
  top.reject_unknown_keys(kTopKeys);
  read_identity(top, scene);
  // Each solver has its own tables; one of another solver's is a mistake, not something to ignore.
  if (top.has("dem") && scene.solver != "dem")
    top.fail("dem", "applies to solver = \"dem\" only (this scene's solver is \"" + scene.solver + "\")");
  if (scene.solver == "nbody") {
    // Bodies fly free: no tank, no lattice, no fluid.
    for (std::string_view key : {"domain", "resolution", "fluid"})
      if (top.has(key))
        top.fail(key, "does not apply to solver \"nbody\" (bodies are placed by [[nbody.system]])");
    read_nbody(top.table("nbody", true), scene);
  } else if (scene.solver == "dem") {
    // Grains fill [[dem.block]] tables, sized by their grain_radius: no lattice spacing, no fluid.
    for (std::string_view key : {"nbody", "resolution", "fluid"})
      if (top.has(key))
        top.fail(key,
                 "does not apply to solver \"dem\" (grains are [[dem.block]] tables; their size is "
                 "grain_radius)");
    read_domain(top.table("domain", true), scene);
    read_dem(top.table("dem", true), scene);
  } else {
    if (top.has("nbody"))
      top.fail("nbody",
               "applies to solver = \"nbody\" only (this scene's solver is \"" + scene.solver + "\")");
    read_domain(top.table("domain", true), scene);
    read_resolution(top.table("resolution", true), scene);
    read_fluid(top.table("fluid", false), scene);
  }
  read_emitters(top, scene);
  read_time(top.table("time", false), scene);
  read_output(top.table("output", false), scene);
  read_dfsph(top.table("dfsph", false), scene);
  read_pbf(top.table("pbf", false), scene);
  reject_other_solvers_settings(top, scene);
  return scene;
}

Scene load_scene(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) throw SceneError(file, 0, "", "the file does not exist");
  if (!std::filesystem::is_regular_file(file, error)) throw SceneError(file, 0, "", "not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SceneError(file, 0, "", std::string("cannot open the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scene(text.str(), file);
}

}  // namespace surge
