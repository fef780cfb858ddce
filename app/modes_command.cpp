#include "app/modes_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "sim/backend/execution_mode.h"
#include "sim/backend/simulation_factory.h"
#include "sim/core/gpu_info.h"

namespace surge::app {

CLI::App* add_modes_command(CLI::App& parent) {
  return parent.add_subcommand("modes",
                               "Print which solver runs in which execution mode (--mode, bench --modes, the "
                               "viewer's switch), and why not");
}

// One row per solver, one column per mode: "yes", or "no (k)" with reason k listed below the table.
int run_modes(std::ostream& out) {
  // Cells padded to a column, the line's end trimmed.
  const auto print_row = [&](const std::string& first, const std::vector<std::string>& cells) {
    std::string line = first;
    line.resize(8, ' ');
    for (const std::string& cell : cells)
      line += cell + std::string(cell.size() < 16 ? 16 - cell.size() : 1, ' ');
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  };
  std::vector<std::string> header;
  for (ExecutionMode mode : kExecutionModes) header.emplace_back(mode_name(mode));
  print_row("solver", header);
  std::vector<std::string> reasons;
  for (SolverKind solver : solvers_with_modes()) {
    std::vector<std::string> cells;
    for (ExecutionMode mode : kExecutionModes) {
      const std::string why = why_solver_lacks_mode(solver, mode);
      if (why.empty()) {
        cells.emplace_back("yes");
        continue;
      }
      auto found = std::find(reasons.begin(), reasons.end(), why);
      if (found == reasons.end()) found = reasons.insert(reasons.end(), why);
      cells.push_back("no (" + std::to_string(found - reasons.begin() + 1) + ")");
    }
    print_row(solver_name(solver), cells);
  }
  for (std::size_t k = 0; k < reasons.size(); ++k) out << '(' << k + 1 << ") " << reasons[k] << '\n';
  std::string why_no_gpu;
  const std::optional<GpuInfo> gpu = query_gpu(&why_no_gpu);
  out << "hybrid, hybrid-overlap and gpu need a CUDA GPU; here: "
      << (gpu ? gpu->name : "none (" + why_no_gpu + ")") << '\n';
  return kExitSuccess;
}

}  // namespace surge::app
