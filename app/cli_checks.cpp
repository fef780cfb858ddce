#include "app/cli_checks.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "sim/core/particle_limits.h"

namespace surge::app {
namespace {

// The whole text as a number (strtod's forms: 12, 1.5e3, inf, nan), or nothing.
std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

// Shortest round trip, digits grouped: 2,000,000,000; 0.01; 1e+300 stays short.
std::string readable(double value) {
  if (std::abs(value) >= 1e4 && std::abs(value) < 1e15 && value == std::floor(value)) {
    std::string digits = std::to_string(static_cast<long long>(std::abs(value))), grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
      grouped += digits[i];
    }
    return (value < 0 ? "-" : "") + grouped;
  }
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

}  // namespace

CLI::Validator finite_positive(const std::string& unit) {
  return CLI::Validator(
      [unit](std::string& text) -> std::string {
        const std::optional<double> value = number(text);
        if (!value || !std::isfinite(*value) || !(*value > 0))
          return "expected a finite number > 0" + unit + ", got " + text;
        return "";
      },
      "NUMBER > 0");
}

CLI::Validator finite_in_range(double low, double high, const std::string& unit) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<double> value = number(text);
        if (!value || !std::isfinite(*value) || *value < low || *value > high)
          return "expected a number in [" + readable(low) + ", " + readable(high) + "]" + unit + ", got " +
                 text;
        return "";
      },
      "NUMBER in [" + readable(low) + ", " + readable(high) + "]");
}

CLI::Validator whole_at_least(long low) {
  return CLI::Validator(
      [low](std::string& text) -> std::string {
        const std::optional<double> value = number(text);
        if (!value || !std::isfinite(*value) || *value != std::floor(*value) || *value < double(low) ||
            *value > 9.2e18)
          return "expected a whole number >= " + std::to_string(low) + ", got " + text;
        text = std::to_string(static_cast<long long>(*value));
        return "";
      },
      "INTEGER >= " + std::to_string(low));
}

CLI::Validator particle_count() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string expected = "expected a particle count from 1 to " + readable(double(kMaxParticles));
        const std::optional<double> value = number(text);
        if (!value || !std::isfinite(*value) || *value != std::floor(*value))
          return expected + " (a whole number, such as 262144 or 2.5e5), got " + text;
        if (*value < 1 || *value > double(kMaxParticles)) return expected + ", got " + readable(*value);
        text = std::to_string(static_cast<long long>(*value));
        return "";
      },
      "COUNT");
}

}  // namespace surge::app
