// Twin of cuda_gl_buffers.cu for builds without nvcc: interop is never available.
#include "render/cuda_gl_buffers.h"

namespace surge::render {

CudaGlBuffers::CudaGlBuffers(const ParticleBuffers&) {
  throw CudaGlInteropError("built without CUDA");
}
CudaGlBuffers::~CudaGlBuffers() = default;
CudaGlBuffers::Mapped CudaGlBuffers::map() {
  throw CudaGlInteropError("built without CUDA");
}
void CudaGlBuffers::unmap() {}

}  // namespace surge::render
