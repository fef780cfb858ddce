// An OpenGL context without a window or X server, through EGL: for `surge run --render` on servers and
// for the rendering tests. On a machine with an NVIDIA GPU it uses the EGL device platform and picks the
// EGL device that is the given CUDA device (so CUDA-GL interop works); elsewhere Mesa's surfaceless
// platform (llvmpipe). The context is current on the constructing thread; draw into an OffscreenTarget.
#pragma once

#include <string>

namespace surge::render {

class HeadlessGlContext {
 public:
  // cuda_device >= 0: prefer the EGL device that reports this CUDA device ordinal. Throws
  // std::runtime_error naming what is missing (libEGL, a GL 4.5 core context...).
  explicit HeadlessGlContext(int cuda_device = -1);
  ~HeadlessGlContext();
  HeadlessGlContext(const HeadlessGlContext&) = delete;
  HeadlessGlContext& operator=(const HeadlessGlContext&) = delete;

  // "EGL device platform (CUDA device 0), OpenGL 4.6.0 NVIDIA 580.159, NVIDIA H200/PCIe/SSE2"
  const std::string& description() const { return description_; }
  // Whether the context sits on the CUDA device that was asked for (interop can work).
  bool on_cuda_device() const { return on_cuda_device_; }

 private:
  void* display_ = nullptr;
  void* context_ = nullptr;
  void* surface_ = nullptr;
  bool on_cuda_device_ = false;
  std::string description_;
};

}  // namespace surge::render
