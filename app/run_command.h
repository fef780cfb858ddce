// `surge run SCENE`: a headless run from a scene file, with progress, exported frames and a summary.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "app/render_options.h"

namespace CLI {
class App;
}

namespace surge::app {

// What the command line says; zero or empty means "as the scene says".
struct RunOptions {
  std::filesystem::path scene_path;
  std::string backend = "auto";
  std::string solver;   // empty: the scene's; else replaces it (wcsph, dfsph, pbf)
  std::string density;  // empty: the scene's; else WCSPH's "summation" or "continuity"
  std::string mode;     // empty: --backend decides; else cpu, hybrid, hybrid-overlap or gpu
  float skin = 0.25f;   // hybrid-overlap: skin as a fraction of the kernel support
  long steps = 0;
  double time_s = 0.0;
  long particles = 0;
  std::string out_dir;
  std::vector<std::string> formats;
  int every = -1;
  double every_time_s = 0;       // --every-time: frames every T simulated seconds (replaces K steps)
  bool export_sync = false;      // --export-sync: download and write on the stepping thread (the old path)
  std::size_t export_queue = 2;  // overlapped export: frames snapshotted but not yet written
  bool quiet = false;
  // Checkpoints (app/run_checkpoints.h): every K steps or T simulated seconds, into checkpoint_path
  // (default OUT/NAME.checkpoint; given alone, only at the end and on Ctrl-C); resume_path continues one.
  long checkpoint_every = 0;
  double checkpoint_every_time_s = 0;
  std::filesystem::path checkpoint_path;
  std::filesystem::path resume_path;
  RenderOptions render;  // --render DIR / --video FILE and how frames look
};

// When a run writes frames: every K steps, or every T simulated seconds. The command line's --every or
// --every-time replaces whichever of output.every and output.every_time the scene gives.
struct FrameCadence {
  int every = 0;
  double every_time_s = 0;  // [s]; 0: by steps
};
FrameCadence frame_cadence(const RunOptions& options, int scene_every, float scene_every_time);

CLI::App* add_run_command(CLI::App& parent, RunOptions& options);
// Returns the process exit code; throws SceneError / InputError for bad input (main() maps them).
int run_scene(const RunOptions& options);

}  // namespace surge::app
