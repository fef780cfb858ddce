// The stages of a step (DESIGN.md, "One step") and their accumulated times. Every solver times the same
// stages, wherever it runs: steady clock on the CPU (run_timed), CUDA events on the GPU.
#pragma once

#include <array>
#include <chrono>

namespace surge {

// `transfer` is host<->device copying on the step's critical path (zero in the cpu and gpu modes; the
// classroom's hybrid modes fill it).
enum class Stage { index, density, forces, integration, other, transfer };
inline constexpr int kStageCount = 6;
inline constexpr std::array<const char*, kStageCount> kStageNames = {"index",       "density", "forces",
                                                                     "integration", "other",   "transfer"};

struct StageTimes {
  std::array<double, kStageCount> ms{};  // accumulated milliseconds per stage
  long steps = 0;                        // steps accumulated
  double total_ms() const {
    double t = 0;
    for (double s : ms) t += s;
    return t;
  }
};

// Bytes per step for each stage, indexed like kStageNames; 0 where nothing is modelled.
using StageBytes = std::array<double, kStageCount>;

// Runs `work` and adds its wall time to `stage` (host work only: a GPU launch returns before it is done).
template <typename Work>
void run_timed(StageTimes& times, Stage stage, Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  const auto stop = std::chrono::steady_clock::now();
  times.ms[int(stage)] += std::chrono::duration<double, std::milli>(stop - start).count();
}

}  // namespace surge
