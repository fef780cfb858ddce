// Numbers as people read them in a terminal: counts with thousands separators (1,048,576),
// rates in engineering notation (1.23e9), byte counts in binary units, durations as h:mm:ss.
#pragma once

#include <cstdint>
#include <string>

namespace surge::app {

std::string with_thousands(std::int64_t count);
// Three significant digits with an exponent that is a multiple of 3: 987, 12.3e3, 1.23e9.
std::string engineering(double value);
std::string fixed(double value, int decimals);
std::string significant(double value, int digits);  // 0.000606, 0.5, 1.25 (as %g)
std::string binary_bytes(std::uint64_t bytes);      // "0 B", "512 B", "1.50 MiB"
std::string clock_duration(double seconds);         // "0:07", "12:34", "1:02:03"

}  // namespace surge::app
