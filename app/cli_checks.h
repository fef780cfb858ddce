// Checks of command-line values with messages a user can read. CLI11's own PositiveNumber and
// NonNegativeNumber print their bound, DBL_MAX, as a 309-digit number, and let NaN and infinity through
// (a comparison with NaN is false both ways): `--time nan` was silently ignored, `--time inf` never ended.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace surge::app {

// A finite number > 0 (--time, --every-time, a view's --frames as a float...); `unit` as in " [s]".
CLI::Validator finite_positive(const std::string& unit = "");
// A finite number in [low, high].
CLI::Validator finite_in_range(double low, double high, const std::string& unit = "");
// A whole number >= `low` (0: --every, --warmup; 1: --steps); written as 1000 or 1e3.
CLI::Validator whole_at_least(long low);
// A particle count in [1, kMaxParticles] (sim/core/particle_limits.h), written as 262144 or 2.5e5; the
// value CLI11 then converts is rewritten as plain digits.
CLI::Validator particle_count();

}  // namespace surge::app
