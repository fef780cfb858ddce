// `surge validate spheric2`: SPHERIC Test 2 (Kleefsman et al. 2005, a dam break onto a box obstacle,
// scenes/spheric2_dam_break.toml) run with its gauges. Writes gauges.csv (time_s, H1..H4 [m], P1..P8 [Pa]),
// heights.svg/png (H1-H4), pressures.svg/png (P1-P4) and summary.json; prints the particles, spacing, wall
// time, each gauge's maximum and its time, the first arrivals at H1-H4, and the checks physics requires of
// any run (sim/validation/spheric2_validation.h). No experimental series is compared here.
#pragma once

#include <filesystem>
#include <string>

namespace CLI {
class App;
}

namespace surge::app {

struct Spheric2Options {
  std::string solver;  // empty: the scene's (wcsph)
  std::string backend = "auto";
  std::string mode;                  // --mode instead of --backend
  long particles = 0;                // > 0: target fluid particle count
  double spacing = 0;                // > 0: replaces the scene's spacing
  double time_s = 0;                 // > 0: end time; else the scene's (6 s)
  std::filesystem::path out_dir;     // empty: out/validate/spheric2
  std::filesystem::path scene_path;  // empty: scenes/spheric2_dam_break.toml
  bool quiet = false;
  std::string command_line;
};

// Adds `spheric2` to the `validate` command that add_validate_command made on `parent`; returns it.
CLI::App* add_validate_spheric2_command(CLI::App& parent, Spheric2Options& options);
// kExitSuccess when every check holds, kExitValidationFailed when one does not (the files are written),
// kExitUnstable when the run blew up (the samples before it are written and judged). Throws SceneError /
// InputError for bad input.
int run_validate_spheric2(const Spheric2Options& options);

}  // namespace surge::app
