// What the host fixes in a step's launches, as bytes: the key a captured CUDA graph of the step is found
// by (sim/backend/cuda_step_graphs.h). A solver adds every value its launches take from the host (buffer
// addresses, counts, parameters by value, switches); two steps with equal keys launch the same kernels with
// the same arguments, so one graph serves both. Plain C++: the solvers build it on every executor.
#pragma once

#include <cstring>
#include <type_traits>
#include <vector>

namespace surge {

class StepGraphKey {
 public:
  // The bytes of `value`, padding included: a padding byte that differs costs a capture, never a wrong
  // replay.
  template <typename T>
  StepGraphKey& add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "a key holds values as the launches copy them");
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
    return *this;
  }
  bool operator==(const StepGraphKey&) const = default;

 private:
  std::vector<unsigned char> bytes_;
};

}  // namespace surge
