// Figures a solver reports beside the common timings (Simulation::step_figures(): energies, momenta, work
// per step), as a run summary and a benchmark print them. Solvers without figures print nothing.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/backend/simulation.h"

namespace surge::app {

// "-0.250012", "[0, 1.5e-08, 0]", "barnes_hut"
std::string format_figure(const NamedValue& figure);

// Work per step turned into a rate: every figure named "X_per_step" gives "X_per_s" over the timed steps.
std::vector<NamedValue> rates_of(const std::vector<NamedValue>& figures, long steps, double seconds);

// The value of the figure named `name`, if there is one and it is a number.
std::optional<double> figure_value(const std::vector<NamedValue>& figures, std::string_view name);

// The figures with the neighbour pairs a step visited added, where the solver reports its census
// (neighbor_pairs_per_pass) and its neighbour passes (their mean over the timed steps where it tallies
// them): "neighbor_pairs_per_step", which rates_of turns into pairs per second.
std::vector<NamedValue> with_neighbor_work(std::vector<NamedValue> figures);

// One indented line per figure: "  NAME  VALUE".
void print_figures(std::ostream& out, const std::vector<NamedValue>& figures, int name_width);

}  // namespace surge::app
