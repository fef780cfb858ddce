// Times copies enqueued on a stream (asynchronous, so the host cannot time them) with a pair of CUDA events,
// and enters each in the transfer ledger once it has finished. The hybrid backends' copies on their own
// streams go through it (hybrid_executor.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "sim/core/cuda_check.h"
#include "sim/core/transfer_ledger.h"

namespace surge {

class TransferClock {
 public:
  TransferClock() = default;
  ~TransferClock() {
    for (Pending& p : pending_) {
      cudaEventDestroy(p.start);
      cudaEventDestroy(p.stop);
    }
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
  }
  TransferClock(const TransferClock&) = delete;
  TransferClock& operator=(const TransferClock&) = delete;

  // Returns the start event, already recorded on `stream`.
  cudaEvent_t start(cudaStream_t stream) {
    cudaEvent_t e = take();
    SURGE_CUDA_CHECK(cudaEventRecord(e, stream));
    return e;
  }
  // The copies since `started` are done when the returned event is; `bytes` of them, for `reason`.
  cudaEvent_t stop(cudaEvent_t started, cudaStream_t stream, CopyDirection direction, std::size_t bytes,
                   const char* reason) {
    cudaEvent_t e = take();
    SURGE_CUDA_CHECK(cudaEventRecord(e, stream));
    pending_.push_back({started, e, direction, bytes, reason});
    return e;
  }
  // Enters the finished copies in the ledger; with `wait`, waits for all of them first.
  void flush(TransferLedger& ledger, bool wait) {
    std::vector<Pending> still;
    for (Pending& p : pending_) {
      if (!wait) {
        const cudaError_t done = cudaEventQuery(p.stop);
        if (done == cudaErrorNotReady) {
          still.push_back(p);
          continue;
        }
        SURGE_CUDA_CHECK(done);
      }
      SURGE_CUDA_CHECK(cudaEventSynchronize(p.stop));
      float ms = 0.0f;
      SURGE_CUDA_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
      ledger.record(p.direction, p.bytes, double(ms), p.reason);
      spare_.push_back(p.start);
      spare_.push_back(p.stop);
    }
    pending_.swap(still);
  }

 private:
  struct Pending {
    cudaEvent_t start, stop;
    CopyDirection direction;
    std::size_t bytes;
    const char* reason;
  };
  cudaEvent_t take() {
    if (!spare_.empty()) {
      cudaEvent_t e = spare_.back();
      spare_.pop_back();
      return e;
    }
    cudaEvent_t e = nullptr;
    SURGE_CUDA_CHECK(cudaEventCreate(&e));
    return e;
  }
  std::vector<Pending> pending_;
  std::vector<cudaEvent_t> spare_;
};

}  // namespace surge
