// `surge modes`: which solver runs in which execution mode (cpu, hybrid, hybrid-overlap, gpu), read from the
// factory's table, with the reason for every gap and whether this machine has the GPU the other modes need.
#pragma once

#include <iosfwd>

namespace CLI {
class App;
}

namespace surge::app {

CLI::App* add_modes_command(CLI::App& parent);
// Prints the matrix; returns the exit code (always kExitSuccess).
int run_modes(std::ostream& out);

}  // namespace surge::app
