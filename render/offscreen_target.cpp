#include "render/offscreen_target.h"

#include <glad/gl.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace surge::render {

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  GLint largest = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &largest);
  if (width <= 0 || height <= 0 || width > largest || height > largest) {
    throw std::runtime_error("image size " + std::to_string(width) + "x" + std::to_string(height) +
                             " is outside 1.." + std::to_string(largest) + " for this OpenGL");
  }
  glCreateRenderbuffers(1, &color_);
  glNamedRenderbufferStorage(color_, GL_RGBA8, width, height);
  glCreateRenderbuffers(1, &depth_);
  glNamedRenderbufferStorage(depth_, GL_DEPTH_COMPONENT24, width, height);
  glCreateFramebuffers(1, &framebuffer_);
  glNamedFramebufferRenderbuffer(framebuffer_, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
  glNamedFramebufferRenderbuffer(framebuffer_, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
  if (glCheckNamedFramebufferStatus(framebuffer_, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw std::runtime_error("offscreen framebuffer is incomplete");
  }
}

OffscreenTarget::~OffscreenTarget() {
  glDeleteFramebuffers(1, &framebuffer_);
  glDeleteRenderbuffers(1, &color_);
  glDeleteRenderbuffers(1, &depth_);
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glViewport(0, 0, width_, height_);
}

std::vector<std::uint8_t> OffscreenTarget::read_rgba() const {
  const std::size_t row = std::size_t(width_) * 4;
  std::vector<std::uint8_t> bottom_up(row * std::size_t(height_));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  // OpenGL's first row is the bottom one.
  std::vector<std::uint8_t> top_down(bottom_up.size());
  for (int y = 0; y < height_; ++y) {
    std::memcpy(&top_down[std::size_t(y) * row], &bottom_up[std::size_t(height_ - 1 - y) * row], row);
  }
  return top_down;
}

}  // namespace surge::render
