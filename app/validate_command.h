// `surge validate dam-break`: the dam break of Martin & Moyce (1952) in a thin slab, compared with their
// measurements and those of Koshizuka & Oka (1996): the surge front Z(T) and the residual height eta(tau).
// Writes front.csv, height.csv, comparison.csv, summary.json, dam_break.svg and dam_break.png, prints each
// requirement with its tolerance, and returns kExitValidationFailed when one is not met (docs/validation.md).
#pragma once

#include <filesystem>
#include <string>

#include "sim/validation/dam_break_validation.h"

namespace CLI {
class App;
}

namespace surge::app {

struct ValidateOptions {
  std::string solver = "wcsph";
  int resolution = 20;  // particles across the column width a
  int depth = 0;        // particles across the slab (y); 0: automatic, default_slab_depth(resolution)
                        // (sim/validation/dam_break_slab.h)
  std::string backend = "auto";
  std::filesystem::path out_dir;     // empty: out/validation/dam_break_SOLVER_rN
  std::filesystem::path scene_path;  // empty: scenes/validation/dam_break_slab.toml
  std::filesystem::path data_dir;    // empty: assets/validation
  DamBreakTolerances tolerances;     // --z-tolerance, --max-shift, --slope-tolerance, --eta-tolerance
  bool quiet = false;
  std::string command_line;
};

// Adds `validate` with its subcommand `dam-break`; returns the `dam-break` subcommand.
CLI::App* add_validate_command(CLI::App& parent, ValidateOptions& options);
// Returns the exit code: kExitSuccess when every requirement holds, kExitValidationFailed when one does not,
// kExitUnstable when the run blew up. Throws SceneError / InputError for bad input.
int run_validate_dam_break(const ValidateOptions& options);
// Where it writes its files: --out, else out/validation/dam_break_SOLVER_rN.
std::filesystem::path validation_out_dir(const ValidateOptions& options);

}  // namespace surge::app
