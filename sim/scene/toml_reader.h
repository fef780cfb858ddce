// Reading one TOML table of a scene file: typed values with range checks, errors that name the file, line
// and key, misspelt keys answered with the nearest known one, and numbers quoted as the user wrote them.
// The family readers (read_fluid.cpp, read_dem.cpp, read_nbody.cpp) and scene_loader.cpp build on it.
#pragma once

#include <toml++/toml.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/core/parameter_spec.h"
#include "sim/scene/scene.h"

namespace surge {

// Shortest text that reads back as the same value, so a message quotes a number as the user wrote it.
std::string format_number(double value);
// Values the scene stores as float, printed as the float they became ("0.001", not "0.0010000000474974513").
std::string format_number(float value);
// A value the user never wrote (centre + radius), to 6 significant digits so rounding noise does not show.
std::string format_derived(double value);
// " > 0", " in (0, 1]", "" for any value: the range as messages write it after "expected a number".
std::string describe_range(const ValueRange& range);
// " [m]", or "" for a dimensionless value.
std::string unit_suffix(std::string_view unit);
// "\"a\", \"b\"".
std::string quoted_list(std::span<const std::string_view> names);
// "a string \"x\"", "an integer (3)": what the file holds where something else was expected.
std::string describe_type(const toml::node& node);
// Explains a rejection of a value that only the conversion to the engine's float broke (1e300, 1e-50).
std::string precision_note(double value);

struct IntegerRange {
  int64_t min = 0;
  int64_t max = 0;
  bool contains(int64_t value) const { return value >= min && value <= max; }
  std::string describe() const { return " in [" + std::to_string(min) + ", " + std::to_string(max) + "]"; }
};

inline float component(Vec3f v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}
inline constexpr std::array<const char*, 3> kAxisNames = {"x", "y", "z"};

class TableReader {
 public:
  // `prefix` is the table's path with a trailing dot ("domain.", "fluid.block[0].", "" for the root).
  TableReader(const toml::table& table, std::string prefix, int table_line, const std::filesystem::path& file,
              Scene& scene);

  const std::filesystem::path& file() const { return file_; }
  Scene& scene() const { return scene_; }
  int table_line() const { return table_line_; }
  std::string full_key(std::string_view key) const { return prefix_ + std::string(key); }
  std::string path() const { return prefix_.empty() ? "" : prefix_.substr(0, prefix_.size() - 1); }
  bool has(std::string_view key) const { return table_.contains(key); }
  const toml::node* get(std::string_view key) const { return table_.get(key); }

  // The key's own line when it is in the file, else the table's (where a missing key belongs).
  int line_of(std::string_view key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const;
  // A problem of the table as a whole ("needs one of ..."), reported at its header.
  [[noreturn]] void fail_table(const std::string& problem) const;
  [[noreturn]] void fail_at(const toml::node& node, std::string_view key, const std::string& problem) const;

  // Reports the unknown key nearest the top of the file, so fixing errors in order works.
  void reject_unknown_keys(std::span<const std::string_view> known) const;

  std::optional<float> number(std::string_view key, std::string_view unit, ValueRange range) const;
  std::optional<int64_t> integer(std::string_view key, IntegerRange range) const;
  std::optional<Vec3f> vec3(std::string_view key, std::string_view unit,
                            ValueRange each = ValueRange::any()) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  std::optional<std::string> choice(std::string_view key, std::span<const std::string_view> accepted) const;
  // An array of distinct names from `accepted`; errors point at the offending element's line.
  std::optional<std::vector<std::string>> distinct_names(std::string_view key,
                                                         std::span<const std::string_view> accepted) const;

  template <typename T>
  T required(std::optional<T> value, std::string_view key, std::string_view expected) const {
    if (!value) fail(key, "required key is missing (expected " + std::string(expected) + ")");
    return *value;
  }

  // A sub-table; an absent optional table reads as empty, so its keys take their defaults.
  TableReader table(std::string_view key, bool required) const;

  // Calls visit(reader) for each table of the required array of tables [[PATH.key]], in file order; `purpose`
  // completes "at least one [[PATH.key]] is required (...)". Each table's line is recorded for later errors.
  template <typename Visit>
  void for_each_table(std::string_view key, std::string_view purpose, Visit&& visit) const {
    const toml::array& array = array_of_tables(key, purpose);
    for (std::size_t i = 0; i < array.size(); ++i) visit(element_table(array, key, i));
  }

 private:
  const toml::array& array_of_tables(std::string_view key, std::string_view purpose) const;
  TableReader element_table(const toml::array& array, std::string_view key, std::size_t index) const;

  const toml::table& table_;
  std::string prefix_;
  int table_line_;
  const std::filesystem::path& file_;
  Scene& scene_;
  std::map<std::string, int> key_lines_;
};

// ---- Parameter tables (sim/core/parameter_spec.h) read into their scene struct

template <typename Owner, typename Runtime>
std::vector<std::string_view> keys_of(std::span<const ParameterSpec<Owner, Runtime>> specs,
                                      std::initializer_list<std::string_view> others) {
  std::vector<std::string_view> keys(others);
  for (const auto& spec : specs) keys.push_back(spec.key);
  return keys;
}

// Reads each key of `specs` that the table has into `owner` (a Scene for the FluidSceneKeys it derives
// from), checked against its range.
template <typename Owner, typename Runtime>
void read_parameters(const TableReader& table, std::span<const ParameterSpec<Owner, Runtime>> specs,
                     std::type_identity_t<Owner>& owner) {
  for (const auto& spec : specs) {
    std::visit(
        [&](auto member) {
          using Value = std::remove_reference_t<decltype(owner.*member)>;
          if constexpr (std::is_same_v<Value, bool>) {
            if (auto value = table.boolean(spec.key)) owner.*member = *value;
          } else if constexpr (std::is_same_v<Value, Vec3f>) {
            if (auto value = table.vec3(spec.key, spec.unit, spec.range)) owner.*member = *value;
          } else if constexpr (std::is_integral_v<Value>) {
            const IntegerRange range{int64_t(spec.range.min), int64_t(spec.range.max)};
            if (auto value = table.integer(spec.key, range)) owner.*member = Value(*value);
          } else {
            if (auto value = table.number(spec.key, spec.unit, spec.range))
              owner.*member = Value(*value / spec.file_scale);
          }
        },
        spec.member);
  }
}

}  // namespace surge
