// CUDA-GL interop for ParticleBuffers: the GL buffers are registered with CUDA once; each frame they
// are mapped once, written on the device (by the simulation), and unmapped before drawing. Nothing
// crosses the bus. Construction fails with CudaGlInteropError when the GL context is not on a CUDA
// device (e.g. error 304, cudaErrorOperatingSystem, when the display runs on another GPU); the caller
// then falls back to uploading from the host.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "sim/core/vec.h"

namespace surge::render {

class ParticleBuffers;

class CudaGlInteropError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CudaGlBuffers {
 public:
  // Registers buffers.position_buffer() and buffers.scalar_buffer(); re-create after the buffers grow.
  explicit CudaGlBuffers(const ParticleBuffers& buffers);
  ~CudaGlBuffers();
  CudaGlBuffers(const CudaGlBuffers&) = delete;
  CudaGlBuffers& operator=(const CudaGlBuffers&) = delete;

  struct Mapped {
    Vec4f* d_position = nullptr;  // device pointers, valid until unmap()
    float* d_scalar = nullptr;
    std::size_t position_bytes = 0, scalar_bytes = 0;
  };
  // Both buffers in one cudaGraphicsMapResources call; throws CudaGlInteropError on failure.
  Mapped map();
  void unmap();
  // The buffers this registration belongs to (to notice a reallocation).
  unsigned position_buffer() const { return position_buffer_; }

 private:
  void* resources_[2] = {nullptr, nullptr};  // cudaGraphicsResource_t
  unsigned position_buffer_ = 0;
  bool mapped_ = false;
};

}  // namespace surge::render
