#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
#include <glad/gl.h>  // before cuda_gl_interop.h, which would otherwise pull in a second GL header

#include <string>

#include "render/cuda_gl_buffers.h"
#include "render/particle_renderer.h"

namespace surge::render {
namespace {

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear it, so that the next CUDA call is not blamed for it
  throw CudaGlInteropError(std::string(call) + " failed: error " + std::to_string(int(status)) + " (" +
                           cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")");
}

}  // namespace

CudaGlBuffers::CudaGlBuffers(const ParticleBuffers& buffers) : position_buffer_(buffers.position_buffer()) {
  cudaGraphicsResource_t position = nullptr, scalar = nullptr;
  // WriteDiscard: CUDA overwrites the whole buffer each frame, so GL's old contents need not be kept.
  check(cudaGraphicsGLRegisterBuffer(&position, buffers.position_buffer(),
                                     cudaGraphicsRegisterFlagsWriteDiscard),
        "cudaGraphicsGLRegisterBuffer(positions)");
  const cudaError_t status =
      cudaGraphicsGLRegisterBuffer(&scalar, buffers.scalar_buffer(), cudaGraphicsRegisterFlagsWriteDiscard);
  if (status != cudaSuccess) {
    cudaGraphicsUnregisterResource(position);
    check(status, "cudaGraphicsGLRegisterBuffer(colour values)");
  }
  resources_[0] = position;
  resources_[1] = scalar;
}

CudaGlBuffers::~CudaGlBuffers() {
  if (mapped_) cudaGraphicsUnmapResources(2, reinterpret_cast<cudaGraphicsResource_t*>(resources_), nullptr);
  for (void* resource : resources_) {
    if (resource) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource));
  }
}

CudaGlBuffers::Mapped CudaGlBuffers::map() {
  auto* resources = reinterpret_cast<cudaGraphicsResource_t*>(resources_);
  check(cudaGraphicsMapResources(2, resources, nullptr), "cudaGraphicsMapResources");
  mapped_ = true;
  Mapped out;
  void* pointer = nullptr;
  check(cudaGraphicsResourceGetMappedPointer(&pointer, &out.position_bytes, resources[0]),
        "cudaGraphicsResourceGetMappedPointer(positions)");
  out.d_position = static_cast<Vec4f*>(pointer);
  check(cudaGraphicsResourceGetMappedPointer(&pointer, &out.scalar_bytes, resources[1]),
        "cudaGraphicsResourceGetMappedPointer(colour values)");
  out.d_scalar = static_cast<float*>(pointer);
  return out;
}

void CudaGlBuffers::unmap() {
  if (!mapped_) return;
  mapped_ = false;
  check(cudaGraphicsUnmapResources(2, reinterpret_cast<cudaGraphicsResource_t*>(resources_), nullptr),
        "cudaGraphicsUnmapResources");
}

}  // namespace surge::render
