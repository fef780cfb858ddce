// Times the stages of GPU steps with CUDA events recorded on the stream: nothing waits while stepping, and
// the times are read back (and summed) only when asked. A step records a mark before its first stage and
// after each stage; `stages` names what lies between consecutive marks.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "sim/backend/simulation.h"
#include "sim/core/cuda_check.h"

namespace surge {

class StageEventTimer {
 public:
  explicit StageEventTimer(std::vector<Stage> stages) : stages_(std::move(stages)) {}
  ~StageEventTimer() {
    for (auto& set : pool_)
      for (cudaEvent_t e : set) cudaEventDestroy(e);
  }
  StageEventTimer(const StageEventTimer&) = delete;
  StageEventTimer& operator=(const StageEventTimer&) = delete;

  // Mark 0 starts a step; mark k ends stages_[k - 1].
  void mark(std::size_t which, cudaStream_t stream) {
    if (which == 0) {
      if (used_ == pool_.size()) {
        std::vector<cudaEvent_t> set(stages_.size() + 1);
        for (cudaEvent_t& e : set) SURGE_CUDA_CHECK(cudaEventCreate(&e));
        pool_.push_back(set);
      }
      ++used_;
    }
    SURGE_CUDA_CHECK(cudaEventRecord(pool_[used_ - 1][which], stream));
  }
  // Waits for the last step's end and adds every recorded step to `times`.
  void collect(StageTimes& times) {
    if (used_ == 0) return;
    SURGE_CUDA_CHECK(cudaEventSynchronize(pool_[used_ - 1].back()));
    for (std::size_t s = 0; s < used_; ++s)
      for (std::size_t m = 0; m < stages_.size(); ++m) {
        float ms = 0.0f;
        SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, pool_[s][m], pool_[s][m + 1]));
        times.ms[int(stages_[m])] += ms;
      }
    times.steps += long(used_);
    used_ = 0;
  }
  // Events are reused after a collect; a long run collects every 256 steps to bound the pool.
  bool full() const { return used_ >= 256; }
  void discard() { used_ = 0; }

 private:
  std::vector<Stage> stages_;
  std::vector<std::vector<cudaEvent_t>> pool_;
  std::size_t used_ = 0;
};

}  // namespace surge
