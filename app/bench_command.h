// `surge bench SCENE`: steady-state throughput and per-stage times at one or more particle counts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/render_options.h"

namespace CLI {
class App;
}

namespace surge::app {

// Frames are timed at 1920x1080 unless --size says otherwise.
inline RenderOptions full_hd_look() {
  RenderOptions look;
  look.size = "1920x1080";
  return look;
}

struct BenchOptions {
  std::filesystem::path scene_path;
  std::string backend = "auto";
  std::vector<std::string> solvers;  // empty: the scene's; else each replaces it in turn (wcsph, dfsph, pbf)
  std::vector<long> particles;       // empty: the scene's own resolution
  long steps = 100;
  long warmup = 20;
  std::filesystem::path json_path;    // empty: no JSON
  std::string index_build = "radix";  // GPU cell index: "radix" (sort) or "counting" (atomics + scan)
  int cells_per_support = 0;          // 0: the scene's [resolution] cells_per_support; else replaces it
  std::string density;                // empty: the scene's; else WCSPH's "summation" or "continuity"
  std::vector<std::string> modes;     // empty: --backend decides; else execution modes to compare
  bool no_reorder = false;            // gpu mode: keep particles in creation order (lesson 3)
  std::string force_pass = "single";  // gpu mode: "single" (branchy) or "split" force pass (lesson 4)
  std::string cuda_graphs = "off";    // gpu mode: "on" replays each WCSPH step as a captured CUDA graph
  std::string neighbor_lists = "on";  // gpu mode: "off" has DFSPH and PBF walk the cells in every pass
  float skin = 0.25f;                 // hybrid-overlap: skin as a fraction of the kernel support
  std::filesystem::path plot_path;    // empty: no plot; else an SVG of stage bars and speedup vs N
  std::string command_line;           // recorded in the JSON, so a result can be reproduced
  bool render = false;                // also time frames: step + sphere rendering offscreen
  RenderOptions look = full_hd_look();
};

CLI::App* add_bench_command(CLI::App& parent, BenchOptions& options);
// Returns the process exit code; throws SceneError / InputError for bad input (main() maps them).
int run_bench(const BenchOptions& options);

}  // namespace surge::app
