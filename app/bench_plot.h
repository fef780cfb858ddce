// `surge bench --plot FILE.svg`: the classroom's picture of a benchmark. Left, one panel per particle
// count with a bar per mode, stacked by stage (ms per step). Right, each mode's speedup over cpu versus
// the particle count on log axes, with the crossover (speedup 1) marked where a curve crosses it.
#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "app/bench_report.h"

namespace surge::app {

// The particle count at which speedup crosses 1, interpolated in log-log between the two sizes that
// bracket it; nullopt when the curve does not cross 1 (or has fewer than two points). Points are
// (particles, speedup), in increasing particle count.
std::optional<double> crossover_particles(const std::vector<std::pair<double, double>>& speedup_by_count);

void write_bench_plot(std::ostream& out, const BenchRecord& record);

}  // namespace surge::app
