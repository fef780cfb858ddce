#include "render/png_writer.h"

#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <string>

#include "sim/io/exporters.h"

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace surge::render {
namespace {

void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<unsigned char>*>(context);
  const auto* bytes = static_cast<const unsigned char*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

void write_png(const std::filesystem::path& file, int width, int height,
               const std::vector<std::uint8_t>& rgba) {
  if (width <= 0 || height <= 0 || rgba.size() != std::size_t(width) * std::size_t(height) * 4) {
    throw std::runtime_error(file.string() + ": image size does not match its pixels");
  }
  std::vector<unsigned char> encoded;
  if (!stbi_write_png_to_func(append_bytes, &encoded, width, height, 4, rgba.data(), width * 4)) {
    throw std::runtime_error(file.string() + ": PNG encoding failed");
  }
  // Temporary name, errno's reason on failure and the second Ctrl-C's clean-up as for the exported frames.
  write_file_atomically(file, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(encoded.data()), std::streamsize(encoded.size()));
  });
}

}  // namespace surge::render
