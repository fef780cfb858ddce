#include "app/number_format.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace surge::app {

std::string with_thousands(std::int64_t count) {
  std::string digits = std::to_string(count < 0 ? -count : count);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return count < 0 ? "-" + grouped : grouped;
}

std::string engineering(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (std::fabs(value) < 1000.0)
    return fixed(value, std::fabs(value) < 10.0 ? 2 : (std::fabs(value) < 100.0 ? 1 : 0));
  int exponent = int(std::floor(std::log10(std::fabs(value)) / 3.0)) * 3;
  double mantissa = value / std::pow(10.0, exponent);
  // Rounding to three digits can carry into the next group (999.7e3 -> 1.00e6).
  if (std::fabs(mantissa) >= 999.5) {
    exponent += 3;
    mantissa /= 1000.0;
  }
  const int decimals = std::fabs(mantissa) < 10.0 ? 2 : (std::fabs(mantissa) < 100.0 ? 1 : 0);
  return fixed(mantissa, decimals) + "e" + std::to_string(exponent);
}

std::string fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

std::string significant(double value, int digits) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", digits, value);
  return buffer.data();
}

std::string binary_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = double(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  return fixed(value, 2) + " " + kUnits[unit];
}

std::string clock_duration(double seconds) {
  const long total = seconds > 0 ? long(std::lround(seconds)) : 0;
  const long hours = total / 3600, minutes = total / 60 % 60, secs = total % 60;
  std::array<char, 32> buffer{};
  if (hours > 0) {
    std::snprintf(buffer.data(), buffer.size(), "%ld:%02ld:%02ld", hours, minutes, secs);
  } else {
    std::snprintf(buffer.data(), buffer.size(), "%ld:%02ld", minutes, secs);
  }
  return buffer.data();
}

}  // namespace surge::app
