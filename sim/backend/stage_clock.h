// Times CPU stages with a steady clock into StageTimes.
#pragma once

#include <chrono>

#include "sim/backend/simulation.h"

namespace surge {

template <typename Work>
void run_timed(StageTimes& times, Stage stage, Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  const auto stop = std::chrono::steady_clock::now();
  times.ms[int(stage)] += std::chrono::duration<double, std::milli>(stop - start).count();
}

}  // namespace surge
