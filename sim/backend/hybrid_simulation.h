// The classroom's hybrid backends: the CPU builds the cell index, the GPU runs the physics passes.
//
//   hybrid          every step: positions down (pageable memory, synchronous copies), the CPU sorts them by
//                   cell, the sorted order and cell starts go up, then the GPU reorders and steps. The
//                   bus and the CPU sit on every step's critical path.
//   hybrid-overlap  pinned host memory, copies on their own stream with events, and an index with a skin
//                   (sim/backend/skin_schedule.h): the CPU builds the next index in a worker thread while
//                   the GPU steps with the current one, so the index and the bus leave the critical path.
//
// Both run the same kernels as the GPU-resident backend (sim/backend/wcsph_kernels.cuh) over the same
// single-source physics, and record every copy in the transfer ledger.
#pragma once

#include <memory>

#include "sim/backend/simulation.h"

namespace surge {

struct HybridOptions {
  bool overlap = false;  // false: hybrid; true: hybrid-overlap
  // hybrid-overlap: the skin as a fraction of the kernel support (cells are (1 + skin_ratio) supports).
  float skin_ratio = 0.25f;
  long max_reuse_steps = 50;       // a cap on k, the steps an index is used for
  long fixed_reuse_steps = 0;      // > 0: use this k whatever the speeds (tests of the displacement check)
  bool check_displacement = true;  // false only in the test that shows what the check prevents
};

// Throws std::runtime_error when the build has no CUDA backend or no GPU is present, and
// CapacityError when the particles do not fit. Starts at setup.fluid's time_s and step.
//
// Ledger reasons of the per-step copies: "positions for the CPU index" (down), "cell index from the CPU"
// (up: sorted order, then cell starts) and, in hybrid-overlap, "step status for the skin check" (down).
//
// step_figures(): "index_builds" (CPU index builds so far), "early_rebuilds" (builds forced by the
// displacement check), "position_downloads" and "index_uploads" (copies of each kind so far), and for
// hybrid-overlap "skin_m", "reuse_steps" (the current k), "cells" (of the skin grid), and
// "hidden_cpu_index_ms" (CPU index time that overlapped GPU work).
std::unique_ptr<Simulation> make_hybrid_simulation(const SphSetup& setup, const HybridOptions& options);

}  // namespace surge
