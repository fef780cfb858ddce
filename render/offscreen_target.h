// A framebuffer object to render into without a window: RGBA8 colour and a 24-bit depth buffer.
#pragma once

#include <cstdint>
#include <vector>

namespace surge::render {

class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);  // throws std::runtime_error if the FBO is incomplete
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  void bind() const;  // as the draw and read framebuffer
  int width() const { return width_; }
  int height() const { return height_; }
  // The colour buffer as RGBA bytes, rows from the top of the image down (as image files store them).
  std::vector<std::uint8_t> read_rgba() const;

 private:
  int width_, height_;
  unsigned framebuffer_ = 0, color_ = 0, depth_ = 0;
};

}  // namespace surge::render
