// CUDA graphs of whole steps (issue 13: a step at 262k particles is launch-bound). A step is captured from
// its stream once per StepGraphKey (sim/core/step_graph_key.h) into a cudaGraph_t, instantiated, and then
// replayed by one cudaGraphLaunch where it took a launch per kernel.
//
// What a graph bakes in, and what makes a new one:
//   kernel arguments   the solver's key: buffer addresses (the reorder swaps each array with its scratch,
//                      so the addresses cycle and a run keeps one graph per phase of the cycle), counts,
//                      parameters by value (a live edit is a new key, so a new capture)
//   device addresses   any DeviceBuffer (re)allocation forgets every graph (device_allocation_count)
//   host effects       what a step changes on the host (the reorder's buffer swaps, the step count) is
//                      recorded with the graph while capturing and applied again at each replay
// The first step after an allocation runs uncaptured: it grows every buffer it needs (CUB's scratch, the
// index), so the captures that follow allocate nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/cuda_check.h"
#include "sim/core/device_buffer.h"
#include "sim/core/step_graph_key.h"

namespace surge {

class CudaStepGraphs {
 public:
  struct Graph {
    StepGraphKey key;
    cudaGraphExec_t executable = nullptr;
    std::vector<std::function<void()>> host_effects;  // applied at each replay, in the step's order
  };
  struct Counts {
    long captures = 0, replays = 0, uncaptured = 0;
  };

  CudaStepGraphs() = default;
  ~CudaStepGraphs() { destroy_all(); }
  CudaStepGraphs(const CudaStepGraphs&) = delete;
  CudaStepGraphs& operator=(const CudaStepGraphs&) = delete;

  // The graph captured for `key`, or null. Every graph is forgotten first when device memory was allocated
  // since they were captured. `stream` is the one they run on: it is waited for before a graph is destroyed.
  const Graph* find(const StepGraphKey& key, cudaStream_t stream) {
    if (captured_at_ != device_allocation_count()) forget(stream);
    for (const Graph& graph : graphs_)
      if (graph.key == key) return &graph;
    return nullptr;
  }

  // Whether a step has run uncaptured since the last allocation (settle()): then a capture allocates nothing.
  bool settled() const { return settled_at_ == device_allocation_count(); }
  void settle() {
    settled_at_ = device_allocation_count();
    ++counts_.uncaptured;
  }

  // Captures what `step` queues on `stream` (which must be idle of other captures) as the graph of `key`;
  // `recording` is where the step's host effects go while it runs. The step's work is queued, not run:
  // the caller launches the graph.
  template <typename Step>
  const Graph& capture(cudaStream_t stream, const StepGraphKey& key,
                       std::vector<std::function<void()>>*& recording, Step&& step) {
    if (graphs_.size() >= kMostGraphs) forget(stream);  // old parameters' graphs: start again
    Graph graph{key, nullptr, {}};
    // Relaxed: a buffer that must still grow (after an allocation elsewhere) may allocate mid-capture.
    SURGE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    recording = &graph.host_effects;
    try {
      step();
    } catch (...) {
      recording = nullptr;
      cudaGraph_t abandoned = nullptr;
      cudaStreamEndCapture(stream, &abandoned);
      if (abandoned != nullptr) cudaGraphDestroy(abandoned);
      throw;
    }
    recording = nullptr;
    cudaGraph_t captured = nullptr;
    SURGE_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
    const cudaError_t instantiated = cudaGraphInstantiate(&graph.executable, captured, 0);
    cudaGraphDestroy(captured);
    SURGE_CUDA_CHECK(instantiated);
    // An allocation during the capture leaves this graph right (it took the new addresses) and the others
    // stale.
    if (captured_at_ != device_allocation_count()) forget(stream);
    captured_at_ = device_allocation_count();
    ++counts_.captures;
    graphs_.push_back(std::move(graph));
    return graphs_.back();
  }

  // Launches `graph` on `stream` and applies its host effects.
  void replay(const Graph& graph, cudaStream_t stream) {
    SURGE_CUDA_CHECK(cudaGraphLaunch(graph.executable, stream));
    for (const std::function<void()>& effect : graph.host_effects) effect();
    ++counts_.replays;
  }
  void launch_captured(const Graph& graph, cudaStream_t stream) {
    SURGE_CUDA_CHECK(cudaGraphLaunch(graph.executable, stream));
  }

  Counts counts() const { return counts_; }

 private:
  // A WCSPH run cycles through 6 (or with continuity density 4) address phases; room for a few live edits.
  static constexpr std::size_t kMostGraphs = 24;

  void forget(cudaStream_t stream) {
    if (!graphs_.empty()) SURGE_CUDA_CHECK(cudaStreamSynchronize(stream));  // none may be in flight
    destroy_all();
    captured_at_ = device_allocation_count();
  }
  void destroy_all() {
    for (Graph& graph : graphs_) cudaGraphExecDestroy(graph.executable);
    graphs_.clear();
  }

  // std::vector reallocates: find() and capture() return references valid until the next capture.
  std::vector<Graph> graphs_;
  std::uint64_t captured_at_ = ~0ull;  // device_allocation_count() when the graphs held were captured
  std::uint64_t settled_at_ = ~0ull;   // ... when a step last ran uncaptured
  Counts counts_;
};

}  // namespace surge
