// The classroom's hybrid modes (DESIGN.md, "One step"): the CPU builds the cell index, the GPU runs the
// physics passes. Their settings and the names their per-step copies carry in the transfer ledger, shared
// by the executors (hybrid_executor.cuh) and the entry points that make them.
//
//   hybrid          every step: positions down, the CPU sorts them by cell, the sorted order and cell starts
//                   go up, then the GPU reorders and steps. The bus and the CPU sit on the critical path.
//   hybrid-overlap  pinned host memory, copies on their own stream with events, and an index with a skin
//                   (sim/backend/skin_schedule.h): the CPU builds the next index in a worker thread while the
//                   GPU steps with the current one, so the index and the bus leave the critical path.
#pragma once

namespace surge {

struct HybridOptions {
  bool overlap = false;  // false: hybrid; true: hybrid-overlap
  // hybrid-overlap: the skin as a fraction of the kernel support (cells are (1 + skin_ratio) supports).
  float skin_ratio = 0.25f;
  long max_reuse_steps = 50;       // a cap on k, the steps an index is used for
  long fixed_reuse_steps = 0;      // > 0: use this k whatever the speeds (tests of the displacement check)
  bool check_displacement = true;  // false only in the test that shows what the check prevents
};

// Reasons as the ledger shows them; the tests look the per-step copies up by these names.
inline constexpr const char* kPositionsForIndexReason = "positions for the CPU index";
inline constexpr const char* kIndexFromCpuReason = "cell index from the CPU";
inline constexpr const char* kSkinCheckReason = "step status for the skin check";

}  // namespace surge
