// WCSPH's hybrid modes (sim/backend/hybrid_options.h): the CPU builds the cell index, the GPU runs the
// physics passes. They are WcsphSolver on HybridExecutor and HybridOverlapExecutor (hybrid_executor.cuh,
// instantiated in wcsph_hybrid.cu): the same step as the cpu and gpu modes, every copy in the ledger.
#pragma once

#include <memory>

#include "sim/backend/hybrid_options.h"
#include "sim/backend/simulation.h"

namespace surge {

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
